-- SQLite schema version 8 (issue #38): what GitLab's Users API keeps of a user
-- (decisions D9): the account's state (`active`, `blocked`, `deactivated`, `banned`,
-- `blocked_pending_approval`, as GitLab's `users.state` spells them), what the user may create,
-- whether they are external, the profile fields and the administrators' note, and when the row
-- last changed (`order_by=updated_at`).
ALTER TABLE users ADD COLUMN state TEXT NOT NULL DEFAULT 'active'
    CHECK (state IN ('active', 'blocked', 'deactivated', 'banned', 'blocked_pending_approval'));
ALTER TABLE users ADD COLUMN can_create_group INTEGER NOT NULL DEFAULT 1 CHECK (can_create_group IN (0, 1));
ALTER TABLE users ADD COLUMN projects_limit INTEGER NOT NULL DEFAULT 100000;
ALTER TABLE users ADD COLUMN external INTEGER NOT NULL DEFAULT 0 CHECK (external IN (0, 1));
ALTER TABLE users ADD COLUMN bio TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN location TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN public_email TEXT;
ALTER TABLE users ADD COLUMN website_url TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN organization TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN job_title TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN note TEXT;
ALTER TABLE users ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0;
UPDATE users SET updated_at = CAST(strftime('%s', 'now') AS INTEGER);
CREATE INDEX users_by_state ON users(state);
