-- A term with a flag as one key: the featured events of a category (kind 7) and the
-- events with tickets of a category (kind 8), value the term's ID, are held as keys
-- of their own, with their own per-day counts. A category with `featured=1` was the
-- range of the flag probed for the category event by event, and counted so (the
-- 33,000 featured events of a year against a category of 555,000 at a million
-- events: 78 ms on SQLite, 195 ms on PostgreSQL); it is now one range and its
-- counts. An event has one such key per term key (kind 1) while it has the flag:
-- a few percent of the terms' keys, as a few percent of events are featured or
-- sell tickets. Triggers on `event_keys` itself keep them: a term key or a flag
-- key added or removed adds or removes the pairs it makes; an update of the
-- event's dates, status, password or author rewrites them with its other keys.
-- The flags' codes plus 3 are the pairs' codes (4 -> 7, 5 -> 8).

-- The per-day counts now count every key kind but venues and organizers.
DROP TRIGGER event_key_days_insert ON event_keys;
DROP TRIGGER event_key_days_delete ON event_keys;

-- flagged_term_keys: fill
DELETE FROM event_keys WHERE kind IN (7, 8);
INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
SELECT f.kind + 3, t.value, t.start_utc, t.event_id, t.end_utc, t.status, t.protected, t.hidden, t.author
FROM event_keys f
JOIN event_keys t ON t.event_id = f.event_id AND t.kind = 1
WHERE f.kind IN (4, 5) AND f.value = 1;
DELETE FROM event_key_days WHERE kind IN (7, 8);
INSERT INTO event_key_days (kind, value, status, protected, end_day, start_day, events)
SELECT kind, value, status, protected,
       (end_utc - ((end_utc % 86400) + 86400) % 86400) / 86400,
       (start_utc - ((start_utc % 86400) + 86400) % 86400) / 86400,
       COUNT(*)
FROM event_keys WHERE NOT hidden AND kind IN (7, 8)
GROUP BY 1, 2, 3, 4, 5, 6;
-- flagged_term_keys: filled

CREATE OR REPLACE FUNCTION event_key_days_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' AND NOT OLD.hidden AND OLD.kind NOT IN (2, 3) THEN
        UPDATE event_key_days SET events = events - 1
        WHERE kind = OLD.kind AND value = OLD.value AND status = OLD.status
          AND protected = OLD.protected
          AND end_day = (OLD.end_utc - ((OLD.end_utc % 86400) + 86400) % 86400) / 86400
          AND start_day = (OLD.start_utc - ((OLD.start_utc % 86400) + 86400) % 86400) / 86400;
    END IF;
    IF TG_OP <> 'DELETE' AND NOT NEW.hidden AND NEW.kind NOT IN (2, 3) THEN
        INSERT INTO event_key_days (kind, value, status, protected, end_day, start_day, events)
        VALUES (NEW.kind, NEW.value, NEW.status, NEW.protected,
                (NEW.end_utc - ((NEW.end_utc % 86400) + 86400) % 86400) / 86400,
                (NEW.start_utc - ((NEW.start_utc % 86400) + 86400) % 86400) / 86400, 1)
        ON CONFLICT (kind, value, status, protected, end_day, start_day)
        DO UPDATE SET events = event_key_days.events + 1;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER event_key_days_insert AFTER INSERT ON event_keys FOR EACH ROW
WHEN (NOT NEW.hidden AND NEW.kind NOT IN (2, 3))
EXECUTE FUNCTION event_key_days_sync();

CREATE TRIGGER event_key_days_delete AFTER DELETE ON event_keys FOR EACH ROW
WHEN (NOT OLD.hidden AND OLD.kind NOT IN (2, 3))
EXECUTE FUNCTION event_key_days_sync();

-- A term key added to a flagged event, or a flag set on an event with terms, adds
-- the pairs they make; either removed, removes them. The pair's row carries what
-- the added key does: every key of an event carries the same start, end, status,
-- password state, hiding and author. Both sides may be added by one statement
-- (after-row triggers run when it ends, each seeing the other's row): a pair
-- already there is left as it is. A flag set or cleared shares the categories' tree
-- lock (migration 17) that a move of a category holds: the move adds and removes term
-- keys of its subtree's events, and a concurrent flag change, each reading the
-- other's keys as they were, would leave an event without a pair it should have or
-- with one it should not.
CREATE FUNCTION event_keys_flagged_terms_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM term_tree_shared();
    IF TG_OP = 'INSERT' AND NEW.kind = 1 THEN
        INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
        SELECT f.kind + 3, NEW.value, NEW.start_utc, NEW.event_id, NEW.end_utc, NEW.status,
               NEW.protected, NEW.hidden, NEW.author
        FROM event_keys f
        WHERE f.event_id = NEW.event_id AND f.kind IN (4, 5) AND f.value = 1
        ON CONFLICT DO NOTHING;
    ELSIF TG_OP = 'INSERT' THEN
        INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
        SELECT NEW.kind + 3, t.value, NEW.start_utc, NEW.event_id, NEW.end_utc, NEW.status,
               NEW.protected, NEW.hidden, NEW.author
        FROM event_keys t
        WHERE t.event_id = NEW.event_id AND t.kind = 1
        ON CONFLICT DO NOTHING;
    ELSIF OLD.kind = 1 THEN
        DELETE FROM event_keys
        WHERE event_id = OLD.event_id AND kind IN (7, 8) AND value = OLD.value;
    ELSE
        DELETE FROM event_keys WHERE event_id = OLD.event_id AND kind = OLD.kind + 3;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER event_keys_term_flags_insert AFTER INSERT ON event_keys FOR EACH ROW
WHEN (NEW.kind = 1)
EXECUTE FUNCTION event_keys_flagged_terms_sync();

CREATE TRIGGER event_keys_flag_terms_insert AFTER INSERT ON event_keys FOR EACH ROW
WHEN (NEW.kind IN (4, 5) AND NEW.value = 1)
EXECUTE FUNCTION event_keys_flagged_terms_sync();

CREATE TRIGGER event_keys_term_flags_delete AFTER DELETE ON event_keys FOR EACH ROW
WHEN (OLD.kind = 1)
EXECUTE FUNCTION event_keys_flagged_terms_sync();

CREATE TRIGGER event_keys_flag_terms_delete AFTER DELETE ON event_keys FOR EACH ROW
WHEN (OLD.kind IN (4, 5) AND OLD.value = 1)
EXECUTE FUNCTION event_keys_flagged_terms_sync();
