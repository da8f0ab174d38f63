-- SQLite schema version 5 (issue #38, groups through the API): what GitLab's Group entity
-- answers of a group and `PUT /groups/:id` may change. Groups made before it were made now.
ALTER TABLE groups ADD COLUMN description TEXT NOT NULL DEFAULT '';
ALTER TABLE groups ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE groups ADD COLUMN default_branch TEXT;
ALTER TABLE groups ADD COLUMN project_creation_level TEXT NOT NULL DEFAULT 'developer'
    CHECK (project_creation_level IN ('noone', 'owner', 'maintainer', 'developer', 'administrator'));
ALTER TABLE groups ADD COLUMN subgroup_creation_level TEXT NOT NULL DEFAULT 'maintainer'
    CHECK (subgroup_creation_level IN ('owner', 'maintainer'));
ALTER TABLE groups ADD COLUMN request_access_enabled INTEGER NOT NULL DEFAULT 1
    CHECK (request_access_enabled IN (0, 1));
ALTER TABLE groups ADD COLUMN share_with_group_lock INTEGER NOT NULL DEFAULT 0
    CHECK (share_with_group_lock IN (0, 1));
ALTER TABLE groups ADD COLUMN require_two_factor_authentication INTEGER NOT NULL DEFAULT 0
    CHECK (require_two_factor_authentication IN (0, 1));
ALTER TABLE groups ADD COLUMN two_factor_grace_period INTEGER NOT NULL DEFAULT 48;
ALTER TABLE groups ADD COLUMN lfs_enabled INTEGER NOT NULL DEFAULT 1 CHECK (lfs_enabled IN (0, 1));
ALTER TABLE groups ADD COLUMN emails_enabled INTEGER NOT NULL DEFAULT 1 CHECK (emails_enabled IN (0, 1));
ALTER TABLE groups ADD COLUMN mentions_disabled INTEGER NOT NULL DEFAULT 0 CHECK (mentions_disabled IN (0, 1));
UPDATE groups SET created_at = CAST(strftime('%s', 'now') AS INTEGER);
