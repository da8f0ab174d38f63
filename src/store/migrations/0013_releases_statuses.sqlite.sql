-- SQLite (issue #42; helper G's migration 0017): releases with their asset links, and commit
-- statuses with the external pipelines GitLab makes for them (one per sha and ref).
CREATE TABLE releases (
    id          INTEGER PRIMARY KEY,
    project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    tag_name    TEXT NOT NULL,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    author_id   INTEGER,
    sha         TEXT,
    created_at  INTEGER NOT NULL,
    released_at INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    UNIQUE (project_id, tag_name)
) STRICT;
CREATE TABLE release_links (
    id         INTEGER PRIMARY KEY,
    release_id INTEGER NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    url        TEXT NOT NULL,
    filepath   TEXT,
    link_type  TEXT NOT NULL DEFAULT 'other',
    created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX release_links_release ON release_links(release_id);
CREATE TABLE pipelines (
    id          INTEGER PRIMARY KEY,
    project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    iid         INTEGER NOT NULL,
    sha         TEXT NOT NULL,
    ref_name    TEXT NOT NULL,
    status      TEXT NOT NULL,
    source      TEXT NOT NULL DEFAULT 'external',
    user_id     INTEGER,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    started_at  INTEGER,
    finished_at INTEGER
) STRICT;
CREATE INDEX pipelines_project_sha ON pipelines(project_id, sha, ref_name);
CREATE TABLE commit_statuses (
    id          INTEGER PRIMARY KEY,
    project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    pipeline_id INTEGER NOT NULL REFERENCES pipelines(id) ON DELETE CASCADE,
    sha         TEXT NOT NULL,
    ref_name    TEXT NOT NULL,
    name        TEXT NOT NULL,
    status      TEXT NOT NULL,
    target_url  TEXT,
    description TEXT,
    coverage    TEXT,
    user_id     INTEGER,
    retried     INTEGER NOT NULL DEFAULT 0 CHECK (retried IN (0, 1)),
    created_at  INTEGER NOT NULL,
    started_at  INTEGER,
    finished_at INTEGER
) STRICT;
CREATE INDEX commit_statuses_project_sha ON commit_statuses(project_id, sha);
CREATE INDEX commit_statuses_pipeline ON commit_statuses(pipeline_id);
