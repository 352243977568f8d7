//! `calendar-bench`: fills a SQLite or PostgreSQL database with a realistic calendar for the
//! load tests of `bench/run.sh`, and samples it for their Lua scripts.
//!
//! The schema comes from `Store::open`, so the rows land in the tables, indexes and triggers
//! of the real migrations. The rows themselves go straight through the drivers in large
//! transactions: through the HTTP API a million events would take hours.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use base64::Engine;
use calendar_events::domain::permissions::{Role, User};
use calendar_events::http::auth_secret_hash;
use calendar_events::store::events::search_grams_fill;
use calendar_events::store::users::{self, CredentialKind};
use calendar_events::store::{Backend, Store};
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use rand::RngCore;
use tokio::sync::mpsc;

use crate::load::{Load, load_postgres, load_sqlite};
use crate::manifest::{manifest, text_rows};
use crate::rows::{EventRow, Gen, Shape};
use crate::vocabulary::{TAG_COUNT, WORDS};

mod hostile;
mod load;
mod manifest;
mod rows;
mod sweep;
mod tables;
mod vocabulary;

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type Result<T, E = BoxError> = std::result::Result<T, E>;

#[derive(Parser)]
#[command(
    name = "calendar-bench",
    about = "Benchmark data for calendar-events (see bench/README.md)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Creates the schema and fills it with N events and their venues, organizers and terms.
    Generate(GenerateArgs),
    /// Issues a fresh application password for the benchmark administrator and writes
    /// sample IDs and slugs for the load-test scripts into a directory.
    Manifest(ManifestArgs),
}

#[derive(Args)]
struct GenerateArgs {
    /// `sqlite://PATH` or `postgres://…`
    #[arg(long, env = "CALENDAR_DATABASE_URL")]
    database_url: String,
    /// Number of events: a number, or with a suffix such as 1k, 100k, 1m.
    #[arg(long, value_parser = parse_count)]
    events: u64,
    /// The same seed gives the same data set (dates are relative to the day it runs).
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Empties the database first (SQLite: deletes the file; PostgreSQL: drops the public schema).
    #[arg(long)]
    replace: bool,
    /// SQLite: keep the search-index triggers during the load instead of indexing all events
    /// in one statement at the end (much slower; only to compare the two).
    #[arg(long)]
    fts_triggers: bool,
    /// SQLite: run ANALYZE at the end. The server never does, so by default neither do we.
    #[arg(long)]
    analyze: bool,
    /// Login of the administrator created for the write scenarios.
    #[arg(long, default_value = "bench-admin")]
    admin_login: String,
    /// Events per transaction.
    #[arg(long, default_value_t = 100_000)]
    batch: usize,
    /// Also write the timings as JSON to this file.
    #[arg(long)]
    summary_json: Option<PathBuf>,
}

#[derive(Args)]
struct ManifestArgs {
    #[arg(long, env = "CALENDAR_DATABASE_URL")]
    database_url: String,
    /// Directory for the files (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// How many event IDs and slugs to sample.
    #[arg(long, default_value_t = 1000)]
    samples: usize,
    #[arg(long, default_value = "bench-admin")]
    admin_login: String,
}

fn parse_count(s: &str) -> std::result::Result<u64, String> {
    let s = s.trim().to_ascii_lowercase().replace('_', "");
    let (digits, factor) = match s.chars().last() {
        Some('k') => (&s[..s.len() - 1], 1_000),
        Some('m') => (&s[..s.len() - 1], 1_000_000),
        _ => (s.as_str(), 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(factor))
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("{s:?} is not a positive count such as 1000, 100k or 1m"))
}

fn main() {
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let outcome = runtime.block_on(async {
        match cli.command {
            Command::Generate(args) => generate(args).await,
            Command::Manifest(args) => manifest(args).await,
        }
    });
    if let Err(e) = outcome {
        eprintln!("calendar-bench: {e}");
        std::process::exit(1);
    }
}

fn is_postgres(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

fn sqlite_path(url: &str) -> PathBuf {
    PathBuf::from(
        url.strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
            .unwrap_or(url),
    )
}

async fn pg_connect(url: &str) -> Result<tokio_postgres::Client> {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            eprintln!("calendar-bench: PostgreSQL connection: {e}");
        }
    });
    Ok(client)
}

// ---------------------------------------------------------------------------------------
// The administrator the write scenarios authenticate as.

