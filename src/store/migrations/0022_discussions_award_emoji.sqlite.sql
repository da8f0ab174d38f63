-- Discussions and award emoji (decisions D10). Notes gain GitLab's `type` (NULL,
-- 'DiscussionNote', 'DiffNote'), the 40-hex `discussion_id` every note has (a discussion is the
-- notes sharing one), `commit_id` (the noteable of a note on a commit, whose `noteable_id` is
-- NULL as in GitLab), a diff note's `position` (JSON), and who resolved it when. SQLite cannot
-- drop NOT NULL from a column, so the table is rebuilt; each note already there is its own
-- discussion, its id the note's id as 40 hex digits (as PostgreSQL's migration makes it).
-- Award emoji: one per user, awardable and name.
CREATE TABLE notes_0022 (
    id             INTEGER PRIMARY KEY,
    project_id     INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    noteable_type  TEXT NOT NULL,
    noteable_id    INTEGER,
    author_id      INTEGER REFERENCES users(id) ON DELETE SET NULL,
    body           TEXT NOT NULL,
    system         INTEGER NOT NULL DEFAULT 0 CHECK (system IN (0, 1)),
    internal       INTEGER NOT NULL DEFAULT 0 CHECK (internal IN (0, 1)),
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    type           TEXT,
    discussion_id  TEXT NOT NULL,
    commit_id      TEXT,
    position       TEXT,
    resolved_at    INTEGER,
    resolved_by_id INTEGER REFERENCES users(id) ON DELETE SET NULL
) STRICT;
INSERT INTO notes_0022 (id, project_id, noteable_type, noteable_id, author_id, body, system, internal, created_at,
                        updated_at, discussion_id)
    SELECT id, project_id, noteable_type, noteable_id, author_id, body, system, internal, created_at, updated_at,
           printf('%040x', id)
    FROM notes;
DROP TABLE notes;
ALTER TABLE notes_0022 RENAME TO notes;
CREATE INDEX notes_noteable ON notes(noteable_type, noteable_id, created_at, id);
CREATE INDEX notes_commit ON notes(project_id, commit_id, created_at, id) WHERE commit_id IS NOT NULL;
CREATE INDEX notes_discussion ON notes(discussion_id);
CREATE TABLE award_emoji (
    id             INTEGER PRIMARY KEY,
    project_id     INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    user_id        INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    awardable_type TEXT NOT NULL,
    awardable_id   INTEGER NOT NULL,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    UNIQUE (user_id, awardable_type, awardable_id, name)
) STRICT;
CREATE INDEX award_emoji_awardable ON award_emoji(awardable_type, awardable_id, name);
