-- Each event's own key (kind 0 of `event_keys`) carries its terms as bits, so that
-- the total of a filter of several large terms (`categories=1,2,…`) is one pass
-- over the window's events, each checked by a mask, where it counted each value's
-- range and probed every event of it for the values before it: six categories at
-- a million events read their 900,000 keys, 2 s on PostgreSQL (see
-- `store::events::keys::bits`).
--
-- A term's bit, 0 to 62 (63 terms have one; the others none): the lowest one free
-- when the term is made, given here to the terms most used first, and freed with
-- the term. An event's `term_bits` is the OR of the bits of the terms its keys
-- hold (its terms and the categories above them); other keys' are 0. A mask
-- counts a filter when each of its terms has a bit.
CREATE TABLE term_bits (
    term_id INTEGER PRIMARY KEY REFERENCES terms(id) ON DELETE CASCADE,
    bit     INTEGER NOT NULL UNIQUE
);
ALTER TABLE event_keys ADD COLUMN term_bits INTEGER NOT NULL DEFAULT 0;

-- The per-day counts change with what they count, not with the bits: a term given
-- to an event rewrites its own key's bits, which otherwise counted it out and in
-- again.
DROP TRIGGER event_key_days_update_old;
DROP TRIGGER event_key_days_update_new;
CREATE TRIGGER event_key_days_update_old
AFTER UPDATE OF kind, value, start_utc, end_utc, status, protected, hidden ON event_keys
WHEN old.hidden = 0 AND old.kind NOT IN (2, 3) BEGIN
    UPDATE event_key_days SET events = events - 1
    WHERE kind = old.kind AND value = old.value AND status = old.status AND protected = old.protected
      AND end_day = (old.end_utc - ((old.end_utc % 86400) + 86400) % 86400) / 86400
      AND start_day = (old.start_utc - ((old.start_utc % 86400) + 86400) % 86400) / 86400;
END;
CREATE TRIGGER event_key_days_update_new
AFTER UPDATE OF kind, value, start_utc, end_utc, status, protected, hidden ON event_keys
WHEN new.hidden = 0 AND new.kind NOT IN (2, 3) BEGIN
    INSERT INTO event_key_days (kind, value, status, protected, end_day, start_day, events)
    VALUES (new.kind, new.value, new.status, new.protected,
            (new.end_utc - ((new.end_utc % 86400) + 86400) % 86400) / 86400,
            (new.start_utc - ((new.start_utc % 86400) + 86400) % 86400) / 86400, 1)
    ON CONFLICT (kind, value, status, protected, end_day, start_day) DO UPDATE SET events = events + 1;
END;

-- A new term takes the lowest bit free: 0, or the lowest one above a bit held.
CREATE TRIGGER term_bits_insert AFTER INSERT ON terms BEGIN
    INSERT INTO term_bits (term_id, bit)
    SELECT new.id, free.bit FROM (
        SELECT 0 AS bit WHERE NOT EXISTS (SELECT 1 FROM term_bits WHERE bit = 0)
        UNION ALL
        SELECT MIN(h.bit + 1) FROM term_bits h
        WHERE h.bit < 62 AND NOT EXISTS (SELECT 1 FROM term_bits f WHERE f.bit = h.bit + 1)
    ) free
    WHERE free.bit IS NOT NULL
    ORDER BY free.bit LIMIT 1;
END;

-- An event's own key written, or a term key added to it: its bits as its term
-- keys now say. A key removed: the same. Every key of an event carries its start,
-- so its own key is found by the whole primary key.
CREATE TRIGGER event_keys_term_bits_insert AFTER INSERT ON event_keys
WHEN new.kind IN (0, 1) BEGIN
    UPDATE event_keys SET term_bits = (
        SELECT COALESCE(SUM(DISTINCT 1 << t.bit), 0) FROM event_keys o
        JOIN term_bits t ON t.term_id = o.value
        WHERE o.event_id = new.event_id AND o.kind = 1)
    WHERE kind = 0 AND value = 0 AND start_utc = new.start_utc AND event_id = new.event_id;
END;
CREATE TRIGGER event_keys_term_bits_delete AFTER DELETE ON event_keys
WHEN old.kind = 1 BEGIN
    UPDATE event_keys SET term_bits = (
        SELECT COALESCE(SUM(DISTINCT 1 << t.bit), 0) FROM event_keys o
        JOIN term_bits t ON t.term_id = o.value
        WHERE o.event_id = old.event_id AND o.kind = 1)
    WHERE kind = 0 AND value = 0 AND start_utc = old.start_utc AND event_id = old.event_id;
END;

-- term_bits: fill
DELETE FROM term_bits;
INSERT INTO term_bits (term_id, bit)
SELECT id, rank - 1 FROM (
    SELECT id, row_number() OVER (ORDER BY count DESC, id) AS rank FROM terms
) WHERE rank <= 63;
UPDATE event_keys SET term_bits = COALESCE((
    SELECT SUM(DISTINCT 1 << t.bit) FROM event_keys o
    JOIN term_bits t ON t.term_id = o.value
    WHERE o.event_id = event_keys.event_id AND o.kind = 1), 0)
WHERE kind = 0 AND value = 0;
-- term_bits: filled
