-- Migration 41's triggers find an event's own key by its ID. SQLite 3.51 plans their
-- `UPDATE … WHERE event_id = ? AND kind = 0 AND value = 0` on the primary key's
-- (kind, value) prefix, every event's own key, rather than on `event_keys_event`
-- (3.40 chose the index): each create read some 11,000 pages of the million own keys
-- of the bench's data set, 60-80 ms, and the 90/10 mix fell to 110 requests/s. A
-- trigger's UPDATE cannot name its index (`INDEXED BY`), so `+kind` and `+value` take
-- the two columns out of the choice: the event's keys are found by its ID.
DROP TRIGGER event_keys_flag_bits_own;
DROP TRIGGER event_keys_flag_bits_insert;
DROP TRIGGER event_keys_flag_bits_delete;
DROP TRIGGER event_keys_flag_bits_update;

CREATE TRIGGER event_keys_flag_bits_own AFTER INSERT ON event_keys
WHEN new.kind = 0 BEGIN
    UPDATE event_keys SET flag_bits = (
        SELECT COALESCE(SUM(1 << (o.kind - 4)), 0) FROM event_keys o
        WHERE o.event_id = new.event_id AND o.kind IN (4, 5, 6) AND o.value = 1)
    WHERE event_id = new.event_id AND +kind = 0 AND +value = 0
      AND EXISTS (SELECT 1 FROM event_keys o
                  WHERE o.event_id = new.event_id AND o.kind IN (4, 5, 6) AND o.value = 1);
END;
CREATE TRIGGER event_keys_flag_bits_insert AFTER INSERT ON event_keys
WHEN new.kind IN (4, 5, 6) AND new.value = 1 BEGIN
    UPDATE event_keys SET flag_bits = flag_bits | (1 << (new.kind - 4))
    WHERE event_id = new.event_id AND +kind = 0 AND +value = 0;
END;
CREATE TRIGGER event_keys_flag_bits_delete AFTER DELETE ON event_keys
WHEN old.kind IN (4, 5, 6) AND old.value = 1 BEGIN
    UPDATE event_keys SET flag_bits = flag_bits & ~(1 << (old.kind - 4))
    WHERE event_id = old.event_id AND +kind = 0 AND +value = 0;
END;
-- A venue gaining or losing its coordinates rewrites its events' located keys' value.
CREATE TRIGGER event_keys_flag_bits_update AFTER UPDATE OF value ON event_keys
WHEN new.kind IN (4, 5, 6) AND old.value IS NOT new.value BEGIN
    UPDATE event_keys
    SET flag_bits = (flag_bits & ~(1 << (new.kind - 4)))
                    | (CASE WHEN new.value = 1 THEN 1 << (new.kind - 4) ELSE 0 END)
    WHERE event_id = new.event_id AND +kind = 0 AND +value = 0;
END;
