-- SQLite schema version 9: personal access tokens get GitLab's scopes, expiry and description
-- (decisions D9). `scopes` is a JSON array of scope names; tokens made before it count as
-- `["api"]`, what they could do until now. `expires_at` is a date, `YYYY-MM-DD` (UTC), or NULL
-- for a token that never expires; the token stops authenticating at 00:00 UTC of that date
-- (GitLab's `expires_at <= Time.current`). `last_used_at` (seconds) is not maintained yet.
-- `previous_id` names the token a rotation replaced.
ALTER TABLE personal_access_tokens ADD COLUMN scopes TEXT NOT NULL DEFAULT '["api"]';
ALTER TABLE personal_access_tokens ADD COLUMN expires_at TEXT;
ALTER TABLE personal_access_tokens ADD COLUMN description TEXT;
ALTER TABLE personal_access_tokens ADD COLUMN last_used_at INTEGER;
ALTER TABLE personal_access_tokens ADD COLUMN previous_id INTEGER
    REFERENCES personal_access_tokens(id) ON DELETE SET NULL;
CREATE INDEX personal_access_tokens_user ON personal_access_tokens(user_id, id);
