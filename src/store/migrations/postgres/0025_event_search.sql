-- Each event's searched text, lower-cased once as it is written, in a table of its
-- own that the trigram index now covers, as `linked_search` (migration 12) is for
-- venues and organizers.
--
-- A search checks the text of every event its walk reads, and of every candidate
-- of the trigram index (whose matches are only probable): `lower()` of the title,
-- excerpt and description joined, made again for each row. PostgreSQL folds case
-- through wide characters under any collation but "C", and even folded as ASCII
-- (where the text allows) the check cost about 8 µs of an event's 1.2 KB, more
-- than reading its row; `strpos` on the stored text takes under 2 µs.
--
-- `haystack` is what the index expression was: `lower(title || ' ' || excerpt ||
-- ' ' || description)`, so searches find what they found. `protected_title`: the
-- lower-cased title of an event with a password, all a search may match of it for
-- those who may not read it; NULL for an event without one. Every event is here,
-- whatever its status: a list's keys say which it shows.
--
-- Triggers keep it in the transaction of the write, so no reader sees it behind,
-- and only a write that changes the text or whether it has a password rewrites its
-- row (and its entries in the index: `posts` updates no trigram index any more).
--
-- At a million events the fill lower-cases every event's text and the index is
-- built after it: several minutes, during which writes to `posts` wait.
CREATE TABLE event_search (
    id              BIGINT PRIMARY KEY,
    haystack        TEXT   NOT NULL,
    protected_title TEXT
);

CREATE FUNCTION event_search_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        DELETE FROM event_search WHERE id = OLD.id;
    ELSIF NEW.post_type <> 'event' THEN
        DELETE FROM event_search WHERE id = NEW.id;
    ELSE
        INSERT INTO event_search (id, haystack, protected_title)
        VALUES (NEW.id, lower(NEW.title || ' ' || NEW.excerpt || ' ' || NEW.description),
                CASE WHEN NEW.password <> '' THEN lower(NEW.title) END)
        ON CONFLICT (id) DO UPDATE
            SET haystack = EXCLUDED.haystack, protected_title = EXCLUDED.protected_title;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER event_search_insert AFTER INSERT ON posts FOR EACH ROW
    WHEN (NEW.post_type = 'event')
    EXECUTE FUNCTION event_search_sync();
CREATE TRIGGER event_search_update AFTER UPDATE OF post_type, title, excerpt, description,
    password ON posts FOR EACH ROW
    WHEN ((OLD.post_type = 'event' OR NEW.post_type = 'event')
        AND (OLD.post_type, OLD.title, OLD.excerpt, OLD.description, OLD.password <> '')
            IS DISTINCT FROM
            (NEW.post_type, NEW.title, NEW.excerpt, NEW.description, NEW.password <> ''))
    EXECUTE FUNCTION event_search_sync();
CREATE TRIGGER event_search_delete AFTER DELETE ON posts FOR EACH ROW
    WHEN (OLD.post_type = 'event')
    EXECUTE FUNCTION event_search_sync();

-- event_search: fill
INSERT INTO event_search (id, haystack, protected_title)
SELECT id, lower(title || ' ' || excerpt || ' ' || description),
       CASE WHEN password <> '' THEN lower(title) END
FROM posts WHERE post_type = 'event';
-- event_search: filled

SET LOCAL maintenance_work_mem = '256MB';
CREATE INDEX event_search_trgm ON event_search USING gin (haystack gin_trgm_ops);
-- As migration 4 set for the expression it replaces: `LIKE '%word%'` is estimated
-- from the column's statistics, which a sample of 100 texts leaves blind.
ALTER TABLE event_search ALTER COLUMN haystack SET STATISTICS 1000;
ANALYZE event_search;
DROP INDEX posts_search_trgm;
