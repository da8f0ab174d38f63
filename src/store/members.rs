//! Memberships: a user in a group (inherited by its subgroups and projects) or in a project,
//! with an access level, optionally a custom member role, and optionally an expiry date.
//!
//! A membership whose `expires_at` day has come (UTC) counts for nothing, as if GitLab's
//! expiry worker had removed it: GitLab's `Member.not_expired` keeps `expires_at > today`. Every
//! query here that answers who may do what or who is a member takes today's date ([`today`])
//! and leaves such rows out; a new membership of the same user replaces an expired one.

use super::db::{Db, Param, Row};
use super::error::StoreResult;
use super::today;

/// One membership row, as the members API shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub id: i64,
    pub user_id: i64,
    pub group_id: Option<i64>,
    pub project_id: Option<i64>,
    pub access_level: i64,
    pub member_role_id: Option<i64>,
    /// `YYYY-MM-DD`, or `None` for never.
    pub expires_at: Option<String>,
    /// Seconds since the epoch.
    pub created_at: i64,
    pub created_by: Option<i64>,
}

const MEMBER_COLUMNS: &str =
    "m.id, m.user_id, m.group_id, m.project_id, m.access_level, m.member_role_id, m.expires_at, m.created_at, m.created_by";

fn member_from_row(r: &Row) -> StoreResult<Member> {
    Ok(Member {
        id: r.i64(0)?,
        user_id: r.i64(1)?,
        group_id: r.opt_i64(2)?,
        project_id: r.opt_i64(3)?,
        access_level: r.i64(4)?,
        member_role_id: r.opt_i64(5)?,
        expires_at: r.opt_string(6)?,
        created_at: r.i64(7)?,
        created_by: r.opt_i64(8)?,
    })
}

/// One membership that applies to the subject asked about, with its role's flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Membership {
    pub access_level: i64,
    pub role_permissions: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Group(i64),
    Project(i64),
}

/// Adds or replaces the membership of `user_id` in `source`.
pub fn upsert(
    db: &mut Db,
    source: &Source,
    user_id: i64,
    access_level: i64,
    member_role_id: Option<i64>,
) -> StoreResult<i64> {
    let (group_id, project_id) = match source {
        Source::Group(id) => (Some(*id), None),
        Source::Project(id) => (None, Some(*id)),
    };
    db.execute(
        "DELETE FROM members WHERE user_id = $1 AND group_id IS NOT DISTINCT FROM $2
         AND project_id IS NOT DISTINCT FROM $3",
        &[&user_id, &group_id, &project_id],
    )?;
    db.one(
        "INSERT INTO members (user_id, group_id, project_id, access_level, member_role_id, created_at)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        &[&user_id, &group_id, &project_id, &access_level, &member_role_id, &super::now_seconds()],
        |r| r.i64(0),
    )
}

impl Source {
    fn ids(&self) -> (Option<i64>, Option<i64>) {
        match self {
            Source::Group(id) => (Some(*id), None),
            Source::Project(id) => (None, Some(*id)),
        }
    }

    /// `WHERE` text naming the direct members of the source, its id as `$1`.
    fn direct_clause(&self) -> &'static str {
        match self {
            Source::Group(_) => "m.group_id = $1",
            Source::Project(_) => "m.project_id = $1",
        }
    }

    fn id(&self) -> i64 {
        match self {
            Source::Group(id) | Source::Project(id) => *id,
        }
    }
}

/// What a new membership holds.
pub struct NewMember<'a> {
    pub source: Source,
    pub user_id: i64,
    pub access_level: i64,
    pub member_role_id: Option<i64>,
    pub expires_at: Option<&'a str>,
    pub created_by: Option<i64>,
}

