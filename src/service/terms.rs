//! Categories and tags: list, read, create, update and delete.

use crate::domain::args::{CategoryListArgs, CategoryWriteArgs};
use crate::domain::html::strip_tags;
use crate::domain::lists;
use crate::domain::message::Msg;
use crate::domain::post::PostType;
use crate::domain::slug::slugify;
use crate::domain::term::{Taxonomy, Term, TermChanges, TermOrderBy, TermQuery};
use crate::domain::validation::{Invalid, Problems};
use crate::service::retry::detached;
use crate::service::{Asking, Error, Service};
use crate::store::{Conn, StoreError, category_moves, posts, sync, term_deletion, terms};

/// One page of terms.
pub struct TermPage {
    /// The query as read, for the list's URLs.
    pub query: TermQuery,
    pub terms: Vec<Term>,
    pub total: u64,
}

/// The term of this taxonomy with this ID; an unknown one is a 400 on `id`.
async fn find(conn: &mut Conn, tax: Taxonomy, id: i64) -> Result<Term, Error> {
    terms::get(conn, id)
        .await?
        .filter(|t| t.taxonomy == tax)
        .ok_or_else(|| Error::invalid("id"))
}

/// IDs of a list argument, each an existing term of `tax`.
async fn existing_ids(
    conn: &mut Conn,
    tax: Taxonomy,
    name: &str,
    items: Option<&[String]>,
) -> Result<Vec<i64>, Error> {
    let mut ids = Vec::new();
    for item in items.unwrap_or_default() {
        let id = item.parse::<i64>().map_err(|_| Error::invalid(name))?;
        match terms::get(conn, id).await? {
            Some(t) if t.taxonomy == tax => ids.push(id),
            _ => return Err(Error::invalid(name)),
        }
    }
    Ok(ids)
}

/// The `parent` filter: `0` (top level) or an existing term of the taxonomy.
async fn parent_filter(conn: &mut Conn, tax: Taxonomy, parent: i64) -> Result<i64, Error> {
    match parent {
        0 => Ok(0),
        p => match terms::get(conn, p).await? {
            Some(t) if t.taxonomy == tax => Ok(p),
            _ => Err(Error::invalid("parent")),
        },
    }
}

/// The event a term list is filtered by. One the caller may not read in full
/// (hidden, or behind a password) answers as an unknown ID does: its terms would
/// tell what its own representation does not.
async fn visible_event(
    conn: &mut Conn,
    asking: Asking<'_>,
    param: &str,
    id: i64,
) -> Result<i64, Error> {
    let post = posts::get(conn, id)
        .await?
        .filter(|p| p.post_type == Some(PostType::Event))
        .filter(|p| asking.caller.can_read_in_full(p, asking.now));
    match post {
        Some(_) => Ok(id),
        None => Err(Error::invalid(param)),
    }
}

/// A new parent: none (`0`), or a term of the taxonomy that is not the term itself
/// nor one of its descendants.
async fn parent_of(
    conn: &mut Conn,
    tax: Taxonomy,
    parent: i64,
    existing: Option<&Term>,
) -> Result<i64, Error> {
    if parent == 0 {
        return Ok(0);
    }
    let found = terms::get(conn, parent).await?;
    if !found.is_some_and(|t| t.taxonomy == tax) {
        return Err(Invalid::because("parent", "rest_term_invalid", Msg::ParentMissing).into());
    }
    if let Some(term) = existing
        && terms::would_cycle(conn, term.id, parent).await?
    {
        return Err(parent_cycle());
    }
    Ok(parent)
}

fn parent_cycle() -> Error {
    Invalid::because("parent", "rest_term_invalid", Msg::ParentCycle).into()
}

fn duplicate_slug() -> Error {
    Invalid::because("slug", "duplicate_term_slug", Msg::DuplicateTermSlug).into()
}

/// A unique violation here means a concurrent writer took the name or slug first.
fn conflict_to_exists(e: StoreError) -> Error {
    match e {
        StoreError::Conflict(_) => duplicate_slug(),
        other => other.into(),
    }
}

