-- The per-day counts of migration 7 rolled up by blocks of 32 days: per key, status,
-- password state and (start block, end block) pair, the events of its day pairs.
-- A window's count sums the blocks wholly inside it and the day pairs of its partial
-- blocks at each end (`store::event_count`): at a million events the default list's
-- window of two years summed 5,200 day pairs for each count, recomputed after every
-- write that enters it; its blocks and edges are some 500. A block is
-- `floor(day / 32)`, written so that SQLite and PostgreSQL agree before 1970.
CREATE TABLE event_key_blocks (
    kind        INTEGER NOT NULL,
    value       INTEGER NOT NULL,
    status      TEXT    NOT NULL,
    protected   INTEGER NOT NULL,
    end_block   INTEGER NOT NULL,
    start_block INTEGER NOT NULL,
    events      INTEGER NOT NULL,
    PRIMARY KEY (kind, value, status, protected, end_block, start_block)
) WITHOUT ROWID;

-- The day pairs by start day: the pairs that start in a window's first partial
-- block are a range of these, whatever day they end on.
CREATE INDEX event_key_days_by_start
    ON event_key_days (kind, value, status, protected, start_day, end_day, events);

-- event_key_blocks: fill
DELETE FROM event_key_blocks;
INSERT INTO event_key_blocks (kind, value, status, protected, end_block, start_block, events)
SELECT kind, value, status, protected,
       (end_day - ((end_day % 32) + 32) % 32) / 32,
       (start_day - ((start_day % 32) + 32) % 32) / 32,
       SUM(events)
FROM event_key_days
GROUP BY 1, 2, 3, 4, 5, 6;
-- event_key_blocks: filled

-- The day pairs' counts are kept by the triggers of `event_keys`, which add rows and
-- change their `events`, never their keys: the blocks follow each change.
CREATE TRIGGER event_key_blocks_insert AFTER INSERT ON event_key_days BEGIN
    INSERT INTO event_key_blocks (kind, value, status, protected, end_block, start_block, events)
    VALUES (new.kind, new.value, new.status, new.protected,
            (new.end_day - ((new.end_day % 32) + 32) % 32) / 32,
            (new.start_day - ((new.start_day % 32) + 32) % 32) / 32, new.events)
    ON CONFLICT (kind, value, status, protected, end_block, start_block)
    DO UPDATE SET events = events + excluded.events;
END;

CREATE TRIGGER event_key_blocks_update AFTER UPDATE OF events ON event_key_days BEGIN
    UPDATE event_key_blocks SET events = events + new.events - old.events
    WHERE kind = new.kind AND value = new.value AND status = new.status
      AND protected = new.protected
      AND end_block = (new.end_day - ((new.end_day % 32) + 32) % 32) / 32
      AND start_block = (new.start_day - ((new.start_day % 32) + 32) % 32) / 32;
END;

CREATE TRIGGER event_key_blocks_delete AFTER DELETE ON event_key_days BEGIN
    UPDATE event_key_blocks SET events = events - old.events
    WHERE kind = old.kind AND value = old.value AND status = old.status
      AND protected = old.protected
      AND end_block = (old.end_day - ((old.end_day % 32) + 32) % 32) / 32
      AND start_block = (old.start_day - ((old.start_day % 32) + 32) % 32) / 32;
END;
