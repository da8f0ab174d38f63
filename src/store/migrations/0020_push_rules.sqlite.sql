-- SQLite (issue #42, decisions D12): push rules, one per project and one per group, with
-- GitLab's columns (`push_rules`: the patterns, the flags, `max_file_size` in MiB). GitLab
-- keeps a group's rule in `group_push_rules` and a project's in `push_rules`; here one table
-- with exactly one owner a row.
CREATE TABLE push_rules (
    id                            INTEGER PRIMARY KEY,
    project_id                    INTEGER UNIQUE REFERENCES projects(id) ON DELETE CASCADE,
    group_id                      INTEGER UNIQUE REFERENCES groups(id) ON DELETE CASCADE,
    created_at                    INTEGER NOT NULL,
    updated_at                    INTEGER NOT NULL,
    commit_message_regex          TEXT,
    commit_message_negative_regex TEXT,
    branch_name_regex             TEXT,
    author_email_regex            TEXT,
    file_name_regex               TEXT,
    deny_delete_tag               INTEGER NOT NULL DEFAULT 0,
    member_check                  INTEGER NOT NULL DEFAULT 0,
    prevent_secrets               INTEGER NOT NULL DEFAULT 0,
    max_file_size                 INTEGER NOT NULL DEFAULT 0,
    commit_committer_check        INTEGER NOT NULL DEFAULT 0,
    commit_committer_name_check   INTEGER NOT NULL DEFAULT 0,
    reject_unsigned_commits       INTEGER NOT NULL DEFAULT 0,
    reject_non_dco_commits        INTEGER NOT NULL DEFAULT 0,
    CHECK ((project_id IS NULL) <> (group_id IS NULL))
) STRICT;
