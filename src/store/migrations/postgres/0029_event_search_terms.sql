-- `event_search` (migration 28) with each event's terms, as its term keys
-- (`event_keys`, kind 1: its categories and tags, and every category above one of
-- them) give them, indexed with its text in one GIN index: a search in a category
-- or a tag reads only the candidates holding both the words and the terms.
--
-- The trigram index gave every candidate of the words, and each had its terms
-- probed after its row was read: two tags of 94,000 events in the default dates
-- with `jazz` at a million events read 11,285 candidates (85-134 ms) and probed
-- each for the tags (76 ms), to count 1,001 matches.
--
-- Rebuilt beside the old table, as migrations 26 and 28 did: searches read the old
-- table until the swap at the end; writes to `posts` and to the events' terms wait
-- for the migration (some minutes at a million events).
-- No write may reach the old table, or change an event's terms, after it is copied.
LOCK TABLE posts, event_keys IN SHARE ROW EXCLUSIVE MODE;

-- event_search_terms: fill
CREATE TABLE event_search_terms (
    id              BIGINT   PRIMARY KEY,
    start_utc       BIGINT   NOT NULL,
    end_utc         BIGINT   NOT NULL,
    status          TEXT     NOT NULL,
    protected       BOOLEAN  NOT NULL,
    hidden          BOOLEAN  NOT NULL,
    author          BIGINT   NOT NULL,
    terms           BIGINT[] NOT NULL DEFAULT '{}',
    haystack        TEXT     NOT NULL,
    protected_title TEXT
);

INSERT INTO event_search_terms
    (id, start_utc, end_utc, status, protected, hidden, author, terms, haystack,
     protected_title)
SELECT s.id, s.start_utc, s.end_utc, s.status, s.protected, s.hidden, s.author,
       COALESCE(t.terms, '{}'), s.haystack, s.protected_title
FROM event_search s
LEFT JOIN (SELECT event_id, array_agg(value ORDER BY value) AS terms
           FROM event_keys WHERE kind = 1 GROUP BY event_id) t ON t.event_id = s.id;

SET LOCAL maintenance_work_mem = '256MB';
-- One index of both: a scan of it intersects a rare word's entries with a term's
-- many as it reads them, where two indexes' bitmaps are each read whole first.
CREATE INDEX event_search_terms_trgm ON event_search_terms
    USING gin (haystack gin_trgm_ops, terms);
CREATE INDEX event_search_terms_start ON event_search_terms (start_utc);

DROP TABLE event_search;
ALTER TABLE event_search_terms RENAME TO event_search;
ALTER INDEX event_search_terms_pkey RENAME TO event_search_pkey;
ALTER INDEX event_search_terms_trgm RENAME TO event_search_trgm;
ALTER INDEX event_search_terms_start RENAME TO event_search_start;
-- As migration 25 set it, for the estimates of `LIKE '%word%'`.
ALTER TABLE event_search ALTER COLUMN haystack SET STATISTICS 1000;
-- event_search_terms: filled

-- An event's terms, written again from its term keys when one is added or removed.
-- Deferred to the end of the transaction, when all its keys are in place: an event
-- saved with three categories and two tags adds a dozen keys, and its row (whose
-- text's trigrams go into the index again with each new version) is written once;
-- the other firings find it as it should be and write nothing.
CREATE FUNCTION event_search_terms_sync() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed BIGINT;
BEGIN
    IF TG_OP = 'DELETE' THEN
        changed := OLD.event_id;
    ELSE
        changed := NEW.event_id;
    END IF;
    UPDATE event_search s SET terms = t.terms
    FROM (SELECT COALESCE(array_agg(k.value ORDER BY k.value), '{}') AS terms
          FROM event_keys k WHERE k.event_id = changed AND k.kind = 1) t
    WHERE s.id = changed AND s.terms IS DISTINCT FROM t.terms;
    RETURN NULL;
END
$$;

-- No statement changes a term key's value or event (only a venue's located flag,
-- kind 6, is updated in place): its insert and its delete are the changes.
CREATE CONSTRAINT TRIGGER event_search_terms_insert AFTER INSERT ON event_keys
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.kind = 1)
    EXECUTE FUNCTION event_search_terms_sync();
CREATE CONSTRAINT TRIGGER event_search_terms_delete AFTER DELETE ON event_keys
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (OLD.kind = 1)
    EXECUTE FUNCTION event_search_terms_sync();

ANALYZE event_search;
