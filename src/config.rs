//! Server settings: every one a flag with an environment twin.

use clap::Args;

#[derive(Args, Clone, Debug)]
pub struct DatabaseArgs {
    /// Database URL: `sqlite://PATH` (created if missing) or `postgres://USER@HOST/DB`.
    /// Every subcommand takes it, before or after the subcommand's name.
    #[arg(
        long,
        env = "CALENDAR_DATABASE_URL",
        default_value = "sqlite://calendar.db",
        global = true
    )]
    pub database_url: String,
}

#[derive(Args, Clone, Debug)]
pub struct ServeArgs {
    #[command(flatten)]
    pub db: DatabaseArgs,

    /// Address and port to listen on.
    #[arg(long, env = "CALENDAR_BIND", default_value = "127.0.0.1:8080")]
    pub bind: String,

    /// Public URL of the site, used in `url`, `rest_url` and `global_id` [default: http://<bind>].
    #[arg(long, env = "CALENDAR_SITE_URL")]
    pub site_url: Option<String>,

    /// Prefix before the namespace, e.g. `/wp-json` [default: none].
    #[arg(long, env = "CALENDAR_REST_ROOT", default_value = "")]
    pub rest_root: String,

    /// Site time zone (IANA name), for dates given without an offset.
    #[arg(long, env = "CALENDAR_TIMEZONE", default_value = "UTC")]
    pub timezone: chrono_tz::Tz,

    /// Items per page when a list request names none.
    #[arg(long, env = "CALENDAR_PER_PAGE_DEFAULT", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub per_page_default: u64,

    /// Largest `per_page` honoured; larger values are clamped.
    #[arg(long, env = "CALENDAR_PER_PAGE_MAX", default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub per_page_max: u64,

