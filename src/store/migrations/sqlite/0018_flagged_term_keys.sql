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
DROP TRIGGER event_key_days_insert;
DROP TRIGGER event_key_days_delete;
DROP TRIGGER event_key_days_update_old;
DROP TRIGGER event_key_days_update_new;

-- flagged_term_keys: fill
DELETE FROM event_keys WHERE kind IN (7, 8);
INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
SELECT f.kind + 3, t.value, t.start_utc, t.event_id, t.end_utc, t.status, t.protected, t.hidden, t.author
FROM event_keys f
JOIN event_keys t ON t.event_id = f.event_id AND t.kind = 1
WHERE f.kind IN (4, 5) AND f.value = 1
ORDER BY 1, 2, 3, 4;
DELETE FROM event_key_days WHERE kind IN (7, 8);
INSERT INTO event_key_days (kind, value, status, protected, end_day, start_day, events)
SELECT kind, value, status, protected,
       (end_utc - ((end_utc % 86400) + 86400) % 86400) / 86400,
       (start_utc - ((start_utc % 86400) + 86400) % 86400) / 86400,
       COUNT(*)
FROM event_keys WHERE hidden = 0 AND kind IN (7, 8)
GROUP BY 1, 2, 3, 4, 5, 6;
-- flagged_term_keys: filled

CREATE TRIGGER event_key_days_insert AFTER INSERT ON event_keys
WHEN new.hidden = 0 AND new.kind NOT IN (2, 3) BEGIN
    INSERT INTO event_key_days (kind, value, status, protected, end_day, start_day, events)
    VALUES (new.kind, new.value, new.status, new.protected,
            (new.end_utc - ((new.end_utc % 86400) + 86400) % 86400) / 86400,
            (new.start_utc - ((new.start_utc % 86400) + 86400) % 86400) / 86400, 1)
    ON CONFLICT (kind, value, status, protected, end_day, start_day) DO UPDATE SET events = events + 1;
END;

CREATE TRIGGER event_key_days_delete AFTER DELETE ON event_keys
WHEN old.hidden = 0 AND old.kind NOT IN (2, 3) BEGIN
    UPDATE event_key_days SET events = events - 1
    WHERE kind = old.kind AND value = old.value AND status = old.status AND protected = old.protected
      AND end_day = (old.end_utc - ((old.end_utc % 86400) + 86400) % 86400) / 86400
      AND start_day = (old.start_utc - ((old.start_utc % 86400) + 86400) % 86400) / 86400;
END;

CREATE TRIGGER event_key_days_update_old AFTER UPDATE ON event_keys
WHEN old.hidden = 0 AND old.kind NOT IN (2, 3) BEGIN
    UPDATE event_key_days SET events = events - 1
    WHERE kind = old.kind AND value = old.value AND status = old.status AND protected = old.protected
      AND end_day = (old.end_utc - ((old.end_utc % 86400) + 86400) % 86400) / 86400
      AND start_day = (old.start_utc - ((old.start_utc % 86400) + 86400) % 86400) / 86400;
END;

CREATE TRIGGER event_key_days_update_new AFTER UPDATE ON event_keys
WHEN new.hidden = 0 AND new.kind NOT IN (2, 3) BEGIN
    INSERT INTO event_key_days (kind, value, status, protected, end_day, start_day, events)
    VALUES (new.kind, new.value, new.status, new.protected,
            (new.end_utc - ((new.end_utc % 86400) + 86400) % 86400) / 86400,
            (new.start_utc - ((new.start_utc % 86400) + 86400) % 86400) / 86400, 1)
    ON CONFLICT (kind, value, status, protected, end_day, start_day) DO UPDATE SET events = events + 1;
END;

-- A term key added to a flagged event, or a flag set on an event with terms. The
-- pair's row carries what the added key does: every key of an event carries the
-- same start, end, status, password state, hiding and author.
CREATE TRIGGER event_keys_term_flags_insert AFTER INSERT ON event_keys
WHEN new.kind = 1 BEGIN
    INSERT OR IGNORE INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
    SELECT f.kind + 3, new.value, new.start_utc, new.event_id, new.end_utc, new.status,
           new.protected, new.hidden, new.author
    FROM event_keys f
    WHERE f.event_id = new.event_id AND f.kind IN (4, 5) AND f.value = 1;
END;

CREATE TRIGGER event_keys_flag_terms_insert AFTER INSERT ON event_keys
WHEN new.kind IN (4, 5) AND new.value = 1 BEGIN
    INSERT OR IGNORE INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
    SELECT new.kind + 3, t.value, new.start_utc, new.event_id, new.end_utc, new.status,
           new.protected, new.hidden, new.author
    FROM event_keys t
    WHERE t.event_id = new.event_id AND t.kind = 1;
END;

CREATE TRIGGER event_keys_term_flags_delete AFTER DELETE ON event_keys
WHEN old.kind = 1 BEGIN
    DELETE FROM event_keys
    WHERE event_id = old.event_id AND kind IN (7, 8) AND value = old.value;
END;

CREATE TRIGGER event_keys_flag_terms_delete AFTER DELETE ON event_keys
WHEN old.kind IN (4, 5) AND old.value = 1 BEGIN
    DELETE FROM event_keys WHERE event_id = old.event_id AND kind = old.kind + 3;
END;
