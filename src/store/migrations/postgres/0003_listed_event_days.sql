-- How many events each (start day, end day) pair holds among those every visitor's
-- default list may show: published, not hidden from listings, with both dates set.
-- A list of a long window counts its whole days from here and scans only the events
-- of its first and last day (see `store::events::count`), instead of counting every
-- event of the window again after each write. Days are UTC days, `floor(t / 86400)`,
-- written so that SQLite and PostgreSQL agree on times before 1970.
CREATE TABLE listed_event_days (
    start_day BIGINT NOT NULL,
    end_day   BIGINT NOT NULL,
    events    BIGINT NOT NULL,
    -- End day first: a count sums the days before its last, and looks up which
    -- events end on that last day.
    PRIMARY KEY (end_day, start_day)
);

INSERT INTO listed_event_days (start_day, end_day, events)
SELECT (start_utc - ((start_utc % 86400) + 86400) % 86400) / 86400,
       (end_utc - ((end_utc % 86400) + 86400) % 86400) / 86400,
       count(*)
FROM posts
WHERE post_type = 'event' AND status = 'publish' AND NOT hide_from_listings
  AND start_utc IS NOT NULL AND end_utc IS NOT NULL
GROUP BY 1, 2;

CREATE FUNCTION listed_event_days_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' AND OLD.post_type = 'event' AND OLD.status = 'publish'
       AND NOT OLD.hide_from_listings AND OLD.start_utc IS NOT NULL AND OLD.end_utc IS NOT NULL THEN
        UPDATE listed_event_days SET events = events - 1
        WHERE start_day = (OLD.start_utc - ((OLD.start_utc % 86400) + 86400) % 86400) / 86400
          AND end_day = (OLD.end_utc - ((OLD.end_utc % 86400) + 86400) % 86400) / 86400;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.post_type = 'event' AND NEW.status = 'publish'
       AND NOT NEW.hide_from_listings AND NEW.start_utc IS NOT NULL AND NEW.end_utc IS NOT NULL THEN
        INSERT INTO listed_event_days (start_day, end_day, events) VALUES (
            (NEW.start_utc - ((NEW.start_utc % 86400) + 86400) % 86400) / 86400,
            (NEW.end_utc - ((NEW.end_utc % 86400) + 86400) % 86400) / 86400,
            1)
        ON CONFLICT (end_day, start_day) DO UPDATE SET events = listed_event_days.events + 1;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER listed_event_days_insert AFTER INSERT ON posts FOR EACH ROW
WHEN (NEW.post_type = 'event' AND NEW.status = 'publish' AND NOT NEW.hide_from_listings)
EXECUTE FUNCTION listed_event_days_sync();

CREATE TRIGGER listed_event_days_delete AFTER DELETE ON posts FOR EACH ROW
WHEN (OLD.post_type = 'event' AND OLD.status = 'publish' AND NOT OLD.hide_from_listings)
EXECUTE FUNCTION listed_event_days_sync();

-- Only updates that can move an event in or out of a day pair.
CREATE TRIGGER listed_event_days_update AFTER UPDATE ON posts FOR EACH ROW
WHEN ((OLD.post_type = 'event' OR NEW.post_type = 'event')
  AND (OLD.status IS DISTINCT FROM NEW.status
    OR OLD.hide_from_listings IS DISTINCT FROM NEW.hide_from_listings
    OR OLD.start_utc IS DISTINCT FROM NEW.start_utc
    OR OLD.end_utc IS DISTINCT FROM NEW.end_utc
    OR OLD.post_type IS DISTINCT FROM NEW.post_type))
EXECUTE FUNCTION listed_event_days_sync();
