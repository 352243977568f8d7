-- The featured and ticketed flags among each event's terms on `event_search`, as
-- the negated codes of their keys' kinds (-4, -5), which no term's ID is: a search
-- with `featured=1` reads from the index of whole words only the candidates
-- holding the word and the flag, as a search in a category does (migration 29),
-- and checks an unset flag on the row it reads, rather than a lookup of each
-- match's flag key (`featured=1&search=carnival` over every date at a million
-- events: 20,000 lookups to count 1,000 featured matches, 257 ms, 1.4 s from disk).
-- The located flag stays out: most events hold it, and it changes with a venue's
-- coordinates, for every event of the venue.

-- The terms of the event as `event_search` holds them: its term keys' values and
-- its set flags' codes, negated, in order.
CREATE FUNCTION event_search_terms_of(event BIGINT) RETURNS BIGINT[]
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (
        SELECT COALESCE(array_agg(t.term ORDER BY t.term), '{}')
        FROM (SELECT CASE WHEN k.kind = 1 THEN k.value ELSE -k.kind END AS term
              FROM event_keys k
              WHERE k.event_id = event
                AND (k.kind = 1 OR (k.kind IN (4, 5) AND k.value = 1))) t);
END
$$;

CREATE OR REPLACE FUNCTION event_search_terms_sync() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed BIGINT := CASE WHEN TG_OP = 'DELETE' THEN OLD.event_id ELSE NEW.event_id END;
    held BIGINT[] := event_search_terms_of(changed);
BEGIN
    UPDATE event_search s SET terms = held WHERE s.id = changed AND s.terms IS DISTINCT FROM held;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION event_search_insert_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_search
        (id, start_utc, end_utc, status, protected, hidden, author, terms, haystack,
         protected_title)
    SELECT p.id, COALESCE(p.start_utc, 0), COALESCE(p.end_utc, 0), p.status,
           p.password <> '', p.hide_from_listings, p.author, event_search_terms_of(p.id),
           lower(p.title || ' ' || p.excerpt || ' ' || p.description),
           CASE WHEN p.password <> '' THEN lower(p.title) END
    FROM posts p WHERE p.id = NEW.id AND p.post_type = 'event'
    ON CONFLICT (id) DO UPDATE
        SET start_utc = EXCLUDED.start_utc, end_utc = EXCLUDED.end_utc,
            status = EXCLUDED.status, protected = EXCLUDED.protected,
            hidden = EXCLUDED.hidden, author = EXCLUDED.author, terms = EXCLUDED.terms,
            haystack = EXCLUDED.haystack, protected_title = EXCLUDED.protected_title
        WHERE (event_search.start_utc, event_search.end_utc, event_search.status,
               event_search.protected, event_search.hidden, event_search.author,
               event_search.terms, event_search.haystack, event_search.protected_title)
            IS DISTINCT FROM
              (EXCLUDED.start_utc, EXCLUDED.end_utc, EXCLUDED.status, EXCLUDED.protected,
               EXCLUDED.hidden, EXCLUDED.author, EXCLUDED.terms, EXCLUDED.haystack,
               EXCLUDED.protected_title);
    RETURN NULL;
END
$$;

DROP TRIGGER event_search_terms_insert ON event_keys;
DROP TRIGGER event_search_terms_delete ON event_keys;
CREATE CONSTRAINT TRIGGER event_search_terms_insert AFTER INSERT ON event_keys
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (NEW.kind = 1 OR (NEW.kind IN (4, 5) AND NEW.value = 1))
    EXECUTE FUNCTION event_search_terms_sync();
CREATE CONSTRAINT TRIGGER event_search_terms_delete AFTER DELETE ON event_keys
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (OLD.kind = 1 OR (OLD.kind IN (4, 5) AND OLD.value = 1))
    EXECUTE FUNCTION event_search_terms_sync();
CREATE CONSTRAINT TRIGGER event_search_terms_update AFTER UPDATE OF value ON event_keys
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (NEW.kind IN (4, 5) AND OLD.value IS DISTINCT FROM NEW.value)
    EXECUTE FUNCTION event_search_terms_sync();

-- flags_among_search_terms: fill
UPDATE event_search s SET terms = f.terms
FROM (SELECT k.event_id, event_search_terms_of(k.event_id) AS terms
      FROM event_keys k WHERE k.kind IN (4, 5) AND k.value = 1
      GROUP BY k.event_id) f
WHERE s.id = f.event_id AND s.terms IS DISTINCT FROM f.terms;
-- flags_among_search_terms: filled
ANALYZE event_search;