/// The name, description and slug of a write, read with no I/O.
fn read_fields(args: &CategoryWriteArgs, p: &mut Problems) -> TermChanges {
    let mut nonempty = |name: &str, value: &Option<String>| -> Option<String> {
        match lists::nonempty(name, value.as_deref()) {
            Ok(v) => v.map(str::to_string),
            Err(e) => {
                p.add(e);
                None
            }
        }
    };
    let name = nonempty("name", &args.name).map(|n| strip_tags(&n));
    let description = nonempty("description", &args.description);
    let slug = nonempty("slug", &args.slug).map(|s| slugify(&s));
    if name.as_deref() == Some("") {
        p.add(Invalid::param("name"));
    }
    if slug.as_deref() == Some("") {
        p.add(Invalid::param("slug"));
    }
    TermChanges {
        name,
        description,
        slug,
        parent: None,
        id: None,
    }
}

/// Whether moving the category leaves its events' keys to batches behind the answer
/// (`store::category_moves`): it has more events at or below it than a batch, or a
/// move above it is still being followed, whose batches must start its subtree over.
/// Queues the subtree if so, before the move is written.
async fn move_in_steps(tx: &mut Conn, term_id: i64, batch: u64) -> Result<bool, StoreError> {
    let in_steps = category_moves::is_queued(tx, term_id).await?
        || term_deletion::events_beyond(tx, term_id, batch).await?;
    if in_steps {
        category_moves::queue_subtree(tx, term_id).await?;
    }
    Ok(in_steps)
}

impl Service {
    /// One page of terms.
    pub async fn list_terms(
        &self,
        asking: Asking<'_>,
        tax: Taxonomy,
        args: &CategoryListArgs,
        invalid: &[Invalid],
    ) -> Result<TermPage, Error> {
        let mut p = Problems::new(invalid);
        let (page, per_page) =
            lists::page_and_size(args.page, args.per_page, self.per_page_max, &mut p);
        let search = p
            .check(lists::nonempty("search", args.search.as_deref()))?
            .flatten();
        let slug = p
            .check(lists::nonempty("slug", args.slug.as_deref()))?
            .flatten();
        let mut conn = self.store.pool.read().await?;
        let include =
            p.check(existing_ids(&mut conn, tax, "include", args.include.as_deref()).await)?;
        let exclude =
            p.check(existing_ids(&mut conn, tax, "exclude", args.exclude.as_deref()).await)?;
        let parent = match args.parent {
            Some(parent) => p.check(parent_filter(&mut conn, tax, parent).await)?,
            None => None,
        };
        // `event` is an alias of `post` and wins when both are given.
        let (post_param, post_id) = match (args.event, args.post) {
            (Some(e), _) => ("event", Some(e)),
            (None, post) => ("post", post),
        };
        let post = match post_id {
            Some(id) => p.check(visible_event(&mut conn, asking, post_param, id).await)?,
            None => None,
        };
        p.finish::<Error>()?;
        let query = TermQuery {
            taxonomy: tax,
            page,
            per_page,
            search: search.map(str::to_string),
            include: include.unwrap_or_default(),
            exclude: exclude.unwrap_or_default(),
            order_desc: args.order.as_deref() == Some("desc"),
            orderby: args
                .orderby
                .as_deref()
                .and_then(TermOrderBy::parse)
                .unwrap_or(TermOrderBy::Name),
            hide_empty: args.hide_empty,
            parent,
            post,
            slug: slug.map(str::to_string),
        };
        let (terms, total) = terms::list(&mut conn, &query).await?;
        Ok(TermPage {
            query,
            terms,
            total,
        })
    }

    pub async fn term(&self, tax: Taxonomy, id: i64) -> Result<Term, Error> {
        let mut conn = self.store.pool.read().await?;
        find(&mut conn, tax, id).await
    }

    /// Reads and checks a term create/update; every 400 comes before permission,
    /// and every invalid field is reported in the same 400.
    async fn read_term_write(
        &self,
        tax: Taxonomy,
        args: &CategoryWriteArgs,
        invalid: &[Invalid],
        existing: Option<&Term>,
    ) -> Result<TermChanges, Error> {
        let mut p = Problems::new(invalid);
        let mut c = read_fields(args, &mut p);
        let mut conn = self.store.pool.read().await?;
        if let Some(parent) = args.parent.filter(|_| tax.hierarchical()) {
            c.parent = p.check(parent_of(&mut conn, tax, parent, existing).await)?;
        }
        if let Some(slug) = c.slug.as_deref().filter(|s| !s.is_empty()) {
            let taken = terms::slug_taken(&mut conn, tax, slug, existing.map(|t| t.id)).await?;
            if taken {
                p.check::<(), _>(Err(duplicate_slug()))?;
            }
        }
        p.finish::<Error>()?;
        let name = c.name.as_deref().or(existing.map(|t| t.name.as_str()));
        let parent = c.parent.or(existing.map(|t| t.parent)).unwrap_or(0);
        if let Some(name) = name
            && let Some(term_id) =
                terms::name_taken(&mut conn, tax, name, parent, existing.map(|t| t.id)).await?
        {
            return Err(Error::TermExists { term_id });
        }
        Ok(c)
    }

