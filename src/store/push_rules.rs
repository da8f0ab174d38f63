//! Push rules (issue #42, decisions D12): at most one per project and one per group, with
//! GitLab's columns. What a rule means for a write is `api::push_rules`' to say; this module
//! only keeps the rows.

use super::db::{Db, Row};
use super::error::StoreResult;

/// Whose rule a row is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    Project(i64),
    Group(i64),
}

impl Owner {
    fn column(self) -> (&'static str, i64) {
        match self {
            Owner::Project(id) => ("project_id", id),
            Owner::Group(id) => ("group_id", id),
        }
    }
}

/// A rule's settings, as stored (`None` or empty patterns: no rule).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    pub commit_message_regex: Option<String>,
    pub commit_message_negative_regex: Option<String>,
    pub branch_name_regex: Option<String>,
    pub author_email_regex: Option<String>,
    pub file_name_regex: Option<String>,
    pub deny_delete_tag: bool,
    pub member_check: bool,
    pub prevent_secrets: bool,
    /// MiB; 0: no limit.
    pub max_file_size: i64,
    pub commit_committer_check: bool,
    pub commit_committer_name_check: bool,
    pub reject_unsigned_commits: bool,
    pub reject_non_dco_commits: bool,
}

/// A stored rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushRule {
    pub id: i64,
    pub project_id: Option<i64>,
    pub group_id: Option<i64>,
    /// Milliseconds since the epoch.
    pub created_at: i64,
    pub updated_at: i64,
    pub settings: Settings,
}

const COLUMNS: &str = "id, project_id, group_id, created_at, updated_at, commit_message_regex, \
     commit_message_negative_regex, branch_name_regex, author_email_regex, file_name_regex, deny_delete_tag, \
     member_check, prevent_secrets, max_file_size, commit_committer_check, commit_committer_name_check, \
     reject_unsigned_commits, reject_non_dco_commits";

fn from_row(row: &Row) -> StoreResult<PushRule> {
    Ok(PushRule {
        id: row.i64(0)?,
        project_id: row.opt_i64(1)?,
        group_id: row.opt_i64(2)?,
        created_at: row.i64(3)?,
        updated_at: row.i64(4)?,
        settings: Settings {
            commit_message_regex: row.opt_string(5)?,
            commit_message_negative_regex: row.opt_string(6)?,
            branch_name_regex: row.opt_string(7)?,
            author_email_regex: row.opt_string(8)?,
            file_name_regex: row.opt_string(9)?,
            deny_delete_tag: row.bool(10)?,
            member_check: row.bool(11)?,
            prevent_secrets: row.bool(12)?,
            max_file_size: row.i64(13)?,
            commit_committer_check: row.bool(14)?,
            commit_committer_name_check: row.bool(15)?,
            reject_unsigned_commits: row.bool(16)?,
            reject_non_dco_commits: row.bool(17)?,
        },
    })
}

/// The rule of `owner`, if it has one.
pub fn find(db: &mut Db, owner: Owner) -> StoreResult<Option<PushRule>> {
    let (column, id) = owner.column();
    db.row(&format!("SELECT {COLUMNS} FROM push_rules WHERE {column} = $1"), &[&id], from_row)
}

/// The rule a new project in group `group_id` starts with (GitLab's
/// `Group#predefined_push_rule`): the group's own, else the nearest ancestor's.
pub fn inherited(db: &mut Db, group_id: i64) -> StoreResult<Option<PushRule>> {
    let mut next = Some(group_id);
    // Bounded as the group tree is (GitLab's 20 levels); a cycle could not be stored.
    for _ in 0..64 {
        let Some(id) = next else { break };
        if let Some(rule) = find(db, Owner::Group(id))? {
            return Ok(Some(rule));
        }
        next = db.row("SELECT parent_id FROM groups WHERE id = $1", &[&id], |r| r.opt_i64(0))?.flatten();
    }
    Ok(None)
}

/// Adds the rule of `owner`; one already there is the store's `Conflict` (a racing writer).
pub fn insert(db: &mut Db, owner: Owner, settings: &Settings, now_millis: i64) -> StoreResult<PushRule> {
    let (column, owner_id) = owner.column();
    let s = settings;
    let id = db.one(
        &format!(
            "INSERT INTO push_rules ({column}, created_at, updated_at, commit_message_regex, \
             commit_message_negative_regex, branch_name_regex, author_email_regex, file_name_regex, \
             deny_delete_tag, member_check, prevent_secrets, max_file_size, commit_committer_check, \
             commit_committer_name_check, reject_unsigned_commits, reject_non_dco_commits)
             VALUES ($1, $2, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id"
        ),
        &[
            &owner_id,
            &now_millis,
            &s.commit_message_regex,
            &s.commit_message_negative_regex,
            &s.branch_name_regex,
            &s.author_email_regex,
            &s.file_name_regex,
            &s.deny_delete_tag,
            &s.member_check,
            &s.prevent_secrets,
            &s.max_file_size,
            &s.commit_committer_check,
            &s.commit_committer_name_check,
            &s.reject_unsigned_commits,
            &s.reject_non_dco_commits,
        ],
        |r| r.i64(0),
    )?;
    let (project_id, group_id) = match owner {
        Owner::Project(p) => (Some(p), None),
        Owner::Group(g) => (None, Some(g)),
    };
    Ok(PushRule { id, project_id, group_id, created_at: now_millis, updated_at: now_millis, settings: s.clone() })
}

/// Replaces the settings of rule `id`.
pub fn update(db: &mut Db, id: i64, settings: &Settings, now_millis: i64) -> StoreResult<()> {
    let s = settings;
    db.execute(
        "UPDATE push_rules SET updated_at = $2, commit_message_regex = $3, commit_message_negative_regex = $4, \
         branch_name_regex = $5, author_email_regex = $6, file_name_regex = $7, deny_delete_tag = $8, \
         member_check = $9, prevent_secrets = $10, max_file_size = $11, commit_committer_check = $12, \
         commit_committer_name_check = $13, reject_unsigned_commits = $14, reject_non_dco_commits = $15 \
         WHERE id = $1",
        &[
            &id,
            &now_millis,
            &s.commit_message_regex,
            &s.commit_message_negative_regex,
            &s.branch_name_regex,
            &s.author_email_regex,
            &s.file_name_regex,
            &s.deny_delete_tag,
            &s.member_check,
            &s.prevent_secrets,
            &s.max_file_size,
            &s.commit_committer_check,
            &s.commit_committer_name_check,
            &s.reject_unsigned_commits,
            &s.reject_non_dco_commits,
        ],
    )?;
    Ok(())
}

/// Removes the rule of `owner`; whether there was one.
pub fn delete(db: &mut Db, owner: Owner) -> StoreResult<bool> {
    let (column, id) = owner.column();
    Ok(db.execute(&format!("DELETE FROM push_rules WHERE {column} = $1"), &[&id])? > 0)
}

/// Gives the new project `project_id` in group `group_id` a copy of the rule the group passes
/// on ([`inherited`]), as GitLab's `Projects::CreateService#create_predefined_push_rule` does;
/// whether there was one.
pub fn copy_to_new_project(db: &mut Db, group_id: i64, project_id: i64, now_millis: i64) -> StoreResult<bool> {
    let Some(rule) = inherited(db, group_id)? else { return Ok(false) };
    insert(db, Owner::Project(project_id), &rule.settings, now_millis)?;
    Ok(true)
}
