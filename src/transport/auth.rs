//! Who is fetching or pushing, and whether they may: one function, [`authorize`], for every
//! credential form git clients send (a Gitea CVE came from two paths disagreeing).
//!
//! Credentials are HTTP Basic, as GitLab's git routes take them: any user name with a personal
//! access token as the password (so `oauth2:<token>` works, and `gitlab-ci-token:<token>`
//! too), or `gitlab-ci-token:<job token>`, a job token under that name only. Both are checked
//! by the API's own `auth::identify` (no second token check). Answers follow
//! GitLab's order (reference `git-http.md` §3): anonymous (or bad credentials) where credentials
//! are needed, 401 with a `Basic` challenge (without it git never sends any), so private and
//! missing projects look the same to anonymous callers; authenticated but unable to see the
//! project, 404; seen but not fetchable or pushable, 403 with GitLab's text. Fetch needs GitLab's
//! `download_code` (Reporter; a custom role's `read_code` alone is not enough), push Developer.
//!
//! A personal access token's scopes are checked here too, by the same rule as the API's
//! (`auth::scopes`, GitLab's `abilities_for_scopes`): fetching needs `api`, `read_api`,
//! `read_repository` or `write_repository`, pushing `api` or `write_repository`; a token
//! without them is 403 `You are not allowed to download code.` / `You are not allowed to upload
//! code.` before the project is looked up (`lib/gitlab/git_access.rb`,
//! `check_authentication_abilities!`). An expired or revoked token is no credential to git
//! (GitLab's `find_for_git_client` looks up active tokens only): the 401 challenge, whose text
//! says the token may be "incorrect, expired, or improperly scoped".

use super::Service;
use crate::auth::permissions::{self, ProjectAbility};
use crate::auth::{self, scopes, Caller, Credentials};
use crate::context::Context;
use crate::error::ApiError;
use crate::response::Response;
use crate::store::projects::{Name, Project};
use crate::store::tokens::Grant;
use base64::Engine;
use std::path::PathBuf;

/// GitLab's text for missing or wrong credentials.
pub const ACCESS_DENIED: &str = "HTTP Basic: Access denied. If a password was provided for Git authentication, the \
     password was incorrect or you're required to use a token instead of a password. If a token was provided, it \
     was either incorrect, expired, or improperly scoped.";
/// GitLab's text for a project the caller may not see (or that does not exist).
pub const NOT_FOUND: &str =
    "The project you were looking for could not be found or you don't have permission to view it.";
/// GitLab's text for a push to an archived project.
pub const ARCHIVED: &str = "You can't push code to an archived project.";
/// The user name that makes the password a CI job token.
pub const JOB_USER: &str = "gitlab-ci-token";

/// A caller allowed to run a service on a project, and where its repository is.
pub struct Access {
    pub caller: Caller,
    pub project: Project,
    pub git_dir: PathBuf,
}

/// 401 with GitLab's challenge.
pub fn challenge() -> Response {
    super::text(401, ACCESS_DENIED).with_header("WWW-Authenticate", "Basic realm=\"GitLab\"")
}

fn forbidden(service: Service) -> Response {
    super::text(
        403,
        match service {
            Service::UploadPack => "You are not allowed to download code from this project.",
            Service::ReceivePack => "You are not allowed to push code to this project.",
        },
    )
}

/// A store failure (or anything else the API would answer) as a `text/plain` answer.
fn failed(error: ApiError) -> Response {
    let body = error.body();
    let message = body["message"].as_str().or(body["error"].as_str()).unwrap_or("The request failed").to_string();
    super::text(error.status(), &message)
}

/// The credentials of a request's `Authorization` header, as tokens by kind; `Err` for a
/// header that is not a well-formed Basic one.
fn credentials(headers: &[(String, String)]) -> Result<Credentials, ()> {
    let mut found = Credentials::default();
    let Some(value) = super::header(headers, "authorization").map(str::trim) else { return Ok(found) };
    let (scheme, encoded) = value.split_once(' ').ok_or(())?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return Err(());
    }
    let decoded = base64::engine::general_purpose::STANDARD.decode(encoded.trim()).map_err(|_| ())?;
    let decoded = String::from_utf8(decoded).map_err(|_| ())?;
    let (user, secret) = decoded.split_once(':').ok_or(())?;
    if secret.is_empty() {
        return Err(());
    }
    if user == JOB_USER {
        found.job.push(secret.to_string());
    } else {
        found.personal.push(secret.to_string());
    }
    Ok(found)
}

