//! Labels of projects and groups (issue #40; group labels, subscriptions and promotion:
//! issue-extras), as GitLab's `lib/api/labels.rb`, `group_labels.rb`, `subscriptions.rb` and
//! `lib/api/helpers/label_helpers.rb` have them: list, get, create, update, delete,
//! subscribe, unsubscribe, and promote (a project's label to its group's); one file per
//! operation, each serving both parents ([`Scope`]). Every route needs a signed-in caller
//! (`before { authenticate! }`: 401 anonymously); anyone who sees the project or group reads
//! its labels, Planners, Reporters and above change them (`admin_label`). A project sees its
//! own labels and those of its group and the group's ancestors (`include_ancestor_groups`,
//! true by default); a group its own and its ancestors'. A label is named in the path by its
//! id or its title (`find_by_id(id_or_title) || find_by_title(id_or_title)`) among those, 404
//! `Label Not Found` otherwise; only the parent's own labels are changed or deleted through it.
//! The entities are `ProjectLabel` for a project's list (`lib/api/entities/label_basic.rb`,
//! `label.rb`, `project_label.rb`) and `GroupLabel` (= `Label`) for a group's, keys in
//! GitLab's order.

pub mod create;
pub mod delete;
pub mod get;
pub mod list;
pub mod promote;
pub mod subscription;
pub mod update;

use super::ordered::Obj;
use super::Call;
use crate::auth::permissions::{self, GroupAbility, ProjectAbility};
use crate::error::{ApiError, ApiResult};
use crate::params::parse_int_text;
use crate::store::groups::Group;
use crate::store::labels::{self, Available, Label, Owner, TargetType};
use crate::store::projects::Project;
use crate::store::Db;
use serde_json::{json, Value};

/// Which parent a labels route names.
#[derive(Debug, Clone, Copy)]
pub enum Scope<'a> {
    Project(&'a str),
    Group(&'a str),
}

/// The project or group of a labels route, found and checked.
#[derive(Debug, Clone)]
pub enum Parent {
    Project(Box<Project>),
    Group(Group),
}

/// Whether the route changes labels (`admin_label`) or only reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    Read,
    Admin,
}

impl Parent {
    /// The parent `scope` names, seen by the caller (who must be signed in) and allowed `need`.
    fn of(call: &Call, scope: Scope, need: Need) -> ApiResult<Parent> {
        call.caller.require_user()?;
        match scope {
            Scope::Project(id) => {
                let ability = if need == Need::Admin { ProjectAbility::AdminLabel } else { ProjectAbility::Read };
                Ok(Parent::Project(Box::new(call.project(id, ability)?)))
            }
            Scope::Group(id) => {
                let group = call.group(id)?;
                if need == Need::Admin
                    && !call
                        .ctx
                        .store
                        .read(|db| permissions::group_may(db, &call.caller, &group, GroupAbility::AdminLabel))?
                {
                    return Err(ApiError::Forbidden(None));
                }
                Ok(Parent::Group(group))
            }
        }
    }

    /// Whose labels this parent makes.
    fn owner(&self) -> Owner {
        match self {
            Parent::Project(p) => Owner::Project(p.id),
            Parent::Group(g) => Owner::Group(g.id),
        }
    }

    /// The labels the parent sees: its own and its ancestor groups'.
    fn available(&self, db: &mut Db) -> ApiResult<Available> {
        Ok(match self {
            Parent::Project(p) => Available::for_project(db, p.id, p.group_id)?,
            Parent::Group(g) => Available::for_group(db, g.id)?,
        })
    }

    /// The project subscriptions are scoped to (GitLab's `parent` of `subscribed?`).
    fn project_id(&self) -> Option<i64> {
        match self {
            Parent::Project(p) => Some(p.id),
            Parent::Group(_) => None,
        }
    }
}

/// The label `id_or_title` names among `available`, or 404 `Label Not Found`.
fn find_in(db: &mut Db, available: &Available, id_or_title: &str) -> ApiResult<Label> {
    if let Some(id) = parse_int_text(id_or_title) {
        if let Some(label) = labels::find_by_id(db, available, id)? {
            return Ok(label);
        }
    }
    labels::find_by_title(db, available, id_or_title)?.ok_or(ApiError::NotFound("Label"))
}

/// The label `id_or_title` names among those `parent` sees.
fn find(db: &mut Db, parent: &Parent, id_or_title: &str) -> ApiResult<Label> {
    let available = parent.available(db)?;
    find_in(db, &available, id_or_title)
}

/// The label `id_or_title` names among `parent`'s own (what it may change or delete).
fn find_own(db: &mut Db, parent: &Parent, id_or_title: &str) -> ApiResult<Label> {
    find_in(db, &Available::only(parent.owner()), id_or_title)
}

/// The label the deprecated `PUT`/`DELETE /projects/:id/labels` name in their parameters
/// (`exactly_one_of :label_id, :name`; python-gitlab's `label.save()` sends `name`).
fn named_in(params: &crate::params::Params) -> ApiResult<String> {
    match (params.string("label_id")?, params.string("name")?) {
        (Some(id), None) => Ok(id),
        (None, Some(name)) => Ok(name),
        (Some(_), Some(_)) => Err(ApiError::ParamError("label_id, name are mutually exclusive".into())),
        (None, None) => {
            Err(ApiError::ParamError("label_id, name are missing, exactly one parameter must be provided".into()))
        }
    }
}

