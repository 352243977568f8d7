-- Each event's own key (kind 0 of `event_keys`) carries its flags as bits, beside its
-- terms' (migration 32), so that a list read from the own keys checks a flag on the row
-- it reads rather than looking up the flag's key: all thirty categories with the hundred
-- most used tags and `featured=0&ticketed=0&geoloc=1` looked up the flags' keys for each
-- of 800,000 events at a million (7.2 s on PostgreSQL, 1 s on SQLite; see
-- `store::events::keys::bits`).
--
-- `flag_bits` is the OR of `1 << (kind - 4)` over the event's flag keys (kinds 4, 5
-- and 6: featured, has tickets, venue located) whose value is 1; other keys' are 0.
ALTER TABLE event_keys ADD COLUMN flag_bits INTEGER NOT NULL DEFAULT 0;

-- An own key written: its bits as its flag keys now say (a create writes the own key
-- first, and finds none). A flag key set, cleared or removed: its bit on the own key.
-- The own key is found by the event's ID (`event_keys_event`), not by its start: an
-- edit of an event's dates and flags writes the new flag keys with the new start
-- before it moves the own key there.
CREATE TRIGGER event_keys_flag_bits_own AFTER INSERT ON event_keys
WHEN new.kind = 0 BEGIN
    UPDATE event_keys SET flag_bits = (
        SELECT COALESCE(SUM(1 << (o.kind - 4)), 0) FROM event_keys o
        WHERE o.event_id = new.event_id AND o.kind IN (4, 5, 6) AND o.value = 1)
    WHERE event_id = new.event_id AND kind = 0 AND value = 0
      AND EXISTS (SELECT 1 FROM event_keys o
                  WHERE o.event_id = new.event_id AND o.kind IN (4, 5, 6) AND o.value = 1);
END;
CREATE TRIGGER event_keys_flag_bits_insert AFTER INSERT ON event_keys
WHEN new.kind IN (4, 5, 6) AND new.value = 1 BEGIN
    UPDATE event_keys SET flag_bits = flag_bits | (1 << (new.kind - 4))
    WHERE event_id = new.event_id AND kind = 0 AND value = 0;
END;
CREATE TRIGGER event_keys_flag_bits_delete AFTER DELETE ON event_keys
WHEN old.kind IN (4, 5, 6) AND old.value = 1 BEGIN
    UPDATE event_keys SET flag_bits = flag_bits & ~(1 << (old.kind - 4))
    WHERE event_id = old.event_id AND kind = 0 AND value = 0;
END;
-- A venue gaining or losing its coordinates rewrites its events' located keys' value.
CREATE TRIGGER event_keys_flag_bits_update AFTER UPDATE OF value ON event_keys
WHEN new.kind IN (4, 5, 6) AND old.value IS NOT new.value BEGIN
    UPDATE event_keys
    SET flag_bits = (flag_bits & ~(1 << (new.kind - 4)))
                    | (CASE WHEN new.value = 1 THEN 1 << (new.kind - 4) ELSE 0 END)
    WHERE event_id = new.event_id AND kind = 0 AND value = 0;
END;

-- flag_bits: fill
UPDATE event_keys SET flag_bits = COALESCE((
    SELECT SUM(1 << (o.kind - 4)) FROM event_keys o
    WHERE o.event_id = event_keys.event_id AND o.kind IN (4, 5, 6) AND o.value = 1), 0)
WHERE kind = 0 AND value = 0;
-- flag_bits: filled
