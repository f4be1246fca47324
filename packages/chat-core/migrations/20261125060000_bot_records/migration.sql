-- The chat bots' state, in their own schema of imagehub's PostgreSQL server (search_path names it):
-- one row per record of a named collection (teams, installations, status messages, pending updates).
CREATE TABLE bot_records (
    platform    TEXT        NOT NULL,
    collection  TEXT        NOT NULL,
    key         TEXT        NOT NULL,
    value       JSONB       NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (platform, collection, key)
);
