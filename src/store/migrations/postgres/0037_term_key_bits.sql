-- Every term key of an event carries the event's term bits too, as its own key does
-- (migrations 32 and 34): a term's range then tells, row by row, which other terms
-- each of its events holds. The events of a small category that a large one does not
-- hold (`categories=1,30`), of a category that hold a tag (`categories=1&tags=31`),
-- or of each of forty tags that none named before it holds, are read as the range
-- alone, each row checked by a mask, rather than each of its events looked up among
-- the other term's keys (see `store::events::keys`).

-- Events' own keys or term keys written: the words of every one of them as their
-- term keys now say, once per statement (by `event_keys_event`). A term key
-- removed: the same, for its event.
CREATE OR REPLACE FUNCTION event_keys_term_bits_insert_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    e record;
BEGIN
    FOR e IN
        SELECT n.event_id, event_term_words(n.event_id) AS words
        FROM (SELECT DISTINCT event_id FROM added_keys WHERE kind IN (0, 1)) n
        ORDER BY n.event_id
    LOOP
        UPDATE event_keys
        SET term_bits = e.words[1], term_bits_1 = e.words[2],
            term_bits_2 = e.words[3], term_bits_3 = e.words[4]
        WHERE event_id = e.event_id AND kind IN (0, 1)
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
    WHERE event_id = OLD.event_id AND kind IN (0, 1)
      AND ARRAY[term_bits, term_bits_1, term_bits_2, term_bits_3] <> words;
    RETURN NULL;
END
$$;

-- Each term key takes its event's words from the event's own key (every key of an
-- event carries its start, so that key is found by its whole primary key).
-- term_key_bits: fill
UPDATE event_keys k
SET term_bits = o.term_bits, term_bits_1 = o.term_bits_1,
    term_bits_2 = o.term_bits_2, term_bits_3 = o.term_bits_3
FROM event_keys o
WHERE k.kind = 1
  AND o.kind = 0 AND o.value = 0 AND o.start_utc = k.start_utc AND o.event_id = k.event_id
  AND (o.term_bits | o.term_bits_1 | o.term_bits_2 | o.term_bits_3) <> 0;
-- term_key_bits: filled

-- A term's events in a window with their words, from the index alone. `kind = 1`
-- is written as a constant by the lists that read it.
CREATE INDEX event_keys_term_key_bits ON event_keys (value, start_utc, event_id)
    INCLUDE (end_utc, status, protected, hidden, author,
             term_bits, term_bits_1, term_bits_2, term_bits_3)
    WHERE kind = 1;
ANALYZE event_keys;