/// Adds a membership, replacing an expired one of the same user in the same source (a live
/// one is the caller's 409, checked before).
pub fn insert(db: &mut Db, new: &NewMember) -> StoreResult<Member> {
    let (group_id, project_id) = new.source.ids();
    db.execute(
        "DELETE FROM members WHERE user_id = $1 AND group_id IS NOT DISTINCT FROM $2
         AND project_id IS NOT DISTINCT FROM $3",
        &[&new.user_id, &group_id, &project_id],
    )?;
    let created_at = super::now_seconds();
    let id = db.one(
        "INSERT INTO members (user_id, group_id, project_id, access_level, member_role_id, expires_at, created_at, created_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
        &[
            &new.user_id,
            &group_id,
            &project_id,
            &new.access_level,
            &new.member_role_id,
            &new.expires_at,
            &created_at,
            &new.created_by,
        ],
        |r| r.i64(0),
    )?;
    Ok(Member {
        id,
        user_id: new.user_id,
        group_id,
        project_id,
        access_level: new.access_level,
        member_role_id: new.member_role_id,
        expires_at: new.expires_at.map(str::to_string),
        created_at,
        created_by: new.created_by,
    })
}

/// Sets a membership's level, role and expiry.
pub fn update(db: &mut Db, member: &Member) -> StoreResult<()> {
    db.execute(
        "UPDATE members SET access_level = $2, member_role_id = $3, expires_at = $4 WHERE id = $1",
        &[&member.id, &member.access_level, &member.member_role_id, &member.expires_at],
    )?;
    Ok(())
}

pub fn delete(db: &mut Db, id: i64) -> StoreResult<bool> {
    Ok(db.execute("DELETE FROM members WHERE id = $1", &[&id])? > 0)
}

/// The live direct membership of `user_id` in `source`.
pub fn find_direct(db: &mut Db, source: Source, user_id: i64) -> StoreResult<Option<Member>> {
    let sql = format!(
        "SELECT {MEMBER_COLUMNS} FROM members m WHERE {} AND m.user_id = $2 AND (m.expires_at IS NULL OR m.expires_at > $3)",
        source.direct_clause()
    );
    db.row(&sql, &[&source.id(), &user_id, &today()], member_from_row)
}

/// Which members a list shows.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Part of the username or name, any case.
    pub query: Option<String>,
    pub user_ids: Option<Vec<i64>>,
    pub skip_users: Vec<i64>,
}

impl Filter {
    /// `AND ...` conditions on `m` (a member row) and `u` (its user); the query's pattern is `$2`.
    fn clause(&self) -> String {
        let ids = |ids: &[i64]| ids.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
        // Always there, so that `$2` is always bound: without a query it is `%%`, which
        // every row matches.
        let mut clause =
            String::from(" AND (lower(u.username) LIKE $2 ESCAPE '\\' OR lower(u.name) LIKE $2 ESCAPE '\\')");
        if let Some(user_ids) = &self.user_ids {
            if user_ids.is_empty() {
                clause.push_str(" AND 1 = 0");
            } else {
                clause.push_str(&format!(" AND m.user_id IN ({})", ids(user_ids)));
            }
        }
        if !self.skip_users.is_empty() {
            clause.push_str(&format!(" AND m.user_id NOT IN ({})", ids(&self.skip_users)));
        }
        clause
    }

    /// The `LIKE` pattern of the query (`$2`), its wildcards escaped; unused when no query.
    fn pattern(&self) -> String {
        super::db::like_pattern(self.query.as_deref().unwrap_or(""))
    }
}

/// One page of the live direct members of `source` in the order they were added, and how
/// many there are in all.
pub fn list_direct(
    db: &mut Db,
    source: Source,
    filter: &Filter,
    limit: i64,
    offset: i64,
) -> StoreResult<(Vec<Member>, i64)> {
    let from = format!(
        "FROM members m JOIN users u ON u.id = m.user_id WHERE {} AND (m.expires_at IS NULL OR m.expires_at > $3){}",
        source.direct_clause(),
        filter.clause()
    );
    let (id, pattern, today) = (source.id(), filter.pattern(), today());
    let total = db.one(&format!("SELECT count(*) {from}"), &[&id, &pattern, &today], |r| r.i64(0))?;
    let rows = db.rows(
        &format!("SELECT {MEMBER_COLUMNS} {from} ORDER BY m.id LIMIT $4 OFFSET $5"),
        &[&id, &pattern, &today, &limit, &offset],
        member_from_row,
    )?;
    Ok((rows, total))
}

