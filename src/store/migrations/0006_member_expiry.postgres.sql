-- PostgreSQL schema version 6 (issue #38), as SQLite's: a membership's expiry
-- date (`YYYY-MM-DD` text, NULL: never; it stops counting at the start of that day, UTC), when it
-- was made (seconds since the epoch) and by whom (NULL: the administration commands, or a user
-- since deleted). Idempotent, as entry 4 is.
ALTER TABLE members ADD COLUMN IF NOT EXISTS expires_at TEXT;
ALTER TABLE members ADD COLUMN IF NOT EXISTS created_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN IF NOT EXISTS created_by BIGINT REFERENCES users(id) ON DELETE SET NULL;
UPDATE members SET created_at = extract(epoch FROM now())::BIGINT WHERE created_at = 0;
CREATE INDEX IF NOT EXISTS members_created_by ON members (created_by);
