-- Venues and organizers in list order (newest first), with what a list checks of
-- each: a page of them is the first entries of one range, where it was every venue
-- of the calendar read from `posts_type_status_date` (in status order) and sorted
-- (a page of venues with events at a million events: 15 ms on SQLite, 3 ms so).
-- Partial, so that the events' million rows are not in it: a list names its type
-- (`post_type = 'venue'`), which is what lets the planner use it.
CREATE INDEX posts_venues_by_date
    ON posts(post_type, date_utc, id, status, author, password) WHERE post_type = 'venue';
CREATE INDEX posts_organizers_by_date
    ON posts(post_type, date_utc, id, status, author, password) WHERE post_type = 'organizer';
