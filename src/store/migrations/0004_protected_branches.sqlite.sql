-- SQLite schema version 4: what tools read of a project (when it was made, its description), and
-- protected branches (decisions D8). `protections_stored` says the project's protections are the
-- rows of `protected_branches`; projects made before it keep the implicit rule (their default
-- branch protected) until their protections are first changed.
ALTER TABLE projects ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN description TEXT;
ALTER TABLE projects ADD COLUMN protections_stored INTEGER NOT NULL DEFAULT 0
    CHECK (protections_stored IN (0, 1));
UPDATE projects SET created_at = CAST(strftime('%s', 'now') AS INTEGER);
CREATE TABLE protected_branches (
    id                 INTEGER PRIMARY KEY,
    project_id         INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    name               TEXT NOT NULL,
    push_access_level  INTEGER NOT NULL,
    merge_access_level INTEGER NOT NULL,
    allow_force_push   INTEGER NOT NULL DEFAULT 0 CHECK (allow_force_push IN (0, 1)),
    UNIQUE (project_id, name)
) STRICT;
CREATE INDEX projects_forked_from ON projects(forked_from_id);
CREATE INDEX projects_created_at ON projects(created_at, id);
