-- SQLite schema version 3: repository storages: a project on a named storage keeps its path
-- relative to it.
ALTER TABLE projects ADD COLUMN storage TEXT;
