//! `GET /events`: the request read with no I/O (`domain::event_list`), then its
//! references resolved and checked for visibility, then one page and its total.

use super::{ShownEvent, readable_links};
use crate::domain::args::EventListArgs;
use crate::domain::changes::{Reach, Seen, Tally};
use crate::domain::event::{
    Event, EventFilter, EventLinks, EventSpan, SEARCH_COUNT_LIMIT, Total, distance_km, search_depth,
};
use crate::domain::event_list::{EventQuery, ListContext, Near, event_query};
use crate::domain::post::{Post, PostType, Status};
use crate::domain::term::Taxonomy;
use crate::domain::validation::{Invalid, Problems, Reason};
use crate::service::{Asking, Error, Refusal, Service};
use crate::store::{Conn, events, linked_unlinks, terms};

/// One page of a list.
pub struct EventPage {
    /// The request as read: its echo for the list's URLs, and how its window moves.
    pub query: EventQuery,
    pub events: Vec<ShownEvent>,
    /// How many events the list holds; for a search with more matches than it
    /// counts, how many at least (`total_at_least`).
    pub total: u64,
    pub total_at_least: bool,
    /// A search's page at its depth ([`search_depth`]): no page follows it, however
    /// many matches do.
    pub at_search_depth: bool,
    /// The events the list could show, whatever else it asks of them.
    pub reach: Reach,
    /// Set when writes past the page move only its total.
    pub tally: Option<Tally>,
}

/// The references of a list request, resolved.
#[derive(Default)]
struct Resolved {
    categories: Vec<i64>,
    tags: Vec<i64>,
    venues: Linked,
    organizers: Linked,
    post_parent: Option<i64>,
    near_venues: Option<Vec<i64>>,
}

impl Service {
    /// One page of events the caller may see, as `GET /events` asks for it;
    /// `invalid` are the arguments already refused by their declaration.
    pub async fn list_events(
        &self,
        asking: Asking<'_>,
        args: &EventListArgs,
        invalid: &[Invalid],
    ) -> Result<EventPage, Error> {
        self.list_events_up_to(asking, args, invalid, self.per_page_max)
            .await
    }

    /// How many days a listed event runs past its start day, at most: how far back
    /// a view of a day looks for the events still running on it.
    pub async fn longest_event_days(&self) -> Result<i64, Error> {
        let mut conn = self.store.pool.read().await?;
        Ok(crate::store::event_count::longest_listed_days(&mut conn).await?)
    }

    /// As `list_events`, with pages of up to `per_page_max` events: a feed's one
    /// page holds more than an API page may.
    pub async fn list_events_up_to(
        &self,
        asking: Asking<'_>,
        args: &EventListArgs,
        invalid: &[Invalid],
        per_page_max: u64,
    ) -> Result<EventPage, Error> {
        self.listed_page(asking, args, invalid, per_page_max, Links::Read)
            .await
    }

    /// As `list_events_up_to`, each event with only the links a view shows of it
    /// (`links`): a page reads no more than it shows.
    pub async fn list_events_showing(
        &self,
        asking: Asking<'_>,
        args: &EventListArgs,
        per_page_max: u64,
        links: Links,
    ) -> Result<EventPage, Error> {
        self.listed_page(asking, args, &[], per_page_max, links)
            .await
    }

