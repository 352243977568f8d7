//! `export` and `import`: a whole calendar as JSON lines of the API's own
//! representations, and back; iCalendar files and feeds; and a WordPress site's
//! Events Calendar read through its REST API (`import tec`). Moves between
//! instances (SQLite to PostgreSQL, one host to another), backups and migrations.
//!
//! Every source comes down to items as the API represents them, written by
//! [`write::Importer`] through the API's own argument checks and use cases.
//! Where each item came from is kept (`store::imports`), so a second run updates
//! what the first created and an interrupted run resumes. Into an empty calendar
//! the items keep their source's IDs, so old `/events/{id}` links stay valid.

mod progress;
mod tec;
mod write;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use tec::Credentials;
pub use write::{Imported, Importer, parse_lines};

use crate::config::{DatabaseArgs, Settings};
use crate::domain::ics_import::{IcsEvent, events_of};
use crate::domain::permissions::{Role, User};
use crate::http::transfer::KINDS;
use crate::service::Service;

/// Where an import reads from.
pub enum Source {
    /// A file `export` wrote, or an iCalendar file (told apart by their content).
    File(PathBuf),
    /// An iCalendar file or URL.
    Ics(String),
    /// A site serving The Events Calendar's REST API (or this server's).
    Tec {
        url: String,
        credentials: Option<Credentials>,
        concurrency: usize,
    },
}

/// How an import runs.
pub struct Options {
    /// The local administrator the items are written as (default: the first one).
    pub login: Option<String>,
    /// Read and check everything; write nothing here.
    pub dry_run: bool,
}

/// What a source holds, read.
enum Items {
    /// Items as the API represents them, `(kind, item)` in write order.
    Represented(Vec<(usize, Value)>),
    /// The events of an iCalendar file, read once.
    Ics(Vec<IcsEvent>),
}

async fn open(db: &DatabaseArgs) -> Result<Service, String> {
    Service::open_for_admin(&db.database_url)
        .await
        .map_err(|e| e.to_string())
}

