use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = calendar_events::cli::Cli::parse();
    calendar_events::cli::run(cli)
}
