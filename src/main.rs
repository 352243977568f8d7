use std::process::ExitCode;

/// jemalloc serves the whole process: Rust's allocations and, through `malloc`, SQLite's
/// page caches, from one arena (see [`malloc_conf`]). Under the 90/10 `mix` at a million
/// events and 64 connections, mimalloc peaked at 88-92 MiB and glibc's allocator at 61-101
/// MiB (5,300 requests/s with one arena, a third less); jemalloc so peaks at 67-70 MiB, as
/// fast as mimalloc (bench/HISTORY.md, 2026-11-28).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options, read before `main` (the `MALLOC_CONF` environment variable
/// still overrides them). One arena: the server runs as many workers as cores, and
/// each thread's cache takes most allocations without a lock; every other arena
/// would keep freed pages of its own. Freed pages go back to the system after a
/// second (`dirty_decay_ms`) — at once, the returns cost a fifth of the throughput —
/// and are not kept lazily-freed in between (`muzzy_decay_ms`), which would still
/// count in the resident size.
#[allow(non_upper_case_globals)]
#[unsafe(no_mangle)]
pub static malloc_conf: Option<&u8> = Some(&b"narenas:1,dirty_decay_ms:1000,muzzy_decay_ms:0\0"[0]);

fn main() -> ExitCode {
    // No transparent huge pages: one small allocation in a huge page makes 2 MiB
    // resident, and memory freed inside it goes back in 4 KiB pieces, so the huge
    // pages stay. At a million events the peak RSS of event pages reached 104-130
    // MiB with them, 52-65 MiB without (bench/HISTORY.md). This covers hosts that
    // give them unasked (`enabled` set to `always`).
    // SAFETY: prctl with integer arguments only changes a flag of this process.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0)
    };
    let cli = calendar_events::cli::Cli::parse_args();
    calendar_events::cli::run(cli)
}
