-- What each write changed, for the response caches of every instance (see
-- `store::changes`): one row per data version, taken from calendar_data_version by
-- the write after its commit, with the changes as JSON. Writers remove rows older
-- than the retention.
CREATE TABLE calendar_changes (
    version BIGINT      PRIMARY KEY,
    at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    change  TEXT        NOT NULL
);
CREATE INDEX calendar_changes_at ON calendar_changes (at);