    async fn listed_page(
        &self,
        asking: Asking<'_>,
        args: &EventListArgs,
        invalid: &[Invalid],
        per_page_max: u64,
        links: Links,
    ) -> Result<EventPage, Error> {
        let Prepared {
            query,
            filter,
            at_search_depth,
            mut conn,
        } = self.prepare(asking, args, invalid, per_page_max).await?;
        let reach = Reach {
            window: filter.window(),
            terms: reached_terms(&mut conn, &filter).await?,
            search: filter.search_words.clone(),
            links: reached_links(&filter),
        };
        let events::Listed {
            events: items,
            total,
            seen,
        } = events::list(&mut conn, &filter).await?;
        let tally = seen.and_then(|seen| tally(&filter, &items, total, seen));
        if items.is_empty() && query.page > 1 {
            return Err(Error::Refused(Refusal::PageNotFound(PostType::Event)));
        }
        let mut links = match links {
            Links::Read => events::load_links(&mut conn, &items).await?,
            Links::Venues => events::load_venues(&mut conn, &items).await?,
            Links::Left => Default::default(),
        };
        drop(conn);
        let password = args.password.as_deref();
        let events = items
            .into_iter()
            .map(|e| {
                let l: EventLinks = links.remove(&e.post.id).unwrap_or_default();
                ShownEvent {
                    changes_at: None,
                    reveal: asking.caller.reveal(&e.post, password),
                    links: readable_links(l, asking.caller, asking.now),
                    event: e,
                }
            })
            .collect();
        Ok(EventPage {
            query,
            events,
            total: total.count,
            total_at_least: total.at_least,
            at_search_depth,
            reach,
            tally,
        })
    }

    /// The first page of up to `most` events of a list, each as its [`EventSpan`], and
    /// the list's total: a view that places many events and shows a few of them
    /// (the month grid) reads where they all fall, then only those it shows.
    /// `None` for a search whose words are common among the events of its list's
    /// dates (one in five or more of the first ones): such a view reads each of its
    /// days' first matches ([`Service::list_event_ids_each`]) rather than placing
    /// them all.
    pub async fn list_event_spans(
        &self,
        asking: Asking<'_>,
        args: &EventListArgs,
        most: u64,
    ) -> Result<Option<(Vec<EventSpan>, Total)>, Error> {
        let args = EventListArgs {
            page: 1,
            per_page: i64::try_from(most).unwrap_or(i64::MAX),
            ..args.clone()
        };
        let Prepared {
            filter, mut conn, ..
        } = self.prepare(asking, &args, &[], most).await?;
        Ok(events::list_spans(&mut conn, &filter).await?)
    }

    /// The IDs of the first `most` events of the list of `args` with the dates of
    /// each of `days` (`start_date`, `end_date`, `starts_before`, `starts_after`,
    /// `ends_before`, `ends_after`, `strict_dates`), in list order, and its total,
    /// read on one connection, the references resolved once. A view of many days
    /// (a busy month's grid) reads each day's first events and count so; a
    /// search's count stops past `counted` matches, at most the server's search
    /// count limit.
    pub async fn list_event_ids_each(
        &self,
        asking: Asking<'_>,
        args: &EventListArgs,
        days: &[EventListArgs],
        most: u64,
        counted: u64,
    ) -> Result<Vec<(Vec<i64>, Total)>, Error> {
        let first_page = |d: &EventListArgs| EventListArgs {
            page: 1,
            per_page: i64::try_from(most).unwrap_or(i64::MAX),
            start_date: d.start_date.clone(),
            end_date: d.end_date.clone(),
            starts_before: d.starts_before.clone(),
            starts_after: d.starts_after.clone(),
            ends_before: d.ends_before.clone(),
            ends_after: d.ends_after.clone(),
            strict_dates: d.strict_dates,
            ..args.clone()
        };
        let Prepared {
            filter, mut conn, ..
        } = self.prepare(asking, &first_page(args), &[], most).await?;
        let mut dated = Vec::with_capacity(days.len());
        for day in days {
            let mut p = Problems::new(&[]);
            let query = event_query(&first_page(day), &self.list_context(asking, most), &mut p);
            p.finish::<Error>()?;
            dated.push(EventFilter {
                start_min: query.start_min,
                end_max: query.end_max,
                starts_before: query.starts_before,
                starts_after: query.starts_after,
                ends_before: query.ends_before,
                ends_after: query.ends_after,
                count_limit: counted.min(filter.count_limit),
                ..filter.clone()
            });
        }
        Ok(events::list_ids_each(&mut conn, &dated).await?)
    }

    fn list_context(&self, asking: Asking<'_>, per_page_max: u64) -> ListContext {
        ListContext {
            now: asking.now,
            zone: self.zone,
            per_page_max,
            sees_unpublished: asking.caller.can_create_posts(),
        }
    }