    /// Languages served under `/{lang}/...` (`en` is also served without a segment).
    #[arg(
        long,
        env = "CALENDAR_LANGUAGES",
        default_value = "en,fr,de,es",
        value_delimiter = ','
    )]
    pub languages: Vec<String>,

    /// The calendar's name: iCalendar feeds' `X-WR-CALNAME`.
    #[arg(long, env = "CALENDAR_SITE_TITLE", default_value = "Events")]
    pub site_title: String,

    /// One line about the calendar: iCalendar feeds' `X-WR-CALDESC`.
    #[arg(
        long,
        env = "CALENDAR_SITE_DESCRIPTION",
        default_value = "Upcoming events"
    )]
    pub site_description: String,

    /// A stylesheet the calendar's pages load after their own, to brand them
    /// (a path on this site or an absolute URL, whose origin the pages'
    /// Content-Security-Policy then allows).
    #[arg(long, env = "CALENDAR_SITE_STYLESHEET")]
    pub site_stylesheet: Option<String>,

    /// Most events in one iCalendar feed; a feed whose window holds more is cut
    /// (and says so) after the earliest this many. The reference exports 30, since
    /// calendar applications fail on long files, and each event costs the server a
    /// full read and write-out (docs/feeds.md, "Why 100").
    #[arg(long, env = "CALENDAR_FEED_MAX_EVENTS", default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub feed_max_events: u64,

    /// How many matches a search of events, venues or organizers counts: past them,
    /// its total is a floor (`X-Calendar-Total: at-least`; docs/departures.md).
    /// Higher costs searches for common words time at a million events.
    #[arg(long, env = "CALENDAR_SEARCH_COUNT_LIMIT", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(10..=10_000_000))]
    pub search_count_limit: u64,

    /// How many matches of a search of events its pages reach (at least as many as
    /// it counts): a deeper page is refused (`rest_search_too_deep`), since each
    /// page walks every match before it (docs/departures.md).
    #[arg(long, env = "CALENDAR_SEARCH_DEPTH", default_value_t = crate::domain::event::SEARCH_DEPTH, value_parser = clap::value_parser!(u64).range(10..=10_000_000))]
    pub search_depth: u64,

    /// Days the tombstones of deleted posts and terms are kept for incremental sync
    /// (`modified_after`, `cursor`); a mirror that comes back later starts over.
    #[arg(long, env = "CALENDAR_TOMBSTONE_DAYS", default_value_t = crate::domain::sync::DEFAULT_RETENTION_DAYS, value_parser = clap::value_parser!(u32).range(1..=36_500))]
    pub tombstone_days: u32,

    /// A category or tag of more events than this is deleted, a category of more
    /// events below it moved, and a venue or organizer of more events trashed, in
    /// steps: the term or post changes at once, its events follow this many per
    /// transaction in the background.
    #[arg(long, alias = "term-batch", env = "CALENDAR_STEP_BATCH", default_value_t = 500, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub step_batch: u64,

    /// Answer `_jsonp=callback` requests as JavaScript, as WordPress can. Off by
    /// default: any web page a visitor opens could then read what the visitor's
    /// browser may read here.
    #[arg(long, env = "CALENDAR_JSONP", default_value_t = false)]
    pub jsonp: bool,

    /// Serve the API under The Events Calendar's namespace `tribe/events/v1` too
    /// (index, `/doc`, every route, and the URLs they hand out), so that clients
    /// written for a WordPress site only change their host.
    #[arg(long, env = "CALENDAR_TRIBE_NAMESPACE", default_value_t = false)]
    pub tribe_namespace: bool,

    /// Log format: `text` or `json`.
    #[arg(long, env = "CALENDAR_LOG_FORMAT", default_value = "text", value_parser = ["text", "json"])]
    pub log_format: String,

    /// Largest request body accepted, in bytes.
    #[arg(long, env = "CALENDAR_MAX_BODY_BYTES", default_value_t = 1024 * 1024)]
    pub max_body_bytes: usize,

    /// Longest string accepted in any argument, in bytes.
    #[arg(long, env = "CALENDAR_MAX_STRING_BYTES", default_value_t = 64 * 1024)]
    pub max_string_bytes: usize,

    /// Most items in any list argument (organizers, terms, IDs, tickets…).
    #[arg(long, env = "CALENDAR_MAX_LIST_ITEMS", default_value_t = 100)]
    pub max_list_items: usize,

    /// Deepest nesting accepted in structured arguments (inline venues, tickets…).
    #[arg(long, env = "CALENDAR_MAX_JSON_DEPTH", default_value_t = 4)]
    pub max_json_depth: usize,

    /// Seconds a request may take before it is answered with 503.
    #[arg(long, env = "CALENDAR_REQUEST_TIMEOUT_SECS", default_value_t = 30)]
    pub request_timeout_secs: u64,

    /// Requests handled at once; more wait their turn (within the timeout). A
    /// request takes its turn once its body has arrived, and `/health` needs none.
    #[arg(long, env = "CALENDAR_MAX_CONCURRENT_REQUESTS", default_value_t = 1024)]
    pub max_concurrent_requests: usize,

    /// Seconds a client has to send a request's body once its headers are in;
    /// slower ones are answered `408 rest_request_timeout`.
    #[arg(long, env = "CALENDAR_BODY_READ_TIMEOUT_SECS", default_value_t = 10)]
    pub body_read_timeout_secs: u64,

    /// Seconds a client has to send a request's headers (defends against slow clients).
    #[arg(long, env = "CALENDAR_HEADER_READ_TIMEOUT_SECS", default_value_t = 10)]
    pub header_read_timeout_secs: u64,

    /// Largest request head (request line and headers) accepted, in bytes.
    #[arg(long, env = "CALENDAR_MAX_HEADER_BYTES", default_value_t = 64 * 1024)]
    pub max_header_bytes: usize,

    /// Open connections at most; further clients wait in the listen backlog.
    #[arg(long, env = "CALENDAR_MAX_CONNECTIONS", default_value_t = 4096)]
    pub max_connections: usize,

    /// Open connections at most from one client address (the connection's, even
    /// behind `--trust-forwarded-for`); further ones are closed at once. `0` lifts
    /// the cap, for a server that sees only its reverse proxy's address.
    #[arg(
        long,
        env = "CALENDAR_MAX_CONNECTIONS_PER_ADDRESS",
        default_value_t = 256
    )]
    pub max_connections_per_address: usize,

    /// Failed authentications allowed per client address and per login in a window;
    /// beyond it, requests get 429 until the window ends.
    #[arg(long, env = "CALENDAR_AUTH_FAILURE_LIMIT", default_value_t = 10)]
    pub auth_failure_limit: u32,

    /// Length of the failed-authentication window, in seconds.
    #[arg(long, env = "CALENDAR_AUTH_FAILURE_WINDOW_SECS", default_value_t = 300)]
    pub auth_failure_window_secs: u64,

    /// Take the client address from `X-Forwarded-For` (only behind a trusted proxy).
    #[arg(long, env = "CALENDAR_TRUST_FORWARDED_FOR", default_value_t = false)]
    pub trust_forwarded_for: bool,

    /// Memory for cached anonymous GET responses, in MiB; 0 disables the cache.
    #[arg(long, env = "CALENDAR_RESPONSE_CACHE_MB", default_value_t = 12)]
    pub response_cache_mb: usize,

    /// SQLite: MiB of the database file each reader connection maps into memory
    /// (SQLite's `mmap_size`); 0 maps none. Mapped pages are read in place instead
    /// of copied from the OS page cache (uncached searches take half to three
    /// quarters of the time), and the process's RSS then counts those it has read:
    /// they are the OS's page cache, shared and reclaimable, not memory the server
    /// allocates.
    #[arg(long, env = "CALENDAR_SQLITE_MMAP_MB", default_value_t = 0)]
    pub sqlite_mmap_mb: u64,

    /// Origins allowed by CORS, comma-separated, or `*`; empty sends no CORS headers.
    #[arg(
        long,
        env = "CALENDAR_CORS_ORIGINS",
        default_value = "",
        value_delimiter = ','
    )]
    pub cors_origins: Vec<String>,
}