/// `calendar-events export [--output FILE] [--site URL] [--format jsonl|ics]`.
pub async fn export(
    db: &DatabaseArgs,
    output: Option<PathBuf>,
    site: Option<String>,
    format: &str,
) -> Result<(), String> {
    let service = open(db).await?;
    let settings = match site {
        Some(url) => Settings::for_site(&url),
        None => Settings::default(),
    };
    let mut out: Box<dyn std::io::Write> = match output {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    if format == "ics" {
        let n = crate::http::transfer::export_ics(&service, &settings, &mut out).await?;
        eprintln!("event: {n} exported");
    } else {
        let done = crate::http::transfer::export(&service, &settings, &mut out).await?;
        for (kind, n) in KINDS.iter().zip(done.counts) {
            eprintln!("{kind}: {n} exported");
        }
    }
    out.flush().map_err(|e| format!("writing the export: {e}"))
}

/// `calendar-events import FILE | ics FILE|URL | tec URL`.
pub async fn import(db: &DatabaseArgs, source: Source, options: Options) -> Result<(), String> {
    let service = open(db).await?;
    let user = administrator(&service, options.login.as_deref()).await?;
    let (items, unread) = read(source).await?;
    let mut done = match options.dry_run {
        false => import_into(&service, user, &items).await?,
        true => dry_run(&service, &items).await?,
    };
    done.failed.extend(unread);
    report(&done, options.dry_run)
}

async fn administrator(service: &Service, login: Option<&str>) -> Result<User, String> {
    let users = service.users().await.map_err(|e| e.to_string())?;
    let user = users
        .into_iter()
        .find(|u| match login {
            Some(l) => u.login == l,
            None => u.role == Role::Administrator,
        })
        .ok_or("no such administrator: create one with `user create LOGIN --role administrator`")?;
    match user.role {
        Role::Administrator => Ok(user),
        _ => Err(format!("{} is not an administrator", user.login)),
    }
}

/// The items a source holds, and those it names but would not give (kind, ID, why).
async fn read(source: Source) -> Result<(Items, Vec<(String, i64, String)>), String> {
    let text = match source {
        Source::File(path) => read_file(&path)?,
        Source::Ics(location) => {
            let text = read_location(location).await?;
            return Ok((Items::Ics(events_of(&text)?), vec![]));
        }
        Source::Tec {
            url,
            credentials,
            concurrency,
        } => {
            let read = tokio::task::spawn_blocking(move || {
                tec::Site::discover(&url, credentials, concurrency)?.read_all()
            })
            .await
            .map_err(|e| format!("reading the site: {e}"))??;
            return Ok((Items::Represented(read.items), read.unread));
        }
    };
    // An iCalendar file, or the JSON lines of an export.
    let items = match text.trim_start().starts_with("BEGIN:VCALENDAR") {
        true => Items::Ics(events_of(&text)?),
        false => Items::Represented(parse_lines(&text)?),
    };
    Ok((items, Vec::new()))
}

fn read_file(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// An iCalendar file's text, from a path or an `http(s)://` (or `webcal://`) URL.
async fn read_location(location: String) -> Result<String, String> {
    let url = match location.strip_prefix("webcal://") {
        Some(rest) => format!("https://{rest}"),
        None => location.clone(),
    };
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return read_file(Path::new(&location));
    }
    tokio::task::spawn_blocking(move || tec::fetch_text(&url))
        .await
        .map_err(|e| format!("reading {location}: {e}"))?
}

/// Imports the JSON lines of an export into `service`, as `user` (an administrator).
pub async fn import_lines(service: &Service, user: User, text: &str) -> Result<Imported, String> {
    import_into(service, user, &Items::Represented(parse_lines(text)?)).await
}

/// Imports an iCalendar file's events into `service`, as `user` (an administrator).
pub async fn import_ics(service: &Service, user: User, text: &str) -> Result<Imported, String> {
    import_into(service, user, &Items::Ics(events_of(text)?)).await
}

/// Writes every item into `service`, keeping the source's IDs when it is empty.
async fn import_into(service: &Service, user: User, items: &Items) -> Result<Imported, String> {
    let failed = |e: crate::service::Error| e.to_string();
    let keep_ids = matches!(items, Items::Represented(_))
        && service.calendar_is_empty().await.map_err(failed)?;
    let mut importer = Importer::new(service, user, keep_ids);
    if keep_ids && let Items::Represented(list) = items {
        let (posts, terms) = write::largest_ids(list.iter().map(|(k, v)| (*k, v)));
        service.number_after(posts, terms).await.map_err(failed)?;
    }
    write_all(&mut importer, items).await?;
    if matches!(items, Items::Represented(_)) {
        importer.done.kept_ids = Some(keep_ids);
    }
    if keep_ids {
        // Later creates continue after the largest ID the import wrote.
        service.number_after(0, 0).await.map_err(failed)?;
    }
    // A category it moved in steps has its events' keys in line before the command
    // exits (a server would resume them only at its next start).
    let _ = service.finish_work_in_steps().await;
    Ok(importer.done)
}

async fn write_all(importer: &mut Importer<'_>, items: &Items) -> Result<(), String> {
    match items {
        Items::Represented(list) => {
            let bar = progress::bar("writing", list.len() as u64);
            for (kind, item) in list {
                importer.add(*kind, item).await?;
                bar.inc(1);
            }
            bar.finish_and_clear();
        }
        Items::Ics(events) => {
            for (n, e) in events.iter().enumerate() {
                let source = ics_source(e);
                importer
                    .add_ics_event(source.as_deref(), e.body.clone(), n + 1)
                    .await?;
            }
        }
    }
    Ok(())
}

/// Checks every item by importing it into a scratch calendar, and counts as
/// updates the items an earlier import already brought here.
async fn dry_run(service: &Service, items: &Items) -> Result<Imported, String> {
    let dir = std::env::temp_dir().join(format!(
        "calendar-events-dry-run-{}-{}",
        std::process::id(),
        chrono::Utc::now().timestamp_micros()
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let checked = check_in_scratch(&dir, items).await;
    // The scratch calendar goes whatever happened in it.
    let _ = std::fs::remove_dir_all(&dir);
    let mut done = checked?;
    if done.kept_ids.is_some() {
        let empty = service
            .calendar_is_empty()
            .await
            .map_err(|e| e.to_string())?;
        done.kept_ids = Some(empty);
    }
    let known = earlier_imports(service, items).await?;
    for (kind, earlier) in known.into_iter().enumerate() {
        done.created[kind] = done.created[kind].saturating_sub(earlier);
        done.updated[kind] = earlier;
    }
    Ok(done)
}

async fn check_in_scratch(dir: &Path, items: &Items) -> Result<Imported, String> {
    let url = format!("sqlite://{}", dir.join("scratch.db").display());
    let scratch = Service::open_for_admin(&url)
        .await
        .map_err(|e| e.to_string())?;
    let (user, _) = scratch
        .create_user("dry-run", Role::Administrator)
        .await
        .map_err(|e| e.to_string())?;
    import_into(&scratch, user, items).await
}

/// Per kind, how many items an earlier import brought here from the same source.
async fn earlier_imports(service: &Service, items: &Items) -> Result<[u64; 5], String> {
    let mut known = [0u64; 5];
    let mut count = async |kind: usize, source: Option<String>| -> Result<(), String> {
        if let Some(src) = source
            && service
                .imported_as(KINDS[kind], &src)
                .await
                .map_err(|e| e.to_string())?
                .is_some()
        {
            known[kind] += 1;
        }
        Ok(())
    };
    match items {
        Items::Represented(list) => {
            for (kind, item) in list {
                count(*kind, write::source_of(*kind, item).map(str::to_string)).await?;
            }
        }
        Items::Ics(events) => {
            for e in events {
                count(4, ics_source(e)).await?;
            }
        }
    }
    Ok(known)
}

/// What identifies an iCalendar event across imports: its `UID`.
fn ics_source(e: &IcsEvent) -> Option<String> {
    e.uid.as_ref().map(|u| format!("ics:{u}"))
}

/// One line per kind; every item not imported, and why, on standard error.
fn report(done: &Imported, dry_run: bool) -> Result<(), String> {
    let (created, updated) = match dry_run {
        true => ("would be imported", "would be updated"),
        false => ("imported", "updated"),
    };
    for (i, kind) in KINDS.iter().enumerate() {
        let failed = done.failed.iter().filter(|f| f.0 == *kind).count();
        let (c, u) = (done.created[i], done.updated[i]);
        println!("{kind}: {c} {created}, {u} {updated}, {failed} not");
    }
    match done.kept_ids {
        Some(true) => println!("ids: kept from the source (the calendar was empty)"),
        // Only what is created gets an ID; what a re-run updates keeps its own.
        Some(false) if done.created.iter().any(|n| *n > 0) => {
            println!("ids: new ones, links follow them (the calendar had items)")
        }
        Some(false) => {}
        None => {}
    }
    for (kind, id, why) in &done.failed {
        eprintln!("not imported: {kind} {id}: {why}");
    }
    match done.failed.is_empty() {
        true => Ok(()),
        false => Err(format!("{} items not imported", done.failed.len())),
    }
}
