//! Users: a username, a display name, whether the user administers the instance, the state of
//! the account (GitLab's `users.state`), what they may create, and the profile GitLab's Users
//! API shows. Usernames and emails match case-insensitively, as GitLab's do.

use super::db::{Db, Dialect, Param, Row};
use super::error::StoreResult;

/// The state of an account, as GitLab's `users.state` spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UserState {
    #[default]
    Active,
    Blocked,
    Deactivated,
    Banned,
    BlockedPendingApproval,
}

impl UserState {
    pub fn as_str(self) -> &'static str {
        match self {
            UserState::Active => "active",
            UserState::Blocked => "blocked",
            UserState::Deactivated => "deactivated",
            UserState::Banned => "banned",
            UserState::BlockedPendingApproval => "blocked_pending_approval",
        }
    }

    pub fn parse(text: &str) -> Option<UserState> {
        Some(match text {
            "active" => UserState::Active,
            "blocked" => UserState::Blocked,
            "deactivated" => UserState::Deactivated,
            "banned" => UserState::Banned,
            "blocked_pending_approval" => UserState::BlockedPendingApproval,
            _ => return None,
        })
    }

    /// GitLab's `blocked?`: true of every blocked state (`blocked`, `banned`,
    /// `blocked_pending_approval`), not of `deactivated`.
    pub fn is_blocked(self) -> bool {
        matches!(self, UserState::Blocked | UserState::Banned | UserState::BlockedPendingApproval)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct User {
    pub id: i64,
    pub username: String,
    pub name: String,
    pub email: Option<String>,
    pub is_admin: bool,
    pub state: UserState,
    pub can_create_group: bool,
    pub projects_limit: i64,
    pub external: bool,
    /// What a profile shows, boxed: every caller carries a `User`, few read this.
    pub profile: Box<Profile>,
    /// Seconds since the Unix epoch.
    pub created_at: i64,
    pub updated_at: i64,
    /// GitLab's `bot?`: a project or group access token's bot (`user_type` `project_bot`).
    pub bot: bool,
}

/// The profile fields of GitLab's `User` entity, and the administrators' note.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Profile {
    pub bio: String,
    pub location: String,
    pub public_email: Option<String>,
    pub website_url: String,
    pub organization: String,
    pub job_title: String,
    pub note: Option<String>,
}

/// How many columns [`from_row`] reads (a row may carry others after them).
pub const COLUMN_COUNT: usize = COLUMNS.len();

/// The columns [`from_row`] reads, in its order.
const COLUMNS: [&str; 19] = [
    "id",
    "username",
    "name",
    "email",
    "is_admin",
    "state",
    "can_create_group",
    "projects_limit",
    "external",
    "bio",
    "location",
    "public_email",
    "website_url",
    "organization",
    "job_title",
    "note",
    "created_at",
    "updated_at",
    "user_type",
];

/// The columns [`from_row`] reads, each prefixed with `alias.` (none when `alias` is empty):
/// every query that reads a user selects these, so they stay in step with [`User`].
pub(super) fn columns(alias: &str) -> String {
    let prefix = if alias.is_empty() { String::new() } else { format!("{alias}.") };
    COLUMNS.iter().map(|c| format!("{prefix}{c}")).collect::<Vec<_>>().join(", ")
}

pub(super) fn from_row(row: &Row) -> StoreResult<User> {
    Ok(User {
        id: row.i64(0)?,
        username: row.string(1)?,
        name: row.string(2)?,
        email: row.opt_string(3)?,
        is_admin: row.bool(4)?,
        state: UserState::parse(&row.string(5)?).unwrap_or(UserState::Blocked),
        can_create_group: row.bool(6)?,
        projects_limit: row.i64(7)?,
        external: row.bool(8)?,
        profile: Box::new(Profile {
            bio: row.string(9)?,
            location: row.string(10)?,
            public_email: row.opt_string(11)?,
            website_url: row.string(12)?,
            organization: row.string(13)?,
            job_title: row.string(14)?,
            note: row.opt_string(15)?,
        }),
        created_at: row.i64(16)?,
        updated_at: row.i64(17)?,
        bot: row.string(18)? == "project_bot",
    })
}