/// The caller `credentials` name, as GitLab's `find_for_git_client` (`lib/gitlab/auth.rb`)
/// finds it: a `gitlab-ci-token` password is a job token first (`build_access_token_check`),
/// and otherwise, as under any user name, a personal access token
/// (`personal_access_token_check`, which ignores the user name). A job token under another
/// user name is never looked up as one.
fn identify(ctx: &Context, credentials: Credentials) -> Result<(Caller, Option<Grant>), ApiError> {
    match auth::authenticate(ctx, &credentials) {
        Err(ApiError::Unauthorized) if !credentials.job.is_empty() => {
            auth::authenticate(ctx, &Credentials { personal: credentials.job, ..Credentials::default() })
        }
        found => found,
    }
}

/// GitLab's 403 for a token whose scopes do not allow `service` (`ERROR_MESSAGES` of
/// `lib/gitlab/git_access.rb`, `:auth_download`, `:auth_upload`).
fn not_scoped(service: Service) -> Response {
    super::text(
        403,
        match service {
            Service::UploadPack => "You are not allowed to download code.",
            Service::ReceivePack => "You are not allowed to upload code.",
        },
    )
}

/// A request refused before any git work: GitLab's answer, and the user its credentials named
/// (for the request's record: a refusal says who was refused, as an accepted request says who
/// was served), when they named one.
pub struct Refused {
    pub answer: Response,
    pub user: Option<(i64, String)>,
}

impl Refused {
    fn nobody(answer: Response) -> Refused {
        Refused { answer, user: None }
    }
}

/// Whether the caller the request's credentials name may run `service` on the project at
/// `full_path`, and the project if so; otherwise GitLab's answer (401, 403 or 404,
/// `text/plain`) and who was refused.
pub fn authorize(
    ctx: &Context,
    full_path: &str,
    service: Service,
    headers: &[(String, String)],
) -> Result<Access, Refused> {
    let credentials = credentials(headers).map_err(|()| Refused::nobody(challenge()))?;
    let (caller, grant) = match identify(ctx, credentials) {
        Ok(found) => found,
        // GitLab's `deploy_token_check` comes after the personal access token's.
        Err(ApiError::Unauthorized | ApiError::InvalidToken(_)) => {
            return deploy_token(ctx, full_path, service, headers).map_err(Refused::nobody)
        }
        Err(e) => return Err(Refused::nobody(failed(e))),
    };
    let user = caller.user().map(|u| (u.id, u.username.clone()));
    admit(ctx, caller, grant, full_path, service, headers).map_err(|answer| Refused { answer, user })
}

/// [`authorize`] once the caller is known.
fn admit(
    ctx: &Context,
    caller: Caller,
    grant: Option<Grant>,
    full_path: &str,
    service: Service,
    headers: &[(String, String)],
) -> Result<Access, Response> {
    // A blocked account (banned, pending approval) cannot sign in, so its token is no
    // credential (GitLab's `can_log_in_with_non_expired_password?`): the challenge. A
    // deactivated one signs in and is refused by the access check with the reason (403).
    if let Some(user) = caller.user() {
        if user.state.is_blocked() {
            return Err(challenge());
        }
        let base_url = crate::api::base_url(ctx, super::header(headers, "host"));
        if let Some(reason) = crate::api::users::access_denied(user, &base_url) {
            return Err(super::text(403, &reason));
        }
    }
    if let Some(grant) = &grant {
        let allowed = match service {
            Service::UploadPack => scopes::may_fetch(&grant.scopes),
            Service::ReceivePack => scopes::may_push(&grant.scopes),
        };
        if !allowed {
            return Err(not_scoped(service));
        }
    }
    let anonymous = caller == Caller::Anonymous;
    // Every anonymous push needs credentials, whatever the project.
    if anonymous && service == Service::ReceivePack {
        return Err(challenge());
    }
    let unseen = || if anonymous { challenge() } else { super::text(404, NOT_FOUND) };
    let project = match ctx.store.project(&Name::FullPath(full_path.to_string())) {
        Ok(Some(project)) => project,
        Ok(None) => return Err(unseen()),
        Err(e) => return Err(failed(e.into())),
    };
    let ability = match service {
        Service::UploadPack => ProjectAbility::DownloadCode,
        Service::ReceivePack => ProjectAbility::PushCode,
    };
    match ctx.store.read(|db| permissions::authorize_project(db, &caller, &project, ability)) {
        Ok(()) => {}
        Err(ApiError::NotFound(_)) => return Err(unseen()),
        // Anonymous callers who see a project they may not fetch still get the challenge:
        // signing in may be what they lack.
        Err(ApiError::Forbidden(_)) | Err(ApiError::Unauthorized) if anonymous => return Err(challenge()),
        // The permission function refuses every push to an archived project (decisions D9);
        // git says why in GitLab's words (`Gitlab::GitAccess`'s `archived` message).
        Err(ApiError::Forbidden(_)) if service == Service::ReceivePack && project.archived => {
            return Err(super::text(403, ARCHIVED))
        }
        Err(ApiError::Forbidden(_)) | Err(ApiError::Unauthorized) => return Err(forbidden(service)),
        Err(e) => return Err(failed(e)),
    }
    let git_dir = super::repository_dir(ctx, &project)?;
    Ok(Access { caller, project, git_dir })
}

