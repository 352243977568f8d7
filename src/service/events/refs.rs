//! What an event write names, checked against the database and resolved: its
//! author and parent, its image, its terms (existing or new), its venue and
//! organizers (existing, readable, or given by their fields). The terms and posts
//! it names by ID are read up front, one statement each ([`Known`]); a create
//! that names only those is answered from them rather than read back.

use std::collections::{HashMap, HashSet};

use crate::domain::event::{EventChanges, EventLinks, LinkedRef, TermRef};
use crate::domain::event_input::{EventDraft, LinkedDraft, LinkedItem};
use crate::domain::html::strip_tags;
use crate::domain::message::Msg;
use crate::domain::post::{ImageRef, Post, PostType, Status};
use crate::domain::term::{Taxonomy, Term};
use crate::domain::validation::{Invalid, Problems};
use crate::service::{Asking, Error};
use crate::store::{Conn, events, posts, terms, users};

/// The terms and posts a write names by ID, as read before the write.
#[derive(Default)]
pub struct Known {
    terms: HashMap<i64, Term>,
    /// Each term's place in the order events list their terms, as the read returned them.
    term_rank: HashMap<i64, usize>,
    posts: HashMap<i64, Post>,
    /// Those of the posts whose events are still being unlinked from them: restored
    /// before the last batch of their trash (`store::linked_unlinks`).
    pub unlinking: Vec<i64>,
}

impl Known {
    pub async fn read(conn: &mut Conn, d: &EventDraft) -> Result<Known, Error> {
        let term_ids: Vec<i64> = [&d.categories, &d.tags]
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|key| key.parse().ok())
            .collect();
        let post_ids: Vec<i64> = d
            .venue
            .iter()
            .flatten()
            .chain(d.organizers.iter().flatten())
            .filter_map(|item| match item {
                LinkedItem::Id(id) => Some(*id),
                LinkedItem::Inline(_) => None,
            })
            .collect();
        let mut known = Known::default();
        let (terms, posts) = events::terms_and_posts(conn, &term_ids, &post_ids).await?;
        for (rank, t) in terms.into_iter().enumerate() {
            known.term_rank.insert(t.id, rank);
            known.terms.insert(t.id, t);
        }
        for (post, unlinking) in posts {
            if unlinking {
                known.unlinking.push(post.id);
            }
            known.posts.insert(post.id, post);
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
        Some(EventLinks {
            categories: terms(&c.categories)?,
            tags: terms(&c.tags)?,
            venue,
            organizers,
        })
    }
}

/// The author a write names, who must exist.
pub async fn check_author(conn: &mut Conn, author: Option<i64>) -> Result<(), Error> {
    match author {
        Some(a) if a <= 0 || !users::exists(conn, a).await? => Err(Error::invalid("author")),
        _ => Ok(()),
    }
}

/// An image named by ID must be one; one named by URL needs the right to add media.
pub async fn check_image(
    conn: &mut Conn,
    asking: Asking<'_>,
    image: Option<&ImageRef>,
) -> Result<(), Error> {
    match image {
        Some(ImageRef::Id(id))
            if posts::type_of(conn, *id).await? != Some(PostType::Attachment) =>
        {
            Err(Error::invalid("image"))
        }
        Some(ImageRef::Url(_)) if !asking.caller.can_upload() => {
            Err(Invalid::because("image", "rest_cannot_upload", Msg::CannotUpload).into())
        }
        _ => Ok(()),
    }
}

