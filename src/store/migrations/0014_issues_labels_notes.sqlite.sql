-- SQLite schema version 11 (helper E's 0014, issue #40): project labels, the links that put
-- labels on issues and merge requests (`target_type` 'Issue' or 'MergeRequest'), per-project
-- internal ids (GitLab's `internal_ids`: one counter per project and usage, so an issue's `iid`
-- is shared with nothing else), issues with their assignees, and notes on any noteable.
-- Times are milliseconds since the epoch (GitLab's entities show milliseconds).
CREATE TABLE labels (
    id          INTEGER PRIMARY KEY,
    project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    title       TEXT NOT NULL,
    color       TEXT NOT NULL,
    description TEXT,
    priority    INTEGER,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    UNIQUE (project_id, title)
) STRICT;
CREATE TABLE label_links (
    target_type TEXT NOT NULL,
    target_id   INTEGER NOT NULL,
    label_id    INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
    PRIMARY KEY (target_type, target_id, label_id)
) STRICT;
CREATE INDEX label_links_label ON label_links(label_id, target_type, target_id);
CREATE TABLE internal_ids (
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    usage      TEXT NOT NULL,
    last_value INTEGER NOT NULL,
    PRIMARY KEY (project_id, usage)
) STRICT;
CREATE TABLE issues (
    id           INTEGER PRIMARY KEY,
    project_id   INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    iid          INTEGER NOT NULL,
    author_id    INTEGER REFERENCES users(id) ON DELETE SET NULL,
    title        TEXT NOT NULL,
    description  TEXT,
    state        TEXT NOT NULL CHECK (state IN ('opened', 'closed')),
    confidential INTEGER NOT NULL DEFAULT 0 CHECK (confidential IN (0, 1)),
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    closed_at    INTEGER,
    closed_by_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
    UNIQUE (project_id, iid)
) STRICT;
CREATE INDEX issues_project_state_created ON issues(project_id, state, created_at, id);
CREATE INDEX issues_project_created ON issues(project_id, created_at, id);
CREATE INDEX issues_project_updated ON issues(project_id, updated_at, id);
CREATE INDEX issues_author ON issues(author_id);
CREATE TABLE issue_assignees (
    issue_id INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
    user_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    PRIMARY KEY (issue_id, user_id)
) STRICT;
CREATE INDEX issue_assignees_user ON issue_assignees(user_id);
CREATE TABLE notes (
    id            INTEGER PRIMARY KEY,
    project_id    INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    noteable_type TEXT NOT NULL,
    noteable_id   INTEGER NOT NULL,
    author_id     INTEGER REFERENCES users(id) ON DELETE SET NULL,
    body          TEXT NOT NULL,
    system        INTEGER NOT NULL DEFAULT 0 CHECK (system IN (0, 1)),
    internal      INTEGER NOT NULL DEFAULT 0 CHECK (internal IN (0, 1)),
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX notes_noteable ON notes(noteable_type, noteable_id, created_at, id);