/// `column` equal to `$1`, ignoring case (SQLite's columns are declared `COLLATE NOCASE`;
/// PostgreSQL's have unique indexes on `lower(column)`).
pub(super) fn equal_ignoring_case(db: &Db, column: &str) -> String {
    equal_ignoring_case_at(db.dialect(), column, "$1")
}

fn equal_ignoring_case_at(dialect: Dialect, column: &str, at: &str) -> String {
    match dialect {
        Dialect::Sqlite => format!("{column} = {at} COLLATE NOCASE"),
        Dialect::Postgres => format!("lower({column}) = lower({at})"),
    }
}

pub fn insert(db: &mut Db, username: &str, name: &str, email: Option<&str>, is_admin: bool) -> StoreResult<User> {
    let now = super::now_seconds();
    let id = db.one(
        "INSERT INTO users (username, name, email, is_admin, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)
         RETURNING id",
        &[&username, &name, &email, &is_admin, &now],
        |r| r.i64(0),
    )?;
    Ok(find_by_id(db, id)?.unwrap_or(User {
        id,
        username: username.into(),
        name: name.into(),
        email: email.map(Into::into),
        is_admin,
        created_at: now,
        updated_at: now,
        ..User::default()
    }))
}

/// Writes every field of `user` but its id and creation time to the row with its id, and
/// sets the row's `updated_at` to now.
pub fn update(db: &mut Db, user: &User) -> StoreResult<()> {
    let now = super::now_seconds();
    db.execute(
        "UPDATE users SET username = $2, name = $3, email = $4, is_admin = $5, state = $6, can_create_group = $7,
             projects_limit = $8, external = $9, bio = $10, location = $11, public_email = $12, website_url = $13,
             organization = $14, job_title = $15, note = $16, updated_at = $17
         WHERE id = $1",
        &[
            &user.id,
            &user.username,
            &user.name,
            &user.email,
            &user.is_admin,
            &user.state.as_str(),
            &user.can_create_group,
            &user.projects_limit,
            &user.external,
            &user.profile.bio,
            &user.profile.location,
            &user.profile.public_email,
            &user.profile.website_url,
            &user.profile.organization,
            &user.profile.job_title,
            &user.profile.note,
            &now,
        ],
    )?;
    Ok(())
}

/// Sets the state of the account; the store's token caches forget the user's tokens.
pub fn set_state(db: &mut Db, id: i64, state: UserState) -> StoreResult<()> {
    db.execute(
        "UPDATE users SET state = $2, updated_at = $3 WHERE id = $1",
        &[&id, &state.as_str(), &super::now_seconds()],
    )?;
    Ok(())
}

/// Deletes the user; their tokens and memberships go with them (foreign keys cascade).
pub fn delete(db: &mut Db, id: i64) -> StoreResult<bool> {
    db.execute("DELETE FROM personal_access_tokens WHERE user_id = $1", &[&id])?;
    db.execute("DELETE FROM members WHERE user_id = $1", &[&id])?;
    Ok(db.execute("DELETE FROM users WHERE id = $1", &[&id])? > 0)
}

pub fn find_by_id(db: &mut Db, id: i64) -> StoreResult<Option<User>> {
    db.row(&format!("SELECT {} FROM users WHERE id = $1", columns("")), &[&id], from_row)
}

pub fn find_by_username(db: &mut Db, username: &str) -> StoreResult<Option<User>> {
    let sql = format!("SELECT {} FROM users WHERE {}", columns(""), equal_ignoring_case(db, "username"));
    db.row(&sql, &[&username], from_row)
}

/// Users matched by commit email (changelog authors).
pub fn find_by_email(db: &mut Db, email: &str) -> StoreResult<Option<User>> {
    let sql =
        format!("SELECT {} FROM users WHERE {} ORDER BY id LIMIT 1", columns(""), equal_ignoring_case(db, "email"));
    db.row(&sql, &[&email], from_row)
}