/// Same shape as the secrets `calendar-events user create` issues.
fn new_secret() -> String {
    let mut bytes = [0u8; 24];
    rand::rng().fill_bytes(&mut bytes);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The administrator `login` (created if missing) and a new application password for it.
async fn admin_with_password(store: &Store, login: &str) -> Result<(User, String)> {
    let now = chrono::Utc::now().timestamp();
    let existing = {
        let mut conn = store.pool.read().await?;
        users::by_login(&mut conn, login).await?
    };
    let secret = new_secret();
    let mut tx = store.pool.write().await?;
    let user = match existing {
        Some(u) => u,
        None => users::create(&mut tx, login, Role::Administrator, now).await?,
    };
    users::add_secret(
        &mut tx,
        user.id,
        CredentialKind::AppPassword,
        "bench",
        &auth_secret_hash(&secret),
        now,
    )
    .await?;
    tx.commit().await?;
    Ok((user, secret))
}

// ---------------------------------------------------------------------------------------
// generate

struct Timings {
    phases: Vec<(&'static str, Duration)>,
    started: Instant,
    last: Instant,
}

impl Timings {
    fn new() -> Timings {
        let now = Instant::now();
        Timings {
            phases: Vec::new(),
            started: now,
            last: now,
        }
    }
    fn lap(&mut self, phase: &'static str) {
        let now = Instant::now();
        self.phases.push((phase, now - self.last));
        self.last = now;
    }
}

fn spinner(message: &'static str) -> ProgressBar {
    let pb = ProgressBar::new_spinner().with_message(message);
    pb.enable_steady_tick(Duration::from_millis(200));
    pb
}

async fn generate(args: GenerateArgs) -> Result<()> {
    let url = args.database_url.clone();
    let postgres = is_postgres(&url);
    if args.replace {
        empty_database(&url, postgres).await?;
    }
    let mut timings = Timings::new();
    let store = Store::open(&url).await?;
    debug_assert_eq!(store.backend() == Backend::Postgres, postgres);
    // Explicit IDs from 1 up would collide with existing rows.
    let existing = text_rows(&url, "SELECT CAST(COUNT(*) AS TEXT) FROM posts").await?;
    if existing[0][0] != "0" {
        return Err(format!(
            "the database already holds {} posts; --replace empties it first",
            existing[0][0]
        )
        .into());
    }
    let (admin, password) = admin_with_password(&store, &args.admin_login).await?;
    // The loaders use their own connections; SQLite's journal mode can only change once
    // no other connection has the file open.
    drop(store);
    timings.lap("schema");

    let shape = Shape::new(args.events, admin.id);
    let mut generator = Gen::new(args.seed, shape);
    let terms = generator.terms();
    let venues = generator.venues();
    let organizers = generator.organizers();

    // Text generation runs on its own thread so that it overlaps the database work.
    let chunk = 2_000usize;
    let (tx, rx) = mpsc::channel::<Vec<EventRow>>(8);
    let producer = std::thread::spawn(move || {
        let mut next = 0u64;
        while next < shape.events {
            let end = (next + chunk as u64).min(shape.events);
            let events: Vec<EventRow> = (next..end).map(|i| generator.event(i)).collect();
            if tx.blocking_send(events).is_err() {
                return;
            }
            next = end;
        }
    });

    let pb = ProgressBar::new(args.events).with_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {human_pos}/{human_len} events ({per_sec}, eta {eta})",
        )
        .expect("progress template")
        .progress_chars("=> "),
    );
    let load = Load {
        shape,
        terms,
        venues,
        organizers,
        batch: args.batch.max(chunk),
        fts_triggers: args.fts_triggers,
        analyze: args.analyze,
        progress: pb,
    };
    if postgres {
        load_postgres(&url, load, rx, &mut timings).await?;
    } else {
        let path = sqlite_path(&url);
        timings = tokio::task::spawn_blocking(move || {
            load_sqlite(&path, load, rx, &mut timings).map(|()| timings)
        })
        .await??;
        index_queued_linked(&url).await?;
        timings.lap("venue and organizer search index, index of whole words");
    }
    producer
        .join()
        .map_err(|_| "the event generator panicked")?;

    report(&args, shape, &timings, postgres)?;
    println!(
        "administrator {} (id {}), application password (shown once):",
        admin.login, admin.id
    );
    println!("{password}");
    Ok(())
}

/// Empties the database a `--replace` names: its schema, or its file.
async fn empty_database(url: &str, postgres: bool) -> Result<()> {
    if postgres {
        pg_connect(url)
            .await?
            .batch_execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public;")
            .await?;
    } else {
        let path = sqlite_path(url);
        for suffix in ["", "-wal", "-shm"] {
            let mut p = path.clone().into_os_string();
            p.push(suffix);
            match std::fs::remove_file(&p) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
                _ => {}
            }
        }
    }
    Ok(())
}

/// The venues and organizers the load queued for search (migration 12), indexed as
/// the server's writer indexes its queue, on the store's own connection: the index
/// holds text lowered by the server's `lower()`, which the loader's connection lacks.
/// The events' characters and whole words alike (`search_grams_fill`).
async fn index_queued_linked(url: &str) -> Result<()> {
    let store = Store::open(url).await?;
    let mut tx = store.pool.write().await?;
    for sql in calendar_events::store::posts::INDEX_QUEUED_LINKED {
        tx.batch(sql).await?;
    }
    for sql in search_grams_fill(Backend::Sqlite) {
        tx.batch(sql).await?;
    }
    tx.commit().await?;
    drop(store);
    Ok(())
}

/// Prints what was generated and how long each phase took, and writes the summary
/// `--summary-json` asks for.
fn report(args: &GenerateArgs, shape: Shape, timings: &Timings, postgres: bool) -> Result<()> {
    let total = timings.started.elapsed();
    let mut line = format!(
        "generated {} events, {} venues, {} organizers, {} categories and {} tags in {:.1} s (",
        shape.events,
        shape.venues,
        shape.organizers,
        WORDS.categories.len(),
        TAG_COUNT,
        total.as_secs_f64()
    );
    for (i, (phase, d)) in timings.phases.iter().enumerate() {
        let _ = write!(
            line,
            "{}{phase} {:.1} s",
            if i > 0 { ", " } else { "" },
            d.as_secs_f64()
        );
    }
    line.push(')');
    println!("{line}");
    if let Some(file) = &args.summary_json {
        let phases: serde_json::Map<String, serde_json::Value> = timings
            .phases
            .iter()
            .map(|(p, d)| ((*p).to_string(), serde_json::json!(d.as_secs_f64())))
            .collect();
        let summary = serde_json::json!({
            "backend": if postgres { "postgres" } else { "sqlite" },
            "events": shape.events,
            "venues": shape.venues,
            "organizers": shape.organizers,
            "seed": args.seed,
            "fts_triggers": args.fts_triggers,
            "seconds": total.as_secs_f64(),
            "phases": phases,
        });
        std::fs::write(file, serde_json::to_string_pretty(&summary)? + "\n")?;
    }
    Ok(())
}
