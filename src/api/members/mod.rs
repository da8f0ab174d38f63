//! Members of groups and projects (`gitlab-administration.md` §1, decisions D9): list the
//! direct members or all of them (inherited from ancestor groups), get one, add, update,
//! remove. One file per operation; the same operation serves `groups/:id/members` and
//! `projects/:id/members` ([`Scope`]). What they share is here: the entity, who may act and
//! how far ([`Standing`]), the custom-role validations of `ee/app/models/ee/member.rb`, and
//! reading the parameters.
//!
//! The administration commands (`member add` of the CLI) call the same operations
//! ([`create::add`], [`update::change`]) with the authority of an administrator
//! ([`Actor::Administration`]): one write path.

use crate::api::ordered::{self, Obj};
use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility, ProjectAccess};
use crate::auth::roles::{ACCESS_LEVELS, MAINTAINER, OWNER};
use crate::error::{ApiError, ApiResult};
use crate::params::{parse_int, parse_int_text, Params};
use crate::store::{
    self,
    groups::Group,
    member_roles::MemberRole,
    members::{Member, Source},
    projects::Project,
    users::User,
    Db,
};
use forgecore_date::rfc3339;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{json, Value};

pub mod create;
pub mod delete;
pub mod get;
pub mod list;
pub mod update;

