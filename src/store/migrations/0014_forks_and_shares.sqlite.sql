-- SQLite schema version 11 on this branch, file number 0012 (issue #38, helper B): forks,
-- transfers and sharing with groups (decisions D9, reference §8).
-- `fork_network_root_id` names the fork network a project belongs to: the id of the project
-- the network grew from (GitLab's `fork_networks.root_project_id`, kept as a plain id so the
-- network outlives its root, as GitLab's does). `forked_from_id` stays the direct parent
-- (`fork_network_members.forked_from_project_id`). `mr_default_target_self` is the fork's
-- setting of the same name.
-- `project_group_links` and `group_group_links` are GitLab's tables of the same names: a
-- project or a group shared with a group, at `group_access`, until `expires_at` (a date,
-- `YYYY-MM-DD`; the link counts while it is after today, as a membership does).
ALTER TABLE projects ADD COLUMN fork_network_root_id INTEGER;
ALTER TABLE projects ADD COLUMN mr_default_target_self INTEGER NOT NULL DEFAULT 0
    CHECK (mr_default_target_self IN (0, 1));
CREATE INDEX projects_fork_network ON projects(fork_network_root_id) WHERE fork_network_root_id IS NOT NULL;
CREATE TABLE project_group_links (
    id           INTEGER PRIMARY KEY,
    project_id   INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    group_id     INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
    group_access INTEGER NOT NULL,
    expires_at   TEXT,
    created_at   INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX project_group_links_pair ON project_group_links(project_id, group_id);
CREATE INDEX project_group_links_group ON project_group_links(group_id);
CREATE TABLE group_group_links (
    id                   INTEGER PRIMARY KEY,
    shared_group_id      INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
    shared_with_group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
    group_access         INTEGER NOT NULL,
    expires_at           TEXT,
    created_at           INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX group_group_links_pair ON group_group_links(shared_group_id, shared_with_group_id);
CREATE INDEX group_group_links_with ON group_group_links(shared_with_group_id);
