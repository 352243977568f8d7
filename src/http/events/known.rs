//! The terms and linked posts an event write names by ID, read in one statement
//! each before the fields are checked. A create that names only such links is
//! answered from them, with the counts its own write returned, instead of reading
//! the event back.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::input::{MAX_LINKS, items, linked_items, scalar, term_key};
use crate::api::args::Args;
use crate::domain::event::{EventChanges, EventLinks, LinkedRef, TermRef};
use crate::domain::post::Post;
use crate::domain::term::Term;
use crate::http::dispatch::Ctx;
use crate::http::error::ApiError;
use crate::store::{posts, terms};

#[derive(Default)]
pub struct Known {
    pub(super) terms: HashMap<i64, Term>,
    /// Each term's place in the order events list their terms (name, then ID, in
    /// the database's collation), as the read returned them.
    term_rank: HashMap<i64, usize>,
    pub(super) posts: HashMap<i64, Post>,
}

impl Known {
    pub async fn read(ctx: &Ctx, args: &Args) -> Result<Known, ApiError> {
        let bounded = |list: Vec<Value>| {
            // Oversized lists are rejected when their field is read.
            if list.len() > MAX_LINKS {
                Vec::new()
            } else {
                list
            }
        };
        let term_ids: Vec<i64> = ["categories", "tags"]
            .into_iter()
            .filter_map(|name| args.raw(name))
            .flat_map(|v| bounded(items(v)))
            .filter_map(|item| term_key(&item)?.trim().parse().ok())
            .collect();
        let post_ids: Vec<i64> = ["venue", "organizer"]
            .into_iter()
            .filter_map(|name| args.raw(name))
            .flat_map(|v| bounded(linked_items(v)))
            .filter_map(|item| match &item {
                Value::Number(n) => n.as_i64(),
                Value::String(s) => s.trim().parse().ok(),
                Value::Object(o) => scalar(o.get("id")?)?.trim().parse().ok(),
                _ => None,
            })
            .collect();
        let mut known = Known::default();
        if term_ids.is_empty() && post_ids.is_empty() {
            return Ok(known);
        }
        let mut conn = ctx.app.store.pool.read().await?;
        let (terms, posts) = match (term_ids.is_empty(), post_ids.is_empty()) {
            (false, false) => {
                conn.query_two(
                    &terms::select_many(&term_ids),
                    terms::term_from_row,
                    &posts::select_many(&post_ids),
                    posts::post_from_row,
                )
                .await?
            }
            (false, true) => (terms::get_many(&mut conn, &term_ids).await?, Vec::new()),
            _ => (Vec::new(), posts::get_many(&mut conn, &post_ids).await?),
        };
        for (rank, t) in terms.into_iter().enumerate() {
            known.term_rank.insert(t.id, rank);
            known.terms.insert(t.id, t);
        }
        for p in posts {
            known.posts.insert(p.id, p);
        }
        Ok(known)
    }

    /// The links of a new event with these changes, if every one was read up front:
    /// none is new or named by slug or name. Term counts are as read, or as `counts`
    /// (the write's own increments) has them.
    pub fn links_of_new(&self, c: &EventChanges, counts: &HashMap<i64, i64>) -> Option<EventLinks> {
        let post = |r: &LinkedRef| match r {
            LinkedRef::Existing(id) => self.posts.get(id).cloned(),
            LinkedRef::New(..) => None,
        };
        let venue = match &c.venue {
            Some(Some(r)) => Some(post(r)?),
            _ => None,
        };
        let mut seen = HashSet::new();
        let mut organizers = Vec::new();
        for r in c.organizers.iter().flatten() {
            let p = post(r)?;
            if seen.insert(p.id) {
                organizers.push(p);
            }
        }
        let mut seen = HashSet::new();
        let mut terms = |refs: &Option<Vec<TermRef>>| -> Option<Vec<Term>> {
            let mut out = Vec::new();
            for r in refs.iter().flatten() {
                let TermRef::Existing(id) = r else {
                    return None;
                };
                let mut t = self.terms.get(id)?.clone();
                if seen.insert(t.id) {
                    if let Some(n) = counts.get(&t.id) {
                        t.count = *n;
                    }
                    out.push(t);
                }
            }
            out.sort_by_key(|t| self.term_rank.get(&t.id).copied());
            Some(out)
        };
        let categories = terms(&c.categories)?;
        let tags = terms(&c.tags)?;
        Some(EventLinks {
            categories,
            tags,
            venue,
            organizers,
        })
    }
}
