//! CI/CD variables of the instance, of groups and of projects (one table, `ci_variables`): a
//! key, its value and GitLab's attributes (type, protected, masked, hidden, raw, environment
//! scope, description). Values are stored as given: this forge runs no CI jobs, so nothing
//! reads them besides the API (`api::ci_variables`). A key is unique per owner and environment
//! scope; a project's or group's variables go with it (ON DELETE CASCADE).

use super::db::{Db, Row};
use super::error::StoreResult;

/// Whose variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    Instance,
    Group(i64),
    Project(i64),
}

impl Owner {
    fn ids(self) -> (Option<i64>, Option<i64>) {
        match self {
            Owner::Instance => (None, None),
            Owner::Group(id) => (None, Some(id)),
            Owner::Project(id) => (Some(id), None),
        }
    }
}

/// One variable as stored (and as an insert or update gives it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    pub id: i64,
    pub key: String,
    pub value: String,
    /// `env_var` or `file`.
    pub variable_type: String,
    pub protected: bool,
    pub masked: bool,
    pub hidden: bool,
    pub raw: bool,
    /// `*` for every environment (and always for instance variables).
    pub environment_scope: String,
    pub description: Option<String>,
}

const COLUMNS: &str = "id, key, value, variable_type, protected, masked, hidden, raw, environment_scope, description";

/// The condition selecting `owner`'s rows, its parameters being `$1` and `$2`.
const OWNED: &str = "project_id IS NOT DISTINCT FROM $1 AND group_id IS NOT DISTINCT FROM $2";

fn from_row(row: &Row) -> StoreResult<Variable> {
    Ok(Variable {
        id: row.i64(0)?,
        key: row.string(1)?,
        value: row.string(2)?,
        variable_type: row.string(3)?,
        protected: row.bool(4)?,
        masked: row.bool(5)?,
        hidden: row.bool(6)?,
        raw: row.bool(7)?,
        environment_scope: row.string(8)?,
        description: row.opt_string(9)?,
    })
}

/// Every variable of `owner`, in the order they were made.
pub fn list(db: &mut Db, owner: Owner) -> StoreResult<Vec<Variable>> {
    let (project, group) = owner.ids();
    db.rows(&format!("SELECT {COLUMNS} FROM ci_variables WHERE {OWNED} ORDER BY id"), &[&project, &group], from_row)
}

/// The variables of `owner` named `key`, of the environment scope `scope` when given, in the
/// order they were made.
pub fn find(db: &mut Db, owner: Owner, key: &str, scope: Option<&str>) -> StoreResult<Vec<Variable>> {
    let (project, group) = owner.ids();
    match scope {
        None => db.rows(
            &format!("SELECT {COLUMNS} FROM ci_variables WHERE {OWNED} AND key = $3 ORDER BY id"),
            &[&project, &group, &key],
            from_row,
        ),
        Some(scope) => db.rows(
            &format!(
                "SELECT {COLUMNS} FROM ci_variables WHERE {OWNED} AND key = $3 AND environment_scope = $4 ORDER BY id"
            ),
            &[&project, &group, &key, &scope],
            from_row,
        ),
    }
}

/// Adds `variable` (its `id` ignored) to `owner`; the key taken in that scope is the store's
/// `Conflict`. Answers it with its id.
pub fn insert(db: &mut Db, owner: Owner, variable: &Variable) -> StoreResult<Variable> {
    let (project, group) = owner.ids();
    let id = db.one(
        "INSERT INTO ci_variables (project_id, group_id, key, value, variable_type, protected, masked, hidden, raw,
                                   environment_scope, description)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
        &[
            &project,
            &group,
            &variable.key,
            &variable.value,
            &variable.variable_type,
            &variable.protected,
            &variable.masked,
            &variable.hidden,
            &variable.raw,
            &variable.environment_scope,
            &variable.description,
        ],
        |r| r.i64(0),
    )?;
    Ok(Variable { id, ..variable.clone() })
}

/// Writes every attribute of `variable` but its key over the row of its id; an environment
/// scope whose key is taken is the store's `Conflict`.
pub fn update(db: &mut Db, variable: &Variable) -> StoreResult<()> {
    db.execute(
        "UPDATE ci_variables SET value = $2, variable_type = $3, protected = $4, masked = $5, hidden = $6, raw = $7,
                                 environment_scope = $8, description = $9
         WHERE id = $1",
        &[
            &variable.id,
            &variable.value,
            &variable.variable_type,
            &variable.protected,
            &variable.masked,
            &variable.hidden,
            &variable.raw,
            &variable.environment_scope,
            &variable.description,
        ],
    )?;
    Ok(())
}

/// Removes the variable of that id; whether there was one.
pub fn delete(db: &mut Db, id: i64) -> StoreResult<bool> {
    Ok(db.execute("DELETE FROM ci_variables WHERE id = $1", &[&id])? > 0)
}
