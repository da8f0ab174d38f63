-- Group labels, label subscriptions and resource label events (issue-extras). A label now
-- belongs to a project or to a group (GitLab's `labels.project_id` / `labels.group_id`, one of
-- the two): SQLite cannot drop a NOT NULL, so `labels` is rebuilt, and `label_links` with it
-- (dropping `labels` while `label_links` still referred to it would cascade its rows away).
-- `label_subscriptions`: a user subscribed to a label, everywhere (`project_id` NULL) or in
-- one project (a group label seen from a project), as GitLab's `subscriptions`.
-- `resource_label_events`: every label added to or removed from an issue or a merge request
-- (`target_type`/`target_id` as `label_links`), by whom and when (milliseconds), as GitLab's
-- `resource_label_events`; the label's id is cleared when the label is deleted, the event
-- stays.
CREATE TABLE labels_new (
    id          INTEGER PRIMARY KEY,
    project_id  INTEGER REFERENCES projects(id) ON DELETE CASCADE,
    title       TEXT NOT NULL,
    color       TEXT NOT NULL,
    description TEXT,
    priority    INTEGER,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    group_id    INTEGER REFERENCES groups(id) ON DELETE CASCADE,
    CHECK ((project_id IS NULL) <> (group_id IS NULL)),
    UNIQUE (project_id, title),
    UNIQUE (group_id, title)
) STRICT;
INSERT INTO labels_new (id, project_id, title, color, description, priority, created_at, updated_at)
    SELECT id, project_id, title, color, description, priority, created_at, updated_at FROM labels;
CREATE TABLE label_links_new (
    target_type TEXT NOT NULL,
    target_id   INTEGER NOT NULL,
    label_id    INTEGER NOT NULL REFERENCES labels_new(id) ON DELETE CASCADE,
    PRIMARY KEY (target_type, target_id, label_id)
) STRICT;
INSERT INTO label_links_new (target_type, target_id, label_id) SELECT target_type, target_id, label_id FROM label_links;
DROP TABLE label_links;
DROP TABLE labels;
ALTER TABLE labels_new RENAME TO labels;
ALTER TABLE label_links_new RENAME TO label_links;
CREATE INDEX label_links_label ON label_links(label_id, target_type, target_id);
CREATE TABLE label_subscriptions (
    id         INTEGER PRIMARY KEY,
    label_id   INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE
) STRICT;
CREATE UNIQUE INDEX label_subscriptions_unique ON label_subscriptions(label_id, user_id, coalesce(project_id, 0));
CREATE TABLE resource_label_events (
    id          INTEGER PRIMARY KEY,
    target_type TEXT NOT NULL,
    target_id   INTEGER NOT NULL,
    label_id    INTEGER REFERENCES labels(id) ON DELETE SET NULL,
    user_id     INTEGER REFERENCES users(id) ON DELETE SET NULL,
    action      TEXT NOT NULL CHECK (action IN ('add', 'remove')),
    created_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX resource_label_events_target ON resource_label_events(target_type, target_id, id);