/// Whether another user than `except` has this email (ignoring case).
pub fn email_taken(db: &mut Db, email: &str, except: Option<i64>) -> StoreResult<bool> {
    let sql = format!("SELECT count(*) FROM users WHERE {} AND id <> $2", equal_ignoring_case(db, "email"));
    Ok(db.one(&sql, &[&email, &except.unwrap_or(0)], |r| r.i64(0))? > 0)
}

/// Whether another user than `except` has this username (ignoring case).
pub fn username_taken(db: &mut Db, username: &str, except: Option<i64>) -> StoreResult<bool> {
    let sql = format!("SELECT count(*) FROM users WHERE {} AND id <> $2", equal_ignoring_case(db, "username"));
    Ok(db.one(&sql, &[&username, &except.unwrap_or(0)], |r| r.i64(0))? > 0)
}

/// Whether a top-level group or a project outside any group has this path (ignoring case):
/// a username is a namespace path too, and namespaces are unique across users and groups.
pub fn namespace_taken(db: &mut Db, path: &str) -> StoreResult<bool> {
    let dialect = db.dialect();
    let sql = format!(
        "SELECT (SELECT count(*) FROM groups WHERE parent_id IS NULL AND {})
              + (SELECT count(*) FROM projects WHERE group_id IS NULL AND {})",
        equal_ignoring_case_at(dialect, "full_path", "$1"),
        equal_ignoring_case_at(dialect, "full_path", "$1"),
    );
    Ok(db.one(&sql, &[&path], |r| r.i64(0))? > 0)
}

/// The full paths of the groups where the user is an Owner and nobody else is (GitLab's
/// `solo_owned_groups`).
pub fn solo_owned_groups(db: &mut Db, id: i64) -> StoreResult<Vec<String>> {
    db.rows(
        "SELECT g.full_path FROM members m JOIN groups g ON g.id = m.group_id
         WHERE m.user_id = $1 AND m.access_level >= 50
           AND NOT EXISTS (SELECT 1 FROM members o
                           WHERE o.group_id = m.group_id AND o.user_id <> $1 AND o.access_level >= 50)
         ORDER BY g.full_path",
        &[&id],
        |r| r.string(0),
    )
}

/// The highest access level of the user's memberships, 0 for none (GitLab's `highest_role`).
pub fn highest_role(db: &mut Db, id: i64) -> StoreResult<i64> {
    db.one("SELECT coalesce(max(access_level), 0) FROM members WHERE user_id = $1", &[&id], |r| r.i64(0))
}

pub fn first_admin(db: &mut Db) -> StoreResult<Option<User>> {
    db.row(&format!("SELECT {} FROM users WHERE is_admin ORDER BY id LIMIT 1", columns("")), &[], from_row)
}

pub fn count(db: &mut Db) -> StoreResult<i64> {
    db.one("SELECT count(*) FROM users", &[], |r| r.i64(0))
}

/// When the user was created, in seconds since the Unix epoch.
pub fn created_at(db: &mut Db, id: i64) -> StoreResult<Option<i64>> {
    db.row("SELECT created_at FROM users WHERE id = $1", &[&id], |r| r.i64(0))
}

/// The order of a list of users.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Id,
    Name,
    Username,
    CreatedAt,
    UpdatedAt,
}

impl Order {
    fn column(self) -> &'static str {
        match self {
            Order::Id => "id",
            Order::Name => "name",
            Order::Username => "username",
            Order::CreatedAt => "created_at",
            Order::UpdatedAt => "updated_at",
        }
    }
}

