-- PostgreSQL schema version 10, as SQLite's (issue #38, the administration bench): the indexes
-- on `groups.parent_id` and `projects.group_id`, which PostgreSQL's first schema already made
-- (`groups_parent`, `projects_group`). Idempotent: nothing changes here.
CREATE INDEX IF NOT EXISTS groups_parent ON groups (parent_id);
CREATE INDEX IF NOT EXISTS projects_group ON projects (group_id);