/// The memberships that reach `source` (it, its group and that group's ancestors), each
/// user's best one ranked first: the highest level, then the source's own, then the oldest.
/// `$1` is the source's id, `$3` today.
fn ranked_reaching(source: Source) -> String {
    let (chain_start, reach, own, links) = match source {
        Source::Group(_) => (
            "SELECT id, parent_id, 0 FROM groups WHERE id = $1",
            "m.group_id IN (SELECT id FROM chain)",
            "m.group_id = $1",
            super::shares::GROUP_LINKS.to_string(),
        ),
        Source::Project(_) => (
            "SELECT g.id, g.parent_id, 0 FROM groups g JOIN projects p ON p.group_id = g.id WHERE p.id = $1",
            "(m.project_id = $1 OR m.group_id IN (SELECT id FROM chain))",
            "m.project_id = $1",
            super::shares::PROJECT_LINKS.replace("{id}", "$1"),
        ),
    };
    let shared_in = super::shares::shared_in_cte(&links);
    format!(
        "WITH RECURSIVE chain(id, parent_id, depth) AS (
             {chain_start}
             UNION ALL
             SELECT g.id, g.parent_id, chain.depth + 1 FROM groups g JOIN chain ON g.id = chain.parent_id
             WHERE chain.depth < 100
         ),
         {shared_in},
         reaching AS (
             SELECT m.id, m.user_id, m.group_id, m.project_id, m.access_level, m.member_role_id, m.expires_at,
                    m.created_at, m.created_by
             FROM members m WHERE {reach} AND (m.expires_at IS NULL OR m.expires_at > $3)
             UNION ALL
             SELECT m.id, m.user_id, m.group_id, m.project_id,
                    CASE WHEN s.access < m.access_level THEN s.access ELSE m.access_level END, NULL, m.expires_at,
                    m.created_at, m.created_by
             FROM shared_in s JOIN members m ON m.group_id = s.anc
             WHERE m.expires_at IS NULL OR m.expires_at > $3
         ),
         ranked AS (
             SELECT m.*, ROW_NUMBER() OVER (
                 PARTITION BY m.user_id
                 ORDER BY m.access_level DESC, CASE WHEN {own} THEN 0 ELSE 1 END, m.id
             ) AS rank_in_user
             FROM reaching m
         )"
    )
}

/// One page of the members of `source` with those inherited from its ancestor groups, one
/// row per user (the best: [`ranked_reaching`]), ordered by user id; and how many in all.
/// The database ranks, filters and pages; nothing is merged here.
pub fn list_all(
    db: &mut Db,
    source: Source,
    filter: &Filter,
    limit: i64,
    offset: i64,
) -> StoreResult<(Vec<Member>, i64)> {
    let from = format!(
        "{} SELECT {{columns}} FROM ranked m JOIN users u ON u.id = m.user_id WHERE m.rank_in_user = 1{}",
        ranked_reaching(source),
        filter.clause()
    );
    let (id, pattern, today) = (source.id(), filter.pattern(), today());
    let total = db.one(&from.replace("{columns}", "count(*)"), &[&id, &pattern, &today], |r| r.i64(0))?;
    let rows = db.rows(
        &format!("{} ORDER BY m.user_id LIMIT $4 OFFSET $5", from.replace("{columns}", MEMBER_COLUMNS)),
        &[&id, &pattern, &today, &limit, &offset],
        member_from_row,
    )?;
    Ok((rows, total))
}

/// The best live membership of `user_id` reaching `source` (see [`list_all`]).
pub fn find_in_all(db: &mut Db, source: Source, user_id: i64) -> StoreResult<Option<Member>> {
    let filter = Filter { user_ids: Some(vec![user_id]), ..Filter::default() };
    Ok(list_all(db, source, &filter, 1, 0)?.0.into_iter().next())
}

/// The memberships of `user_id` below group `group_id`: in its descendant groups and in the
/// projects of it and of its descendants (what GitLab's `Members::DestroyService` removes with
/// a group membership unless `skip_subresources`).
pub fn below(db: &mut Db, group_id: i64, user_id: i64) -> StoreResult<Vec<Member>> {
    let sql = format!(
        "WITH RECURSIVE tree(id, depth) AS (
             SELECT id, 0 FROM groups WHERE id = $1
             UNION ALL
             SELECT g.id, tree.depth + 1 FROM groups g JOIN tree ON g.parent_id = tree.id WHERE tree.depth < 100
         )
         SELECT {MEMBER_COLUMNS} FROM members m WHERE m.user_id = $2 AND (
             m.group_id IN (SELECT id FROM tree WHERE depth > 0)
             OR m.project_id IN (SELECT p.id FROM projects p WHERE p.group_id IN (SELECT id FROM tree)))
         ORDER BY m.id"
    );
    db.rows(&sql, &[&group_id, &user_id], member_from_row)
}

