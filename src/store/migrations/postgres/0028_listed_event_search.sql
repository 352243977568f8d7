-- `event_search` (migration 26) with what a list checks of an event beside its
-- text: its end, status, password state, whether it is hidden from listings and
-- its author, as its key of every event (`event_keys`, kind 0) holds them, so that
-- the trigram index's candidates of a list of every event are checked on the row
-- that is read for their text anyway.
--
-- Each candidate's key was looked up by its ID after its text was checked: `jazz`
-- at a million events counts its first 1,001 matches among 1,599 candidates, and
-- without the lookups of their keys the request takes 21.6 ms, not 27.5.
--
-- Rebuilt beside the old table, as migration 26 did (an `UPDATE` of every row would
-- put each row's trigrams into the index again): searches read the old table until
-- the swap at the end; writes to `posts` wait for the migration (some minutes at a
-- million events).
-- No write may reach the old table after it is copied.
LOCK TABLE posts IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE event_search_listed (
    id              BIGINT  PRIMARY KEY,
    start_utc       BIGINT  NOT NULL,
    end_utc         BIGINT  NOT NULL,
    status          TEXT    NOT NULL,
    protected       BOOLEAN NOT NULL,
    hidden          BOOLEAN NOT NULL,
    author          BIGINT  NOT NULL,
    haystack        TEXT    NOT NULL,
    protected_title TEXT
);

-- The values `event_keys` holds (`event_keys_own`, migration 23).
INSERT INTO event_search_listed
    (id, start_utc, end_utc, status, protected, hidden, author, haystack, protected_title)
SELECT p.id, COALESCE(p.start_utc, 0), COALESCE(p.end_utc, 0), p.status, p.password <> '',
       p.hide_from_listings, p.author, s.haystack, s.protected_title
FROM event_search s JOIN posts p ON p.id = s.id;

SET LOCAL maintenance_work_mem = '256MB';
CREATE INDEX event_search_listed_trgm ON event_search_listed USING gin (haystack gin_trgm_ops);
CREATE INDEX event_search_listed_start ON event_search_listed (start_utc);

-- Migration 26's function, the listed columns written too (migrations are never
-- edited).
CREATE OR REPLACE FUNCTION event_search_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        DELETE FROM event_search WHERE id = OLD.id;
    ELSIF NEW.post_type <> 'event' THEN
        DELETE FROM event_search WHERE id = NEW.id;
    ELSE
        INSERT INTO event_search
            (id, start_utc, end_utc, status, protected, hidden, author, haystack,
             protected_title)
        VALUES (NEW.id, COALESCE(NEW.start_utc, 0), COALESCE(NEW.end_utc, 0), NEW.status,
                NEW.password <> '', NEW.hide_from_listings, NEW.author,
                lower(NEW.title || ' ' || NEW.excerpt || ' ' || NEW.description),
                CASE WHEN NEW.password <> '' THEN lower(NEW.title) END)
        ON CONFLICT (id) DO UPDATE
            SET start_utc = EXCLUDED.start_utc, end_utc = EXCLUDED.end_utc,
                status = EXCLUDED.status, protected = EXCLUDED.protected,
                hidden = EXCLUDED.hidden, author = EXCLUDED.author,
                haystack = EXCLUDED.haystack, protected_title = EXCLUDED.protected_title;
    END IF;
    RETURN NULL;
END
$$;

-- Fired by every change of what the row holds, as `event_keys_update` (migration 7)
-- is by what the keys hold.
DROP TRIGGER event_search_update ON posts;
CREATE TRIGGER event_search_update AFTER UPDATE OF post_type, title, excerpt, description,
    password, start_utc, end_utc, status, hide_from_listings, author ON posts FOR EACH ROW
    WHEN ((OLD.post_type = 'event' OR NEW.post_type = 'event')
        AND (OLD.post_type, OLD.title, OLD.excerpt, OLD.description, OLD.password <> '',
             OLD.start_utc, OLD.end_utc, OLD.status, OLD.hide_from_listings, OLD.author)
            IS DISTINCT FROM
            (NEW.post_type, NEW.title, NEW.excerpt, NEW.description, NEW.password <> '',
             NEW.start_utc, NEW.end_utc, NEW.status, NEW.hide_from_listings, NEW.author))
    EXECUTE FUNCTION event_search_sync();

DROP TABLE event_search;
ALTER TABLE event_search_listed RENAME TO event_search;
ALTER INDEX event_search_listed_pkey RENAME TO event_search_pkey;
ALTER INDEX event_search_listed_trgm RENAME TO event_search_trgm;
ALTER INDEX event_search_listed_start RENAME TO event_search_start;
-- As migration 25 set it, for the estimates of `LIKE '%word%'`.
ALTER TABLE event_search ALTER COLUMN haystack SET STATISTICS 1000;
ANALYZE event_search;