/// Whose members: a group's or a project's, by id or full path.
#[derive(Debug, Clone, Copy)]
pub enum Scope<'a> {
    Group(&'a str),
    Project(&'a str),
}

/// The group or project a call is about, found.
#[derive(Debug, Clone)]
pub enum Target {
    Group(Group),
    /// Boxed: a project carries many more settings than a group.
    Project(Box<Project>),
}

impl Target {
    pub fn source(&self) -> Source {
        match self {
            Target::Group(g) => Source::Group(g.id),
            Target::Project(p) => Source::Project(p.id),
        }
    }

    /// The root group of the membership's namespace (GitLab's `member_role_owner.root_ancestor`);
    /// `None` for a project in a personal namespace.
    fn root_group(&self, db: &mut Db) -> ApiResult<Option<i64>> {
        let group_id = match self {
            Target::Group(g) => Some(g.id),
            Target::Project(p) => p.group_id,
        };
        Ok(match group_id {
            Some(id) => Some(store::groups::root_id(db, id)?),
            None => None,
        })
    }
}

/// Who acts: a user through the API, or the administration commands (the CLI, an embedder),
/// which have the authority of an administrator and are nobody's `created_by`.
#[derive(Debug, Clone, Copy)]
pub enum Actor<'a> {
    Administration,
    User(&'a User),
}

impl<'a> Actor<'a> {
    /// The caller of `call` (401 for anyone but a signed-in user: `authenticate!`).
    pub fn of(call: &'a Call) -> ApiResult<Actor<'a>> {
        Ok(Actor::User(call.caller.require_user()?))
    }

    fn user_id(&self) -> Option<i64> {
        match self {
            Actor::Administration => None,
            Actor::User(user) => Some(user.id),
        }
    }
}

/// The source of `scope` for a signed-in caller who can see it (401, else 404 for a missing or
/// invisible one): what every members route needs before anything else.
pub(super) fn visible(call: &Call, scope: Scope) -> ApiResult<Target> {
    call.caller.require_user()?;
    match scope {
        Scope::Group(id) => Ok(Target::Group(call.group(id)?)),
        Scope::Project(id) => Ok(Target::Project(Box::new(call.project(id, ProjectAbility::Read)?))),
    }
}

/// What the actor stands on the source with: administrator, or their highest live level there
/// and their custom roles' flags.
pub(super) struct Standing {
    admin: bool,
    user_id: Option<i64>,
    level: i64,
    flags: Vec<String>,
    group: bool,
}

impl Standing {
    pub(super) fn of(db: &mut Db, actor: &Actor, target: &Target) -> ApiResult<Standing> {
        let user = match actor {
            Actor::Administration => None,
            Actor::User(user) => Some(*user),
        };
        let access = match (user, target) {
            (None, _) => ProjectAccess { admin: true, signed_in: true, ..Default::default() },
            (Some(user), Target::Group(g)) => permissions::group_access(db, &caller(user), g)?,
            (Some(user), Target::Project(p)) => ProjectAccess::of(db, &caller(user), p)?,
        };
        Ok(Standing {
            admin: access.admin,
            user_id: actor.user_id(),
            level: access.level,
            flags: access.flags,
            group: matches!(target, Target::Group(_)),
        })
    }

    /// GitLab's `admin_group_member` (Owner, or a custom role with the flag) on groups and
    /// `admin_project_member` (Maintainer) on projects.
    fn may_manage(&self) -> bool {
        self.admin
            || if self.group {
                self.level >= OWNER || self.flags.iter().any(|f| f == "admin_group_member")
            } else {
                self.level >= MAINTAINER
            }
    }

    /// 403 unless the actor may manage the source's members at all.
    pub(super) fn require_manage(&self) -> ApiResult<()> {
        if self.may_manage() {
            Ok(())
        } else {
            Err(ApiError::Forbidden(None))
        }
    }

    /// Whether the actor may act on an existing membership of `level` (update or remove it):
    /// never on one above their own, and on a project's Owner only as an Owner
    /// (`manage_owners`). 403 otherwise.
    pub(super) fn require_reach(&self, level: i64) -> ApiResult<()> {
        if self.admin {
            return Ok(());
        }
        if level > self.level || (!self.group && level >= OWNER && self.level < OWNER) {
            return Err(ApiError::Forbidden(None));
        }
        Ok(())
    }

    /// Assigning Owner on a project needs a project Owner (`manage_owners`): 403.
    pub(super) fn require_owner_assignment(&self, level: i64) -> ApiResult<()> {
        if !self.admin && !self.group && level >= OWNER && self.level < OWNER {
            return Err(ApiError::Forbidden(None));
        }
        Ok(())
    }

    /// EE `prevent_role_assignement?`: unless administrator, the new level may not exceed the
    /// actor's own, and a custom role given by someone below Owner must hold no flag the
    /// actor's own roles lack. `true` when the assignment is refused.
    pub(super) fn prevents(&self, level: i64, role: Option<&MemberRole>) -> bool {
        if self.admin {
            return false;
        }
        if level > self.level {
            return true;
        }
        match role {
            Some(role) if self.level < OWNER => !role.permissions.iter().all(|p| self.flags.contains(p)),
            _ => false,
        }
    }

    pub(super) fn is_self(&self, user_id: i64) -> bool {
        self.user_id == Some(user_id)
    }
}

fn caller(user: &User) -> crate::auth::Caller {
    crate::auth::Caller::User(user.clone())
}

/// A 400 on one attribute, as `render_validation_error!` words it.
pub(super) fn invalid(attribute: &str, message: &str) -> ApiError {
    ApiError::Validation(json!({ attribute: [message] }))
}

/// The custom role `role_id` for a membership of `level` in `target`, checked as
/// `MemberRoles::MemberRoleRelation` does: it exists, it is the instance's or of the
/// membership's root group, and its base level is the membership's level.
pub(super) fn checked_role(db: &mut Db, target: &Target, role_id: i64, level: i64) -> ApiResult<MemberRole> {
    let role = store::member_roles::find_by_id(db, role_id)?.ok_or_else(|| invalid("member_role", "not found"))?;
    if let Some(namespace) = role.group_id {
        if Some(namespace) != target.root_group(db)? {
            return Err(invalid("member_namespace", "must be in same hierarchy as custom role's namespace"));
        }
    }
    if role.base_access_level != level {
        return Err(invalid(
            "member_role_id",
            "the custom role's base access level does not match the current access level",
        ));
    }
    Ok(role)
}

/// `access_level`: required, one of GitLab's levels.
pub fn read_access_level(params: &Params) -> ApiResult<i64> {
    match params.raw("access_level") {
        None | Some(Value::Null) => Err(ApiError::MissingParam("access_level".into())),
        Some(value) => match parse_int(value) {
            Some(level) if ACCESS_LEVELS.contains(&level) => Ok(level),
            Some(_) => Err(ApiError::InvalidValue("access_level".into())),
            None => Err(ApiError::InvalidParam("access_level".into())),
        },
    }
}

/// `expires_at`: absent (`None`), null or empty (`Some(None)`: never), or a date
/// (`YYYY-MM-DD`, or a date-time whose date is taken), not before today
/// (`FutureDateValidator`: `cannot be a date in the past`).
pub fn read_expires_at(params: &Params) -> ApiResult<Option<Option<String>>> {
    let text = match params.raw("expires_at") {
        None => return Ok(None),
        Some(Value::Null) => return Ok(Some(None)),
        Some(Value::String(s)) if s.trim().is_empty() => return Ok(Some(None)),
        Some(Value::String(s)) => s.trim().to_string(),
        Some(_) => return Err(ApiError::InvalidParam("expires_at".into())),
    };
    let date = parse_date(&text).ok_or_else(|| ApiError::InvalidParam("expires_at".into()))?;
    if date < store::today() {
        return Err(invalid("expires_at", "cannot be a date in the past"));
    }
    Ok(Some(Some(date)))
}

/// The `YYYY-MM-DD` of a date or RFC 3339 date-time text, when it names a real day.
fn parse_date(text: &str) -> Option<String> {
    let date = text.get(..10)?;
    let rest = &text[10..];
    if !(rest.is_empty() || rest.starts_with(['T', 't', ' '])) {
        return None;
    }
    let bytes = date.as_bytes();
    if bytes[4] != b'-' || bytes[7] != b'-' {
        return None;
    }
    let (year, month, day) =
        (date[..4].parse::<i64>().ok()?, date[5..7].parse::<u32>().ok()?, date[8..].parse::<u32>().ok()?);
    if !date[..4].bytes().all(|b| b.is_ascii_digit()) || !(1..=12).contains(&month) {
        return None;
    }
    if day < 1 || day > forgecore_date::days_in_month(year, month) {
        return None;
    }
    Some(date.to_string())
}

/// `member_role_id`: absent (`None`), null (`Some(None)`: no role), or an id.
pub fn read_member_role_id(params: &Params) -> ApiResult<Option<Option<i64>>> {
    match params.raw("member_role_id") {
        None => Ok(None),
        Some(Value::Null) => Ok(Some(None)),
        Some(Value::String(s)) if s.is_empty() => Ok(Some(None)),
        Some(value) => {
            parse_int(value).map(|id| Some(Some(id))).ok_or_else(|| ApiError::InvalidParam("member_role_id".into()))
        }
    }
}

/// A `:user_id` of the path: an integer (Grape's coercion), else 400.
pub(super) fn parse_user_id(text: &str) -> ApiResult<i64> {
    parse_int_text(text).ok_or_else(|| ApiError::InvalidParam("user_id".into()))
}

/// GitLab's `find_by!` miss: `404 Not found` (ActiveRecord::RecordNotFound).
pub(super) fn member_not_found() -> ApiError {
    ApiError::RecordNotFound
}

/// UserBasic ([`ordered::user_basic`]) as the member entity merges it.
fn put_user_basic<M: SerializeMap>(map: &mut M, user: &User, base_url: &str) -> Result<(), M::Error> {
    for (key, value) in &basic(user, base_url).0 {
        map.serialize_entry(key, value)?;
    }
    Ok(())
}

fn basic(user: &User, base_url: &str) -> Obj {
    ordered::user_basic(base_url, user.id, &user.username, &user.name, user.state.as_str())
}

/// The member entity (`API::Entities::Member` with EE's `member_role`), in GitLab's key order:
/// UserBasic, `access_level`, `created_at`, `created_by` (omitted when none), `expires_at`,
/// `membership_state`, `member_role` (omitted when none).
pub struct Entity {
    member: Member,
    user: User,
    created_by: Option<User>,
    role: Option<MemberRole>,
    base_url: String,
}

impl Serialize for Entity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        put_user_basic(&mut map, &self.user, &self.base_url)?;
        map.serialize_entry("access_level", &self.member.access_level)?;
        map.serialize_entry("created_at", &rfc3339(self.member.created_at, 0))?;
        if let Some(creator) = &self.created_by {
            map.serialize_entry("created_by", &basic(creator, &self.base_url))?;
        }
        map.serialize_entry("expires_at", &self.member.expires_at)?;
        map.serialize_entry("membership_state", "active")?;
        if let Some(role) = &self.role {
            map.serialize_entry("member_role", &crate::api::member_roles::entity(role))?;
        }
        map.end()
    }
}

/// The entity of `member`, its user, creator and role read from the store.
pub(super) fn entity(db: &mut Db, base_url: &str, member: Member) -> ApiResult<Entity> {
    let user = store::users::find_by_id(db, member.user_id)?.ok_or(ApiError::NotFound("User"))?;
    let created_by = match member.created_by {
        Some(id) => store::users::find_by_id(db, id)?,
        None => None,
    };
    let role = match member.member_role_id {
        Some(id) => store::member_roles::find_by_id(db, id)?,
        None => None,
    };
    Ok(Entity { member, user, created_by, role, base_url: base_url.to_string() })
}

#[cfg(test)]
mod tests {
    use super::parse_date;

    #[test]
    fn dates_and_date_times() {
        assert_eq!(parse_date("2030-02-28").as_deref(), Some("2030-02-28"));
        assert_eq!(parse_date("2030-02-28T10:00:00Z").as_deref(), Some("2030-02-28"));
        assert_eq!(parse_date("2030-02-30"), None);
        assert_eq!(parse_date("2030-13-01"), None);
        assert_eq!(parse_date("2030-1-01"), None);
        assert_eq!(parse_date("tomorrow"), None);
        assert_eq!(parse_date("2030-01-01x"), None);
    }
}
