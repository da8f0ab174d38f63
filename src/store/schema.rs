//! The schema of both backends, as migrations: entry `i` of a list moves a database from
//! version `i` to `i + 1`. Each backend numbers its own (SQLite in `user_version`, PostgreSQL
//! in `schema_version`); both describe the same tables, in each one's types: SQLite's STRICT
//! `INTEGER`/`TEXT`/`BLOB` with `COLLATE NOCASE` for names, PostgreSQL's `BIGINT` (identity
//! columns, so a copied store keeps its ids), `BOOLEAN`, `BYTEA`, and unique indexes on
//! `lower(...)` for names. Append, never edit: a database at version `n` never runs entry `n-1`
//! again.

/// SQLite's migrations.
pub const SQLITE_MIGRATIONS: &[&str] = &[
    // 1: users, tokens, groups, projects, members, member roles, rate-limit state.
    "CREATE TABLE users (
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
    CREATE INDEX rate_limits_expiry ON rate_limits(expires_at);",
    // 2: the last repository health report of each project (B10), as the JSON it is served as.
    "CREATE TABLE health_reports (
        project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
        report     TEXT NOT NULL CHECK (json_valid(report)),
        updated_at INTEGER NOT NULL
    ) STRICT;",
    // 3: repository storages: a project on a named storage keeps its path relative to it.
    "ALTER TABLE projects ADD COLUMN storage TEXT;",
    // 4: what tools read of a project (when it was made, its description), and protected
    // branches (decisions D8). `protections_stored` says the project's protections are the
    // rows of `protected_branches`; projects made before it keep the implicit rule (their
    // default branch protected) until their protections are first changed.
    "ALTER TABLE projects ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE projects ADD COLUMN description TEXT;
    ALTER TABLE projects ADD COLUMN protections_stored INTEGER NOT NULL DEFAULT 0
        CHECK (protections_stored IN (0, 1));
    UPDATE projects SET created_at = CAST(strftime('%s', 'now') AS INTEGER);
    CREATE TABLE protected_branches (
        id                 INTEGER PRIMARY KEY,
        project_id         INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        name               TEXT NOT NULL,
        push_access_level  INTEGER NOT NULL,
        merge_access_level INTEGER NOT NULL,
        allow_force_push   INTEGER NOT NULL DEFAULT 0 CHECK (allow_force_push IN (0, 1)),
        UNIQUE (project_id, name)
    ) STRICT;
    CREATE INDEX projects_forked_from ON projects(forked_from_id);
    CREATE INDEX projects_created_at ON projects(created_at, id);",
];

/// PostgreSQL's migrations: version 1 is SQLite's version 3; version 2 adds triggers only.
pub const POSTGRES_MIGRATIONS: &[&str] = &[
    include_str!("postgres_schema_1.sql"),
    // 2: notifications on `forgecore_auth` when users or tokens change (hosts' token caches).
    include_str!("postgres_schema_2.sql"),
    // 3: notifications on `forgecore_roles` and `forgecore_projects` when member roles or
    // projects change (hosts' role lists and project lookups).
    include_str!("postgres_schema_3.sql"),
    // 4: SQLite's version 4: project creation times and descriptions, protected branches.
    include_str!("postgres_schema_4.sql"),
];
