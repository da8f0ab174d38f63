-- Migration 19 (issues #39/#42, decisions D10): the auto-merge of a merge request (GitLab's
-- `auto_merge_enabled`, `merge_user` and `merge_params`): who set it, the head it was set for
-- (`merge_params['sha']`; a new head aborts it) and what the merge then does. One row per
-- merge request while it is set; deleting the row is cancelling, aborting or merging it, so
-- that of two hosts only the one whose delete took the row merges.
CREATE TABLE merge_request_auto_merges (
    merge_request_id            INTEGER PRIMARY KEY REFERENCES merge_requests(id) ON DELETE CASCADE,
    merge_user_id               INTEGER REFERENCES users(id) ON DELETE SET NULL,
    sha                         TEXT NOT NULL,
    squash                      INTEGER NOT NULL DEFAULT 0 CHECK (squash IN (0, 1)),
    should_remove_source_branch INTEGER CHECK (should_remove_source_branch IN (0, 1)),
    merge_commit_message        TEXT,
    squash_commit_message       TEXT,
    created_at                  INTEGER NOT NULL
) STRICT;