/// What `GET /users` selects (GitLab's `UsersFinder`).
#[derive(Debug, Clone)]
pub struct ListQuery {
    /// Exactly this username, ignoring case.
    pub username: Option<String>,
    /// In the username or name; equal to the public email, or (`search_private_emails`) the email.
    pub search: Option<String>,
    pub search_private_emails: bool,
    pub active: bool,
    pub blocked: bool,
    pub external: bool,
    pub non_external: bool,
    pub admins: bool,
    /// Humans only: no project or group access token bots (`humans`, `without_project_bots`).
    pub humans: bool,
    /// Select no user at all (a filter no user can pass, such as an external identity).
    pub nobody: bool,
    pub order: Order,
    pub ascending: bool,
    pub limit: i64,
    pub offset: i64,
}

fn list_sql(dialect: Dialect, query: &ListQuery, select: &str) -> (String, Vec<Box<dyn Param>>) {
    let mut params: Vec<Box<dyn Param>> = Vec::new();
    let mut conditions: Vec<String> = Vec::new();
    let bind = |value: Box<dyn Param>, params: &mut Vec<Box<dyn Param>>| {
        params.push(value);
        format!("${}", params.len())
    };
    if let Some(username) = &query.username {
        let at = bind(Box::new(username.clone()), &mut params);
        conditions.push(equal_ignoring_case_at(dialect, "username", &at));
    }
    if let Some(search) = &query.search {
        let like = bind(Box::new(super::db::like_pattern(search)), &mut params);
        let exact = bind(Box::new(search.clone()), &mut params);
        let mut alternatives = vec![
            format!("lower(username) LIKE {like} ESCAPE '\\'"),
            format!("lower(name) LIKE {like} ESCAPE '\\'"),
            equal_ignoring_case_at(dialect, "public_email", &exact),
        ];
        if query.search_private_emails {
            alternatives.push(equal_ignoring_case_at(dialect, "email", &exact));
        }
        conditions.push(format!("({})", alternatives.join(" OR ")));
    }
    if query.active {
        conditions.push("state = 'active'".into());
    }
    if query.blocked {
        conditions.push("state = 'blocked'".into());
    }
    if query.external {
        conditions.push("external".into());
    }
    if query.humans {
        conditions.push("user_type = 'human'".into());
    }
    if query.non_external {
        conditions.push("NOT external".into());
    }
    if query.admins {
        conditions.push("is_admin".into());
    }
    if query.nobody {
        conditions.push("1 = 0".into());
    }
    let filter = if conditions.is_empty() { String::new() } else { format!(" WHERE {}", conditions.join(" AND ")) };
    (format!("SELECT {select} FROM users{filter}"), params)
}

/// One page of the users `query` selects, in its order (ties by id in the same direction).
pub fn list(db: &mut Db, query: &ListQuery) -> StoreResult<Vec<User>> {
    let (mut sql, mut params) = list_sql(db.dialect(), query, &columns(""));
    let direction = if query.ascending { "ASC" } else { "DESC" };
    params.push(Box::new(query.limit));
    params.push(Box::new(query.offset));
    sql.push_str(&format!(
        " ORDER BY {} {direction}, id {direction} LIMIT ${} OFFSET ${}",
        query.order.column(),
        params.len() - 1,
        params.len()
    ));
    let refs: Vec<&dyn Param> = params.iter().map(|p| p.as_ref()).collect();
    db.rows(&sql, &refs, from_row)
}

/// How many users `query` selects in all pages.
pub fn count_listed(db: &mut Db, query: &ListQuery) -> StoreResult<i64> {
    let (sql, params) = list_sql(db.dialect(), query, "count(*)");
    let refs: Vec<&dyn Param> = params.iter().map(|p| p.as_ref()).collect();
    db.one(&sql, &refs, |row| row.i64(0))
}

/// The email of `user`'s commits: theirs, else GitLab's private commit email
/// (`<id>-<username>@users.noreply.<host>`) on the host of `base_url`.
pub fn commit_email(user: &User, base_url: &str) -> String {
    let host = base_url.split("://").nth(1).unwrap_or("localhost").split(['/', ':']).next().unwrap_or("localhost");
    user.email.clone().unwrap_or_else(|| format!("{}-{}@users.noreply.{host}", user.id, user.username))
}
