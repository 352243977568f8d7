-- A term of many events is deleted in two steps (see `service::terms`): at once it
-- leaves its taxonomy for 'deleted', which every read of terms leaves out, and its
-- links to events are removed afterwards, a batch per transaction, before the row
-- itself goes. Incremental sync learns of the deletion at the first step, under the
-- term's own taxonomy; the row's final delete writes no second tombstone.
CREATE TRIGGER terms_change_deleted AFTER UPDATE OF taxonomy ON terms
WHEN new.taxonomy = 'deleted' AND old.taxonomy <> 'deleted' BEGIN
    UPDATE change_clock SET position = position + 1;
    INSERT INTO change_tombstones (kind, position, id, changed_utc, ever_public, author)
    SELECT old.taxonomy, position, old.id, unixepoch(), 1, 0 FROM change_clock;
END;

DROP TRIGGER terms_change_delete;
CREATE TRIGGER terms_change_delete AFTER DELETE ON terms WHEN old.taxonomy <> 'deleted' BEGIN
    UPDATE change_clock SET position = position + 1;
    INSERT INTO change_tombstones (kind, position, id, changed_utc, ever_public, author)
    SELECT old.taxonomy, position, old.id, unixepoch(), 1, 0 FROM change_clock;
END;
