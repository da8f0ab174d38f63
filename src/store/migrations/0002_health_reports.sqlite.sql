-- SQLite schema version 2: the last repository health report of each project (B10), as the JSON
-- it is served as.
CREATE TABLE health_reports (
    project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    report     TEXT NOT NULL CHECK (json_valid(report)),
    updated_at INTEGER NOT NULL
) STRICT;
