use std::process::ExitCode;

use clap::Parser;

/// glibc's allocator locks an arena whenever memory is freed on another thread than
/// the one that allocated it, which async tasks moving between workers do all the time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = calendar_events::cli::Cli::parse();
    calendar_events::cli::run(cli)
}
