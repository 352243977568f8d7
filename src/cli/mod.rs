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
    /// Bring a calendar in: an `export` file, an iCalendar file or feed (`ics`), or
    /// a WordPress site running The Events Calendar (`tec`). A second run updates
    /// what the first created; into an empty calendar, items keep their IDs.
    Import(Box<ImportArgs>),
}

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ImportArgs {
    #[command(subcommand)]
    pub from: Option<ImportFrom>,
    /// A file written by `export` (or an iCalendar file).
    pub file: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub options: ImportOptions,
}

#[derive(Subcommand, Debug)]
pub enum ImportFrom {
    /// A site's Events Calendar REST API (v1): its address (home page, REST root
    /// or namespace). Reads categories, tags, venues, organizers and events of every
    /// date; with `--login`, of every status too.
    Tec {
        url: String,
        /// A user of that site (an editor or administrator sees every status).
        #[arg(long = "login", requires = "password")]
        site_login: Option<String>,
        /// That user's application password (WordPress: Users → Profile).
        #[arg(long, env = "CALENDAR_IMPORT_PASSWORD", hide_env_values = true)]
        password: Option<String>,
        /// Pages read at once from the site.
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=16))]
        concurrency: u16,
        #[command(flatten)]
        options: ImportOptions,
    },
    /// An iCalendar (RFC 5545) file, or feed URL (`https://`, `webcal://`).
    Ics {
        location: String,
        #[command(flatten)]
        options: ImportOptions,
    },
}

#[derive(clap::Args, Debug, Clone)]
pub struct ImportOptions {
    /// The administrator the items are written as (default: the first one).
    #[arg(long = "as")]
    pub as_login: Option<String>,
    /// Read and check everything, say what would be imported, and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

impl ImportArgs {
    /// The source named, and how to import it; `None` when none is named.
    fn source(self) -> Option<(transfer::Source, transfer::Options)> {
        let options = |o: ImportOptions| transfer::Options {
            login: o.as_login,
            dry_run: o.dry_run,
        };
        match (self.from, self.file) {
            (
                Some(ImportFrom::Tec {
                    url,
                    site_login,
                    password,
                    concurrency,
                    options: o,
                }),
                _,
            ) => {
                let credentials = site_login.map(|login| transfer::Credentials {
                    login,
                    password: password.unwrap_or_default(),
                });
                let source = transfer::Source::Tec {
                    url,
                    credentials,
                    concurrency: concurrency.into(),
                };
                Some((source, options(o)))
            }
            (
                Some(ImportFrom::Ics {
                    location,
                    options: o,
                }),
                _,
            ) => Some((transfer::Source::Ics(location), options(o))),
            (None, Some(file)) => Some((transfer::Source::File(file), options(self.options))),
            (None, None) => None,
        }
    }
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

/// The threads a server starts besides the runtime's workers. SQLite's long work
/// runs in `block_in_place` (`store::sqlite::blocking`), which hands the worker's
/// core to a thread of the blocking pool at every call, starting one when none is
/// idle: a burst of such calls (a thousand event pages computed at once, each
/// looking for its neighbours) started 35 to 39 threads within a second at a
/// million events, each keeping its stack and its allocator's caches while the
/// load went on (bench/HISTORY.md). No more calls can block at once than there are
/// SQLite connections, the readers and the writer, so these never wait for a
/// thread; one more is left for the rest (a PostgreSQL host name's lookup). A core
/// handed over waits only while all are busy, and the thread that handed it over
/// takes it back when it is done.
fn serve_blocking_threads() -> usize {
    crate::store::sqlite_readers() + 2
}

pub fn run(cli: Cli) -> ExitCode {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder.enable_all();
    if matches!(cli.command, None | Some(Command::Serve(_))) {
        builder.max_blocking_threads(serve_blocking_threads());
    }
    let runtime = match builder.build() {
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
            Some(Command::Import(args)) => match args.source() {
                Some((source, options)) => transfer::import(&cli.serve.db, source, options).await,
                None => Err("name what to import: a FILE, `ics FILE|URL` or `tec URL`".into()),
            },
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
