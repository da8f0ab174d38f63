-- PostgreSQL schema version 5, as SQLite's (issue #38, groups through the API): what GitLab's
-- Group entity answers of a group and `PUT /groups/:id` may change. Groups made before it were
-- made now. Idempotent, as entry 4 is.
ALTER TABLE groups ADD COLUMN IF NOT EXISTS description TEXT NOT NULL DEFAULT '';
ALTER TABLE groups ADD COLUMN IF NOT EXISTS created_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE groups ADD COLUMN IF NOT EXISTS default_branch TEXT;
ALTER TABLE groups ADD COLUMN IF NOT EXISTS project_creation_level TEXT NOT NULL DEFAULT 'developer'
    CHECK (project_creation_level IN ('noone', 'owner', 'maintainer', 'developer', 'administrator'));
ALTER TABLE groups ADD COLUMN IF NOT EXISTS subgroup_creation_level TEXT NOT NULL DEFAULT 'maintainer'
    CHECK (subgroup_creation_level IN ('owner', 'maintainer'));
ALTER TABLE groups ADD COLUMN IF NOT EXISTS request_access_enabled BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE groups ADD COLUMN IF NOT EXISTS share_with_group_lock BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE groups ADD COLUMN IF NOT EXISTS require_two_factor_authentication BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE groups ADD COLUMN IF NOT EXISTS two_factor_grace_period BIGINT NOT NULL DEFAULT 48;
ALTER TABLE groups ADD COLUMN IF NOT EXISTS lfs_enabled BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE groups ADD COLUMN IF NOT EXISTS emails_enabled BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE groups ADD COLUMN IF NOT EXISTS mentions_disabled BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE groups SET created_at = extract(epoch FROM now())::BIGINT WHERE created_at = 0;
