-- Each event's own key (kind 0 of `event_keys`) carries its terms as bits, so that
-- the total of a filter of several large terms (`categories=1,2,…`) is one pass
-- over the window's events, each checked by a mask, where it counted each value's
-- range and probed every event of it for the values before it: six categories at
-- a million events read their 900,000 keys, 2 s (see `store::events::keys::bits`).
--
-- A term's bit, 0 to 62 (63 terms have one; the others none): the lowest one free
-- when the term is made, given here to the terms most used first, and freed with
-- the term. An event's `term_bits` is the OR of the bits of the terms its keys
-- hold (its terms and the categories above them); other keys' are 0. A mask
-- counts a filter when each of its terms has a bit.
CREATE TABLE term_bits (
    term_id BIGINT PRIMARY KEY REFERENCES terms(id) ON DELETE CASCADE,
    bit     BIGINT NOT NULL UNIQUE
);
ALTER TABLE event_keys ADD COLUMN term_bits BIGINT NOT NULL DEFAULT 0;

-- The events of a window with their bits, from the index alone (a list names
-- `kind = 0 AND value = 0` as constants, which the predicate then answers).
CREATE INDEX event_keys_term_bits ON event_keys (start_utc, event_id)
    INCLUDE (end_utc, status, protected, hidden, author, term_bits)
    WHERE kind = 0 AND value = 0;

-- The per-day counts change with what they count, not with the bits: a term given
-- to an event rewrites its own key's bits, which otherwise counted it out and in
-- again.
DROP TRIGGER event_key_days_update ON event_keys;
CREATE TRIGGER event_key_days_update AFTER UPDATE ON event_keys FOR EACH ROW
WHEN ((OLD.kind, OLD.value, OLD.start_utc, OLD.end_utc, OLD.status, OLD.protected, OLD.hidden)
      IS DISTINCT FROM
      (NEW.kind, NEW.value, NEW.start_utc, NEW.end_utc, NEW.status, NEW.protected, NEW.hidden))
EXECUTE FUNCTION event_key_days_sync();

-- A new term takes the lowest bit free: 0, or the lowest one above a bit held.
-- One term at a time, so that two transactions do not take one bit.
CREATE FUNCTION term_bits_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('term-bits', 0));
    INSERT INTO term_bits (term_id, bit)
    SELECT NEW.id, free.bit FROM (
        SELECT 0::bigint AS bit WHERE NOT EXISTS (SELECT 1 FROM term_bits WHERE bit = 0)
        UNION ALL
        SELECT MIN(h.bit + 1) FROM term_bits h
        WHERE h.bit < 62 AND NOT EXISTS (SELECT 1 FROM term_bits f WHERE f.bit = h.bit + 1)
    ) free
    WHERE free.bit IS NOT NULL
    ORDER BY free.bit LIMIT 1;
    RETURN NULL;
END
$$;
CREATE TRIGGER term_bits_insert AFTER INSERT ON terms FOR EACH ROW
EXECUTE FUNCTION term_bits_sync();

-- Events' own keys written, or term keys added to them: their bits as their term
-- keys now say, once per statement. A term key removed: the same, for its event.
-- Each own key is updated by its whole primary key, one event at a time: joined
-- with the statement's events, an own key was found by a scan of every event's
-- own key when the planner, on a table it had not analysed yet, took it for a few
-- rows (seconds per statement at 5,000 events).
CREATE FUNCTION event_keys_term_bits_insert_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    e record;
BEGIN
    FOR e IN
        SELECT n.event_id, n.start_utc, b.bits
        FROM (SELECT DISTINCT event_id, start_utc FROM added_keys WHERE kind IN (0, 1)) n
        CROSS JOIN LATERAL (
            SELECT COALESCE(bit_or(1::bigint << t.bit::int), 0) AS bits
            FROM event_keys o JOIN term_bits t ON t.term_id = o.value
            WHERE o.event_id = n.event_id AND o.kind = 1
        ) b
        ORDER BY n.event_id
    LOOP
        UPDATE event_keys SET term_bits = e.bits
        WHERE kind = 0 AND value = 0 AND start_utc = e.start_utc AND event_id = e.event_id
          AND term_bits <> e.bits;
    END LOOP;
    RETURN NULL;
END
$$;
CREATE TRIGGER event_keys_term_bits_insert AFTER INSERT ON event_keys
    REFERENCING NEW TABLE AS added_keys
    FOR EACH STATEMENT EXECUTE FUNCTION event_keys_term_bits_insert_rows();

CREATE FUNCTION event_keys_term_bits_sync() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    bits BIGINT;
BEGIN
    SELECT COALESCE(bit_or(1::bigint << t.bit::int), 0) INTO bits
    FROM event_keys o JOIN term_bits t ON t.term_id = o.value
    WHERE o.event_id = OLD.event_id AND o.kind = 1;
    UPDATE event_keys SET term_bits = bits
    WHERE kind = 0 AND value = 0 AND start_utc = OLD.start_utc AND event_id = OLD.event_id
      AND term_bits <> bits;
    RETURN NULL;
END
$$;
CREATE TRIGGER event_keys_term_bits_delete AFTER DELETE ON event_keys FOR EACH ROW
WHEN (OLD.kind = 1)
EXECUTE FUNCTION event_keys_term_bits_sync();

-- term_bits: fill
DELETE FROM term_bits;
INSERT INTO term_bits (term_id, bit)
SELECT id, rank - 1 FROM (
    SELECT id, row_number() OVER (ORDER BY count DESC, id) AS rank FROM terms
) ranked WHERE rank <= 63;
UPDATE event_keys k SET term_bits = b.bits
FROM (
    SELECT o.event_id, bit_or(1::bigint << t.bit::int) AS bits
    FROM event_keys o JOIN term_bits t ON t.term_id = o.value
    WHERE o.kind = 1
    GROUP BY o.event_id
) b
WHERE k.event_id = b.event_id AND k.kind = 0 AND k.value = 0 AND k.term_bits <> b.bits;
ANALYZE term_bits;
-- term_bits: filled
