-- How many events each (start day, end day) pair holds among those every visitor's
-- default list may show: published, not hidden from listings, with both dates set.
-- A list of a long window counts its whole days from here and scans only the events
-- of its first and last day (see `store::events::count`), instead of counting every
-- event of the window again after each write. Days are UTC days, `floor(t / 86400)`,
-- written so that SQLite and PostgreSQL agree on times before 1970.
CREATE TABLE listed_event_days (
    start_day INTEGER NOT NULL,
    end_day   INTEGER NOT NULL,
    events    INTEGER NOT NULL,
    -- End day first: a count sums the days before its last, and looks up which
    -- events end on that last day.
    PRIMARY KEY (end_day, start_day)
) WITHOUT ROWID;

INSERT INTO listed_event_days (start_day, end_day, events)
SELECT (start_utc - ((start_utc % 86400) + 86400) % 86400) / 86400,
       (end_utc - ((end_utc % 86400) + 86400) % 86400) / 86400,
       count(*)
FROM posts
WHERE post_type = 'event' AND status = 'publish' AND hide_from_listings = 0
  AND start_utc IS NOT NULL AND end_utc IS NOT NULL
GROUP BY 1, 2;

CREATE TRIGGER listed_event_days_insert AFTER INSERT ON posts
WHEN new.post_type = 'event' AND new.status = 'publish' AND new.hide_from_listings = 0
 AND new.start_utc IS NOT NULL AND new.end_utc IS NOT NULL BEGIN
    INSERT INTO listed_event_days (start_day, end_day, events) VALUES (
        (new.start_utc - ((new.start_utc % 86400) + 86400) % 86400) / 86400,
        (new.end_utc - ((new.end_utc % 86400) + 86400) % 86400) / 86400,
        1)
    ON CONFLICT (end_day, start_day) DO UPDATE SET events = events + 1;
END;

CREATE TRIGGER listed_event_days_delete AFTER DELETE ON posts
WHEN old.post_type = 'event' AND old.status = 'publish' AND old.hide_from_listings = 0
 AND old.start_utc IS NOT NULL AND old.end_utc IS NOT NULL BEGIN
    UPDATE listed_event_days SET events = events - 1
    WHERE start_day = (old.start_utc - ((old.start_utc % 86400) + 86400) % 86400) / 86400
      AND end_day = (old.end_utc - ((old.end_utc % 86400) + 86400) % 86400) / 86400;
END;

-- An update is a removal of the old row and an addition of the new one, each only
-- where that row was counted.
CREATE TRIGGER listed_event_days_update_old AFTER UPDATE OF post_type, status, hide_from_listings, start_utc, end_utc ON posts
WHEN old.post_type = 'event' AND old.status = 'publish' AND old.hide_from_listings = 0
 AND old.start_utc IS NOT NULL AND old.end_utc IS NOT NULL BEGIN
    UPDATE listed_event_days SET events = events - 1
    WHERE start_day = (old.start_utc - ((old.start_utc % 86400) + 86400) % 86400) / 86400
      AND end_day = (old.end_utc - ((old.end_utc % 86400) + 86400) % 86400) / 86400;
END;

CREATE TRIGGER listed_event_days_update_new AFTER UPDATE OF post_type, status, hide_from_listings, start_utc, end_utc ON posts
WHEN new.post_type = 'event' AND new.status = 'publish' AND new.hide_from_listings = 0
 AND new.start_utc IS NOT NULL AND new.end_utc IS NOT NULL BEGIN
    INSERT INTO listed_event_days (start_day, end_day, events) VALUES (
        (new.start_utc - ((new.start_utc % 86400) + 86400) % 86400) / 86400,
        (new.end_utc - ((new.end_utc % 86400) + 86400) % 86400) / 86400,
        1)
    ON CONFLICT (end_day, start_day) DO UPDATE SET events = events + 1;
END;
