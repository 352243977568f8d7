//! Events the lists leave out. Both The Events Calendar and this server leave
//! events hidden from listings (`hide_from_listings`) out of `GET /events`, yet
//! serve them by ID: a move must not lose them.
//!
//! - This server's incremental sync (`cursor=0`, docs/sync.md) lists every item,
//!   hidden events too: an import from it reads each list that way.
//! - WordPress lists every event's ID through its core route for the post type
//!   (`/wp/v2/tribe_events`); each one the Events Calendar list left out is then
//!   read by ID from the Events Calendar API.

use std::collections::HashSet;

use serde_json::Value;

use super::{PER_PAGE, Site, progress};

/// The statuses asked of WordPress's core route, for a signed-in reader.
const CORE_STATUSES: &str = "status=publish,future,draft,pending,private,trash";

impl Site {
    /// Whether the site answers this server's incremental sync.
    pub(super) fn mirrors(&self) -> Result<bool, String> {
        let url = self.api.url("/events", "cursor=0&per_page=1");
        Ok(match self.get(&url) {
            Ok((body, _)) => body.get("cursor").is_some(),
            Err(_) => false,
        })
    }

    /// Every item of a list, through the sync from its start: in change order,
    /// without tombstones.
    pub(super) fn mirror(&self, path: &str, key: &str) -> Result<Vec<Value>, String> {
        let bar = progress::counter(&format!("reading {key}"));
        let mut cursor = "0".to_string();
        let mut items = Vec::new();
        let mut waiting = 0;
        loop {
            let query = format!("cursor={cursor}&per_page={PER_PAGE}");
            let url = self.api.url(path, &query);
            let (mut body, _) = self.get(&url)?;
            let Some(Value::Array(page)) = body.get_mut(key).map(Value::take) else {
                return Err(format!("{url}: the answer has no `{key}` list"));
            };
            // An empty page that says more may follow: the site waits on a long
            // transaction (this server on a busy PostgreSQL cluster).
            waiting = if page.is_empty() { waiting + 1 } else { 0 };
            if waiting > crate::http::transfer::UNSETTLED_PAGES {
                return Err(format!("{url}: {}", crate::http::transfer::UNSETTLED));
            }
            bar.inc(page.len() as u64);
            items.extend(page.into_iter().filter(|i| i["status"] != "deleted"));
            cursor = match &body["cursor"] {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                _ => return Err(format!("{url}: the answer has no cursor")),
            };
            if body["next_rest_url"].is_null() {
                break;
            }
        }
        bar.finish_and_clear();
        Ok(items)
    }

    /// The events WordPress knows that `listed` lacks, each read by ID; those it
    /// will not give are added to `unread`. None when the site has no core route
    /// for events (or does not let this reader use it).
    pub(super) fn hidden_events(
        &self,
        listed: &[Value],
        unread: &mut Vec<(String, i64, String)>,
    ) -> Result<Vec<Value>, String> {
        let seen: HashSet<i64> = listed.iter().filter_map(|e| e["id"].as_i64()).collect();
        let Some(known) = self.core_event_ids() else {
            return Ok(Vec::new());
        };
        let mut found = Vec::new();
        for id in known.into_iter().filter(|id| !seen.contains(id)) {
            match self.get(&self.api.url(&format!("/events/{id}"), "")) {
                Ok((event, _)) => found.push(event),
                Err(why) => unread.push(("event".into(), id, why)),
            }
        }
        Ok(found)
    }

    /// Every event ID WordPress's core route lists, page by page.
    fn core_event_ids(&self) -> Option<Vec<i64>> {
        let statuses = match self.authorization {
            Some(_) => CORE_STATUSES,
            None => "status=publish",
        };
        let mut ids = Vec::new();
        let mut page = 1;
        loop {
            let query = format!("per_page=100&_fields=id&{statuses}&page={page}");
            let (body, pages) = self
                .get(&self.api.route("/wp/v2/tribe_events", &query))
                .ok()?;
            ids.extend(body.as_array()?.iter().filter_map(|e| e["id"].as_i64()));
            if page as u64 >= pages.unwrap_or(1) {
                return Some(ids);
            }
            page += 1;
        }
    }
}
