CREATE TABLE users (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    login       TEXT    NOT NULL UNIQUE,
    role        TEXT    NOT NULL,
    created_utc INTEGER NOT NULL
);

CREATE TABLE credentials (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind        TEXT    NOT NULL,
    name        TEXT    NOT NULL DEFAULT '',
    secret_hash TEXT    NOT NULL UNIQUE,
    created_utc INTEGER NOT NULL
);
CREATE INDEX credentials_user ON credentials(user_id);

-- Events, venues, organizers and images share one ID sequence, as WordPress posts do.
CREATE TABLE posts (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    post_type          TEXT    NOT NULL,
    author             INTEGER NOT NULL DEFAULT 0,
    status             TEXT    NOT NULL,
    password           TEXT    NOT NULL DEFAULT '',
    slug               TEXT    NOT NULL,
    title              TEXT    NOT NULL DEFAULT '',
    description        TEXT    NOT NULL DEFAULT '',
    excerpt            TEXT    NOT NULL DEFAULT '',
    date_utc           INTEGER NOT NULL,
    modified_utc       INTEGER NOT NULL,
    image_id           INTEGER,
    guid               TEXT    NOT NULL DEFAULT '',
    address            TEXT    NOT NULL DEFAULT '',
    city               TEXT    NOT NULL DEFAULT '',
    country            TEXT    NOT NULL DEFAULT '',
    province           TEXT    NOT NULL DEFAULT '',
    state              TEXT    NOT NULL DEFAULT '',
    zip                TEXT    NOT NULL DEFAULT '',
    phone              TEXT    NOT NULL DEFAULT '',
    stateprovince      TEXT    NOT NULL DEFAULT '',
    website            TEXT,
    email              TEXT    NOT NULL DEFAULT '',
    show_map           INTEGER NOT NULL DEFAULT 0,
    show_map_link      INTEGER NOT NULL DEFAULT 0,
    geo_lat            REAL,
    geo_lng            REAL,
    start_utc          INTEGER,
    end_utc            INTEGER,
    timezone           TEXT    NOT NULL DEFAULT '',
    all_day            INTEGER NOT NULL DEFAULT 0,
    cost               TEXT    NOT NULL DEFAULT '',
    hide_from_listings INTEGER NOT NULL DEFAULT 0,
    sticky             INTEGER NOT NULL DEFAULT 0,
    featured           INTEGER NOT NULL DEFAULT 0,
    post_parent        INTEGER NOT NULL DEFAULT 0,
    venue_id           INTEGER,
    tickets            TEXT    NOT NULL DEFAULT '',
    UNIQUE (post_type, slug)
);
CREATE INDEX posts_type_status_date ON posts(post_type, status, date_utc, id);
-- Event lists walk this in order; the extra columns let counts skip the table.
CREATE INDEX posts_type_start ON posts(post_type, start_utc, id, end_utc, status, hide_from_listings, date_utc);
CREATE INDEX posts_venue ON posts(venue_id) WHERE venue_id IS NOT NULL;
CREATE INDEX posts_parent ON posts(post_parent) WHERE post_parent <> 0;
CREATE INDEX posts_author ON posts(author);
CREATE INDEX posts_guid ON posts(guid) WHERE guid <> '';

CREATE TABLE event_organizers (
    event_id     INTEGER NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
    organizer_id INTEGER NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    PRIMARY KEY (event_id, organizer_id)
);
CREATE INDEX event_organizers_organizer ON event_organizers(organizer_id, event_id);

-- Categories and tags share one ID sequence, as WordPress terms do.
CREATE TABLE terms (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    taxonomy    TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    slug        TEXT    NOT NULL,
    description TEXT    NOT NULL DEFAULT '',
    parent      INTEGER NOT NULL DEFAULT 0,
    count       INTEGER NOT NULL DEFAULT 0,
    UNIQUE (taxonomy, slug)
);
CREATE INDEX terms_taxonomy_name ON terms(taxonomy, name);
CREATE INDEX terms_parent ON terms(parent);

CREATE TABLE term_relationships (
    post_id INTEGER NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
    term_id INTEGER NOT NULL REFERENCES terms(id) ON DELETE CASCADE,
    PRIMARY KEY (post_id, term_id)
);
CREATE INDEX term_relationships_term ON term_relationships(term_id, post_id);

-- Substring search over events: a trigram index kept in step with posts by triggers.
CREATE VIRTUAL TABLE posts_fts USING fts5(
    title, excerpt, description,
    content = 'posts', content_rowid = 'id', tokenize = 'trigram'
);
CREATE TRIGGER posts_fts_insert AFTER INSERT ON posts WHEN new.post_type = 'event' BEGIN
    INSERT INTO posts_fts(rowid, title, excerpt, description)
    VALUES (new.id, new.title, new.excerpt, new.description);
END;
CREATE TRIGGER posts_fts_delete AFTER DELETE ON posts WHEN old.post_type = 'event' BEGIN
    INSERT INTO posts_fts(posts_fts, rowid, title, excerpt, description)
    VALUES ('delete', old.id, old.title, old.excerpt, old.description);
END;
CREATE TRIGGER posts_fts_update AFTER UPDATE OF title, excerpt, description ON posts
WHEN old.post_type = 'event' BEGIN
    INSERT INTO posts_fts(posts_fts, rowid, title, excerpt, description)
    VALUES ('delete', old.id, old.title, old.excerpt, old.description);
    INSERT INTO posts_fts(rowid, title, excerpt, description)
    VALUES (new.id, new.title, new.excerpt, new.description);
END;
