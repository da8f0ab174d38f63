-- SQLite: project topics (GitLab's `Projects::Topic` and `Projects::ProjectTopic`, the Topics
-- API). A topic's name is unique ignoring case (`validates :name, uniqueness: {case_sensitive:
-- false}`); its title defaults to the name when a project's topic list creates it. A project's
-- topics in its order stay in `projects.topics` (a JSON array of the topics' names, kept in
-- step by the store); `project_topics` links each project to its topics so that the counts,
-- `GET /projects?topic=` and merges read an index. Times are seconds since the epoch.
-- The topics projects already name are made here, with their links.
CREATE TABLE topics (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    title       TEXT NOT NULL,
    description TEXT,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX topics_name ON topics(lower(name));
CREATE TABLE project_topics (
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    topic_id   INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
    PRIMARY KEY (project_id, topic_id)
) STRICT;
CREATE INDEX project_topics_topic ON project_topics(topic_id, project_id);
INSERT INTO topics (name, title, created_at, updated_at)
    SELECT min(j.value), min(j.value), CAST(strftime('%s', 'now') AS INTEGER), CAST(strftime('%s', 'now') AS INTEGER)
    FROM projects p, json_each(p.topics) j
    WHERE j.type = 'text' AND trim(j.value) <> ''
    GROUP BY lower(j.value)
    ORDER BY min(p.id), min(j.key);
INSERT OR IGNORE INTO project_topics (project_id, topic_id)
    SELECT p.id, t.id FROM projects p, json_each(p.topics) j JOIN topics t ON lower(t.name) = lower(j.value)
    WHERE j.type = 'text';
