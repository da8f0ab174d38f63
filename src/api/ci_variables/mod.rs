//! CI/CD variables of the instance (`/admin/ci/variables`, administrators), of a group
//! (`/groups/:id/variables`) and of a project (`/projects/:id/variables`): list, get, create,
//! update, delete; one file per operation, what they share here.
//!
//! As GitLab's `lib/api/ci/variables.rb`, `lib/api/group_variables.rb` and
//! `lib/api/admin/ci/variables.rb`: project variables need `admin_cicd_variables` (Maintainer,
//! or a custom role's flag), group variables the group's `admin_cicd_variables` (Owner, or the
//! flag), instance variables an administrator; the rules of the models
//! (`app/models/concerns/ci/has_variable.rb`, `maskable.rb`, `hidable_variable.rb`,
//! `app/models/ci/instance_variable.rb`) give the 400s. Values are stored as given: this forge
//! runs no CI jobs, so nothing reads a variable besides this API (the store's module says so
//! too). A hidden variable (`masked_and_hidden` on create) answers `"value": null` from then on,
//! its create answer included (`Ci::VariableValue#evaluate`); instance variables have no hidden,
//! and no environment scope.

pub mod create;
pub mod delete;
pub mod get;
pub mod list;
pub mod update;

use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::store::ci_variables::{self, Owner, Variable};
use crate::store::Db;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

/// Whose variables a route names: the instance's, or a group's or project's (id or full path).
#[derive(Debug, Clone, Copy)]
pub enum Scope<'a> {
    Instance,
    Group(&'a str),
    Project(&'a str),
}

/// GitLab's limits: a key of at most 255 characters, a description of at most 255, an
/// instance variable's value of at most 10,000 (`Ci::InstanceVariable`).
const MAX_KEY_CHARS: usize = 255;
const MAX_DESCRIPTION_CHARS: usize = 255;
const MAX_SCOPE_CHARS: usize = 255;
const MAX_INSTANCE_VALUE_CHARS: usize = 10_000;

/// The owner `scope` names, for a caller who may manage its variables: 401 for anyone not
/// signed in (GitLab's `authenticate!` comes first), 404 for a group or project they may not
/// see, 403 without `admin_cicd_variables` (or, for the instance, without being an
/// administrator).
pub(super) fn authorize(call: &Call, scope: Scope) -> ApiResult<Owner> {
    call.caller.require_user()?;
    match scope {
        Scope::Instance if call.caller.is_admin() => Ok(Owner::Instance),
        Scope::Instance => Err(ApiError::Forbidden(None)),
        Scope::Group(id) => {
            let group = call.group(id)?;
            if call.ctx.store.read(|db| permissions::can_admin_group_cicd_variables(db, &call.caller, &group))? {
                Ok(Owner::Group(group.id))
            } else {
                Err(ApiError::Forbidden(None))
            }
        }
        Scope::Project(id) => Ok(Owner::Project(call.project(id, ProjectAbility::AdminCicdVariables)?.id)),
    }
}

/// The 404 of a missing variable, named as each API names it.
pub(super) fn not_found(owner: Owner) -> ApiError {
    ApiError::NotFound(match owner {
        Owner::Instance => "InstanceVariable",
        Owner::Group(_) => "GroupVariable",
        Owner::Project(_) => "Variable",
    })
}

/// `filter[environment_scope]` (a query or form pair) or `{"filter": {"environment_scope": ...}}`
/// (a JSON body); instance variables have no scope to filter by.
pub(super) fn filter_scope(owner: Owner, params: &Params) -> ApiResult<Option<String>> {
    if owner == Owner::Instance {
        return Ok(None);
    }
    if let Some(scope) = params.string("filter[environment_scope]")? {
        return Ok(Some(scope));
    }
    match params.raw("filter") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(filter)) => match filter.get("environment_scope") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(scope)) => Ok(Some(scope.clone())),
            Some(_) => Err(ApiError::InvalidParam("filter[environment_scope]".into())),
        },
        Some(_) => Err(ApiError::InvalidParam("filter".into())),
    }
}

/// Whether the request filters by environment scope at all.
pub(super) fn has_filter(params: &Params) -> bool {
    params.contains("filter") || params.contains("filter[environment_scope]")
}

/// GitLab's `find_variable`: the one variable of `owner` named `key` (of the filter's scope
/// when given); several are a 409 asking for the filter, none is `None`.
pub(super) fn find_one(db: &mut Db, owner: Owner, key: &str, scope: Option<&str>) -> ApiResult<Option<Variable>> {
    let mut found = ci_variables::find(db, owner, key, scope)?;
    if found.len() > 1 {
        return Err(ApiError::Conflict(
            "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'".into(),
        ));
    }
    Ok(found.pop())
}

/// The REST entity (`API::Entities::Ci::Variable`), in its key order: `variable_type`, `key`,
/// `value`, `hidden`, `protected`, `masked`, `raw`, `environment_scope`, `description`, with
/// only the keys the kind has (an instance variable has no `hidden` nor `environment_scope`).
pub struct Entity<'a> {
    variable: &'a Variable,
    owner: Owner,
}

pub fn entity(variable: &Variable, owner: Owner) -> Entity<'_> {
    Entity { variable, owner }
}

