-- Incremental sync (`modified_after`, `cursor`; see docs/sync.md). Every write of a
-- post or term stamps the row with its transaction's ID as the change position,
-- and every delete leaves a tombstone under it. Transactions commit out of ID
-- order, so readers serve only positions below the oldest transaction still
-- running (`store::sync::horizon`): below it, nothing can commit any more.
CREATE TABLE change_horizon (pruned_through BIGINT NOT NULL, pruned_before_utc BIGINT NOT NULL);
INSERT INTO change_horizon (pruned_through, pruned_before_utc) VALUES (0, 0);

ALTER TABLE posts ADD COLUMN change_position BIGINT NOT NULL DEFAULT 0,
                  ADD COLUMN changed_utc BIGINT NOT NULL DEFAULT 0,
                  ADD COLUMN ever_public BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE posts SET changed_utc = modified_utc,
                 ever_public = (status = 'publish' OR COALESCE(trashed_status, '') = 'publish');
-- Covering: a sync read filters on these without reading the rows it skips.
CREATE INDEX posts_changes ON posts(post_type, change_position, id) INCLUDE (changed_utc, ever_public, author);
CREATE INDEX posts_changed_utc ON posts(post_type, changed_utc, change_position);

ALTER TABLE terms ADD COLUMN change_position BIGINT NOT NULL DEFAULT 0,
                  ADD COLUMN changed_utc BIGINT NOT NULL DEFAULT 0;
-- Terms record no modification time: they count as changed at the upgrade, so that a
-- sync from any earlier instant has them.
UPDATE terms SET changed_utc = floor(EXTRACT(EPOCH FROM now()))::bigint;
CREATE INDEX terms_changes ON terms(taxonomy, change_position, id);
CREATE INDEX terms_changed_utc ON terms(taxonomy, changed_utc, change_position);

CREATE TABLE change_tombstones (
    kind        TEXT    NOT NULL,
    position    BIGINT  NOT NULL,
    id          BIGINT  NOT NULL,
    changed_utc BIGINT  NOT NULL,
    ever_public BOOLEAN NOT NULL,
    author      BIGINT  NOT NULL,
    PRIMARY KEY (kind, position, id)
);
CREATE INDEX change_tombstones_changed_utc ON change_tombstones(kind, changed_utc, position);
CREATE INDEX change_tombstones_age ON change_tombstones(changed_utc);

CREATE FUNCTION calendar_change_position() RETURNS bigint LANGUAGE sql VOLATILE AS $$
    SELECT pg_current_xact_id()::text::bigint
$$;

CREATE FUNCTION posts_change_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.change_position := calendar_change_position();
    NEW.changed_utc := floor(EXTRACT(EPOCH FROM clock_timestamp()))::bigint;
    IF TG_OP = 'UPDATE' THEN
        NEW.ever_public := OLD.ever_public OR NEW.status = 'publish';
    ELSE
        NEW.ever_public := NEW.status = 'publish';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER posts_change_stamp BEFORE INSERT OR UPDATE ON posts FOR EACH ROW
    EXECUTE FUNCTION posts_change_stamp();

CREATE FUNCTION terms_change_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.change_position := calendar_change_position();
    NEW.changed_utc := floor(EXTRACT(EPOCH FROM clock_timestamp()))::bigint;
    RETURN NEW;
END $$;
CREATE TRIGGER terms_change_stamp BEFORE INSERT OR UPDATE ON terms FOR EACH ROW
    EXECUTE FUNCTION terms_change_stamp();

CREATE FUNCTION change_tombstone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'posts' THEN
        INSERT INTO change_tombstones (kind, position, id, changed_utc, ever_public, author)
        VALUES (OLD.post_type, calendar_change_position(), OLD.id,
                floor(EXTRACT(EPOCH FROM clock_timestamp()))::bigint, OLD.ever_public, OLD.author);
    ELSE
        INSERT INTO change_tombstones (kind, position, id, changed_utc, ever_public, author)
        VALUES (OLD.taxonomy, calendar_change_position(), OLD.id,
                floor(EXTRACT(EPOCH FROM clock_timestamp()))::bigint, TRUE, 0);
    END IF;
    RETURN OLD;
END $$;
CREATE TRIGGER posts_change_tombstone AFTER DELETE ON posts FOR EACH ROW
    EXECUTE FUNCTION change_tombstone();
CREATE TRIGGER terms_change_tombstone AFTER DELETE ON terms FOR EACH ROW
    EXECUTE FUNCTION change_tombstone();
