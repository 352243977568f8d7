-- Failed authentications per client address and per login, shared by every instance
-- of a deployment, so that the documented limits hold for the deployment rather than
-- for each process. A row whose window has ended counts for nothing and is removed
-- by the next failure recorded.
CREATE TABLE auth_failures (
    key       TEXT   PRIMARY KEY,
    failures  BIGINT NOT NULL,
    reset_utc BIGINT NOT NULL
);
CREATE INDEX auth_failures_reset ON auth_failures(reset_utc);
