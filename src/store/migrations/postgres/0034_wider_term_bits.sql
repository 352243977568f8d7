-- Bits for 252 terms where migration 32 had 63: a filter counts by its mask only
-- when each of its terms has a bit, and a calendar of more than 63 terms named
-- them by the dozen (the hundred most used tags of a million events: 33 with bits,
-- the rest counted as a set of their 1.9 million keys, 0.86 s). Terms past the
-- 252nd each hold no more events than any term with a bit when the bits are
-- given out here, so a set of their keys stays small.
--
-- Bit b is bit (b % 63) of word b / 63: `term_bits` (word 0, migration 32's),
-- `term_bits_1`, `term_bits_2`, `term_bits_3`; each word keeps its sign bit clear.
ALTER TABLE event_keys
    ADD COLUMN term_bits_1 BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN term_bits_2 BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN term_bits_3 BIGINT NOT NULL DEFAULT 0;

-- A new term takes the lowest bit free: 0, or the lowest one above a bit held.
-- One term at a time, so that two transactions do not take one bit.
CREATE OR REPLACE FUNCTION term_bits_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('term-bits', 0));
    INSERT INTO term_bits (term_id, bit)
    SELECT NEW.id, free.bit FROM (
        SELECT 0::bigint AS bit WHERE NOT EXISTS (SELECT 1 FROM term_bits WHERE bit = 0)
        UNION ALL
        SELECT MIN(h.bit + 1) FROM term_bits h
        WHERE h.bit < 251 AND NOT EXISTS (SELECT 1 FROM term_bits f WHERE f.bit = h.bit + 1)
    ) free
    WHERE free.bit IS NOT NULL
    ORDER BY free.bit LIMIT 1;
    RETURN NULL;
END
$$;

-- An event's four words from its term keys.
CREATE FUNCTION event_term_words(event BIGINT) RETURNS BIGINT[] LANGUAGE sql STABLE AS $$
    SELECT ARRAY[
        COALESCE(bit_or(1::bigint << (t.bit % 63)::int) FILTER (WHERE t.bit / 63 = 0), 0),
        COALESCE(bit_or(1::bigint << (t.bit % 63)::int) FILTER (WHERE t.bit / 63 = 1), 0),
        COALESCE(bit_or(1::bigint << (t.bit % 63)::int) FILTER (WHERE t.bit / 63 = 2), 0),
        COALESCE(bit_or(1::bigint << (t.bit % 63)::int) FILTER (WHERE t.bit / 63 = 3), 0)]
    FROM event_keys o JOIN term_bits t ON t.term_id = o.value
    WHERE o.event_id = event AND o.kind = 1
$$;

-- Events' own keys written, or term keys added to them: their words as their term
-- keys now say, once per statement, each own key by its whole primary key (see
-- migration 32). A term key removed: the same, for its event.
CREATE OR REPLACE FUNCTION event_keys_term_bits_insert_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    e record;
BEGIN
    FOR e IN
        SELECT n.event_id, n.start_utc, event_term_words(n.event_id) AS words
        FROM (SELECT DISTINCT event_id, start_utc FROM added_keys WHERE kind IN (0, 1)) n
        ORDER BY n.event_id
    LOOP
        UPDATE event_keys
        SET term_bits = e.words[1], term_bits_1 = e.words[2],
            term_bits_2 = e.words[3], term_bits_3 = e.words[4]
        WHERE kind = 0 AND value = 0 AND start_utc = e.start_utc AND event_id = e.event_id
          AND ARRAY[term_bits, term_bits_1, term_bits_2, term_bits_3] <> e.words;
    END LOOP;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION event_keys_term_bits_sync() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    words BIGINT[] := event_term_words(OLD.event_id);
BEGIN
    UPDATE event_keys
    SET term_bits = words[1], term_bits_1 = words[2],
        term_bits_2 = words[3], term_bits_3 = words[4]
    WHERE kind = 0 AND value = 0 AND start_utc = OLD.start_utc AND event_id = OLD.event_id
      AND ARRAY[term_bits, term_bits_1, term_bits_2, term_bits_3] <> words;
    RETURN NULL;
END
$$;

-- The bits given out again, to the terms most used first, and every event's own
-- key written with them (an event whose terms all lost their bits too).
-- term_bits: fill
DELETE FROM term_bits;
INSERT INTO term_bits (term_id, bit)
SELECT id, rank - 1 FROM (
    SELECT id, row_number() OVER (ORDER BY count DESC, id) AS rank FROM terms
) ranked WHERE rank <= 252;
UPDATE event_keys k
SET term_bits = b.w0, term_bits_1 = b.w1, term_bits_2 = b.w2, term_bits_3 = b.w3
FROM (
    SELECT o.event_id,
        COALESCE(bit_or(1::bigint << (t.bit % 63)::int) FILTER (WHERE t.bit / 63 = 0), 0) AS w0,
        COALESCE(bit_or(1::bigint << (t.bit % 63)::int) FILTER (WHERE t.bit / 63 = 1), 0) AS w1,
        COALESCE(bit_or(1::bigint << (t.bit % 63)::int) FILTER (WHERE t.bit / 63 = 2), 0) AS w2,
        COALESCE(bit_or(1::bigint << (t.bit % 63)::int) FILTER (WHERE t.bit / 63 = 3), 0) AS w3
    FROM event_keys o LEFT JOIN term_bits t ON o.kind = 1 AND t.term_id = o.value
    WHERE o.kind IN (0, 1)
    GROUP BY o.event_id
) b
WHERE k.event_id = b.event_id AND k.kind = 0 AND k.value = 0
  AND (k.term_bits, k.term_bits_1, k.term_bits_2, k.term_bits_3)
      IS DISTINCT FROM (b.w0, b.w1, b.w2, b.w3);
ANALYZE term_bits;
-- term_bits: filled

-- The events of a window with their words, from the index alone.
DROP INDEX event_keys_term_bits;
CREATE INDEX event_keys_term_bits ON event_keys (start_utc, event_id)
    INCLUDE (end_utc, status, protected, hidden, author,
             term_bits, term_bits_1, term_bits_2, term_bits_3)
    WHERE kind = 0 AND value = 0;
