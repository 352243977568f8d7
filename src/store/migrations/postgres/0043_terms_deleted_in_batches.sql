-- A term of many events is deleted in two steps (see `service::terms`): at once it
-- leaves its taxonomy for 'deleted', which every read of terms leaves out, and its
-- links to events are removed afterwards, a batch per transaction, before the row
-- itself goes. Incremental sync learns of the deletion at the first step, under the
-- term's own taxonomy (`change_tombstone` writes `OLD.taxonomy`); the row's final
-- delete writes no second tombstone.
CREATE TRIGGER terms_change_deleted AFTER UPDATE OF taxonomy ON terms FOR EACH ROW
    WHEN (NEW.taxonomy = 'deleted' AND OLD.taxonomy <> 'deleted')
    EXECUTE FUNCTION change_tombstone();

DROP TRIGGER terms_change_tombstone ON terms;
CREATE TRIGGER terms_change_tombstone AFTER DELETE ON terms FOR EACH ROW
    WHEN (OLD.taxonomy <> 'deleted')
    EXECUTE FUNCTION change_tombstone();
