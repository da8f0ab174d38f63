//! The administration bench's data set, written straight into a store in one transaction:
//! users, a five-level group tree, projects in its leaves and memberships, inserted in batches
//! of rows with explicit ids (after those already there), the same statements on SQLite and
//! PostgreSQL. Also compiled into `tests/admin_bench.rs`, which builds it at a tiny size and
//! checks it is what [`Built`] says.
//!
//! The shape, for `roots` top-level groups of `fanout` children per level down to level 5:
//! - project `i` (0-based) lies in a leaf (level 5) group under root `i % roots`, so each
//!   root's projects are spread evenly over the ids (a keyset scan by id meets them at the
//!   same density on every page);
//! - user `u` (0-based) is a member of root `u % roots` (at a level cycling through Guest to
//!   Owner; user 0, the bench's caller, is a Developer), of 9 other groups and of
//!   `per_user - 10` projects under that same root, so user 0 sees exactly its root's projects,
//!   through the root group for most of them.

#![allow(dead_code)]

use forgecore::store::{Db, StoreError};

/// How big a data set to build.
#[derive(Debug, Clone, Copy)]
pub struct Size {
    pub users: i64,
    pub projects: i64,
    pub roots: i64,
    pub fanout: i64,
    /// Memberships per user (at least 11: the root, 9 subgroups, 1 or more projects).
    pub per_user: i64,
}

/// The size of issue 38's bench: 10,000 users, 100,000 projects, 1,000,000 memberships,
/// 10 trees of 781 groups (7,810 in all).
pub const FULL: Size = Size { users: 10_000, projects: 100_000, roots: 10, fanout: 5, per_user: 100 };

/// Levels of the tree; a root is level 1.
pub const DEPTH: i64 = 5;
/// Group memberships per user (its root and 9 groups below it).
const GROUPS_PER_USER: i64 = 10;
const LEVELS: [i64; 5] = [10, 20, 30, 40, 50];

/// What was built: the new rows' counts and ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Built {
    pub users: i64,
    pub groups: i64,
    pub projects: i64,
    pub memberships: i64,
    /// The id of user 0, the bench's caller.
    pub caller_id: i64,
    pub caller_username: String,
    /// The root group user 0 is a member of (through which it reaches its projects).
    pub caller_root_id: i64,
    /// The caller's level there.
    pub caller_level: i64,
    /// A project at the bottom of the caller's tree that it reaches only through ancestor groups.
    pub probe_project_id: i64,
    /// A leaf group of the caller's tree (its members, with its ancestors', are many).
    pub leaf_group_id: i64,
    /// How many projects the caller is a member of (all under its root).
    pub caller_projects: i64,
    /// The first project's id; root 0's projects are it and every `roots`-th id after it.
    pub first_project_id: i64,
    /// The leaf group and its ancestors, from the leaf up.
    pub leaf_chain: Vec<i64>,
    /// The distinct users who are members of the leaf group or one of its ancestors.
    pub leaf_members: i64,
}

struct Group {
    id: i64,
    parent: Option<i64>,
    root: i64,
    full_path: String,
}

/// Inserts `rows` (each `width` values) into `table (columns)` in batches.
fn insert_rows(
    db: &mut Db,
    table: &str,
    columns: &str,
    width: usize,
    values: &[Box<dyn forgecore::store::Param>],
) -> Result<(), StoreError> {
    // Under SQLite's and PostgreSQL's limits on the parameters of one statement.
    const BATCH_PARAMS: usize = 30_000;
    let per_batch = BATCH_PARAMS / width;
    for chunk in values.chunks(per_batch * width) {
        let rows = chunk.len() / width;
        let mut sql = format!("INSERT INTO {table} ({columns}) VALUES ");
        for r in 0..rows {
            if r > 0 {
                sql.push(',');
            }
            sql.push('(');
            for c in 0..width {
                if c > 0 {
                    sql.push(',');
                }
                sql.push_str(&format!("${}", r * width + c + 1));
            }
            sql.push(')');
        }
        let refs: Vec<&dyn forgecore::store::Param> = chunk.iter().map(|p| p.as_ref()).collect();
        db.execute(&sql, &refs)?;
    }
    Ok(())
}

