-- Incremental sync (`modified_after`, `cursor`; see docs/sync.md). Every write of a
-- post or term stamps the row with the next change position, and every delete
-- leaves a tombstone under one. SQLite has one writer, so positions follow commit
-- order: a reader that has seen position p has seen every change up to p.
CREATE TABLE change_clock (position INTEGER NOT NULL);
INSERT INTO change_clock (position) VALUES (0);

-- Settled by `store::sync::prune`: tombstones at or below `pruned_through` are gone,
-- so a cursor from before it can no longer be answered exactly.
CREATE TABLE change_horizon (pruned_through INTEGER NOT NULL, pruned_before_utc INTEGER NOT NULL);
INSERT INTO change_horizon (pruned_through, pruned_before_utc) VALUES (0, 0);

ALTER TABLE posts ADD COLUMN change_position INTEGER NOT NULL DEFAULT 0;
ALTER TABLE posts ADD COLUMN changed_utc INTEGER NOT NULL DEFAULT 0;
-- Whether visitors could ever read the post: only such posts leave tombstones they see.
ALTER TABLE posts ADD COLUMN ever_public INTEGER NOT NULL DEFAULT 0;
UPDATE posts SET changed_utc = modified_utc,
                 ever_public = (status = 'publish' OR COALESCE(trashed_status, '') = 'publish');
-- Covering: a sync read filters on these without reading the rows it skips.
CREATE INDEX posts_changes ON posts(post_type, change_position, id, changed_utc, ever_public, author);
CREATE INDEX posts_changed_utc ON posts(post_type, changed_utc, change_position);

ALTER TABLE terms ADD COLUMN change_position INTEGER NOT NULL DEFAULT 0;
ALTER TABLE terms ADD COLUMN changed_utc INTEGER NOT NULL DEFAULT 0;
-- Terms record no modification time: they count as changed at the upgrade, so that a
-- sync from any earlier instant has them.
UPDATE terms SET changed_utc = unixepoch();
CREATE INDEX terms_changes ON terms(taxonomy, change_position, id);
CREATE INDEX terms_changed_utc ON terms(taxonomy, changed_utc, change_position);

CREATE TABLE change_tombstones (
    kind        TEXT    NOT NULL,
    position    INTEGER NOT NULL,
    id          INTEGER NOT NULL,
    changed_utc INTEGER NOT NULL,
    ever_public INTEGER NOT NULL,
    author      INTEGER NOT NULL,
    PRIMARY KEY (kind, position, id)
);
CREATE INDEX change_tombstones_changed_utc ON change_tombstones(kind, changed_utc, position);
CREATE INDEX change_tombstones_age ON change_tombstones(changed_utc);

-- The stamping updates set only these columns, which no other trigger watches, and
-- SQLite does not let a trigger fire itself.
CREATE TRIGGER posts_change_insert AFTER INSERT ON posts BEGIN
    UPDATE change_clock SET position = position + 1;
    UPDATE posts SET change_position = (SELECT position FROM change_clock),
                     changed_utc = unixepoch(),
                     ever_public = (new.status = 'publish')
    WHERE id = new.id;
END;
CREATE TRIGGER posts_change_update AFTER UPDATE ON posts BEGIN
    UPDATE change_clock SET position = position + 1;
    UPDATE posts SET change_position = (SELECT position FROM change_clock),
                     changed_utc = unixepoch(),
                     ever_public = (old.ever_public OR new.status = 'publish')
    WHERE id = new.id;
END;
CREATE TRIGGER posts_change_delete AFTER DELETE ON posts BEGIN
    UPDATE change_clock SET position = position + 1;
    INSERT INTO change_tombstones (kind, position, id, changed_utc, ever_public, author)
    SELECT old.post_type, position, old.id, unixepoch(), old.ever_public, old.author FROM change_clock;
END;

CREATE TRIGGER terms_change_insert AFTER INSERT ON terms BEGIN
    UPDATE change_clock SET position = position + 1;
    UPDATE terms SET change_position = (SELECT position FROM change_clock), changed_utc = unixepoch()
    WHERE id = new.id;
END;
CREATE TRIGGER terms_change_update AFTER UPDATE ON terms BEGIN
    UPDATE change_clock SET position = position + 1;
    UPDATE terms SET change_position = (SELECT position FROM change_clock), changed_utc = unixepoch()
    WHERE id = new.id;
END;
CREATE TRIGGER terms_change_delete AFTER DELETE ON terms BEGIN
    UPDATE change_clock SET position = position + 1;
    INSERT INTO change_tombstones (kind, position, id, changed_utc, ever_public, author)
    SELECT old.taxonomy, position, old.id, unixepoch(), 1, 0 FROM change_clock;
END;