    pub async fn create_term(
        &self,
        asking: Asking<'_>,
        tax: Taxonomy,
        args: &CategoryWriteArgs,
        invalid: &[Invalid],
    ) -> Result<Term, Error> {
        let mut changes = self.read_term_write(tax, args, invalid, None).await?;
        changes.id = asking.as_id;
        if !asking.caller.can_manage_terms() {
            return Err(Error::forbidden(asking.caller));
        }
        let store = self.store.clone();
        detached(async move {
            let mut tx = store.pool.write().await?;
            let id = terms::insert(&mut tx, tax, &changes)
                .await
                .map_err(conflict_to_exists)?;
            let term = find(&mut tx, tax, id).await?;
            tx.commit().await?;
            Ok(term)
        })
        .await
    }

    /// Writes a term's changes; answers with it as it is then. A category moved with
    /// more events at or below it than a batch has its events' keys follow a batch
    /// per transaction in the background (`store::category_moves`); the answer
    /// waits for that a second at most.
    pub async fn update_term(
        &self,
        asking: Asking<'_>,
        tax: Taxonomy,
        id: i64,
        args: &CategoryWriteArgs,
        invalid: &[Invalid],
    ) -> Result<Term, Error> {
        let term = self.term(tax, id).await?;
        let changes = self
            .read_term_write(tax, args, invalid, Some(&term))
            .await?;
        if !asking.caller.can_manage_terms() {
            return Err(Error::forbidden(asking.caller));
        }
        let (store, batch) = (self.store.clone(), self.step_batch);
        let (term, in_steps) = detached(async move {
            let mut tx = store.pool.write().await?;
            let mut in_steps = false;
            // Checked again with the tree held: a concurrent move may have put the
            // new parent below this term since the check of the request.
            if let Some(parent) = changes.parent.filter(|p| *p != term.parent) {
                terms::lock_tree(&mut tx).await?;
                if terms::would_cycle(&mut tx, term.id, parent).await? {
                    return Err(parent_cycle());
                }
                in_steps = move_in_steps(&mut tx, term.id, batch).await?;
            }
            terms::update(&mut tx, &term, &changes)
                .await
                .map_err(conflict_to_exists)?;
            // Read in the transaction: a term deleted concurrently, before this
            // write, is answered as its ID would be now: it names nothing.
            let term = find(&mut tx, tax, term.id).await?;
            tx.commit().await?;
            Ok((term, in_steps))
        })
        .await?;
        if in_steps {
            self.follow_work_in_steps(true).await;
        }
        Ok(term)
    }

    /// Deletes a term for good; answers with it as it was. A term of more events
    /// than a batch is set aside first, which every read then leaves out, and its
    /// events are unlinked a batch per transaction in the background
    /// (`store::term_deletion`); the answer waits for that a second at most.
    pub async fn delete_term(
        &self,
        asking: Asking<'_>,
        tax: Taxonomy,
        id: i64,
    ) -> Result<Term, Error> {
        let term = self.term(tax, id).await?;
        if !asking.caller.can_manage_terms() {
            return Err(Error::forbidden(asking.caller));
        }
        let (store, target) = (self.store.clone(), term.clone());
        let (batch, forget_before) = (
            self.step_batch,
            asking.now.saturating_sub(self.tombstone_retention),
        );
        let in_steps = detached(async move {
            let mut tx = store.pool.write().await?;
            let in_steps = term_deletion::events_beyond(&mut tx, target.id, batch).await?;
            if in_steps {
                term_deletion::set_aside(&mut tx, &target).await?;
            } else {
                terms::delete(&mut tx, &target).await?;
            }
            sync::forget_before(&mut tx, forget_before).await?;
            tx.commit().await?;
            Ok(in_steps)
        })
        .await?;
        // Any deletion also resumes work a failed sweep left.
        self.follow_work_in_steps(in_steps).await;
        Ok(term)
    }
}
