-- PostgreSQL schema version 9: personal access tokens get GitLab's scopes, expiry and
-- description (decisions D9), as on SQLite: `scopes` a JSON array of scope names (old tokens
-- `["api"]`), `expires_at` a `YYYY-MM-DD` date text (UTC) or NULL, `last_used_at` not
-- maintained yet, `previous_id` the token a rotation replaced. The hosts' token memos learn of
-- every change through version 2's trigger on this table (`forgecore_auth`).
-- Idempotent: a database whose recorded version is set back (as tests/store.rs sets it to 1 to
-- rebuild the triggers) runs it again without failing.
ALTER TABLE personal_access_tokens ADD COLUMN IF NOT EXISTS scopes TEXT NOT NULL DEFAULT '["api"]';
ALTER TABLE personal_access_tokens ADD COLUMN IF NOT EXISTS expires_at TEXT;
ALTER TABLE personal_access_tokens ADD COLUMN IF NOT EXISTS description TEXT;
ALTER TABLE personal_access_tokens ADD COLUMN IF NOT EXISTS last_used_at BIGINT;
ALTER TABLE personal_access_tokens ADD COLUMN IF NOT EXISTS previous_id BIGINT
    REFERENCES personal_access_tokens(id) ON DELETE SET NULL;
CREATE INDEX IF NOT EXISTS personal_access_tokens_user ON personal_access_tokens(user_id, id);