/// Whether a user other than `user_id` is a live Owner of `group_id` or of an ancestor:
/// GitLab never leaves a group without an owner.
pub fn has_other_owner(db: &mut Db, group_id: i64, user_id: i64) -> StoreResult<bool> {
    db.one(
        "WITH RECURSIVE chain(id, parent_id, depth) AS (
             SELECT id, parent_id, 0 FROM groups WHERE id = $1
             UNION ALL
             SELECT g.id, g.parent_id, chain.depth + 1 FROM groups g JOIN chain ON g.id = chain.parent_id
             WHERE chain.depth < 100
         )
         SELECT EXISTS (SELECT 1 FROM members m WHERE m.group_id IN (SELECT id FROM chain)
             AND m.user_id <> $2 AND m.access_level >= 50 AND (m.expires_at IS NULL OR m.expires_at > $3))",
        &[&group_id, &user_id, &today()],
        |r| r.bool(0),
    )
}

fn collect(db: &mut Db, sql: &str, params: &[&dyn Param]) -> StoreResult<Vec<Membership>> {
    db.rows(sql, params, |r| {
        let role_permissions =
            r.opt_string(1)?.and_then(|text| serde_json::from_str::<Vec<String>>(&text).ok()).unwrap_or_default();
        Ok(Membership { access_level: r.i64(0)?, role_permissions })
    })
}

/// Memberships of `user_id` that reach project `project_id`: on the project itself or on
/// its group or any ancestor group.
pub fn for_project(db: &mut Db, user_id: i64, project_id: i64) -> StoreResult<Vec<Membership>> {
    collect(
        db,
        "WITH RECURSIVE chain(id, parent_id, depth) AS (
             SELECT g.id, g.parent_id, 0 FROM groups g JOIN projects p ON p.group_id = g.id WHERE p.id = $2
             UNION ALL
             SELECT g.id, g.parent_id, chain.depth + 1 FROM groups g JOIN chain ON g.id = chain.parent_id
             WHERE chain.depth < 100
         ),
         {shared_in}
         SELECT m.access_level, r.permissions FROM members m LEFT JOIN member_roles r ON r.id = m.member_role_id
         WHERE m.user_id = $1 AND (m.project_id = $2 OR m.group_id IN (SELECT id FROM chain))
         AND (m.expires_at IS NULL OR m.expires_at > $3)
         UNION ALL
         SELECT CASE WHEN s.access < m.access_level THEN s.access ELSE m.access_level END, NULL
         FROM shared_in s JOIN members m ON m.group_id = s.anc
         WHERE m.user_id = $1 AND (m.expires_at IS NULL OR m.expires_at > $3)"
            .replace("{shared_in}", &super::shares::shared_in_cte(&super::shares::PROJECT_LINKS.replace("{id}", "$2")))
            .as_str(),
        &[&user_id, &project_id, &today()],
    )
}

/// Memberships of `user_id` that reach group `group_id`: on it or any ancestor.
pub fn for_group(db: &mut Db, user_id: i64, group_id: i64) -> StoreResult<Vec<Membership>> {
    collect(
        db,
        "WITH RECURSIVE chain(id, parent_id, depth) AS (
             SELECT id, parent_id, 0 FROM groups WHERE id = $2
             UNION ALL
             SELECT g.id, g.parent_id, chain.depth + 1 FROM groups g JOIN chain ON g.id = chain.parent_id
             WHERE chain.depth < 100
         ),
         {shared_in}
         SELECT m.access_level, r.permissions FROM members m LEFT JOIN member_roles r ON r.id = m.member_role_id
         WHERE m.user_id = $1 AND m.group_id IN (SELECT id FROM chain)
         AND (m.expires_at IS NULL OR m.expires_at > $3)
         UNION ALL
         SELECT CASE WHEN s.access < m.access_level THEN s.access ELSE m.access_level END, NULL
         FROM shared_in s JOIN members m ON m.group_id = s.anc
         WHERE m.user_id = $1 AND (m.expires_at IS NULL OR m.expires_at > $3)"
            .replace("{shared_in}", &super::shares::shared_in_cte(super::shares::GROUP_LINKS))
            .as_str(),
        &[&user_id, &group_id, &today()],
    )
}

