-- The per-day counts of migration 7 rolled up by blocks of 32 days: per key, status,
-- password state and (start block, end block) pair, the events of its day pairs.
-- A window's count sums the blocks wholly inside it and the day pairs of its partial
-- blocks at each end (`store::event_count`): at a million events the default list's
-- window of two years summed 5,200 day pairs for each count, recomputed after every
-- write that enters it; its blocks and edges are some 500. A block is
-- `floor(day / 32)`, written so that SQLite and PostgreSQL agree before 1970.
CREATE TABLE event_key_blocks (
    kind        BIGINT  NOT NULL,
    value       BIGINT  NOT NULL,
    status      TEXT    NOT NULL,
    protected   BOOLEAN NOT NULL,
    end_block   BIGINT  NOT NULL,
    start_block BIGINT  NOT NULL,
    events      BIGINT  NOT NULL,
    PRIMARY KEY (kind, value, status, protected, end_block, start_block) INCLUDE (events)
);

-- The day pairs by start day: the pairs that start in a window's first partial
-- block are a range of these, whatever day they end on.
CREATE INDEX event_key_days_by_start
    ON event_key_days (kind, value, status, protected, start_day, end_day) INCLUDE (events);

-- event_key_blocks: fill
DELETE FROM event_key_blocks;
INSERT INTO event_key_blocks (kind, value, status, protected, end_block, start_block, events)
SELECT kind, value, status, protected,
       (end_day - ((end_day % 32) + 32) % 32) / 32,
       (start_day - ((start_day % 32) + 32) % 32) / 32,
       SUM(events)
FROM event_key_days
GROUP BY 1, 2, 3, 4, 5, 6;
ANALYZE event_key_blocks;
-- event_key_blocks: filled

-- The day pairs' counts are kept by the triggers of `event_keys`, which add rows and
-- change their `events`, never their keys: the blocks follow each change. Concurrent
-- writers may take two blocks in opposite orders (an event moved each way between
-- them): PostgreSQL aborts one, and the write runs again (`service::retry`).
CREATE FUNCTION event_key_blocks_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        UPDATE event_key_blocks SET events = events - OLD.events
        WHERE kind = OLD.kind AND value = OLD.value AND status = OLD.status
          AND protected = OLD.protected
          AND end_block = (OLD.end_day - ((OLD.end_day % 32) + 32) % 32) / 32
          AND start_block = (OLD.start_day - ((OLD.start_day % 32) + 32) % 32) / 32;
    ELSIF TG_OP = 'UPDATE' THEN
        UPDATE event_key_blocks SET events = events + NEW.events - OLD.events
        WHERE kind = NEW.kind AND value = NEW.value AND status = NEW.status
          AND protected = NEW.protected
          AND end_block = (NEW.end_day - ((NEW.end_day % 32) + 32) % 32) / 32
          AND start_block = (NEW.start_day - ((NEW.start_day % 32) + 32) % 32) / 32;
    ELSE
        INSERT INTO event_key_blocks (kind, value, status, protected, end_block, start_block, events)
        VALUES (NEW.kind, NEW.value, NEW.status, NEW.protected,
                (NEW.end_day - ((NEW.end_day % 32) + 32) % 32) / 32,
                (NEW.start_day - ((NEW.start_day % 32) + 32) % 32) / 32, NEW.events)
        ON CONFLICT (kind, value, status, protected, end_block, start_block)
        DO UPDATE SET events = event_key_blocks.events + EXCLUDED.events;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER event_key_blocks_insert AFTER INSERT ON event_key_days FOR EACH ROW
EXECUTE FUNCTION event_key_blocks_sync();

CREATE TRIGGER event_key_blocks_update AFTER UPDATE OF events ON event_key_days FOR EACH ROW
WHEN (OLD.events IS DISTINCT FROM NEW.events)
EXECUTE FUNCTION event_key_blocks_sync();

CREATE TRIGGER event_key_blocks_delete AFTER DELETE ON event_key_days FOR EACH ROW
EXECUTE FUNCTION event_key_blocks_sync();