fn max_id(db: &mut Db, table: &str) -> Result<i64, StoreError> {
    db.one(&format!("SELECT coalesce(max(id), 0) FROM {table}"), &[], |r| r.i64(0))
}

/// Builds the data set of `size` in `db` (call it inside one `store.write`); `repo_dir` is
/// every project's repository directory.
pub fn build(db: &mut Db, size: Size, repo_dir: &str) -> Result<Built, StoreError> {
    assert!(size.per_user > GROUPS_PER_USER && size.roots > 0 && size.fanout > 1);
    let (user_base, group_base, project_base) = (max_id(db, "users")?, max_id(db, "groups")?, max_id(db, "projects")?);
    let now = 1_764_633_600_i64; // 2025-12-02, a fixed date: the bench measures no clock.

    // Users.
    let mut values: Vec<Box<dyn forgecore::store::Param>> = Vec::new();
    for u in 0..size.users {
        let id = user_base + 1 + u;
        values.push(Box::new(id));
        values.push(Box::new(format!("bench-u{id}")));
        values.push(Box::new(format!("Bench user {id}")));
        values.push(Box::new(format!("bench-u{id}@example.com")));
        values.push(Box::new(now));
    }
    insert_rows(db, "users", "id, username, name, email, created_at", 5, &values)?;

    // The tree, level by level; `subtree[r]` lists root r's groups below it, `leaves[r]` its
    // level-5 groups.
    let mut groups: Vec<Group> = Vec::new();
    let mut level: Vec<usize> = Vec::new();
    for r in 0..size.roots {
        let id = group_base + 1 + groups.len() as i64;
        groups.push(Group { id, parent: None, root: r, full_path: format!("bench-g{id}") });
        level.push(groups.len() - 1);
    }
    let mut subtree: Vec<Vec<usize>> = vec![Vec::new(); size.roots as usize];
    for _ in 1..DEPTH {
        let mut next = Vec::new();
        for &parent in &level {
            for _ in 0..size.fanout {
                let id = group_base + 1 + groups.len() as i64;
                let (root, full_path) = (groups[parent].root, format!("{}/g{id}", groups[parent].full_path));
                groups.push(Group { id, parent: Some(groups[parent].id), root, full_path });
                subtree[root as usize].push(groups.len() - 1);
                next.push(groups.len() - 1);
            }
        }
        level = next;
    }
    let mut leaves: Vec<Vec<usize>> = vec![Vec::new(); size.roots as usize];
    for &leaf in &level {
        leaves[groups[leaf].root as usize].push(leaf);
    }
    let mut values: Vec<Box<dyn forgecore::store::Param>> = Vec::new();
    for g in &groups {
        let path = g.full_path.rsplit('/').next().unwrap_or_default().to_string();
        values.push(Box::new(g.id));
        values.push(Box::new(g.parent));
        values.push(Box::new(path.clone()));
        values.push(Box::new(g.full_path.clone()));
        values.push(Box::new(path));
        values.push(Box::new("private"));
        values.push(Box::new(now));
    }
    insert_rows(db, "groups", "id, parent_id, path, full_path, name, visibility, created_at", 7, &values)?;

    // Projects: project i under root i % roots, in its leaves in turn.
    let per_root = size.projects / size.roots;
    let mut project_group = Vec::with_capacity(size.projects as usize);
    let mut values: Vec<Box<dyn forgecore::store::Param>> = Vec::new();
    for i in 0..size.projects {
        let (root, k) = ((i % size.roots) as usize, i / size.roots);
        let leaf = &groups[leaves[root][(k as usize) % leaves[root].len()]];
        let id = project_base + 1 + i;
        project_group.push(leaf.id);
        values.push(Box::new(id));
        values.push(Box::new(leaf.id));
        values.push(Box::new(format!("p{id}")));
        values.push(Box::new(format!("{}/p{id}", leaf.full_path)));
        values.push(Box::new(format!("p{id}")));
        values.push(Box::new(repo_dir.to_string()));
        values.push(Box::new("private"));
        values.push(Box::new(now));
    }
    insert_rows(db, "projects", "id, group_id, path, full_path, name, repo_dir, visibility, created_at", 8, &values)?;

    // Memberships: the root, 9 groups below it and the rest projects, all in one tree.
    let project_memberships = size.per_user - GROUPS_PER_USER;
    assert!(per_root >= project_memberships, "too few projects per root for {project_memberships} memberships");
    let project_step = per_root / project_memberships;
    let mut caller_projects = Vec::new();
    let mut values: Vec<Box<dyn forgecore::store::Param>> = Vec::new();
    let push = |values: &mut Vec<Box<dyn forgecore::store::Param>>,
                user: i64,
                group: Option<i64>,
                project: Option<i64>,
                level: i64| {
        values.push(Box::new(user));
        values.push(Box::new(group));
        values.push(Box::new(project));
        values.push(Box::new(level));
    };
    for u in 0..size.users {
        let (user, root) = (user_base + 1 + u, (u % size.roots) as usize);
        push(&mut values, user, Some(groups[root].id), None, LEVELS[((u + 2) % 5) as usize]);
        let below = &subtree[root];
        let group_step = (below.len() as i64 / GROUPS_PER_USER).max(1);
        for j in 1..GROUPS_PER_USER {
            let at = ((u / size.roots + j * group_step) % below.len() as i64) as usize;
            push(&mut values, user, Some(groups[below[at]].id), None, 30);
        }
        for j in 0..project_memberships {
            let k = (u / size.roots + j * project_step) % per_root;
            let project = project_base + 1 + root as i64 + k * size.roots;
            if u == 0 {
                caller_projects.push(project);
            }
            push(&mut values, user, None, Some(project), 30);
        }
    }
    let memberships = values.len() as i64 / 4;
    insert_rows(db, "members", "user_id, group_id, project_id, access_level", 4, &values)?;

    if db.dialect() == forgecore::store::Dialect::Postgres {
        for table in ["users", "groups", "projects", "members"] {
            db.one(
                &format!("SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"),
                &[],
                |r| r.i64(0),
            )?;
        }
        db.execute("ANALYZE", &[])?;
    } else {
        db.execute("ANALYZE", &[])?;
    }

    // The probe: the caller's last project (in a leaf of its tree) it is not a member of itself.
    let probe_project_id = (0..per_root)
        .rev()
        .map(|k| project_base + 1 + k * size.roots)
        .find(|id| !caller_projects.contains(id))
        .expect("the caller is not a member of every project of its tree");
    let leaf_group_id = project_group[(probe_project_id - project_base - 1) as usize];
    let mut leaf_chain = vec![leaf_group_id];
    while let Some(parent) = groups[(leaf_chain[leaf_chain.len() - 1] - group_base - 1) as usize].parent {
        leaf_chain.push(parent);
    }
    let ids: Vec<String> = leaf_chain.iter().map(i64::to_string).collect();
    let leaf_members = db.one(
        &format!("SELECT count(DISTINCT user_id) FROM members WHERE group_id IN ({})", ids.join(", ")),
        &[],
        |r| r.i64(0),
    )?;
    Ok(Built {
        users: size.users,
        groups: groups.len() as i64,
        projects: size.projects,
        memberships,
        caller_id: user_base + 1,
        caller_username: format!("bench-u{}", user_base + 1),
        caller_root_id: groups[0].id,
        caller_level: LEVELS[2],
        probe_project_id,
        leaf_group_id,
        caller_projects: caller_projects.len() as i64,
        first_project_id: project_base + 1,
        leaf_chain,
        leaf_members,
    })
}