/// A few of the CSS color names GitLab accepts (`Gitlab::Color::Constants::COLOR_NAME_TO_HEX`),
/// stored as their hex value.
const COLOR_NAMES: [(&str, &str); 17] = [
    ("black", "#000000"),
    ("silver", "#C0C0C0"),
    ("gray", "#808080"),
    ("white", "#FFFFFF"),
    ("maroon", "#800000"),
    ("red", "#FF0000"),
    ("purple", "#800080"),
    ("fuchsia", "#FF00FF"),
    ("green", "#008000"),
    ("lime", "#00FF00"),
    ("olive", "#808000"),
    ("yellow", "#FFFF00"),
    ("navy", "#000080"),
    ("blue", "#0000FF"),
    ("teal", "#008080"),
    ("aqua", "#00FFFF"),
    ("orange", "#FFA500"),
];

fn is_hex_color(text: &str) -> bool {
    text.strip_prefix('#')
        .is_some_and(|hex| (hex.len() == 3 || hex.len() == 6) && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// A color as GitLab's `Gitlab::Color.of` reads it: `#RGB` or `#RRGGBB`, or a color name;
/// anything else is the model's 400 `{"color":["must be a valid color code"]}`.
fn color(text: &str) -> ApiResult<String> {
    let text = text.trim();
    if is_hex_color(text) {
        return Ok(text.to_string());
    }
    match COLOR_NAMES.iter().find(|(name, _)| name.eq_ignore_ascii_case(text)) {
        Some((_, hex)) => Ok(hex.to_string()),
        None => Err(ApiError::Validation(json!({"color": ["must be a valid color code"]}))),
    }
}

/// The model's title rule (`Label`: present, no commas); GitLab's validation messages.
fn check_title(title: &str) -> ApiResult<()> {
    if title.trim().is_empty() {
        return Err(ApiError::Validation(json!({"title": ["can't be blank"]})));
    }
    if title.contains(',') {
        return Err(ApiError::Validation(json!({"title": ["is invalid"]})));
    }
    Ok(())
}

/// The text color GitLab shows on a label (`Gitlab::Color#contrast`): `#333333` on a light
/// color (its red, green and blue add up to more than 500), `#FFFFFF` otherwise.
pub fn text_color(color: &str) -> &'static str {
    let Some(hex) = color.strip_prefix('#').filter(|_| is_hex_color(color)) else { return "#FFFFFF" };
    let channel = |i: usize| -> u32 {
        if hex.len() == 3 {
            u32::from_str_radix(&hex[i..i + 1].repeat(2), 16).unwrap_or(0)
        } else {
            u32::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or(0)
        }
    };
    if channel(0) + channel(1) + channel(2) > 500 {
        "#333333"
    } else {
        "#FFFFFF"
    }
}

/// The description as HTML: the text escaped in one paragraph (empty for none).
pub fn html(text: Option<&str>) -> String {
    match text.filter(|t| !t.is_empty()) {
        None => String::new(),
        Some(text) => {
            let escaped = text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
            format!("<p data-sourcepos=\"1:1-1:{}\" dir=\"auto\">{escaped}</p>", text.len())
        }
    }
}

/// `LabelBasic`: `id`, `name`, `color`, `description`, `description_html`, `text_color`,
/// `remove_on_close` (what issues and merge requests show `with_labels_details`).
pub fn basic(label: &Label) -> Obj {
    let mut o = Obj::new();
    o.put("id", label.id)
        .put("name", label.title.as_str())
        .put("color", label.color.as_str())
        .put("description", label.description.clone())
        .put("description_html", html(label.description.as_deref()))
        .put("text_color", text_color(&label.color))
        .put("remove_on_close", false);
    o
}

/// The counts of `with_counts`: open and closed issues, open merge requests, carrying it.
pub struct Counts {
    pub open_issues: i64,
    pub closed_issues: i64,
    pub open_merge_requests: i64,
}

pub fn counts(db: &mut Db, label: &Label) -> ApiResult<Counts> {
    let issues = labels::count_by_state(db, label.id, TargetType::Issue, "issues")?;
    let merge_requests = labels::count_by_state(db, label.id, TargetType::MergeRequest, "merge_requests")?;
    Ok(Counts {
        open_issues: issues.get("opened").copied().unwrap_or(0),
        closed_issues: issues.get("closed").copied().unwrap_or(0),
        open_merge_requests: merge_requests.get("opened").copied().unwrap_or(0),
    })
}

/// The label's entity as `parent` shows it: `ProjectLabel` for a project ([`basic`], the
/// counts when asked, `subscribed`, `priority`, `is_project_label`), `GroupLabel` for a group
/// (the same without the last two). `subscribed` is the caller's subscription everywhere or,
/// seen from a project, in that project.
pub fn entity(call: &Call, db: &mut Db, parent: &Parent, label: &Label, counts: Option<Counts>) -> ApiResult<Obj> {
    let mut o = basic(label);
    if let Some(c) = counts {
        o.put("open_issues_count", c.open_issues)
            .put("closed_issues_count", c.closed_issues)
            .put("open_merge_requests_count", c.open_merge_requests);
    }
    let subscribed = match call.caller.user() {
        Some(user) => labels::subscribed(db, label.id, user.id, parent.project_id())?,
        None => false,
    };
    o.put("subscribed", subscribed);
    if let Parent::Project(_) = parent {
        o.put("priority", label.priority.filter(|_| label.project_id.is_some()).map_or(Value::Null, Value::from))
            .put("is_project_label", label.project_id.is_some());
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colors_as_gitlab_reads_them() {
        assert_eq!(color("#FFAABB").unwrap(), "#FFAABB");
        assert_eq!(color("#fab").unwrap(), "#fab");
        assert_eq!(color("Red").unwrap(), "#FF0000");
        assert!(color("#GGGGGG").is_err() && color("FFAABB").is_err() && color("#FFAA").is_err());
        assert_eq!(text_color("#6699cc"), "#FFFFFF");
        assert_eq!(text_color("#FFFFFF"), "#333333");
        assert_eq!(text_color("#eee"), "#333333");
    }
}
