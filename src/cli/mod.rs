//! The `calendar-events` command: `serve` (default), `migrate`, `user`, `token`.

mod serve;
mod users;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::config::{DatabaseArgs, ServeArgs};

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

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Serve the API (the default when no subcommand is given).
    Serve(Box<ServeArgs>),
    /// Create or upgrade the database schema, then exit.
    Migrate(DatabaseArgs),
    /// Manage users.
    #[command(subcommand)]
    User(UserCommand),
    /// Manage bearer tokens.
    #[command(subcommand)]
    Token(TokenCommand),
}

#[derive(Subcommand, Debug)]
pub enum UserCommand {
    /// Create a user; prints a new application password as the last line.
    Create {
        login: String,
        /// administrator, editor, author, contributor or subscriber.
        #[arg(long, value_parser = crate::domain::permissions::Role::NAMES)]
        role: String,
        #[command(flatten)]
        db: DatabaseArgs,
    },
    /// List users.
    List {
        #[command(flatten)]
        db: DatabaseArgs,
    },
    /// Delete a user and their credentials.
    Delete {
        login: String,
        #[command(flatten)]
        db: DatabaseArgs,
    },
}

#[derive(Subcommand, Debug)]
pub enum TokenCommand {
    /// Create a bearer token for a user; prints it as the last line.
    Create {
        login: String,
        /// A label to remember the token by.
        #[arg(long, default_value = "")]
        name: String,
        #[command(flatten)]
        db: DatabaseArgs,
    },
    /// Revoke a token or application password.
    Revoke {
        token: String,
        #[command(flatten)]
        db: DatabaseArgs,
    },
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
            Some(Command::Migrate(db)) => users::migrate(&db).await,
            Some(Command::User(cmd)) => users::user(cmd).await,
            Some(Command::Token(cmd)) => users::token(cmd).await,
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
