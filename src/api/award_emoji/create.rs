//! `POST /projects/:id/issues/:issue_iid/award_emoji` (merge requests', notes'): `name`
//! required (without colons; an emoji character is taken as its name); 201 and the award.
//! 404 `Award Emoji Not Found` for a caller who may not award; `404 Award Emoji <errors> Not
//! Found` for a name that is no emoji's, one this user awarded there already (`Name has already
//! been taken`; the unique key decides between hosts), or a system note (`Awardable cannot be
//! awarded emoji`).

use super::{awardable, entity, project, Kind};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store;

/// GitLab's name for an emoji: a known shortcode as given, an emoji character as its shortcode.
fn normalize(name: &str) -> String {
    match emojis::get(name).and_then(|e| e.shortcode()) {
        Some(code) => code.to_string(),
        None => name.to_string(),
    }
}

/// The name's validation errors (`validates :name, presence: true, 'gitlab/emoji_name': true`).
fn name_errors(name: &str) -> Vec<&'static str> {
    let mut errors = Vec::new();
    if name.trim().is_empty() {
        errors.push("Name can't be blank");
    }
    if emojis::get_by_shortcode(name).is_none() {
        errors.push("Name is not a valid emoji name");
    }
    errors
}

/// Rails' `Array#to_sentence`.
fn to_sentence(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [a, b] => format!("{a} and {b}"),
        [rest @ .., last] => format!("{}, and {last}", rest.join(", ")),
    }
}

pub fn create(
    call: &Call,
    project_id: &str,
    kind: Kind,
    iid: &str,
    note_id: Option<&str>,
    params: &Params,
) -> ApiResult<Response> {
    let project = project(call, project_id)?;
    let name = normalize(&params.required_string("name")?);
    let entity = call.ctx.store.write(|db| -> ApiResult<_> {
        let awardable = awardable(db, call, &project, kind, iid, note_id)?;
        let user = match call.caller.user() {
            Some(user) if awardable.readable && !project.archived => user.clone(),
            _ => return Err(ApiError::NotFound("Award Emoji")),
        };
        if awardable.system {
            return Err(ApiError::NotFoundNamed("Award Emoji Awardable cannot be awarded emoji".into()));
        }
        let errors = name_errors(&name);
        if !errors.is_empty() {
            return Err(ApiError::NotFoundNamed(format!("Award Emoji {}", to_sentence(&errors))));
        }
        let award = store::award_emoji::insert(db, project.id, awardable.type_name, awardable.id, user.id, &name)?
            .ok_or_else(|| ApiError::NotFoundNamed("Award Emoji Name has already been taken".into()))?;
        if awardable.type_name == "Issue" {
            store::issues::touch(db, awardable.id)?;
        }
        entity(call, db, &award)
    })?;
    Ok(Response::json(201, &entity))
}

#[cfg(test)]
mod tests {
    use super::{name_errors, normalize, to_sentence};

    #[test]
    fn names_as_gitlab_takes_them() {
        assert_eq!(normalize("👍"), "+1");
        assert_eq!(normalize("tractor"), "tractor");
        assert!(name_errors("thumbsup").is_empty());
        assert!(name_errors("tractor").is_empty());
        assert_eq!(name_errors("no_such_emoji"), ["Name is not a valid emoji name"]);
        assert_eq!(to_sentence(&name_errors("")), "Name can't be blank and Name is not a valid emoji name");
    }
}
