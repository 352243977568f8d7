-- Triggers that find an event's keys by its ID, `WHERE event_id = ? AND kind = …`:
-- SQLite 3.51 plans them on the primary key's (kind, value) or (kind) prefix rather than
-- on `event_keys_event` (3.40 chose the index). At a million events, migration 41's
-- flag-bit triggers read the million own keys at each create (some 11,000 pages, 60-80
-- ms; the 90/10 mix fell to 110 requests/s), a term link removed read every term key
-- (kind 1), an organizer link removed its organizer's keys, a flag cleared every key of
-- its flagged terms' kind. A trigger's statement cannot name its index (`INDEXED BY`),
-- so `+kind` and `+value` take the columns out of the choice: the event's keys are
-- found by its ID.
DROP TRIGGER event_keys_flag_bits_own;
DROP TRIGGER event_keys_flag_bits_insert;
DROP TRIGGER event_keys_flag_bits_delete;
DROP TRIGGER event_keys_flag_bits_update;
DROP TRIGGER event_keys_term_delete;
DROP TRIGGER event_keys_organizer_delete;
DROP TRIGGER event_keys_flag_terms_delete;

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
CREATE TRIGGER event_keys_term_delete AFTER DELETE ON term_relationships BEGIN
    DELETE FROM event_keys
    WHERE event_id = old.post_id AND +kind = 1
      AND NOT EXISTS (SELECT 1 FROM term_relationships r
                      JOIN term_ancestors c ON c.term_id = r.term_id
                      WHERE r.post_id = old.post_id AND c.ancestor_id = event_keys.value);
END;
CREATE TRIGGER event_keys_organizer_delete AFTER DELETE ON event_organizers BEGIN
    DELETE FROM event_keys
    WHERE event_id = old.event_id AND +kind = 3 AND +value = old.organizer_id;
END;
CREATE TRIGGER event_keys_flag_terms_delete AFTER DELETE ON event_keys
WHEN old.kind IN (4, 5) AND old.value = 1 BEGIN
    DELETE FROM event_keys WHERE event_id = old.event_id AND +kind = old.kind + 3;
END;