    /// A list request read, its references resolved and checked for the caller,
    /// and the connection its page is to be read on.
    async fn prepare(
        &self,
        asking: Asking<'_>,
        args: &EventListArgs,
        invalid: &[Invalid],
        per_page_max: u64,
    ) -> Result<Prepared, Error> {
        let mut p = Problems::new(invalid);
        let query = event_query(args, &self.list_context(asking, per_page_max), &mut p);
        let depth = search_depth(self.search_depth, self.search_count_limit);
        let offset = query.page.saturating_sub(1).saturating_mul(query.per_page);
        let searched = !query.search_words.is_empty();
        if searched && offset >= depth {
            p.add(Invalid {
                name: "page".into(),
                reason: Reason::PastSearchDepth(depth),
            });
        }
        let mut conn = self.store.pool.read().await?;
        let resolved = resolve(&mut conn, &query, asking, &mut p).await?;
        p.finish::<Error>()?;
        let mut filter = filter(&query, resolved, asking);
        filter.count_limit = self.search_count_limit;
        Ok(Prepared {
            at_search_depth: searched && offset.saturating_add(query.per_page) >= depth,
            query,
            filter,
            conn,
        })
    }
}

/// Which of its events' terms, venues and organizers a list reads.
#[derive(Clone, Copy)]
pub enum Links {
    /// All of them, as the API shows them.
    Read,
    /// The venue alone: a day's list shows it beside each title.
    Venues,
    /// None: the month grid's cells and an event's neighbours show titles alone.
    Left,
}

/// A list request ready to be read ([`Service::prepare`]).
struct Prepared {
    query: EventQuery,
    filter: EventFilter,
    /// A search's page at its depth ([`EventPage::at_search_depth`]).
    at_search_depth: bool,
    conn: Conn,
}

/// The events a list names: those of `include`, and among them (or alone) those kept
/// linked to the restored posts a filter names ([`Linked::kept`]), whose window
/// stays (`include`'s alone drops it); and whether that leaves none.
fn named_events(include: &[i64], linked: [&Linked; 2]) -> (Vec<i64>, bool) {
    let mut named: Option<Vec<i64>> = (!include.is_empty()).then(|| include.to_vec());
    for kept in linked.into_iter().filter_map(|l| l.kept.as_ref()) {
        named = Some(match named {
            None => kept.clone(),
            Some(earlier) => earlier
                .into_iter()
                .filter(|e| kept.binary_search(e).is_ok())
                .collect(),
        });
    }
    match named {
        Some(events) if events.is_empty() => (events, true),
        named => (named.unwrap_or_default(), false),
    }
}

/// The page's tally, when writes after it move only its total: a full page,
/// followed by more, of a list of every public event of its window.
fn tally(f: &EventFilter, items: &[Event], total: Total, seen: Seen) -> Option<Tally> {
    let through = f.page.checked_mul(f.per_page)?;
    let last = items.last()?;
    let full = u64::try_from(items.len()).ok()? == f.per_page;
    let followed = !total.at_least && total.count > through;
    (f.every_public_event_of_window() && full && followed).then_some(Tally {
        last: (last.start_utc, last.post.id),
        per_page: f.per_page,
        through,
        seen,
    })
}

async fn resolve(
    conn: &mut Conn,
    q: &EventQuery,
    asking: Asking<'_>,
    p: &mut Problems,
) -> Result<Resolved, Error> {
    let parent: Vec<i64> = q.post_parent.into_iter().collect();
    Ok(Resolved {
        // A category matches the events of its subcategories too, as WordPress's
        // taxonomy queries do (`include_children`): its key is held by their events
        // as well (`store::events::keys`).
        categories: p
            .check(term_ids(conn, Taxonomy::Category, &q.categories).await)?
            .unwrap_or_default(),
        tags: p
            .check(term_ids(conn, Taxonomy::Tag, &q.tags).await)?
            .unwrap_or_default(),
        venues: p
            .check(linked(conn, asking, "venue", &q.venues, PostType::Venue).await)?
            .unwrap_or_default(),
        organizers: p
            .check(
                linked(
                    conn,
                    asking,
                    "organizer",
                    &q.organizers,
                    PostType::Organizer,
                )
                .await,
            )?
            .unwrap_or_default(),
        post_parent: p
            .check(readable(conn, asking, "post_parent", &parent, PostType::Event).await)?
            .and_then(|ids| ids.first().copied()),
        near_venues: match q.near {
            Some(near) => Some(venues_near(conn, near).await?),
            None => None,
        },
    })
}

