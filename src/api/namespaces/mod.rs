//! Namespaces (issue #38, `gitlab-administration.md` §7 and §10): where projects live, a
//! group or a user's own namespace, as `lib/api/namespaces.rb` answers them. [`list`]: the
//! caller's own namespace and the groups they may create projects in (administrators: all);
//! [`get`]: one by id or full path (Backstage reads `id` and `kind` before `POST /projects`
//! with `namespace_id`); [`exists`]: whether a path is taken. Only for signed-in callers.
//!
//! Ids: a group's namespace id is its group id, a user's is
//! `store::namespaces::USER_NAMESPACE_BASE` plus the user id (see `store::namespaces`, which
//! also maps an id back: `find_by_id`).

pub mod exists;
pub mod get;
pub mod list;

use crate::api::ordered::Obj;
use crate::api::Call;
use crate::auth::roles::OWNER;
use crate::error::{ApiError, ApiResult};
use crate::store::namespaces::{self, Listed, Namespace};
use crate::store::users::User;
use crate::store::Db;
use serde_json::{json, Value};

/// The signed-in user of a call; anyone else is 401 (`authenticate!`).
fn signed_in<'c>(call: &'c Call) -> ApiResult<&'c User> {
    call.caller.user().ok_or(ApiError::Unauthorized)
}

/// Whether `user` may create projects in `namespace` (GitLab's `create_projects`), the rule
/// `GET /namespaces` lists by: their own namespace; a group where their level (on it or an
/// ancestor) reaches its `project_creation_level` (`developer`, `maintainer`, `owner`;
/// `noone` and `administrator`: nobody); administrators anywhere. For `POST /projects` with a
/// `namespace_id` (found with `store::namespaces::find_by_id`).
pub fn can_create_projects(db: &mut Db, user: &User, namespace: &Namespace) -> ApiResult<bool> {
    if user.is_admin {
        return Ok(true);
    }
    Ok(match namespace {
        Namespace::User(owner) => owner.id == user.id,
        Namespace::Group(group) => {
            let settings = crate::api::groups::detailed(db, group)?.settings;
            match namespaces::project_creation_min_level(&settings.project_creation_level) {
                Some(needed) => crate::store::groups::level_of(db, user.id, group.id)? >= needed,
                None => false,
            }
        }
    })
}

/// A listed namespace as one of a list's rows.
pub fn listed_of(db: &mut Db, viewer: &User, namespace: &Namespace) -> ApiResult<Listed> {
    Ok(match namespace {
        Namespace::Group(group) => Listed {
            id: group.id,
            kind: "group".into(),
            name: group.name.clone(),
            path: group.path.clone(),
            full_path: group.full_path.clone(),
            parent_id: group.parent_id,
            level: Some(crate::store::groups::level_of(db, viewer.id, group.id)?),
        },
        Namespace::User(user) => Listed {
            id: namespaces::user_namespace_id(user.id),
            kind: "user".into(),
            name: user.name.clone(),
            path: user.username.clone(),
            full_path: user.username.clone(),
            parent_id: None,
            level: None,
        },
    })
}

/// GitLab's `Namespace` entity (`NamespaceBasic` and, for a group the viewer administers,
/// `members_count_with_descendants`), in its order.
pub fn entity(call: &Call, db: &mut Db, viewer: &User, n: &Listed) -> ApiResult<Obj> {
    let web_url = match n.kind.as_str() {
        "group" => format!("{}/groups/{}", call.base_url, n.full_path),
        _ => format!("{}/{}", call.base_url, n.full_path),
    };
    let mut fields = vec![
        ("id", json!(n.id)),
        ("name", json!(n.name)),
        ("path", json!(n.path)),
        ("kind", json!(n.kind)),
        ("full_path", json!(n.full_path)),
        ("parent_id", json!(n.parent_id)),
        ("avatar_url", Value::Null),
        ("web_url", json!(web_url)),
    ];
    let admin_group = n.kind == "group" && (viewer.is_admin || n.level.is_some_and(|level| level >= OWNER));
    if admin_group {
        fields.push(("members_count_with_descendants", json!(namespaces::members_count_with_descendants(db, n.id)?)));
    }
    Ok(Obj::from(fields))
}
