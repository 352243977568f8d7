use std::process::ExitCode;

/// glibc's allocator locks an arena whenever memory is freed on another thread than
/// the one that allocated it, which async tasks moving between workers do all the time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc's `mi_option_e` (the bindings name no constant).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() -> ExitCode {
    // Freed memory goes back to the system at once rather than after 10 ms: under
    // bursts of concurrent requests the delay let the peak RSS reach 70 MB at a
    // million events. It costs no measurable throughput (bench/HISTORY.md).
    // SAFETY: sets a global option before any thread but this one exists.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0) };
    // No transparent huge pages: mimalloc asks for them on its arena, and a page's
    // first small allocation then made 2 MiB resident; the memory freed inside it
    // went back in 4 KiB pieces, so the huge pages stayed. At a million events the
    // peak RSS of event pages reached 104-130 MiB with them, 52-65 MiB without
    // (bench/HISTORY.md). The build asks mimalloc for none (`no_thp`); this covers
    // hosts that give them unasked (`enabled` set to `always`) and SQLite's memory.
    // SAFETY: prctl with integer arguments only changes a flag of this process.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0)
    };
    let cli = calendar_events::cli::Cli::parse_args();
    calendar_events::cli::run(cli)
}