fn filter(q: &EventQuery, r: Resolved, asking: Asking<'_>) -> EventFilter {
    let (include, none_named) = named_events(&q.include, [&r.venues, &r.organizers]);
    EventFilter {
        page: q.page,
        per_page: q.per_page,
        start_min: q.start_min,
        end_max: q.end_max,
        starts_before: q.starts_before,
        starts_after: q.starts_after,
        ends_before: q.ends_before,
        ends_after: q.ends_after,
        search_words: q.search_words.clone(),
        categories: r.categories,
        tags: r.tags,
        names_only_unlinked: r.venues.only_unlinked || r.organizers.only_unlinked || none_named,
        venues: r.venues.ids,
        organizers: r.organizers.ids,
        featured: q.featured,
        statuses: q.statuses.clone(),
        visibility: asking.caller.visibility(),
        geoloc: q.geoloc,
        near_venues: r.near_venues,
        include,
        post_parent: r.post_parent,
        ticketed: q.ticketed,
        now_utc: asking.now,
        count_limit: SEARCH_COUNT_LIMIT,
        // Looked up by the store, which knows its index.
        search_pieces: Default::default(),
        search_pieces_share: 0.0,
        search_unindexed: Default::default(),
    }
}

/// Past this many categories at or below those a list names (or venues, near its
/// point or named), its cached answer is dropped by a write of an event of any
/// terms (or venue): a longer set would cost more to keep and check than the
/// answers it keeps.
const MAX_REACHED_SET: u64 = 256;

/// The terms a listed event holds one of, per term filter, each set sorted: a
/// category filter's holds the categories below those it names, whose events it
/// lists too.
async fn reached_terms(conn: &mut Conn, f: &EventFilter) -> Result<Vec<Vec<i64>>, Error> {
    let mut sets = Vec::new();
    if !f.tags.is_empty() {
        let mut tags = f.tags.clone();
        tags.sort_unstable();
        tags.dedup();
        sets.push(tags);
    }
    if !f.categories.is_empty() {
        let below = terms::at_or_below(conn, &f.categories, MAX_REACHED_SET + 1).await?;
        if below.len() as u64 <= MAX_REACHED_SET {
            sets.push(below);
        }
    }
    Ok(sets)
}

/// The venues and organizers a listed event is linked to one of, per filter: its
/// venues, those near a point, its organizers.
fn reached_links(f: &EventFilter) -> Vec<Vec<i64>> {
    [Some(&f.venues), f.near_venues.as_ref(), Some(&f.organizers)]
        .into_iter()
        .flatten()
        .filter(|ids| !ids.is_empty() && ids.len() as u64 <= MAX_REACHED_SET)
        .map(|ids| {
            let mut set = ids.clone();
            set.sort_unstable();
            set.dedup();
            set
        })
        .collect()
}

/// The IDs of the terms named by ID or slug; an unknown one is a 400.
async fn term_ids(conn: &mut Conn, taxonomy: Taxonomy, keys: &[String]) -> Result<Vec<i64>, Error> {
    terms::find_many(conn, taxonomy, keys)
        .await?
        .into_iter()
        .map(|t| t.map(|t| t.id))
        .collect::<Option<Vec<i64>>>()
        .ok_or_else(|| Error::invalid(taxonomy.collection()))
}

/// The IDs, if each names a post of type `t` the caller may read: a hidden one, or
/// one deleted for good, answers as an unknown ID does.
async fn readable(
    conn: &mut Conn,
    asking: Asking<'_>,
    name: &str,
    ids: &[i64],
    t: PostType,
) -> Result<Vec<i64>, Error> {
    let found = readable_posts(conn, asking, name, ids, t).await?;
    Ok(found.into_iter().map(|(p, _)| p.id).collect())
}

