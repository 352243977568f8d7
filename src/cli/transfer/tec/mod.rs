//! `import tec URL`: reads a WordPress site's Events Calendar REST API (v1) —
//! or another instance of this server — and hands its items to the importer in
//! the order they link each other.
//!
//! The site is found as WordPress clients find it: the `Link: …;
//! rel="https://api.w.org/"` header of its pages names the REST root, whose
//! index names the namespaces (`tribe/events/v1` on The Events Calendar,
//! `calendar/events/v1` here). Pages of each list are read a few at a time
//! (`--concurrency`), and a request the site answers with 429 or 5xx, or that
//! fails on the way, is tried again after a pause that doubles (or the site's
//! `Retry-After`), so a busy site is not pressed harder.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use base64::Engine;
use indicatif::ProgressBar;
use serde_json::Value;

use super::progress;
use fetch::{agent, fetch};

mod fetch;
mod hidden;

pub use fetch::fetch_text;

/// The namespaces an import reads from, preferred first.
const NAMESPACES: [&str; 2] = ["tribe/events/v1", "calendar/events/v1"];
/// Items asked per page: the most the reference serves.
const PER_PAGE: u32 = 50;
/// Every status an editor may list, trash included: a move takes everything.
const EVERY_STATUS: &str = "status=publish,future,draft,pending,private,trash";

/// The lists read, in the order their items are written: terms, then the posts
/// events link to, then events. Each: path, the answer's key, extra arguments.
const LISTS: [(&str, &str, &str); 5] = [
    ("/categories", "categories", "hide_empty=0"),
    ("/tags", "tags", "hide_empty=0"),
    ("/venues", "venues", ""),
    ("/organizers", "organizers", ""),
    // Every date, not only the upcoming ones the list shows by default.
    ("/events", "events", "start_date=1900-01-01%2000:00:00"),
];

/// Who the import reads the site as: an application password of one of its
/// users (who then sees every status), or nobody (published items only).
pub struct Credentials {
    pub login: String,
    pub password: String,
}

/// Where a namespace's routes are.
enum Api {
    /// `https://site/wp-json` + `/tribe/events/v1` (pretty permalinks).
    Pretty { root: String, namespace: String },
    /// `https://site/?rest_route=/tribe/events/v1` (plain permalinks).
    Query { site: String, namespace: String },
}

impl Api {
    /// A route of the namespace.
    fn url(&self, path: &str, query: &str) -> String {
        match self {
            Api::Pretty { namespace, .. } | Api::Query { namespace, .. } => {
                self.route(&format!("/{namespace}{path}"), query)
            }
        }
    }

    /// Any route of the site's REST API (`/wp/v2/…`).
    fn route(&self, route: &str, query: &str) -> String {
        match self {
            Api::Pretty { root, .. } => format!("{root}{route}?{query}"),
            Api::Query { site, .. } => {
                let route: String = form_urlencoded::byte_serialize(route.as_bytes()).collect();
                format!("{site}?rest_route={route}&{query}")
            }
        }
    }
}

/// One page's items, or why it could not be read.
type PageRead = Result<Vec<Value>, String>;

/// What a site gave.
#[derive(Default)]
pub struct Read {
    /// `(kind, item)`, in the order an import writes them.
    pub items: Vec<(usize, Value)>,
    /// Items the site names but would not give: kind, ID, why.
    pub unread: Vec<(String, i64, String)>,
}

/// A site being read.
pub struct Site {
    agent: ureq::Agent,
    api: Api,
    authorization: Option<String>,
    concurrency: usize,
}

