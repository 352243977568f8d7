-- Bits for 252 terms where migration 32 had 63: a filter counts by its mask only
-- when each of its terms has a bit, and a calendar of more than 63 terms named
-- them by the dozen (the hundred most used tags of a million events: 33 with bits,
-- the rest counted as a set of their 1.9 million keys, 2.1 s). Terms past the
-- 252nd each hold no more events than any term with a bit when the bits are
-- given out here, so a set of their keys stays small.
--
-- Bit b is bit (b % 63) of word b / 63: `term_bits` (word 0, migration 32's),
-- `term_bits_1`, `term_bits_2`, `term_bits_3`; each word keeps its sign bit clear.
ALTER TABLE event_keys ADD COLUMN term_bits_1 INTEGER NOT NULL DEFAULT 0;
ALTER TABLE event_keys ADD COLUMN term_bits_2 INTEGER NOT NULL DEFAULT 0;
ALTER TABLE event_keys ADD COLUMN term_bits_3 INTEGER NOT NULL DEFAULT 0;

-- A new term takes the lowest bit free: 0, or the lowest one above a bit held.
DROP TRIGGER term_bits_insert;
CREATE TRIGGER term_bits_insert AFTER INSERT ON terms BEGIN
    INSERT INTO term_bits (term_id, bit)
    SELECT new.id, free.bit FROM (
        SELECT 0 AS bit WHERE NOT EXISTS (SELECT 1 FROM term_bits WHERE bit = 0)
        UNION ALL
        SELECT MIN(h.bit + 1) FROM term_bits h
        WHERE h.bit < 251 AND NOT EXISTS (SELECT 1 FROM term_bits f WHERE f.bit = h.bit + 1)
    ) free
    WHERE free.bit IS NOT NULL
    ORDER BY free.bit LIMIT 1;
END;

-- An event's own key written, or a term key added to it or removed: its four words
-- as its term keys now say.
DROP TRIGGER event_keys_term_bits_insert;
CREATE TRIGGER event_keys_term_bits_insert AFTER INSERT ON event_keys
WHEN new.kind IN (0, 1) BEGIN
    UPDATE event_keys SET (term_bits, term_bits_1, term_bits_2, term_bits_3) = (
        SELECT COALESCE(SUM(DISTINCT CASE WHEN t.bit / 63 = 0 THEN 1 << (t.bit % 63) END), 0),
               COALESCE(SUM(DISTINCT CASE WHEN t.bit / 63 = 1 THEN 1 << (t.bit % 63) END), 0),
               COALESCE(SUM(DISTINCT CASE WHEN t.bit / 63 = 2 THEN 1 << (t.bit % 63) END), 0),
               COALESCE(SUM(DISTINCT CASE WHEN t.bit / 63 = 3 THEN 1 << (t.bit % 63) END), 0)
        FROM event_keys o JOIN term_bits t ON t.term_id = o.value
        WHERE o.event_id = new.event_id AND o.kind = 1)
    WHERE kind = 0 AND value = 0 AND start_utc = new.start_utc AND event_id = new.event_id;
END;
DROP TRIGGER event_keys_term_bits_delete;
CREATE TRIGGER event_keys_term_bits_delete AFTER DELETE ON event_keys
WHEN old.kind = 1 BEGIN
    UPDATE event_keys SET (term_bits, term_bits_1, term_bits_2, term_bits_3) = (
        SELECT COALESCE(SUM(DISTINCT CASE WHEN t.bit / 63 = 0 THEN 1 << (t.bit % 63) END), 0),
               COALESCE(SUM(DISTINCT CASE WHEN t.bit / 63 = 1 THEN 1 << (t.bit % 63) END), 0),
               COALESCE(SUM(DISTINCT CASE WHEN t.bit / 63 = 2 THEN 1 << (t.bit % 63) END), 0),
               COALESCE(SUM(DISTINCT CASE WHEN t.bit / 63 = 3 THEN 1 << (t.bit % 63) END), 0)
        FROM event_keys o JOIN term_bits t ON t.term_id = o.value
        WHERE o.event_id = old.event_id AND o.kind = 1)
    WHERE kind = 0 AND value = 0 AND start_utc = old.start_utc AND event_id = old.event_id;
END;

-- The bits given out again, to the terms most used first, and every event's own
-- key written with them.
-- term_bits: fill
DELETE FROM term_bits;
INSERT INTO term_bits (term_id, bit)
SELECT id, rank - 1 FROM (
    SELECT id, row_number() OVER (ORDER BY count DESC, id) AS rank FROM terms
) WHERE rank <= 252;
UPDATE event_keys SET (term_bits, term_bits_1, term_bits_2, term_bits_3) = (
    SELECT COALESCE(SUM(DISTINCT CASE WHEN t.bit / 63 = 0 THEN 1 << (t.bit % 63) END), 0),
           COALESCE(SUM(DISTINCT CASE WHEN t.bit / 63 = 1 THEN 1 << (t.bit % 63) END), 0),
           COALESCE(SUM(DISTINCT CASE WHEN t.bit / 63 = 2 THEN 1 << (t.bit % 63) END), 0),
           COALESCE(SUM(DISTINCT CASE WHEN t.bit / 63 = 3 THEN 1 << (t.bit % 63) END), 0)
    FROM event_keys o JOIN term_bits t ON t.term_id = o.value
    WHERE o.event_id = event_keys.event_id AND o.kind = 1)
WHERE kind = 0 AND value = 0;
-- term_bits: filled
