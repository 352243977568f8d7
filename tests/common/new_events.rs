//! New events as the create batcher takes them (`store::event_batch::NewEvent`),
//! for tests that drive batches directly.

use calendar_events::domain::post::{PostChanges, Status};
use calendar_events::store::event_batch::NewEvent;
use calendar_events::store::events::EventRow;

/// The moment the new events are created: 2027-01-15 08:00 UTC.
pub const NOW: i64 = 1_800_000_000;

/// A plain new event starting `day` days after [`NOW`], for one hour, at `venue`.
pub fn new_event_at(
    title: &str,
    status: Status,
    author: i64,
    day: i64,
    venue: Option<i64>,
) -> NewEvent {
    let start = NOW + day * 86_400;
    NewEvent {
        post: PostChanges {
            title: Some(title.into()),
            author: Some(author),
            status: Some(status),
            ..Default::default()
        },
        columns: EventRow {
            website: None,
            start_utc: Some(start),
            end_utc: Some(start + 3_600),
            timezone: None,
            all_day: Some(false),
            cost: None,
            hide_from_listings: Some(false),
            sticky: Some(false),
            featured: Some(false),
            post_parent: None,
            venue_id: venue.map(Some),
            tickets: None,
        }
        .values(),
        organizers: Vec::new(),
        terms: Vec::new(),
        counted: status == Status::Publish,
        now: NOW,
    }
}

/// A plain new event starting `day` days after [`NOW`], for one hour, at no venue.
pub fn new_event(title: &str, status: Status, author: i64, day: i64) -> NewEvent {
    new_event_at(title, status, author, day, None)
}
