-- The search index is written once per group commit instead of once per write.
--
-- FTS5 flushes its pending terms to disk at every statement savepoint, so indexing
-- an event inside the request's transaction made every following statement of the
-- group pay a flush. Now the triggers only queue the event; the writer indexes the
-- queue right before each COMMIT, in the same transaction, so readers never see a
-- committed event missing from the index.
CREATE TABLE search_queue (id INTEGER PRIMARY KEY);

DROP TRIGGER posts_fts_insert;
DROP TRIGGER posts_fts_delete;
DROP TRIGGER posts_fts_update;

CREATE TRIGGER posts_fts_insert AFTER INSERT ON posts WHEN new.post_type = 'event' BEGIN
    INSERT OR IGNORE INTO search_queue(id) VALUES (new.id);
END;
-- A queued event is not in the index yet: there is nothing to delete from it.
CREATE TRIGGER posts_fts_delete AFTER DELETE ON posts WHEN old.post_type = 'event' BEGIN
    INSERT INTO posts_fts(posts_fts, rowid, title, excerpt, description)
    SELECT 'delete', old.id, old.title, old.excerpt, old.description
    WHERE NOT EXISTS (SELECT 1 FROM search_queue WHERE id = old.id);
    DELETE FROM search_queue WHERE id = old.id;
END;
CREATE TRIGGER posts_fts_update AFTER UPDATE OF title, excerpt, description ON posts
WHEN old.post_type = 'event' BEGIN
    INSERT INTO posts_fts(posts_fts, rowid, title, excerpt, description)
    SELECT 'delete', old.id, old.title, old.excerpt, old.description
    WHERE NOT EXISTS (SELECT 1 FROM search_queue WHERE id = old.id);
    INSERT OR IGNORE INTO search_queue(id) VALUES (new.id);
END;
