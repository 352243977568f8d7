-- Every term key of an event carries the event's term bits too, as its own key does
-- (migrations 32 and 34): a term's range then tells, row by row, which other terms
-- each of its events holds. The events of a small category that a large one does not
-- hold (`categories=1,30`), of a category that hold a tag (`categories=1&tags=31`),
-- or of each of forty tags that none named before it holds, are read as the range
-- alone, each row checked by a mask, rather than each of its events looked up among
-- the other term's keys (see `store::events::keys`).

-- An event's own key or a term key written, or a term key removed: the words of
-- every one of them as its term keys now say (by `event_keys_event`).
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
    WHERE event_id = new.event_id AND kind IN (0, 1);
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
    WHERE event_id = old.event_id AND kind IN (0, 1);
END;

-- Each term key takes its event's words from the event's own key (every key of an
-- event carries its start, so that key is found by its whole primary key).
-- term_key_bits: fill
UPDATE event_keys AS k
SET term_bits = o.term_bits, term_bits_1 = o.term_bits_1,
    term_bits_2 = o.term_bits_2, term_bits_3 = o.term_bits_3
FROM event_keys AS o
WHERE k.kind = 1
  AND o.kind = 0 AND o.value = 0 AND o.start_utc = k.start_utc AND o.event_id = k.event_id
  AND (o.term_bits | o.term_bits_1 | o.term_bits_2 | o.term_bits_3) <> 0;
-- term_key_bits: filled
