//! `POST /groups` (`gitlab-administration.md` §7): a top-level group for whoever may create
//! groups, a subgroup (`parent_id`) for an Owner of the parent, or a Maintainer when the
//! parent's `subgroup_creation_level` is `maintainer`. `name` and `path` are required; the
//! creator becomes the group's Owner; 201 with `GroupDetail`. Refusals as GitLab's: 401
//! anonymous, 404 a parent the caller cannot see, 403 not allowed, 400 `Failed to save group
//! {...}` for the model's errors (path format, reserved or taken path, a visibility above the
//! parent's). The administration command `group_add` creates through [`create_group`] too.

use super::{apply_settings, detail, failed_to_save, name_errors, parent_visibility_error, path_errors};
use crate::api::Call;
use crate::auth::permissions;
use crate::auth::roles::{MAINTAINER, OWNER};
use crate::auth::Caller;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::groups::{self, Detailed, Group, Settings};
use crate::store::members::{self, Source};
use crate::store::users::User;
use crate::store::{Db, StoreError, Visibility};

/// Who creates a group.
#[derive(Debug, Clone, Copy)]
pub enum Creator<'a> {
    /// A signed-in user, who becomes its Owner.
    User(&'a User),
    /// The administration commands (the CLI, an embedder): allowed everything, nobody becomes
    /// a member.
    Administration,
}

/// Whether `user` may create top-level groups: GitLab's `can_create_group` user setting
/// (true for new users, as GitLab's `default_can_create_group`), or administrators.
pub fn may_create_top_level_group(user: &User) -> bool {
    user.is_admin || user.can_create_group
}

/// Whether `user` may create a subgroup of `parent` (GitLab's `create_subgroup`).
pub(super) fn may_create_subgroup(db: &mut Db, user: &User, parent: &Group) -> ApiResult<bool> {
    if user.is_admin {
        return Ok(true);
    }
    let level = groups::level_of(db, user.id, parent.id)?;
    let settings = super::detailed(db, parent)?.settings;
    Ok(level >= OWNER || (settings.subgroup_creation_level == "maintainer" && level >= MAINTAINER))
}

pub fn create(call: &Call, params: &Params) -> ApiResult<Response> {
    let Caller::User(user) = &call.caller else { return Err(ApiError::Unauthorized) };
    let detailed = create_group(call.ctx, Creator::User(user), params)?;
    detail(call, &detailed, false, 201)
}

/// Creates the group `params` describe (`name`, `path`, `parent_id`, `visibility` and the
/// optional settings) for `creator`, with every check of `POST /groups`, in one transaction.
pub fn create_group(ctx: &Context, creator: Creator, params: &Params) -> ApiResult<Detailed> {
    let name = super::text_param(params, "name")?.ok_or(ApiError::MissingParam("name".into()))?;
    let path = super::text_param(params, "path")?.ok_or(ApiError::MissingParam("path".into()))?;
    let parent_id = params.int("parent_id")?;
    let visibility = super::visibility_param(params)?;
    let mut settings = Settings::default();
    apply_settings(params, &mut settings)?;
    ctx.store.write(|db| -> ApiResult<Detailed> {
        let parent = match parent_id {
            None => None,
            Some(id) => {
                let parent = groups::find_by_id(db, id)?.ok_or(ApiError::NotFound("Group"))?;
                if let Creator::User(user) = creator {
                    if !permissions::can_see_group(db, &Caller::User(user.clone()), &parent)? {
                        return Err(ApiError::NotFound("Group"));
                    }
                }
                // Held until the group is made, and read again under the lock: a new path
                // of the parent (or above) is then the one the new full path starts with.
                groups::lock(db, parent.id)?;
                Some(groups::find_by_id(db, id)?.ok_or(ApiError::NotFound("Group"))?)
            }
        };
        if let Creator::User(user) = creator {
            let allowed = match &parent {
                Some(parent) => may_create_subgroup(db, user, parent)?,
                None => may_create_top_level_group(user),
            };
            if !allowed {
                return Err(ApiError::Forbidden(None));
            }
        }
        // GitLab's `default_group_visibility`: private.
        let visibility = visibility.unwrap_or(Visibility::Private);
        let mut errors = name_errors(&name);
        errors.extend(path_errors(&path, parent.is_none()));
        let full_path = match &parent {
            Some(parent) => format!("{}/{path}", parent.full_path),
            None => path.clone(),
        };
        if errors.iter().all(|(key, _)| *key != "path") && crate::store::namespaces::path_taken(db, &full_path, None)? {
            errors.push(("path", "has already been taken".into()));
        }
        if let Some(parent) = &parent {
            errors.extend(parent_visibility_error(visibility, parent));
        }
        if !errors.is_empty() {
            return Err(failed_to_save(&errors));
        }
        let group = match groups::create(db, parent.as_ref(), &path, &name, visibility, &settings) {
            Err(StoreError::Conflict(_)) => return Err(failed_to_save(&[("path", "has already been taken".into())])),
            other => other?,
        };
        if let Creator::User(user) = creator {
            members::upsert(db, &Source::Group(group.id), user.id, OWNER, None)?;
        }
        super::detailed(db, &group)
    })
}