/// Resolves a draft's references into the changes a write makes; every invalid
/// one is noted in `p`.
pub async fn resolve(
    conn: &mut Conn,
    asking: Asking<'_>,
    draft: EventDraft,
    existing_id: Option<i64>,
    p: &mut Problems,
) -> Result<(EventChanges, Known), Error> {
    let known = Known::read(conn, &draft).await?;
    let mut c = draft.changes;
    p.check(check_author(conn, c.post.author).await)?;
    if let Some(parent) = c.post_parent.filter(|p| *p != 0) {
        let is_event = posts::type_of(conn, parent).await? == Some(PostType::Event);
        if !is_event || existing_id == Some(parent) {
            p.add(Invalid::param("post_parent"));
        }
    }
    p.check(check_image(conn, asking, c.image.as_ref()).await)?;
    let terms = [
        (draft.categories, Taxonomy::Category, &mut c.categories),
        (draft.tags, Taxonomy::Tag, &mut c.tags),
    ];
    for (keys, taxonomy, slot) in terms {
        if let Some(keys) = keys {
            *slot = p.check(term_refs(conn, asking, &known, &keys, taxonomy).await)?;
        }
    }
    if let Some(venue) = draft.venue {
        let venue = match venue {
            Some(item) => linked_ref(conn, asking, &known, item, PostType::Venue)
                .await
                .map(Some),
            None => Ok(None),
        };
        c.venue = p.check(venue)?;
    }
    if let Some(items) = draft.organizers {
        let mut refs = Ok(Vec::with_capacity(items.len()));
        for item in items {
            let r = linked_ref(conn, asking, &known, item, PostType::Organizer).await;
            refs = refs.and_then(|mut v: Vec<LinkedRef>| {
                r.map(|r| {
                    v.push(r);
                    v
                })
            });
        }
        c.organizers = p.check(refs)?;
    }
    Ok((c, known))
}

async fn term_refs(
    conn: &mut Conn,
    asking: Asking<'_>,
    known: &Known,
    keys: &[String],
    taxonomy: Taxonomy,
) -> Result<Vec<TermRef>, Error> {
    let param = taxonomy.collection();
    let mut out = Vec::with_capacity(keys.len());
    for key in keys {
        let by_id = key
            .parse::<i64>()
            .ok()
            .and_then(|id| known.terms.get(&id))
            .filter(|t| t.taxonomy == taxonomy);
        if let Some(t) = by_id {
            out.push(TermRef::Existing(t.id));
            continue;
        }
        // Not one of the IDs read up front: a slug, a name, or a number that is one.
        match terms::find(conn, taxonomy, key).await? {
            Some(t) => out.push(TermRef::Existing(t.id)),
            // Unknown numeric IDs are an error; unknown names create terms.
            None if key.bytes().all(|b| b.is_ascii_digit()) => return Err(Error::invalid(param)),
            // As in WordPress, anyone who may write an event may add a tag by naming
            // it; a new category needs the right to manage categories.
            None if taxonomy == Taxonomy::Category && !asking.caller.can_manage_terms() => {
                return Err(Invalid::because(
                    param,
                    "rest_cannot_create_term",
                    Msg::CannotCreateCategory,
                )
                .into());
            }
            None => {
                let name = strip_tags(key);
                if name.is_empty() || name.len() > 200 {
                    return Err(Error::invalid(param));
                }
                out.push(TermRef::New(name));
            }
        }
    }
    Ok(out)
}

/// A venue or organizer an event names: by ID, one the caller may read (a hidden
/// one answers as an unknown ID does, or linking would probe for hidden posts);
/// by fields, one created with the rights its own create route would grant.
async fn linked_ref(
    conn: &mut Conn,
    asking: Asking<'_>,
    known: &Known,
    item: LinkedItem,
    t: PostType,
) -> Result<LinkedRef, Error> {
    let bad = || Error::invalid(t.as_str());
    let draft = match item {
        LinkedItem::Id(id) => {
            let post = known.posts.get(&id).ok_or_else(bad)?;
            let usable = post.post_type == Some(t)
                && post.status() != Some(Status::Trash)
                && asking.caller.can_read(post, asking.now);
            return if usable {
                Ok(LinkedRef::Existing(id))
            } else {
                Err(bad())
            };
        }
        LinkedItem::Inline(draft) => *draft,
    };
    let LinkedDraft { mut changes, image } = draft;
    let checks = async {
        check_author(conn, changes.author).await?;
        check_image(conn, asking, image.as_ref()).await
    };
    checks.await.map_err(|e| match e {
        Error::Invalid(_) | Error::Missing(_) => bad(),
        other => other,
    })?;
    // Created with the rights its own create route would grant.
    crate::service::rights::claim_new(asking.caller, &mut changes, asking.now)?;
    Ok(LinkedRef::New(Box::new(changes), image))
}