/// The posts of [`readable`], once each, with whether each one's events are still
/// being unlinked from it.
async fn readable_posts(
    conn: &mut Conn,
    asking: Asking<'_>,
    name: &str,
    ids: &[i64],
    t: PostType,
) -> Result<Vec<(Post, bool)>, Error> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let found = linked_unlinks::posts_marked(conn, ids).await?;
    // Deleted for good, its row waiting for its last batch: gone.
    let gone = linked_unlinks::deleted_among(conn, found.iter().map(|(p, _)| p)).await?;
    let ok = |id: &i64| {
        !gone.contains(id)
            && found.iter().any(|(p, _)| {
                p.id == *id && p.post_type == Some(t) && asking.caller.can_read(p, asking.now)
            })
    };
    match ids.iter().all(ok) {
        true => Ok(found),
        false => Err(Error::invalid(name)),
    }
}

/// The venues or organizers a list names, resolved.
#[derive(Default)]
struct Linked {
    /// Those whose events the list shows: those that show their links. A post in
    /// the trash, or restored before the last batch of its trash, has no events (its
    /// links are being undone, `store::linked_unlinks`) but for those that writes
    /// linked to it since its restore: when every post named is such, those (`kept`).
    ids: Vec<i64>,
    /// The events whose writes kept their links to the restored posts of `ids`,
    /// when those are all the list names: its events are among them.
    kept: Option<Vec<i64>>,
    /// Some were named, none of them showing its links or keeping one.
    only_unlinked: bool,
}

/// The most events kept linked to restored posts ([`Linked::kept`]) that a filter
/// by those posts lists, each checked for the list's other arguments: they were
/// written during the posts' batches (a minute or so at 100,000 events). Past it,
/// the list shows none until the last batch, as for a post with no kept link.
const MAX_KEPT_LISTED: u64 = 1_000;

/// The venues or organizers a list names, as [`readable`] finds them.
async fn linked(
    conn: &mut Conn,
    asking: Asking<'_>,
    name: &str,
    ids: &[i64],
    t: PostType,
) -> Result<Linked, Error> {
    let named = readable_posts(conn, asking, name, ids, t).await?;
    let (unlinked, shown): (Vec<_>, Vec<_>) = named
        .into_iter()
        .partition(|(p, unlinking)| *unlinking || p.status() == Some(Status::Trash));
    if !shown.is_empty() || unlinked.is_empty() {
        return Ok(Linked {
            ids: shown.into_iter().map(|(p, _)| p.id).collect(),
            ..Linked::default()
        });
    }
    // A trash forgets the kept links: only the restored posts keep any.
    let restored: Vec<i64> = unlinked
        .iter()
        .filter(|(p, _)| p.status() != Some(Status::Trash))
        .map(|(p, _)| p.id)
        .collect();
    let kept = linked_unlinks::kept_events(conn, &restored, MAX_KEPT_LISTED + 1).await?;
    if kept.is_empty() || kept.len() as u64 > MAX_KEPT_LISTED {
        return Ok(Linked {
            only_unlinked: true,
            ..Linked::default()
        });
    }
    Ok(Linked {
        ids: restored,
        kept: Some(kept),
        only_unlinked: false,
    })
}

/// The venues within the radius: a box around the point narrows them, the exact
/// great-circle distance decides.
async fn venues_near(conn: &mut Conn, near: Near) -> Result<Vec<i64>, Error> {
    let Near { lat, lng, radius } = near;
    let dlat = radius / 111.0;
    let dlng = (radius / (111.0 * lat.to_radians().cos().abs().max(0.01))).min(180.0);
    // A box across the antimeridian would wrap; take every longitude instead.
    let lngs = if lng - dlng < -180.0 || lng + dlng > 180.0 {
        (-180.0, 180.0)
    } else {
        (lng - dlng, lng + dlng)
    };
    let candidates = events::venues_in_box(conn, (lat - dlat, lat + dlat), lngs).await?;
    Ok(candidates
        .into_iter()
        .filter(|(_, vlat, vlng)| distance_km(lat, lng, *vlat, *vlng) <= radius)
        .map(|(id, _, _)| id)
        .collect())
}