/// The settings the HTTP layer needs, resolved once at start.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Scheme, host and port, without a trailing slash.
    pub site_url: String,
    /// Host (and path) used in `global_id`.
    pub site_host: String,
    /// `/wp-json`-style prefix, normalised to start with `/` and not end with one (or empty).
    pub rest_root: String,
    pub timezone: chrono_tz::Tz,
    pub per_page_default: u64,
    pub per_page_max: u64,
    pub site_title: String,
    pub site_description: String,
    /// The pages' stylesheet override.
    pub site_stylesheet: Option<String>,
    pub feed_max_events: u64,
    /// How many matches a search of events, venues or organizers counts.
    pub search_count_limit: u64,
    /// How many matches of a search of events its pages reach.
    pub search_depth: u64,
    /// Seconds the tombstones incremental sync reports are kept.
    pub tombstone_retention_secs: i64,
    /// Events per transaction when a term is deleted or moved in steps.
    pub step_batch: u64,
    /// Whether `_jsonp` is answered.
    pub jsonp: bool,
    /// Whether the API is served under `tribe/events/v1` too.
    pub tribe_namespace: bool,
    pub languages: Vec<String>,
    pub max_body_bytes: usize,
    pub request_timeout: std::time::Duration,
    pub max_concurrent_requests: usize,
    pub body_read_timeout: std::time::Duration,
    pub cors_origins: Vec<String>,
    pub auth_failure_limit: u32,
    pub auth_failure_window: std::time::Duration,
    pub trust_forwarded_for: bool,
    pub response_cache_bytes: usize,
    /// SQLite: bytes of the database file each reader maps (`--sqlite-mmap-mb`).
    pub sqlite_mmap_bytes: u64,
    pub limits: crate::api::args::Limits,
}

