//! The `calendar-events` command: `serve` (default), `migrate`, `user`, `token`,
//! `export`, `import`.

mod serve;
pub mod transfer;
mod users;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches};

use crate::config::ServeArgs;

#[derive(Parser, Debug)]
#[command(
    name = "calendar-events",
    version,
    about = "A fast Calendar Events REST server (calendar/events/v1) on SQLite or PostgreSQL"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub serve: ServeArgs,
}

impl Cli {
    /// Parses the command line, or exits with clap's message. `serve`'s options
    /// written before another subcommand's name would be ignored by it, so they
    /// are refused rather than dropped; `--database-url` works in either place.
    pub fn parse_args() -> Cli {
        Cli::parse_from_args(std::env::args_os()).unwrap_or_else(|e| e.exit())
    }

    pub fn parse_from_args<I, T>(args: I) -> Result<Cli, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let mut command = Cli::command();
        let matches = command.try_get_matches_from_mut(args)?;
        let cli = Cli::from_arg_matches(&matches)?;
        let Some(sub) = matches.subcommand_name() else {
            return Ok(cli);
        };
        let misplaced = command.get_arguments().find(|a| {
            !a.is_global_set()
                && matches.value_source(a.get_id().as_str()) == Some(ValueSource::CommandLine)
        });
        match misplaced {
            Some(arg) => Err(command.error(
                clap::error::ErrorKind::ArgumentConflict,
                match sub {
                    "serve" => format!("--{} goes after `serve`", long_name(arg)),
                    _ => format!(
                        "--{} applies to `serve` only, not to `{sub}`",
                        long_name(arg)
                    ),
                },
            )),
            None => Ok(cli),
        }
    }
}

fn long_name(arg: &clap::Arg) -> &str {
    arg.get_long().unwrap_or(arg.get_id().as_str())
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Serve the API (the default when no subcommand is given).
    Serve(Box<ServeArgs>),
    /// Create or upgrade the database schema, then exit.
    Migrate,
    /// Manage users.
    #[command(subcommand)]
    User(UserCommand),
    /// Manage bearer tokens.
    #[command(subcommand)]
    Token(TokenCommand),
    /// Write every category, tag, venue, organizer and event, of every status, as
    /// JSON lines of the API's representations (what `import` reads).
    Export {
        /// The file to write (default: standard output).
        #[arg(long)]
        output: Option<std::path::PathBuf>,
        /// The site URL its server uses (default: `CALENDAR_SITE_URL`, as `serve`
        /// reads it). Posts' `global_id`s name the site, and `import` recognises
        /// what it imported before by them: exports of two sites must differ here.
        #[arg(long = "site")]
        site: Option<String>,
        /// `jsonl` (what `import` reads) or `ics` (the events, for calendar applications).
        #[arg(long, default_value = "jsonl", value_parser = ["jsonl", "ics"])]
        format: String,
    },
    /// Create everything an `export` holds in this calendar, linked as it was.
    Import {
        /// A file written by `export`.
        file: std::path::PathBuf,
        /// The administrator the items are written as (default: the first one).
        #[arg(long = "as")]
        login: Option<String>,
    },
}

#[derive(Subcommand, Debug)]
pub enum UserCommand {
    /// Create a user; prints a new application password as the last line.
    Create {
        login: String,
        /// administrator, editor, author, contributor or subscriber.
        #[arg(long, value_parser = crate::domain::permissions::Role::NAMES)]
        role: String,
    },
    /// List users.
    List,
    /// Delete a user and their credentials.
    Delete { login: String },
}

#[derive(Subcommand, Debug)]
pub enum TokenCommand {
    /// Create a bearer token for a user; prints it as the last line.
    Create {
        login: String,
        /// A label to remember the token by.
        #[arg(long, default_value = "")]
        name: String,
    },
    /// Revoke a token or application password.
    Revoke { token: String },
}

pub fn run(cli: Cli) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        match cli.command {
            None => serve::run(cli.serve).await,
            Some(Command::Serve(args)) => serve::run(*args).await,
            Some(Command::Migrate) => users::migrate(&cli.serve.db).await,
            Some(Command::User(cmd)) => users::user(cmd, &cli.serve.db).await,
            Some(Command::Token(cmd)) => users::token(cmd, &cli.serve.db).await,
            Some(Command::Export {
                output,
                site,
                format,
            }) => transfer::export(&cli.serve.db, output, site, &format).await,
            Some(Command::Import { file, login }) => {
                transfer::import(&cli.serve.db, file, login).await
            }
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
