-- Where each imported item came from (`calendar-events import`): a second run of the
-- same export updates what it created instead of creating it again, and an
-- interrupted run resumes.
CREATE TABLE import_sources (
    kind     TEXT    NOT NULL,
    source   TEXT    NOT NULL,
    local_id INTEGER NOT NULL,
    PRIMARY KEY (kind, source)
);