impl Serialize for Entity<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let v = self.variable;
        let scoped = self.owner != Owner::Instance;
        let mut map = serializer.serialize_map(Some(if scoped { 9 } else { 7 }))?;
        map.serialize_entry("variable_type", &v.variable_type)?;
        map.serialize_entry("key", &v.key)?;
        map.serialize_entry("value", &if scoped && v.hidden { None } else { Some(&v.value) })?;
        if scoped {
            map.serialize_entry("hidden", &v.hidden)?;
        }
        map.serialize_entry("protected", &v.protected)?;
        map.serialize_entry("masked", &v.masked)?;
        map.serialize_entry("raw", &v.raw)?;
        if scoped {
            map.serialize_entry("environment_scope", &v.environment_scope)?;
        }
        map.serialize_entry("description", &v.description)?;
        map.end()
    }
}

/// A text parameter refused when it holds a NUL (GitLab refuses any parameter holding a null
/// byte with 400, and PostgreSQL's text cannot hold one).
pub(super) fn text(params: &Params, name: &str) -> ApiResult<Option<String>> {
    let value = params.string(name)?;
    if value.as_deref().is_some_and(|v| v.contains('\0')) {
        return Err(ApiError::BadRequest(format!("{name} contains a null byte")));
    }
    Ok(value)
}

/// `variable_type`: `env_var` or `file` (Grape's `values:`).
pub(super) fn variable_type(params: &Params) -> ApiResult<Option<String>> {
    match params.string("variable_type")? {
        Some(t) if t == "env_var" || t == "file" => Ok(Some(t)),
        Some(_) => Err(ApiError::InvalidValue("variable_type".into())),
        None => Ok(None),
    }
}

/// Model validation errors as GitLab renders them (`render_validation_error!`):
/// `{"message": {"attribute": ["text", ...]}}`.
#[derive(Default)]
pub(super) struct Errors(Map<String, Value>);

impl Errors {
    pub(super) fn add(&mut self, attribute: &str, text: impl Into<String>) {
        let entry = self.0.entry(attribute.to_string()).or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = entry {
            list.push(Value::String(text.into()));
        }
    }

    pub(super) fn check(self) -> ApiResult<()> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(ApiError::Validation(Value::Object(self.0)))
        }
    }
}

/// Ruby's `\S`: not a space, tab, line feed, vertical tab, form feed or carriage return.
fn whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r')
}

/// The attribute rules every kind shares, in the models' order: the key (`HasVariable`), a
/// masked value (`Maskable`: at least 8 characters of the Base64 alphabet and `@:.~`, or for a
/// raw variable any 8 non-space characters), the environment scope (`HasEnvironmentScope`),
/// the description, an instance variable's value length.
pub(super) fn validate(owner: Owner, v: &Variable, errors: &mut Errors) {
    if v.key.is_empty() {
        errors.add("key", "can't be blank");
    }
    if v.key.chars().count() > MAX_KEY_CHARS {
        errors.add("key", format!("is too long (maximum is {MAX_KEY_CHARS} characters)"));
    }
    if v.key.is_empty() || !v.key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        errors.add("key", "can contain only letters, digits and '_'.");
    }
    if v.masked {
        let long_enough = v.value.chars().count() >= 8;
        let allowed = if v.raw {
            v.value.chars().all(|c| !whitespace(c))
        } else {
            v.value.chars().all(|c| c.is_ascii_alphanumeric() || "_+=/@:.~-".contains(c))
        };
        if !(long_enough && allowed) {
            errors.add("value", "is invalid");
        }
    }
    if owner != Owner::Instance {
        let scope = &v.environment_scope;
        if scope.is_empty() {
            errors.add("environment_scope", "can't be blank");
        }
        if scope.chars().count() > MAX_SCOPE_CHARS {
            errors.add("environment_scope", format!("is too long (maximum is {MAX_SCOPE_CHARS} characters)"));
        }
        if scope.is_empty() || !scope.chars().all(|c| c.is_ascii_alphanumeric() || "_/${}. -*".contains(c)) {
            errors.add(
                "environment_scope",
                "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces",
            );
        }
    }
    if v.description.as_ref().is_some_and(|d| d.chars().count() > MAX_DESCRIPTION_CHARS) {
        errors.add("description", format!("is too long (maximum is {MAX_DESCRIPTION_CHARS} characters)"));
    }
    if owner == Owner::Instance && v.value.chars().count() > MAX_INSTANCE_VALUE_CHARS {
        errors.add(
            "value",
            format!("The value of the provided variable exceeds the {MAX_INSTANCE_VALUE_CHARS} character limit"),
        );
    }
}

/// The uniqueness rule (`validates :key, uniqueness: { scope: [owner, :environment_scope] }`):
/// another variable of `owner` with the key in the same scope.
pub(super) fn check_unique(db: &mut Db, owner: Owner, v: &Variable, errors: &mut Errors) -> ApiResult<()> {
    let scope = (owner != Owner::Instance).then_some(v.environment_scope.as_str());
    if ci_variables::find(db, owner, &v.key, scope)?.iter().any(|other| other.id != v.id) {
        errors.add("key", taken(&v.key));
    }
    Ok(())
}

/// GitLab's uniqueness message.
pub(super) fn taken(key: &str) -> String {
    format!("({key}) has already been taken")
}

/// 400 `{"message": {"key": ["(KEY) has already been taken"]}}`, for a row the store refused
/// as a duplicate between the check and the write.
pub(super) fn taken_error(key: &str) -> ApiError {
    let mut errors = Errors::default();
    errors.add("key", taken(key));
    errors.check().err().unwrap_or_else(|| ApiError::validation(taken(key)))
}
