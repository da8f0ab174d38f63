-- PostgreSQL schema version 7 (issue #38), as SQLite's: projects made, changed,
-- archived and deleted through the API (decisions D9). See the SQLite file for the columns.
-- Idempotent, as entry 4 is.
ALTER TABLE projects ADD COLUMN IF NOT EXISTS archived BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE projects ADD COLUMN IF NOT EXISTS marked_for_deletion_at BIGINT;
ALTER TABLE projects ADD COLUMN IF NOT EXISTS marked_for_deletion_by BIGINT;
ALTER TABLE projects ADD COLUMN IF NOT EXISTS created_repository BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE projects ADD COLUMN IF NOT EXISTS merge_method TEXT NOT NULL DEFAULT 'merge';
ALTER TABLE projects ADD COLUMN IF NOT EXISTS squash_option TEXT NOT NULL DEFAULT 'default_off';
ALTER TABLE projects ADD COLUMN IF NOT EXISTS remove_source_branch_after_merge BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE projects ADD COLUMN IF NOT EXISTS only_allow_merge_if_pipeline_succeeds BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE projects ADD COLUMN IF NOT EXISTS allow_merge_on_skipped_pipeline BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE projects ADD COLUMN IF NOT EXISTS only_allow_merge_if_all_discussions_are_resolved BOOLEAN NOT NULL
    DEFAULT FALSE;
ALTER TABLE projects ADD COLUMN IF NOT EXISTS creator_id BIGINT;
ALTER TABLE projects ADD COLUMN IF NOT EXISTS namespace_user_id BIGINT;
ALTER TABLE projects ADD COLUMN IF NOT EXISTS topics TEXT NOT NULL DEFAULT '[]';
ALTER TABLE groups ADD COLUMN IF NOT EXISTS marked_for_deletion_at BIGINT;
ALTER TABLE groups ADD COLUMN IF NOT EXISTS marked_for_deletion_by BIGINT;
CREATE INDEX IF NOT EXISTS projects_marked_for_deletion ON projects (marked_for_deletion_at)
    WHERE marked_for_deletion_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS groups_marked_for_deletion ON groups (marked_for_deletion_at)
    WHERE marked_for_deletion_at IS NOT NULL;
