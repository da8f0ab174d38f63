-- SQLite schema version 18 (issue #38, custom role flag `admin_cicd_variables`): CI/CD
-- variables of the instance (no project, no group), of a group, and of a project, in one table.
-- A key is unique per owner and environment scope (GitLab's `validates :key, uniqueness:
-- { scope: [:project_id, :environment_scope] }`); instance variables keep the scope `*`.
-- Deleting a project or a group deletes its variables (ON DELETE CASCADE).
CREATE TABLE ci_variables (
    id                INTEGER PRIMARY KEY,
    project_id        INTEGER REFERENCES projects(id) ON DELETE CASCADE,
    group_id          INTEGER REFERENCES groups(id) ON DELETE CASCADE,
    key               TEXT NOT NULL,
    value             TEXT NOT NULL,
    variable_type     TEXT NOT NULL CHECK (variable_type IN ('env_var', 'file')),
    protected         INTEGER NOT NULL DEFAULT 0 CHECK (protected IN (0, 1)),
    masked            INTEGER NOT NULL DEFAULT 0 CHECK (masked IN (0, 1)),
    hidden            INTEGER NOT NULL DEFAULT 0 CHECK (hidden IN (0, 1)),
    raw               INTEGER NOT NULL DEFAULT 0 CHECK (raw IN (0, 1)),
    environment_scope TEXT NOT NULL DEFAULT '*',
    description       TEXT,
    CHECK (project_id IS NULL OR group_id IS NULL)
) STRICT;
CREATE UNIQUE INDEX ci_variables_key ON ci_variables(
    coalesce(project_id, 0), coalesce(group_id, 0), key, environment_scope);
CREATE INDEX ci_variables_project ON ci_variables(project_id);
CREATE INDEX ci_variables_group ON ci_variables(group_id);
