-- A category matches the events of its subcategories too (`include_children`), so
-- a term's key (kind 1 of `event_keys`) is now held by every event of the term or
-- of a term below it: a parent category is one range in list order, with its own
-- per-day counts, where it was the union of its children's ranges, which had to be
-- merged and counted apart (a category of 410,000 events with one child at a
-- million events: 0.7 s). Tags have no parents: their keys are unchanged.
--
-- Each term and the terms above it, itself included. Triggers keep it, and the
-- keys it decides, through every write of terms and term relationships.
CREATE TABLE term_ancestors (
    term_id     INTEGER NOT NULL,
    ancestor_id INTEGER NOT NULL,
    PRIMARY KEY (term_id, ancestor_id)
) WITHOUT ROWID;
-- A term's subtree: the terms with it among their ancestors.
CREATE INDEX term_ancestors_below ON term_ancestors(ancestor_id, term_id);

-- term_ancestors: fill
DELETE FROM term_ancestors;
-- A UNION, not UNION ALL: a parent loop (which the server refuses to make) ends.
INSERT INTO term_ancestors (term_id, ancestor_id)
WITH RECURSIVE up(term_id, ancestor_id) AS (
    SELECT id, id FROM terms
    UNION
    SELECT up.term_id, t.parent FROM up
    JOIN terms t ON t.id = up.ancestor_id AND t.taxonomy = 'tribe_events_cat'
    JOIN terms p ON p.id = t.parent
)
SELECT term_id, ancestor_id FROM up;
INSERT OR IGNORE INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
SELECT 1, c.ancestor_id, COALESCE(e.start_utc, 0), e.id, COALESCE(e.end_utc, 0), e.status,
       e.password <> '', e.hide_from_listings, e.author
FROM term_relationships r
JOIN term_ancestors c ON c.term_id = r.term_id AND c.ancestor_id <> r.term_id
JOIN posts e ON e.id = r.post_id AND e.post_type = 'event'
ORDER BY 2, 3, 4;
DELETE FROM event_key_days WHERE kind = 1;
INSERT INTO event_key_days (kind, value, status, protected, end_day, start_day, events)
SELECT kind, value, status, protected,
       (end_utc - ((end_utc % 86400) + 86400) % 86400) / 86400,
       (start_utc - ((start_utc % 86400) + 86400) % 86400) / 86400,
       COUNT(*)
FROM event_keys WHERE hidden = 0 AND kind = 1
GROUP BY 1, 2, 3, 4, 5, 6;
-- term_ancestors: filled

CREATE TRIGGER term_ancestors_insert AFTER INSERT ON terms BEGIN
    INSERT OR IGNORE INTO term_ancestors (term_id, ancestor_id) VALUES (new.id, new.id);
    INSERT OR IGNORE INTO term_ancestors (term_id, ancestor_id)
    SELECT new.id, ancestor_id FROM term_ancestors
    WHERE term_id = new.parent AND new.taxonomy = 'tribe_events_cat';
END;

CREATE TRIGGER term_ancestors_delete AFTER DELETE ON terms BEGIN
    DELETE FROM term_ancestors WHERE term_id = old.id OR ancestor_id = old.id;
END;

-- A category moved: the events of its subtree lose the keys of the categories that were
-- above it, but for those a term of theirs outside the subtree still gives them, and gain
-- the keys of the new parent and the categories above it; the subtree's own keys stay.
-- The subtree's ancestors are rewritten in between. A move writes each event below it
-- once: seconds for a category of 100,000 events.
CREATE TRIGGER term_ancestors_move AFTER UPDATE OF parent ON terms
WHEN old.parent IS NOT new.parent AND new.taxonomy = 'tribe_events_cat' BEGIN
    DELETE FROM event_keys
    WHERE kind = 1
      AND value IN (SELECT ancestor_id FROM term_ancestors
                    WHERE term_id = new.id AND ancestor_id <> new.id)
      AND event_id IN (SELECT r.post_id FROM term_ancestors s
                       JOIN term_relationships r ON r.term_id = s.term_id
                       WHERE s.ancestor_id = new.id)
      AND NOT EXISTS (SELECT 1 FROM term_relationships r
                      JOIN term_ancestors c ON c.term_id = r.term_id
                      WHERE r.post_id = event_keys.event_id AND c.ancestor_id = event_keys.value
                        AND r.term_id NOT IN (SELECT term_id FROM term_ancestors
                                              WHERE ancestor_id = new.id));
    DELETE FROM term_ancestors
    WHERE term_id IN (SELECT term_id FROM term_ancestors WHERE ancestor_id = new.id)
      AND ancestor_id IN (SELECT ancestor_id FROM term_ancestors
                          WHERE term_id = new.id AND ancestor_id <> new.id);
    INSERT OR IGNORE INTO term_ancestors (term_id, ancestor_id)
    SELECT below.term_id, above.ancestor_id
    FROM term_ancestors below, term_ancestors above
    WHERE below.ancestor_id = new.id AND above.term_id = new.parent;
    INSERT OR IGNORE INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
    SELECT 1, above.ancestor_id, COALESCE(e.start_utc, 0), e.id, COALESCE(e.end_utc, 0), e.status,
           e.password <> '', e.hide_from_listings, e.author
    FROM term_ancestors s
    JOIN term_relationships r ON r.term_id = s.term_id
    JOIN posts e ON e.id = r.post_id AND e.post_type = 'event'
    JOIN term_ancestors above ON above.term_id = new.parent
    WHERE s.ancestor_id = new.id;
END;

DROP TRIGGER event_keys_term_insert;
DROP TRIGGER event_keys_term_delete;

-- An event given a term holds the keys of the term and of every term above it;
-- those it holds already through another of its terms stay as they are.
CREATE TRIGGER event_keys_term_insert AFTER INSERT ON term_relationships BEGIN
    INSERT OR IGNORE INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
    SELECT 1, c.ancestor_id, COALESCE(e.start_utc, 0), e.id, COALESCE(e.end_utc, 0), e.status,
           e.password <> '', e.hide_from_listings, e.author
    FROM posts e JOIN term_ancestors c ON c.term_id = new.term_id
    WHERE e.id = new.post_id AND e.post_type = 'event';
END;

-- An event losing a term keeps only the keys its other terms give it. Every key of
-- the event is checked, not the ancestors of the term it lost: a deleted term's
-- ancestors may be gone before its relationships are.
CREATE TRIGGER event_keys_term_delete AFTER DELETE ON term_relationships BEGIN
    DELETE FROM event_keys
    WHERE event_id = old.post_id AND kind = 1
      AND NOT EXISTS (SELECT 1 FROM term_relationships r
                      JOIN term_ancestors c ON c.term_id = r.term_id
                      WHERE r.post_id = old.post_id AND c.ancestor_id = event_keys.value);
END;
