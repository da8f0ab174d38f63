-- SQLite schema version 6 (issue #38): what GitLab's members API answers of a
-- membership. `expires_at` is a date (`YYYY-MM-DD`, NULL: never); a membership stops counting at
-- the start of that day (UTC), as GitLab's `Member.not_expired` (`expires_at > today`) has it.
-- `created_at` in seconds since the epoch; `created_by` the user who added it (NULL: the
-- administration commands, or a user since deleted).
ALTER TABLE members ADD COLUMN expires_at TEXT;
ALTER TABLE members ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN created_by INTEGER REFERENCES users(id) ON DELETE SET NULL;
UPDATE members SET created_at = CAST(strftime('%s', 'now') AS INTEGER);
CREATE INDEX members_created_by ON members(created_by);