/// A deploy token as the password (GitLab's `deploy_token_check`, `lib/gitlab/auth.rb`): a
/// live one (not revoked, not expired) whose username is the Basic user name, on its project
/// or a project in its group's tree; anything else is the challenge. It fetches with
/// `read_repository` (`download_code`) and never pushes (403 as a token without the scope).
/// A use is recorded in `last_used_at`, at most every 10 minutes.
fn deploy_token(
    ctx: &Context,
    full_path: &str,
    service: Service,
    headers: &[(String, String)],
) -> Result<Access, Response> {
    use crate::store::tokens::DeployOwner;
    let (user, secret) = basic_pair(headers).ok_or_else(challenge)?;
    if !auth::tokens::plausible(&secret) {
        return Err(challenge());
    }
    let digest = auth::tokens::digest(&secret);
    let now = crate::store::now_seconds();
    let token =
        ctx.store.read(|db| crate::store::tokens::deploy_token_by_digest(db, &digest)).map_err(|e| failed(e.into()))?;
    let Some(token) = token.filter(|t| !t.revoked && !t.expired(now) && t.username == user) else {
        return Err(challenge());
    };
    let project = match ctx.store.project(&Name::FullPath(full_path.to_string())) {
        Ok(Some(project)) => project,
        Ok(None) => return Err(challenge()),
        Err(e) => return Err(failed(e.into())),
    };
    let reaches = match token.owner {
        DeployOwner::Project(id) => id == project.id,
        DeployOwner::Group(id) => match project.group_id {
            Some(group) => ctx
                .store
                .read(|db| crate::store::groups::group_and_descendant_ids(db, id))
                .map_err(|e| failed(e.into()))?
                .contains(&group),
            None => false,
        },
    };
    if !reaches {
        return Err(challenge());
    }
    ctx.store
        .read(|db| crate::store::tokens::touch_deploy(db, token.id, now, auth::LAST_USED_EVERY))
        .map_err(|e| failed(e.into()))?;
    if service != Service::UploadPack || !token.scopes.iter().any(|s| s == scopes::READ_REPOSITORY) {
        return Err(not_scoped(service));
    }
    let git_dir = super::repository_dir(ctx, &project)?;
    Ok(Access { caller: Caller::Anonymous, project, git_dir })
}

/// The user name and password of a Basic `Authorization` header.
fn basic_pair(headers: &[(String, String)]) -> Option<(String, String)> {
    let value = super::header(headers, "authorization")?.trim();
    let (scheme, encoded) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD.decode(encoded.trim()).ok()?;
    let (user, secret) =
        String::from_utf8(decoded).ok()?.split_once(':').map(|(u, s)| (u.to_string(), s.to_string()))?;
    Some((user, secret))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn basic(text: &str) -> Vec<(String, String)> {
        let encoded = base64::engine::general_purpose::STANDARD.encode(text);
        vec![("Authorization".into(), format!("Basic {encoded}"))]
    }

    #[test]
    fn basic_credentials_by_user_name() {
        let oauth = credentials(&basic("oauth2:glpat-x")).unwrap();
        assert_eq!((oauth.personal, oauth.job), (vec!["glpat-x".to_string()], vec![]));
        let any = credentials(&basic("whoever:glpat-y")).unwrap();
        assert_eq!(any.personal, ["glpat-y"]);
        let job = credentials(&basic("gitlab-ci-token:glcbt-z")).unwrap();
        assert_eq!((job.personal.len(), job.job), (0, vec!["glcbt-z".to_string()]));
        assert!(credentials(&basic("user:")).is_err());
        assert!(credentials(&basic("nocolon")).is_err());
        assert!(credentials(&[("Authorization".into(), "Bearer glpat-x".into())]).is_err());
        assert!(credentials(&[]).unwrap().personal.is_empty());
    }
}
