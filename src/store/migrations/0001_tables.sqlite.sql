-- SQLite schema version 1: users, tokens, groups, projects, members, member roles, rate-limit state.
CREATE TABLE users (
    id         INTEGER PRIMARY KEY,
    username   TEXT NOT NULL UNIQUE COLLATE NOCASE,
    name       TEXT NOT NULL,
    email      TEXT,
    is_admin   INTEGER NOT NULL DEFAULT 0 CHECK (is_admin IN (0, 1)),
    created_at INTEGER NOT NULL
) STRICT;
CREATE TABLE personal_access_tokens (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    digest     BLOB NOT NULL UNIQUE,
    revoked    INTEGER NOT NULL DEFAULT 0 CHECK (revoked IN (0, 1)),
    created_at INTEGER NOT NULL
) STRICT;
CREATE TABLE groups (
    id         INTEGER PRIMARY KEY,
    parent_id  INTEGER REFERENCES groups(id),
    path       TEXT NOT NULL,
    full_path  TEXT NOT NULL UNIQUE COLLATE NOCASE,
    name       TEXT NOT NULL,
    visibility TEXT NOT NULL CHECK (visibility IN ('private', 'internal', 'public'))
) STRICT;
CREATE TABLE projects (
    id             INTEGER PRIMARY KEY,
    group_id       INTEGER REFERENCES groups(id),
    path           TEXT NOT NULL,
    full_path      TEXT NOT NULL UNIQUE COLLATE NOCASE,
    name           TEXT NOT NULL,
    repo_dir       TEXT NOT NULL,
    visibility     TEXT NOT NULL CHECK (visibility IN ('private', 'internal', 'public')),
    forked_from_id INTEGER REFERENCES projects(id)
) STRICT;
CREATE TABLE job_tokens (
    id         INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    digest     BLOB NOT NULL UNIQUE,
    revoked    INTEGER NOT NULL DEFAULT 0 CHECK (revoked IN (0, 1)),
    created_at INTEGER NOT NULL
) STRICT;
CREATE TABLE member_roles (
    id                INTEGER PRIMARY KEY,
    group_id          INTEGER REFERENCES groups(id) ON DELETE CASCADE,
    name              TEXT NOT NULL,
    description       TEXT,
    base_access_level INTEGER NOT NULL,
    permissions       TEXT NOT NULL DEFAULT '[]',
    created_at        INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX member_roles_instance_name ON member_roles(name) WHERE group_id IS NULL;
CREATE UNIQUE INDEX member_roles_group_name ON member_roles(group_id, name) WHERE group_id IS NOT NULL;
CREATE TABLE members (
    id             INTEGER PRIMARY KEY,
    user_id        INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    group_id       INTEGER REFERENCES groups(id) ON DELETE CASCADE,
    project_id     INTEGER REFERENCES projects(id) ON DELETE CASCADE,
    access_level   INTEGER NOT NULL,
    member_role_id INTEGER REFERENCES member_roles(id) ON DELETE RESTRICT,
    CHECK ((group_id IS NULL) <> (project_id IS NULL))
) STRICT;
CREATE UNIQUE INDEX members_of_group ON members(group_id, user_id) WHERE group_id IS NOT NULL;
CREATE UNIQUE INDEX members_of_project ON members(project_id, user_id) WHERE project_id IS NOT NULL;
CREATE INDEX members_by_user ON members(user_id);
CREATE INDEX members_by_role ON members(member_role_id);
CREATE TABLE rate_limits (
    key          TEXT PRIMARY KEY,
    window_start INTEGER NOT NULL,
    hits         INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
) STRICT;
CREATE INDEX rate_limits_expiry ON rate_limits(expires_at);
