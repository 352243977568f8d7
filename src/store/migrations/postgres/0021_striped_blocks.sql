-- Every write of an event changes the per-block counts of each of its keys
-- (migration 20), and blocks are few: the twelve of a year hold all of its events,
-- so concurrent writes of events in the same year met on the same rows, each
-- waiting for the other's commit, and two batches that met on two blocks in
-- opposite orders deadlocked (a second's wait, then one ran again). Under the
-- benchmark's mix at 100,000 events, a block's update took 1.7 ms, nearly all of it
-- that wait. A block's count is now spread over eight stripes: a write adds to the
-- stripe of its transaction's ID, and a count sums the stripes as it sums blocks,
-- so concurrent writes, whose IDs follow each other, meet on a row only one time in
-- eight. SQLite has one writer, and one stripe.
ALTER TABLE event_key_blocks ADD COLUMN stripe SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE event_key_blocks DROP CONSTRAINT event_key_blocks_pkey;
ALTER TABLE event_key_blocks
    ADD PRIMARY KEY (kind, value, status, protected, end_block, start_block, stripe)
    INCLUDE (events);

CREATE OR REPLACE FUNCTION event_key_blocks_sync() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    d event_key_days;
    delta BIGINT;
BEGIN
    IF TG_OP = 'DELETE' THEN
        d := OLD;
        delta := -OLD.events;
    ELSIF TG_OP = 'UPDATE' THEN
        d := NEW;
        delta := NEW.events - OLD.events;
    ELSE
        d := NEW;
        delta := NEW.events;
    END IF;
    INSERT INTO event_key_blocks AS b
        (kind, value, status, protected, end_block, start_block, stripe, events)
    VALUES (d.kind, d.value, d.status, d.protected,
            (d.end_day - ((d.end_day % 32) + 32) % 32) / 32,
            (d.start_day - ((d.start_day % 32) + 32) % 32) / 32,
            txid_current() % 8, delta)
    ON CONFLICT (kind, value, status, protected, end_block, start_block, stripe)
    DO UPDATE SET events = b.events + EXCLUDED.events;
    RETURN NULL;
END
$$;
