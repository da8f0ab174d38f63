-- PostgreSQL schema version 8, as SQLite's (issue #38): a user's
-- state, what they may create, whether they are external, the profile fields, the
-- administrators' note and when the row last changed (decisions D9). Idempotent, as entry 4.
ALTER TABLE users ADD COLUMN IF NOT EXISTS state TEXT NOT NULL DEFAULT 'active'
    CHECK (state IN ('active', 'blocked', 'deactivated', 'banned', 'blocked_pending_approval'));
ALTER TABLE users ADD COLUMN IF NOT EXISTS can_create_group BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE users ADD COLUMN IF NOT EXISTS projects_limit BIGINT NOT NULL DEFAULT 100000;
ALTER TABLE users ADD COLUMN IF NOT EXISTS external BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE users ADD COLUMN IF NOT EXISTS bio TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN IF NOT EXISTS location TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN IF NOT EXISTS public_email TEXT;
ALTER TABLE users ADD COLUMN IF NOT EXISTS website_url TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN IF NOT EXISTS organization TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN IF NOT EXISTS job_title TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN IF NOT EXISTS note TEXT;
ALTER TABLE users ADD COLUMN IF NOT EXISTS updated_at BIGINT NOT NULL DEFAULT 0;
UPDATE users SET updated_at = extract(epoch FROM now())::BIGINT WHERE updated_at = 0;
CREATE INDEX IF NOT EXISTS users_by_state ON users (state);
