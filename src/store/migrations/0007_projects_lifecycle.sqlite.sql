-- SQLite schema version 7 (issue #38): projects made, changed, archived and
-- deleted through the API (decisions D9). `created_repository` says forgecore created the
-- project's repository, so a purge may delete it; a repository registered in place is only
-- unregistered. `namespace_user_id` names the user whose personal namespace holds a project
-- outside any group. `marked_for_deletion_at` (seconds since the epoch) and `_by` (the user who
-- asked) mark a project or group for deletion until it is purged or restored.
ALTER TABLE projects ADD COLUMN archived INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1));
ALTER TABLE projects ADD COLUMN marked_for_deletion_at INTEGER;
ALTER TABLE projects ADD COLUMN marked_for_deletion_by INTEGER;
ALTER TABLE projects ADD COLUMN created_repository INTEGER NOT NULL DEFAULT 0 CHECK (created_repository IN (0, 1));
ALTER TABLE projects ADD COLUMN merge_method TEXT NOT NULL DEFAULT 'merge';
ALTER TABLE projects ADD COLUMN squash_option TEXT NOT NULL DEFAULT 'default_off';
ALTER TABLE projects ADD COLUMN remove_source_branch_after_merge INTEGER NOT NULL DEFAULT 1
    CHECK (remove_source_branch_after_merge IN (0, 1));
ALTER TABLE projects ADD COLUMN only_allow_merge_if_pipeline_succeeds INTEGER NOT NULL DEFAULT 0
    CHECK (only_allow_merge_if_pipeline_succeeds IN (0, 1));
ALTER TABLE projects ADD COLUMN allow_merge_on_skipped_pipeline INTEGER NOT NULL DEFAULT 0
    CHECK (allow_merge_on_skipped_pipeline IN (0, 1));
ALTER TABLE projects ADD COLUMN only_allow_merge_if_all_discussions_are_resolved INTEGER NOT NULL DEFAULT 0
    CHECK (only_allow_merge_if_all_discussions_are_resolved IN (0, 1));
ALTER TABLE projects ADD COLUMN creator_id INTEGER;
ALTER TABLE projects ADD COLUMN namespace_user_id INTEGER;
ALTER TABLE projects ADD COLUMN topics TEXT NOT NULL DEFAULT '[]';
ALTER TABLE groups ADD COLUMN marked_for_deletion_at INTEGER;
ALTER TABLE groups ADD COLUMN marked_for_deletion_by INTEGER;
CREATE INDEX projects_marked_for_deletion ON projects(marked_for_deletion_at) WHERE marked_for_deletion_at IS NOT NULL;
CREATE INDEX groups_marked_for_deletion ON groups(marked_for_deletion_at) WHERE marked_for_deletion_at IS NOT NULL;
