//! `POST /projects/:id/releases` (`tag_name` required, `tag_message`, `name` (default the tag
//! name), `description`, `ref`, `assets.links[]` `{name, url, direct_asset_path | filepath,
//! link_type}`, `milestones` | `milestone_ids`, `released_at`): 201 and the Release entity.
//! `Releases::CreateService`'s order of checks (V): `create_release` (Developer; 403), the
//! release exists (409 `Release already exists`), unknown milestones (400 `Milestone(s) not
//! found: a, b`: no milestones are kept, so any named is unknown), a missing tag without `ref`
//! (422 `Ref is not specified`) or with one, the tag made by the tags family's writer (its
//! 400s: `Tag name invalid`, `Target <ref> is invalid`), invalid links (400 `Validation
//! failed: ...`). Protected tags are not kept by this forge, so every Developer may create a
//! release's tag, as the tag route lets them. Announced as `Event::Release` (`Created`).

use super::links::{invalid, problems, LinkInput};
use super::{entity, event, released_at, repository, Rights};
use crate::api::repository::tags;
use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::{ApiError, ApiResult};
use crate::events::ReleaseAction;
use crate::git;
use crate::params::Params;
use crate::response::Response;
use crate::store::releases::{self, Link, NewRelease};
use crate::store::{self, StoreError};
use serde_json::Value;

/// The links of `assets.links` (a JSON body's nested object, or form fields
/// `assets[links][][name]` collected by name).
pub fn asset_links(params: &Params) -> ApiResult<Vec<LinkInput>> {
    let nested = match params.raw("assets") {
        None | Some(Value::Null) => None,
        Some(Value::Object(assets)) => match assets.get("links") {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) => Some(items.clone()),
            Some(_) => return Err(ApiError::InvalidParam("assets[links]".into())),
        },
        Some(_) => return Err(ApiError::InvalidParam("assets".into())),
    };
    let items = nested.unwrap_or_default();
    items
        .iter()
        .map(|item| match item {
            Value::Object(map) => Ok(LinkInput::from_object(|key| map.get(key).cloned())),
            _ => Err(ApiError::InvalidParam("assets[links]".into())),
        })
        .collect()
}

pub fn create(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(id, ProjectAbility::ReadRelease)?;
    let user = call.caller.require_user()?.clone();
    call.ctx
        .store
        .read(|db| permissions::authorize_project(db, &call.caller, &project, ProjectAbility::ManageRelease))?;
    let tag_name = params.required_text("tag_name")?;
    let name = params.string("name")?.filter(|n| !n.is_empty()).unwrap_or_else(|| tag_name.clone());
    let description = params.string("description")?.unwrap_or_default();
    let revision = params.revision("ref")?.filter(|r| !r.is_empty());
    let tag_message = params.string("tag_message")?.filter(|m| !m.trim().is_empty());
    let released = released_at(params)?;
    let links = asset_links(params)?;
    let milestones = params.string_list("milestones")?.unwrap_or_default();
    let milestone_ids = params.string_list("milestone_ids")?.unwrap_or_default();
    if !milestones.is_empty() && !milestone_ids.is_empty() {
        return Err(ApiError::ParamError("milestones, milestone_ids are mutually exclusive".into()));
    }
    if call.ctx.store.read(|db| releases::find(db, project.id, &tag_name))?.is_some() {
        return Err(ApiError::Conflict("Release already exists".into()));
    }
    if !milestones.is_empty() {
        return Err(ApiError::validation(format!("Milestone(s) not found: {}", milestones.join(", "))));
    }
    if !milestone_ids.is_empty() {
        return Err(ApiError::validation(format!("Milestone id(s) not found: {}", milestone_ids.join(", "))));
    }
    let now = store::now_seconds();
    let candidates: Vec<Link> = links
        .iter()
        .map(|l| Link {
            id: 0,
            release_id: 0,
            name: l.name.clone().unwrap_or_default(),
            url: l.url.clone().unwrap_or_default(),
            filepath: l.filepath.clone(),
            link_type: l.link_type.clone().unwrap_or_else(|| "other".into()),
            created_at: now,
        })
        .collect();
    let found = problems(&candidates);
    if !found.is_empty() {
        return Err(invalid(&found));
    }
    let repo = call.repository(&project, "Release")?;
    let tag = match git::refs::tag(&repo, &tag_name).map_err(ApiError::internal)? {
        Some(tag) => tag,
        None => {
            let Some(revision) = revision else {
                return Err(ApiError::Unprocessable("Ref is not specified".into()));
            };
            tags::create::make(call, &project, &user, &repo, &tag_name, &revision, tag_message.as_deref())?
        }
    };
    let sha = tag.commit.map(|id| id.to_string());
    let new = NewRelease {
        project_id: project.id,
        tag_name: &tag_name,
        name: &name,
        description: &description,
        author_id: Some(user.id),
        sha: sha.as_deref(),
        released_at: released.unwrap_or(now),
        now,
    };
    let made = call.ctx.store.write(|db| -> ApiResult<_> {
        let release = match releases::insert(db, &new) {
            Ok(release) => release,
            Err(StoreError::Conflict(_)) => return Err(ApiError::Conflict("Release already exists".into())),
            Err(e) => return Err(e.into()),
        };
        // GitLab keeps the links in the order given; they list newest first, ids breaking ties.
        for link in &candidates {
            releases::insert_link(
                db,
                release.id,
                &link.name,
                &link.url,
                link.filepath.as_deref(),
                &link.link_type,
                now,
            )?;
        }
        let event = event(call, &release, ReleaseAction::Created);
        call.ctx.events.record(db, &event)?;
        Ok((release, event))
    })?;
    let (release, event) = made;
    call.ctx.events.heard(&event);
    let rights = Rights::of(call, &project)?;
    let repo = repository(call, &project);
    Ok(Response::json(201, &entity(call, &project, repo.as_ref(), &release, rights, false)?))
}