impl Settings {
    pub fn from_args(args: &ServeArgs) -> Settings {
        let site_url = args
            .site_url
            .clone()
            .unwrap_or_else(|| format!("http://{}", args.bind))
            .trim_end_matches('/')
            .to_string();
        let rest_root = match args.rest_root.trim_matches('/') {
            "" => String::new(),
            r => format!("/{r}"),
        };
        let mut languages: Vec<String> = args
            .languages
            .iter()
            .map(|l| l.trim().to_ascii_lowercase())
            .filter(|l| !l.is_empty())
            .collect();
        if !languages.iter().any(|l| l == "en") {
            languages.insert(0, "en".into());
        }
        Settings {
            site_host: site_host(&site_url),
            site_url,
            rest_root,
            timezone: args.timezone,
            per_page_default: args.per_page_default.min(args.per_page_max),
            per_page_max: args.per_page_max,
            site_title: args.site_title.trim().to_string(),
            site_description: args.site_description.trim().to_string(),
            site_stylesheet: args
                .site_stylesheet
                .as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string),
            feed_max_events: args.feed_max_events,
            search_count_limit: args.search_count_limit,
            search_depth: args.search_depth,
            tombstone_retention_secs: i64::from(args.tombstone_days) * 86_400,
            step_batch: args.step_batch,
            jsonp: args.jsonp,
            tribe_namespace: args.tribe_namespace,
            languages,
            max_body_bytes: args.max_body_bytes,
            request_timeout: std::time::Duration::from_secs(args.request_timeout_secs.max(1)),
            max_concurrent_requests: args.max_concurrent_requests.max(1),
            body_read_timeout: std::time::Duration::from_secs(args.body_read_timeout_secs.max(1)),
            cors_origins: args
                .cors_origins
                .iter()
                .map(|o| o.trim().trim_end_matches('/').to_string())
                .filter(|o| !o.is_empty())
                .collect(),
            auth_failure_limit: args.auth_failure_limit,
            auth_failure_window: std::time::Duration::from_secs(
                args.auth_failure_window_secs.max(1),
            ),
            trust_forwarded_for: args.trust_forwarded_for,
            response_cache_bytes: args.response_cache_mb.saturating_mul(1024 * 1024),
            sqlite_mmap_bytes: args.sqlite_mmap_mb.saturating_mul(1024 * 1024),
            limits: crate::api::args::Limits {
                per_page_default: args.per_page_default.min(args.per_page_max),
                max_string_bytes: args.max_string_bytes.max(1),
                max_list_items: args.max_list_items.max(1),
                max_depth: args.max_json_depth.max(1),
            },
        }
    }
}

impl Settings {
    /// How a server with these settings opens its database; statements stop after
    /// `timeout`.
    pub fn store_options(
        &self,
        timeout: Option<std::time::Duration>,
    ) -> crate::store::StoreOptions {
        crate::store::StoreOptions {
            timeout,
            sqlite_mmap_bytes: self.sqlite_mmap_bytes,
        }
    }

    /// The settings of `serve` with this site URL and otherwise no flags.
    pub fn for_site(site_url: &str) -> Settings {
        use clap::Parser;
        let cli = crate::cli::Cli::parse_from(["calendar-events", "--site-url", site_url]);
        Settings::from_args(&cli.serve)
    }
}

impl Default for Settings {
    /// The settings of `serve` with no flags and no environment.
    fn default() -> Settings {
        use clap::Parser;
        let cli = crate::cli::Cli::parse_from(["calendar-events"]);
        Settings::from_args(&cli.serve)
    }
}

/// `http://example.org:8080/blog` → `example.org/blog`, as WordPress builds global IDs.
fn site_host(site_url: &str) -> String {
    let rest = site_url.split_once("://").map_or(site_url, |(_, r)| r);
    let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
    let host = match authority.rsplit_once(':') {
        Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => authority,
    };
    if path.is_empty() {
        host.to_string()
    } else {
        format!("{host}/{path}")
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    #[derive(Parser)]
    struct Defaults {
        #[command(flatten)]
        serve: super::ServeArgs,
    }

    /// docs/feeds.md ("Why 100") and the README's table give this default.
    #[test]
    fn a_feed_holds_up_to_100_events_unless_told_otherwise() {
        let parsed = Defaults::try_parse_from(["calendar-events"]).unwrap();
        assert_eq!(parsed.serve.feed_max_events, 100);
        let raised =
            Defaults::try_parse_from(["calendar-events", "--feed-max-events", "1000"]).unwrap();
        assert_eq!(raised.serve.feed_max_events, 1000);
    }

    #[test]
    fn readers_map_the_mebibytes_the_command_line_asks() {
        let settings = |args: &[&str]| {
            let parsed = Defaults::try_parse_from(args).unwrap();
            super::Settings::from_args(&parsed.serve).store_options(None)
        };
        assert_eq!(settings(&["calendar-events"]).sqlite_mmap_bytes, 0);
        let asked = settings(&["calendar-events", "--sqlite-mmap-mb", "64"]);
        assert_eq!(asked.sqlite_mmap_bytes, 64 << 20);
        let huge = settings(&["calendar-events", "--sqlite-mmap-mb", &u64::MAX.to_string()]);
        assert_eq!(huge.sqlite_mmap_bytes, u64::MAX);
    }

    #[test]
    fn global_id_host_drops_scheme_and_port() {
        assert_eq!(super::site_host("http://127.0.0.1:8080"), "127.0.0.1");
        assert_eq!(
            super::site_host("https://example.org/blog"),
            "example.org/blog"
        );
    }
}
