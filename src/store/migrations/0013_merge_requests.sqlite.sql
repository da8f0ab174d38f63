-- SQLite schema version 11 (issue #39, decisions D10): merge requests. `merge_request_iids`
-- is GitLab's `internal_ids` row for merge requests of one target project: the last iid
-- given, raised by one upsert per create (never reused, shared with nothing). A merge request
-- keeps its latest diff version's SHAs and file count beside its state; every version is a row
-- of `merge_request_diffs`. One open merge request per source and target branch is a partial
-- unique index, as GitLab's validation has it. Times of merge requests are milliseconds since
-- the epoch (GitLab answers them with milliseconds; `updated_after` compares them).
CREATE TABLE merge_request_iids (
    project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    last_value INTEGER NOT NULL
) STRICT;
CREATE TABLE merge_requests (
    id                          INTEGER PRIMARY KEY,
    iid                         INTEGER NOT NULL,
    target_project_id           INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    source_project_id           INTEGER REFERENCES projects(id) ON DELETE SET NULL,
    source_branch               TEXT NOT NULL,
    target_branch               TEXT NOT NULL,
    title                       TEXT NOT NULL,
    description                 TEXT,
    state                       TEXT NOT NULL DEFAULT 'opened'
        CHECK (state IN ('opened', 'closed', 'locked', 'merged')),
    author_id                   INTEGER REFERENCES users(id) ON DELETE SET NULL,
    draft                       INTEGER NOT NULL DEFAULT 0 CHECK (draft IN (0, 1)),
    squash                      INTEGER NOT NULL DEFAULT 0 CHECK (squash IN (0, 1)),
    force_remove_source_branch  INTEGER NOT NULL DEFAULT 0 CHECK (force_remove_source_branch IN (0, 1)),
    should_remove_source_branch INTEGER CHECK (should_remove_source_branch IN (0, 1)),
    merged_by_id                INTEGER REFERENCES users(id) ON DELETE SET NULL,
    merged_at                   INTEGER,
    closed_by_id                INTEGER REFERENCES users(id) ON DELETE SET NULL,
    closed_at                   INTEGER,
    merge_commit_sha            TEXT,
    squash_commit_sha           TEXT,
    merge_error                 TEXT,
    head_sha                    TEXT,
    base_sha                    TEXT,
    start_sha                   TEXT,
    changes_count               INTEGER,
    created_at                  INTEGER NOT NULL,
    updated_at                  INTEGER NOT NULL,
    UNIQUE (target_project_id, iid)
) STRICT;
CREATE UNIQUE INDEX merge_requests_one_open
    ON merge_requests(source_project_id, source_branch, target_project_id, target_branch) WHERE state = 'opened';
CREATE INDEX merge_requests_target_created ON merge_requests(target_project_id, created_at, id);
CREATE INDEX merge_requests_target_updated ON merge_requests(target_project_id, updated_at, id);
CREATE INDEX merge_requests_target_branch ON merge_requests(target_project_id, target_branch);
CREATE INDEX merge_requests_source_branch ON merge_requests(source_project_id, source_branch);
CREATE INDEX merge_requests_author ON merge_requests(author_id, created_at, id);
CREATE INDEX merge_requests_head_sha ON merge_requests(target_project_id, head_sha);
CREATE INDEX merge_requests_merge_commit ON merge_requests(target_project_id, merge_commit_sha);
CREATE TABLE merge_request_diffs (
    id               INTEGER PRIMARY KEY,
    merge_request_id INTEGER NOT NULL REFERENCES merge_requests(id) ON DELETE CASCADE,
    head_sha         TEXT NOT NULL,
    base_sha         TEXT,
    start_sha        TEXT,
    state            TEXT NOT NULL,
    files_count      INTEGER NOT NULL,
    commits_count    INTEGER NOT NULL,
    created_at       INTEGER NOT NULL
) STRICT;
CREATE INDEX merge_request_diffs_of ON merge_request_diffs(merge_request_id, id);
CREATE TABLE merge_request_assignees (
    merge_request_id INTEGER NOT NULL REFERENCES merge_requests(id) ON DELETE CASCADE,
    user_id          INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    position         INTEGER NOT NULL,
    PRIMARY KEY (merge_request_id, user_id)
) STRICT;
CREATE INDEX merge_request_assignees_user ON merge_request_assignees(user_id, merge_request_id);
CREATE TABLE merge_request_reviewers (
    merge_request_id INTEGER NOT NULL REFERENCES merge_requests(id) ON DELETE CASCADE,
    user_id          INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    state            TEXT NOT NULL DEFAULT 'unreviewed',
    created_at       INTEGER NOT NULL,
    PRIMARY KEY (merge_request_id, user_id)
) STRICT;
CREATE INDEX merge_request_reviewers_user ON merge_request_reviewers(user_id, merge_request_id);