/// Whether `user_id` is a member anywhere below `group_id` (a subgroup or a project), which
/// lets them see the group even when it is private.
pub fn has_membership_below(db: &mut Db, user_id: i64, group_id: i64) -> StoreResult<bool> {
    db.one(
        "WITH RECURSIVE tree(id, depth) AS (
             SELECT id, 0 FROM groups WHERE id = $2
             UNION ALL
             SELECT g.id, tree.depth + 1 FROM groups g JOIN tree ON g.parent_id = tree.id WHERE tree.depth < 100
         )
         SELECT EXISTS (SELECT 1 FROM members m WHERE m.user_id = $1
             AND (m.expires_at IS NULL OR m.expires_at > $3) AND (
             m.group_id IN (SELECT id FROM tree)
             OR m.project_id IN (SELECT p.id FROM projects p WHERE p.group_id IN (SELECT id FROM tree))))",
        &[&user_id, &group_id, &today()],
        |r| r.bool(0),
    )
}

/// How many memberships use the member role.
pub fn count_with_role(db: &mut Db, member_role_id: i64) -> StoreResult<i64> {
    db.one("SELECT count(*) FROM members WHERE member_role_id = $1", &[&member_role_id], |r| r.i64(0))
}

/// Whether `user_id` is a member of group `group_id` itself (not through an ancestor).
pub fn is_direct_group_member(db: &mut Db, user_id: i64, group_id: i64) -> StoreResult<bool> {
    Ok(db
        .row(
            "SELECT 1 FROM members WHERE user_id = $1 AND group_id = $2 AND (expires_at IS NULL OR expires_at > $3) LIMIT 1",
            &[&user_id, &group_id, &today()],
            |_| Ok(()),
        )?
        .is_some())
}

/// One live direct membership of a user, with what it is in (GitLab's `Membership` entity).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserMembership {
    pub id: i64,
    pub source: Source,
    /// The group's or project's name.
    pub source_name: String,
    pub access_level: i64,
}

/// One page of `user_id`'s live direct memberships (of groups and projects, or only of `kind`),
/// in the order they were made, and how many there are in all.
pub fn of_user(
    db: &mut Db,
    user_id: i64,
    kind: Option<SourceKind>,
    limit: i64,
    offset: i64,
) -> StoreResult<(Vec<UserMembership>, i64)> {
    let only = match kind {
        None => "",
        Some(SourceKind::Group) => " AND m.group_id IS NOT NULL",
        Some(SourceKind::Project) => " AND m.project_id IS NOT NULL",
    };
    let from = format!(
        "FROM members m LEFT JOIN groups g ON g.id = m.group_id LEFT JOIN projects p ON p.id = m.project_id
         WHERE m.user_id = $1 AND (m.expires_at IS NULL OR m.expires_at > $2){only}"
    );
    let today = today();
    let total = db.one(&format!("SELECT count(*) {from}"), &[&user_id, &today], |r| r.i64(0))?;
    let rows = db.rows(
        &format!(
            "SELECT m.id, m.group_id, m.project_id, coalesce(g.name, p.name, ''), m.access_level {from}
             ORDER BY m.id LIMIT $3 OFFSET $4"
        ),
        &[&user_id, &today, &limit, &offset],
        |r| {
            let source = match (r.opt_i64(1)?, r.opt_i64(2)?) {
                (Some(group), _) => Source::Group(group),
                (None, project) => Source::Project(project.unwrap_or(0)),
            };
            Ok(UserMembership { id: r.i64(0)?, source, source_name: r.string(3)?, access_level: r.i64(4)? })
        },
    )?;
    Ok((rows, total))
}

/// Which kind of source a membership is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    Group,
    Project,
}
