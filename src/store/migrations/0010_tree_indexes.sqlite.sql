-- SQLite schema version 10 (issue #38, the administration bench): indexes PostgreSQL has had
-- since its first schema. The walks down a group tree (a caller's groups and every group
-- below them, which every project list and a project's permissions ask for) join
-- `groups.parent_id`, and a group's projects are found by `projects.group_id`; without these
-- each step of a walk read every group.
CREATE INDEX IF NOT EXISTS groups_parent ON groups(parent_id);
CREATE INDEX IF NOT EXISTS projects_group ON projects(group_id);