impl Site {
    /// Finds the API of the site at `url` (its home page, its REST root, or the
    /// namespace itself).
    pub fn discover(
        url: &str,
        credentials: Option<Credentials>,
        concurrency: usize,
    ) -> Result<Site, String> {
        let authorization = credentials.map(|c| {
            let pair = format!("{}:{}", c.login, c.password);
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            )
        });
        let mut site = Site {
            agent: agent(),
            api: Api::Query {
                site: String::new(),
                namespace: String::new(),
            },
            authorization,
            concurrency: concurrency.clamp(1, 16),
        };
        site.api = site.find_api(url.trim_end_matches('/'))?;
        Ok(site)
    }

    fn find_api(&self, url: &str) -> Result<Api, String> {
        if let Some(ns) = NAMESPACES.into_iter().find(|ns| url.ends_with(ns)) {
            return Ok(Api::Pretty {
                root: url[..url.len() - ns.len()]
                    .trim_end_matches('/')
                    .to_string(),
                namespace: ns.to_string(),
            });
        }
        let mut roots = Vec::new();
        if let Some(linked) = self.linked_root(url) {
            roots.push(linked);
        }
        roots.push(format!("{url}/wp-json/"));
        roots.push(format!("{url}/"));
        let mut tried = Vec::new();
        for root in roots {
            match self.namespace_at(&root) {
                Ok(api) => return Ok(api),
                Err(why) => tried.push(format!("{root}: {why}")),
            }
        }
        Err(format!(
            "no Events Calendar API found at {url} (tried {})",
            tried.join("; ")
        ))
    }

    /// The REST root a page's discovery header names.
    fn linked_root(&self, url: &str) -> Option<String> {
        let response = self.agent.get(url).call().ok()?;
        let links = response.headers().get_all("link");
        links
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .find(|l| l.contains("rel=\"https://api.w.org/\""))
            .and_then(|l| Some(l[l.find('<')? + 1..l.find('>')?].to_string()))
    }

    /// The namespace a REST root serves, from its index: The Events Calendar's
    /// first. A root without an index (this server without `--rest-root`) is
    /// asked for each namespace's own index.
    fn namespace_at(&self, root: &str) -> Result<Api, String> {
        let api = |ns: &str| match root.split_once("?rest_route=") {
            Some((site, _)) => Api::Query {
                site: site.to_string(),
                namespace: ns.to_string(),
            },
            None => Api::Pretty {
                root: root.trim_end_matches('/').to_string(),
                namespace: ns.to_string(),
            },
        };
        if let Ok((index, _)) = self.probe(root) {
            let served = |ns: &str| {
                index["namespaces"]
                    .as_array()
                    .is_some_and(|l| l.iter().any(|n| n == ns))
            };
            if let Some(ns) = NAMESPACES.into_iter().find(|ns| served(ns)) {
                return Ok(api(ns));
            }
        }
        let mut why = String::from("no index naming an events namespace");
        for ns in NAMESPACES {
            let candidate = api(ns);
            match self.probe(&candidate.url("", "")) {
                Ok((index, _)) if index["namespace"] == ns => return Ok(candidate),
                Ok(_) => {}
                Err(e) => why = e,
            }
        }
        Err(why)
    }

    /// One request's JSON answer (and the number of pages it says its list has).
    fn get(&self, url: &str) -> Result<(Value, Option<u64>), String> {
        self.get_tried(url, fetch::ATTEMPTS)
    }

    /// A request of the discovery: a wrong guess is not worth another try.
    fn probe(&self, url: &str) -> Result<(Value, Option<u64>), String> {
        self.get_tried(url, 1)
    }

    fn get_tried(&self, url: &str, attempts: u32) -> Result<(Value, Option<u64>), String> {
        let auth = self.authorization.as_deref();
        let (text, pages) = fetch(&self.agent, url, auth, attempts)?;
        let body =
            serde_json::from_str(&text).map_err(|_| format!("{url}: the answer is not JSON"))?;
        Ok((body, pages))
    }

    /// Every item the site lets its reader see, as `(kind, item)` in the order
    /// an import writes them, and the items it names but would not give (their
    /// kind, ID, and why).
    pub fn read_all(&self) -> Result<Read, String> {
        let mut read = Read::default();
        // This server's sync lists everything, events hidden from listings too.
        let mirrors = self.mirrors()?;
        for (kind, &(path, key, extra)) in LISTS.iter().enumerate() {
            let mut items = match mirrors {
                true => self.mirror(path, key)?,
                false => self.list(path, key, &self.list_query(kind, extra))?,
            };
            if kind == 4 && !mirrors {
                items.extend(self.hidden_events(&items, &mut read.unread)?);
            }
            super::write::parents_first(
                &mut items,
                if kind == 0 { "parent" } else { "post_parent" },
            );
            read.items
                .extend(items.into_iter().map(|item| (kind, item)));
        }
        Ok(read)
    }

    fn list_query(&self, kind: usize, extra: &str) -> String {
        let mut query = format!("per_page={PER_PAGE}");
        for arg in [extra, self.statuses(kind)] {
            if !arg.is_empty() {
                query = format!("{query}&{arg}");
            }
        }
        query
    }

    /// The statuses asked of a post list: all of them for a signed-in reader (an
    /// anonymous one may only ask for what is published, which it gets anyway).
    fn statuses(&self, kind: usize) -> &'static str {
        match (kind >= 2, &self.authorization) {
            (true, Some(_)) => EVERY_STATUS,
            _ => "",
        }
    }

    /// Every page of one list, read `concurrency` at a time, in order.
    fn list(&self, path: &str, key: &str, query: &str) -> Result<Vec<Value>, String> {
        let page = |n: usize| -> Result<(Vec<Value>, Value, Option<u64>), String> {
            let url = self.api.url(path, &format!("{query}&page={n}"));
            let (mut body, pages) = self.get(&url)?;
            match body.get_mut(key).map(Value::take) {
                Some(Value::Array(items)) => Ok((items, body, pages)),
                _ => Err(format!("{url}: the answer has no `{key}` list")),
            }
        };
        let (first, body, header_pages) = page(1)?;
        let pages = body["total_pages"]
            .as_u64()
            .or(header_pages)
            .unwrap_or(1)
            .max(1) as usize;
        let total = body["total"].as_u64().unwrap_or(first.len() as u64);
        let bar = progress::bar(&format!("reading {key}"), total);
        bar.inc(first.len() as u64);
        let rest = self.pages_after_first(pages, &page, &bar)?;
        bar.finish_and_clear();
        Ok(first
            .into_iter()
            .chain(rest.into_iter().flatten())
            .collect())
    }

    /// Pages 2..=`pages`, each by whichever of `concurrency` readers is free.
    fn pages_after_first<F>(
        &self,
        pages: usize,
        page: &F,
        bar: &ProgressBar,
    ) -> Result<Vec<Vec<Value>>, String>
    where
        F: Fn(usize) -> Result<(Vec<Value>, Value, Option<u64>), String> + Sync,
    {
        let results: Mutex<Vec<Option<PageRead>>> = Mutex::new((2..=pages).map(|_| None).collect());
        let next = AtomicUsize::new(2);
        std::thread::scope(|s| {
            for _ in 0..self.concurrency.min(pages.saturating_sub(1)) {
                s.spawn(|| {
                    loop {
                        let n = next.fetch_add(1, Ordering::Relaxed);
                        if n > pages {
                            break;
                        }
                        let got = page(n).map(|(items, _, _)| items);
                        let failed = got.is_err();
                        if let Ok(items) = &got {
                            bar.inc(items.len() as u64);
                        }
                        if let Ok(mut slots) = results.lock() {
                            slots[n - 2] = Some(got);
                        }
                        if failed {
                            // No more pages once one is lost: the import stops.
                            next.store(pages + 1, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        let slots = results.into_inner().map_err(|_| "a page reader failed")?;
        slots
            .into_iter()
            .map(|slot| slot.unwrap_or_else(|| Err("a page was not read".into())))
            .collect()
    }
}
