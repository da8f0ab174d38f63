-- SQLite schema version 11 (issue #38): project and group access tokens, deploy tokens.
-- `users.user_type`: GitLab's, `human` or `project_bot` (the bot user a project or group
-- access token belongs to; GitLab's `ResourceAccessTokens::CreateService`). A resource access
-- token is a personal access token of its bot with `resource_type` (`project`, `group`) and
-- `resource_id` naming what it was made for (GitLab's `bot_namespace`).
-- `deploy_tokens`: a project's or a group's (exactly one of the two), with GitLab's username
-- (`gitlab+deploy-token-<id>` by default), its scopes (a JSON array), an optional expiry time
-- (seconds; NULL never expires), and `last_used_at` (seconds, written at most every 10 minutes).
ALTER TABLE users ADD COLUMN user_type TEXT NOT NULL DEFAULT 'human' CHECK (user_type IN ('human', 'project_bot'));
ALTER TABLE personal_access_tokens ADD COLUMN resource_type TEXT CHECK (resource_type IN ('project', 'group'));
ALTER TABLE personal_access_tokens ADD COLUMN resource_id INTEGER;
CREATE INDEX personal_access_tokens_resource ON personal_access_tokens(resource_type, resource_id, id);
CREATE TABLE deploy_tokens (
    id           INTEGER PRIMARY KEY,
    project_id   INTEGER REFERENCES projects(id) ON DELETE CASCADE,
    group_id     INTEGER REFERENCES groups(id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    username     TEXT NOT NULL,
    digest       BLOB NOT NULL UNIQUE,
    scopes       TEXT NOT NULL,
    expires_at   INTEGER,
    revoked      INTEGER NOT NULL DEFAULT 0 CHECK (revoked IN (0, 1)),
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    CHECK ((project_id IS NULL) <> (group_id IS NULL))
) STRICT;
CREATE INDEX deploy_tokens_project ON deploy_tokens(project_id, id);
CREATE INDEX deploy_tokens_group ON deploy_tokens(group_id, id);
