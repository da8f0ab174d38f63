//! Administration of the instance: users, tokens, groups, projects, members and job tokens,
//! and a host's first start.
//!
//! These run with the authority of whoever can open the data directory (the CLI, an embedding
//! program), so they take no caller. One JSON command in, one JSON object out:
//! `{"command": "user_add", "username": "alice", "admin": false}` and so on; see [`run`].

use crate::auth::protection;
use crate::auth::tokens;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::git;
use crate::params::Params;
use crate::response::Response;
use crate::store::Db;
use crate::store::{self, groups::Group, projects::NewProject, StoreError, StoreResult, Visibility};
use serde_json::{json, Value};
use std::path::Path;

/// Runs one administrative command, named by `command`: `user_add`, `token_add`,
/// `token_revoke`, `group_add`, `project_add`, `member_add`, `job_token_add`, `bootstrap`,
/// `register_repos`, `start` or `store_copy`.
pub fn run(ctx: &Context, params: &Params) -> ApiResult<Response> {
    let command = params.required_string("command")?;
    match command.as_str() {
        "user_add" => user_add(ctx, params),
        "token_add" => token_add(ctx, params),
        "token_revoke" => token_revoke(ctx, params),
        "group_add" => group_add(ctx, params),
        "project_add" => project_add(ctx, params),
        "member_add" => member_add(ctx, params),
        "job_token_add" => job_token_add(ctx, params),
        "bootstrap" => bootstrap(ctx, params),
        "register_repos" => register_repos(ctx, params),
        "start" => start(ctx, params),
        "store_copy" => store_copy(ctx, params),
        _ => Err(ApiError::InvalidValue("command".into())),
    }
}

/// GitLab's rule for one path segment of a user, group or project: letters, digits, `_`, `-`
/// and `.`, starting with a letter, digit or `_`, not ending in `.git` or `.atom`.
pub(crate) fn valid_segment(segment: &str) -> bool {
    let first_ok = segment.chars().next().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    first_ok
        && segment.len() <= 255
        && segment.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && !segment.ends_with(".git")
        && !segment.ends_with(".atom")
}

fn check_path(field: &str, path: &str) -> ApiResult<()> {
    if path.split('/').all(valid_segment) {
        Ok(())
    } else {
        Err(ApiError::validation(format!(
            "{field} can contain only letters, digits, '_', '-' and '.', each part starting with a letter, digit or '_'"
        )))
    }
}

fn visibility(params: &Params, default: Visibility) -> ApiResult<Visibility> {
    match params.string("visibility")? {
        None => Ok(default),
        Some(text) => Visibility::parse(&text).ok_or(ApiError::InvalidValue("visibility".into())),
    }
}

fn user_named(db: &mut Db, username: &str) -> ApiResult<store::users::User> {
    store::users::find_by_username(db, username)?.ok_or(ApiError::NotFound("User"))
}

fn group_at(db: &mut Db, full_path: &str) -> ApiResult<Group> {
    store::groups::find_by_full_path(db, full_path)?.ok_or(ApiError::NotFound("Group"))
}

fn user_entity(user: &store::users::User) -> Value {
    json!({"id": user.id, "username": user.username, "name": user.name, "email": user.email, "is_admin": user.is_admin})
}

fn new_token(prefix: &str) -> ApiResult<String> {
    tokens::generate(prefix).map_err(ApiError::internal)
}

/// `user add`: the Users API's own create operation (decisions D9), with its validation and
/// conflicts; the CLI's users may have no email.
fn user_add(ctx: &Context, params: &Params) -> ApiResult<Response> {
    let username = params.required_string("username")?;
    let form = crate::api::users::Form {
        name: Some(params.string("name")?.unwrap_or_else(|| username.clone())),
        username: Some(username),
        email: params.string("email")?,
        admin: params.bool("admin")?,
        ..Default::default()
    };
    let user = crate::api::users::create::create_user(&ctx.store, &form, false)?;
    Ok(Response::json(201, &user_entity(&user)))
}

/// `{"command": "token_add", "username", "name"?, "scopes"?, "expires_at"?, "description"?}`:
/// the API's create (`POST /users/:user_id/personal_access_tokens`) with its validations, and
/// its answer, the entity with `token`. Scopes default to `["api"]`; `expires_at` to today +
/// `limits.token_max_lifetime_days`.
fn token_add(ctx: &Context, params: &Params) -> ApiResult<Response> {
    use crate::api::personal_access_tokens::{create_token, entity, Request, Shape};
    let username = params.required_string("username")?;
    let user = ctx.store.read(|db| user_named(db, &username))?;
    let mut params = params.clone();
    if !params.contains("name") {
        params.set("name", json!("forgecore"));
    }
    if params.string_list("scopes")?.is_none_or(|scopes| scopes.iter().all(|s| s.trim().is_empty())) {
        params.set("scopes", json!(crate::auth::scopes::DEFAULT));
    }
    let request = Request::read(&params, crate::auth::scopes::AVAILABLE)?;
    let (token, text) = create_token(ctx, &user, request, None)?;
    Ok(Response::json(201, &entity(&token, Shape::WithToken(&text))))
}

fn token_revoke(ctx: &Context, params: &Params) -> ApiResult<Response> {
    let token = params.required_string("token")?;
    let digest = tokens::digest(&token);
    let revoked = ctx.store.write(|db| -> ApiResult<_> {
        Ok(store::tokens::revoke_personal(db, &digest)? || store::tokens::revoke_job(db, &digest)?)
    })?;
    if revoked {
        Ok(Response::json(200, &json!({ "revoked": true })))
    } else {
        Err(ApiError::NotFound("Token"))
    }
}

fn group_entity(group: &Group) -> Value {
    json!({"id": group.id, "path": group.path, "full_path": group.full_path, "parent_id": group.parent_id,
           "visibility": group.visibility.as_str()})
}

/// Creates the group at `full_path` under its existing parent.
fn insert_group(db: &mut Db, full_path: &str, visibility: Visibility) -> ApiResult<Group> {
    if store::groups::find_by_full_path(db, full_path)?.is_some() {
        return Err(ApiError::validation("Group path has already been taken"));
    }
    let (parent, path) = match full_path.rsplit_once('/') {
        Some((parent_path, path)) => (Some(group_at(db, parent_path)?), path),
        None => (None, full_path),
    };
    Ok(store::groups::insert(db, parent.as_ref(), path, visibility)?)
}

/// `{"command": "group_add", "path": "top/sub", "name": ..., "visibility": ..., ...}`: the group
/// at that full path under its existing parent, created by `POST /groups`'s operation with
/// its checks (path rules, taken paths, a visibility above the parent's) and settings; the
/// name defaults to the last segment of the path. Nobody becomes a member.
fn group_add(ctx: &Context, params: &Params) -> ApiResult<Response> {
    let full_path = params.required_string("path")?;
    let (parent_id, path) = match full_path.rsplit_once('/') {
        Some((parent_path, path)) => (Some(ctx.store.read(|db| group_at(db, parent_path))?.id), path.to_string()),
        None => (None, full_path.clone()),
    };
    let mut create = params.clone();
    create.remove("command");
    create.set("path", json!(path));
    if !create.contains("name") {
        create.set("name", json!(path));
    }
    create.set("parent_id", json!(parent_id));
    let detailed = super::groups::create::create_group(ctx, super::groups::create::Creator::Administration, &create)?;
    let mut entity = group_entity(&detailed.group);
    entity["name"] = json!(detailed.group.name);
    Ok(Response::json(201, &entity))
}

/// Where a new project's repository is: an absolute git directory, or a path relative to a
/// named storage's root.
struct Location {
    repo_dir: String,
    storage: Option<String>,
}

impl Location {
    fn absolute(git_dir: &Path) -> ApiResult<Location> {
        let repo_dir = git_dir.to_str().ok_or_else(|| ApiError::validation("repo path is not valid UTF-8"))?;
        Ok(Location { repo_dir: repo_dir.to_string(), storage: None })
    }

    /// The branch the repository's HEAD names (even unborn), where this host can see it.
    fn default_branch(&self, ctx: &Context) -> Option<String> {
        let git_dir = match &self.storage {
            Some(name) => ctx.config.storages.get(name)?.join(&self.repo_dir),
            None => Path::new(&self.repo_dir).to_path_buf(),
        };
        git::default_branch(git_dir)
    }
}

/// Registers a project at `full_path` serving the repository at `location` in place, its
/// default branch protected as GitLab protects a new project's (decisions D8; an empty
/// repository's is the branch HEAD names, which its first push creates).
fn insert_project(
    db: &mut Db,
    full_path: &str,
    location: &Location,
    default_branch: Option<&str>,
    visibility: Visibility,
    forked_from: Option<&str>,
) -> ApiResult<store::projects::Project> {
    if store::projects::find_by_full_path(db, full_path)?.is_some() {
        return Err(ApiError::validation("Project path has already been taken"));
    }
    let (group_id, path) = match full_path.rsplit_once('/') {
        Some((namespace, path)) => (Some(group_at(db, namespace)?.id), path),
        None => (None, full_path),
    };
    let forked_from_id = match forked_from {
        Some(parent) => Some(store::projects::find_by_full_path(db, parent)?.ok_or(ApiError::NotFound("Project"))?.id),
        None => None,
    };
    let new = NewProject {
        group_id,
        path,
        full_path,
        repo_dir: &location.repo_dir,
        visibility,
        forked_from_id,
        storage: location.storage.as_deref(),
    };
    let project = store::projects::insert(db, &new)?;
    if let Some(branch) = default_branch {
        protection::protect_default_branch(db, project.id, branch)?;
    }
    Ok(project)
}

/// The absolute git directory of a repository path, or 400.
fn resolve_repo(repo: &str) -> ApiResult<std::path::PathBuf> {
    let absolute =
        std::fs::canonicalize(repo).map_err(|_| ApiError::validation(format!("repo {repo} does not exist")))?;
    git::git_dir_of(&absolute).ok_or_else(|| ApiError::validation(format!("repo {repo} is not a git repository")))
}

/// The repository `repo` names on the storage `name`: a path relative to the storage's root (as
/// this host's configuration gives it), staying inside it, naming a git repository. Its git
/// directory relative to the root is what is stored, so every host with the storage finds it.
fn on_storage(ctx: &Context, name: &str, repo: &str) -> ApiResult<Location> {
    let root = ctx
        .config
        .storages
        .get(name)
        .ok_or_else(|| ApiError::validation(format!("storage {name} is not configured")))?;
    let relative = Path::new(repo);
    let inside = relative.components().all(|c| matches!(c, std::path::Component::Normal(_)));
    if repo.is_empty() || !inside {
        return Err(ApiError::validation("repo must be a path relative to the storage, without . or .."));
    }
    let root =
        std::fs::canonicalize(root).map_err(|_| ApiError::validation(format!("storage {name} does not exist")))?;
    let git_dir = resolve_repo(&root.join(relative).to_string_lossy())?;
    let within = git_dir.strip_prefix(&root).map_err(|_| ApiError::validation("repo leads outside the storage"))?;
    let repo_dir = within.to_str().ok_or_else(|| ApiError::validation("repo path is not valid UTF-8"))?;
    Ok(Location { repo_dir: repo_dir.to_string(), storage: Some(name.to_string()) })
}

/// `{"command": "project_add", "path": "top/app", "repo": DIR}`: the repository at `DIR`
/// served in place; with `"storage": NAME`, `DIR` is relative to that storage's root.
fn project_add(ctx: &Context, params: &Params) -> ApiResult<Response> {
    let full_path = params.required_string("path")?;
    check_path("path", &full_path)?;
    let repo = params.required_string("repo")?;
    let location = match params.string("storage")? {
        Some(name) => on_storage(ctx, &name, &repo)?,
        None => Location::absolute(&resolve_repo(&repo)?)?,
    };
    let visibility = visibility(params, Visibility::Private)?;
    let forked_from = params.string("forked_from")?;
    let default_branch = location.default_branch(ctx);
    let project = ctx.store.write(|db| {
        insert_project(db, &full_path, &location, default_branch.as_deref(), visibility, forked_from.as_deref())
    })?;
    Ok(Response::json(201, &super::projects::entity(ctx, &super::base_url(ctx, None), &project)))
}

/// `member add`: a client of the members API's own operations ([`members::create::add`], and
/// [`members::update::change`] when the user is a member already), with the authority of an
/// administrator: the same validations (custom role's level and hierarchy, expiry date) as
/// `POST /groups/:id/members` and `POST /projects/:id/members`.
fn member_add(ctx: &Context, params: &Params) -> ApiResult<Response> {
    use super::members::{self, create::Addition, update::Change, Actor, Target};
    let username = params.required_string("username")?;
    let access_level = members::read_access_level(params)?;
    let member_role_id = members::read_member_role_id(params)?.flatten();
    let expires_at = members::read_expires_at(params)?.flatten();
    let (group, project) = (params.string("group")?, params.string("project")?);
    let (user, target) = ctx.store.read(|db| -> ApiResult<_> {
        let user = user_named(db, &username)?;
        let target = match (&group, &project) {
            (Some(path), None) => Target::Group(group_at(db, path)?),
            (None, Some(path)) => Target::Project(Box::new(
                store::projects::find_by_full_path(db, path)?.ok_or(ApiError::NotFound("Project"))?,
            )),
            _ => {
                return Err(ApiError::ParamError(
                    "group, project are mutually exclusive, exactly one is required".into(),
                ))
            }
        };
        Ok((user, target))
    })?;
    let addition = Addition { access_level, expires_at: expires_at.clone(), member_role_id };
    let member = match members::create::add(ctx, &Actor::Administration, &target, &user, &addition) {
        Err(ApiError::Conflict(_)) => {
            let change = Change { access_level, expires_at: Some(expires_at), member_role_id: Some(member_role_id) };
            members::update::change(ctx, &Actor::Administration, &target, user.id, &change)?
        }
        other => other?,
    };
    Ok(Response::json(
        201,
        &json!({"id": member.id, "username": username, "group": group, "project": project,
                "access_level": member.access_level, "member_role_id": member.member_role_id,
                "expires_at": member.expires_at}),
    ))
}

fn job_token_add(ctx: &Context, params: &Params) -> ApiResult<Response> {
    let project = params.required_string("project")?;
    let token = new_token(tokens::JOB_PREFIX)?;
    ctx.store.write(|db| -> ApiResult<_> {
        let project = store::projects::find_by_full_path(db, &project)?.ok_or(ApiError::NotFound("Project"))?;
        Ok(store::tokens::insert_job(db, project.id, &tokens::digest(&token))?)
    })?;
    Ok(Response::json(201, &json!({ "token": token })))
}

/// The administrator [`bootstrap_administrator`] created or issued a token for.
struct Administrator {
    username: String,
    created: bool,
    token: String,
}

/// On an instance with no users, creates the administrator `root` and a token for it. With
/// `issue_token`, an instance that has one gets a fresh token for its first administrator.
/// `None` when neither happened.
///
/// Hosts that start together on one empty PostgreSQL database may all count no user; all but
/// one then find `root` taken, and look again: the administrator is there now.
///
/// The token has the scopes `api` and `sudo`, as the root token of python-gitlab's functional
/// tests (`tests/functional/fixtures/set_token.rb`: `scopes: ['api', 'sudo']`), so tools that
/// administer through the API may act as other users; it expires like any token (today +
/// `limits.token_max_lifetime_days`, GitLab's fixture: `365.days.from_now`).
fn bootstrap_administrator(ctx: &Context, issue_token: bool) -> ApiResult<Option<Administrator>> {
    let token = new_token(tokens::PERSONAL_PREFIX)?;
    let scopes = [crate::auth::scopes::API.to_string(), crate::auth::scopes::SUDO.to_string()];
    let expires_at = crate::api::personal_access_tokens::expiry(ctx, None, None)?;
    let attempt = || {
        ctx.store.write(|db| -> StoreResult<_> {
            let (user, created) = if store::users::count(db)? == 0 {
                (store::users::insert(db, "root", "Administrator", None, true)?, true)
            } else {
                match store::users::first_admin(db)? {
                    Some(admin) if issue_token => (admin, false),
                    _ => return Ok(None),
                }
            };
            let new = store::tokens::NewToken {
                user_id: user.id,
                name: "bootstrap",
                description: None,
                scopes: &scopes,
                expires_at: expires_at.as_deref(),
            };
            store::tokens::insert_personal(db, &new, &tokens::digest(&token))?;
            Ok(Some(Administrator { username: user.username, created, token: token.clone() }))
        })
    };
    match attempt() {
        Err(StoreError::Conflict(_)) => Ok(attempt()?),
        other => Ok(other?),
    }
}

/// `{"created", "username", "token"}`, or `{"created": false}` when nothing happened.
fn administrator_entity(administrator: Option<&Administrator>) -> Value {
    match administrator {
        Some(a) => json!({"created": a.created, "username": a.username, "token": a.token}),
        None => json!({"created": false}),
    }
}

/// `{"command": "bootstrap", "issue_token": false}`: see [`bootstrap_administrator`]. Answers
/// `{"created": true, "username": "root", "token": "glpat-..."}`, or `{"created": false}`.
fn bootstrap(ctx: &Context, params: &Params) -> ApiResult<Response> {
    let issue_token = params.bool("issue_token")?.unwrap_or(false);
    let administrator = bootstrap_administrator(ctx, issue_token)?;
    Ok(Response::json(200, &administrator_entity(administrator.as_ref())))
}

/// Git repositories under `dir`: bare ones and work trees, not looking inside either.
fn find_repositories(dir: &Path, depth: usize, found: &mut Vec<(std::path::PathBuf, std::path::PathBuf)>) {
    const MAX_DEPTH: usize = 8;
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut children: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_dir()).collect();
    children.sort();
    for child in children {
        if child.file_name().and_then(|n| n.to_str()).is_none_or(|n| n.starts_with('.')) {
            continue;
        }
        match git::git_dir_of(&child) {
            Some(git_dir) => found.push((child, git_dir)),
            None if depth < MAX_DEPTH => find_repositories(&child, depth + 1, found),
            None => {}
        }
    }
}

/// A project [`register_repositories`] found: its full path, and whether this call created it.
struct Registered {
    path: String,
    created: bool,
}

/// The directory `register_repos` searches, made absolute, or 400.
fn repos_dir(dir: &str) -> ApiResult<std::path::PathBuf> {
    std::fs::canonicalize(dir).map_err(|_| ApiError::validation("dir does not exist"))
}

/// Registers every git repository under `dir` (absolute) as a public project named by its path
/// relative to `dir` (a `.git` suffix dropped), creating public groups as needed. Already
/// registered paths are left as they are.
fn register_repositories(ctx: &Context, dir: &Path) -> ApiResult<Vec<Registered>> {
    let mut repos = Vec::new();
    find_repositories(dir, 0, &mut repos);
    let mut registered = Vec::new();
    for (path, git_dir) in repos {
        let Some(relative) = path.strip_prefix(dir).ok().and_then(|p| p.to_str()) else { continue };
        let full_path = relative.strip_suffix(".git").unwrap_or(relative).to_string();
        if check_path("path", &full_path).is_err() {
            continue;
        }
        let location = Location::absolute(&std::fs::canonicalize(&git_dir).unwrap_or(git_dir))?;
        let default_branch = location.default_branch(ctx);
        let created = ctx.store.write(|db| -> ApiResult<_> {
            if store::projects::find_by_full_path(db, &full_path)?.is_some() {
                return Ok(false);
            }
            let mut prefix = String::new();
            for segment in full_path.split('/').collect::<Vec<_>>().split_last().map(|(_, g)| g).unwrap_or(&[]) {
                if !prefix.is_empty() {
                    prefix.push('/');
                }
                prefix.push_str(segment);
                if store::groups::find_by_full_path(db, &prefix)?.is_none() {
                    insert_group(db, &prefix, Visibility::Public)?;
                }
            }
            insert_project(db, &full_path, &location, default_branch.as_deref(), Visibility::Public, None)?;
            Ok(true)
        })?;
        registered.push(Registered { path: full_path, created });
    }
    Ok(registered)
}

fn registered_entity(projects: &[Registered]) -> Value {
    projects.iter().map(|p| json!({"path": p.path, "created": p.created})).collect()
}

/// `{"command": "register_repos", "dir": "/srv/git"}`: see [`register_repositories`]. Answers
/// `{"projects": [{"path": "top/app", "created": true}, ...]}`.
fn register_repos(ctx: &Context, params: &Params) -> ApiResult<Response> {
    let dir = repos_dir(&params.required_string("dir")?)?;
    let projects = register_repositories(ctx, &dir)?;
    Ok(Response::json(200, &json!({ "projects": registered_entity(&projects) })))
}

/// `{"command": "start", "issue_token": false, "repos": "/srv/git", "url": "http://host:port"}`:
/// a host's first steps as one command, so that every host starts alike. It runs `bootstrap`
/// (with `issue_token`), then `register_repos` on `repos` when given, and answers what they
/// answer (`created`, `username`, `token`; `projects`) plus `lines`: the text the host prints
/// before serving, one line each, the last `listening on URL`. URL is the configured
/// `external_url`, else `url` (the address the host listens on). A step's refusal names the
/// step (`{"message": "register_repos: dir does not exist"}`); `repos` is checked before
/// anything is written.
fn start(ctx: &Context, params: &Params) -> ApiResult<Response> {
    let issue_token = params.bool("issue_token")?.unwrap_or(false);
    let url = match (ctx.config.external_base(), params.string("url")?) {
        (Some(external), _) => external.to_string(),
        (None, Some(listening)) => listening.trim_end_matches('/').to_string(),
        (None, None) => return Err(ApiError::MissingParam("url".into())),
    };
    let repos = match params.string("repos")? {
        Some(dir) => Some(in_step("register_repos", repos_dir(&dir))?),
        None => None,
    };
    let administrator = in_step("bootstrap", bootstrap_administrator(ctx, issue_token))?;
    let projects = match &repos {
        Some(dir) => in_step("register_repos", register_repositories(ctx, dir))?,
        None => Vec::new(),
    };
    let mut body = administrator_entity(administrator.as_ref());
    body["projects"] = registered_entity(&projects);
    body["lines"] = json!(start_lines(administrator.as_ref(), &projects, &url));
    Ok(Response::json(200, &body))
}

/// A refusal of one step of `start` with the step's name before its message.
fn in_step<T>(step: &str, result: ApiResult<T>) -> ApiResult<T> {
    result.map_err(|error| match error {
        ApiError::Validation(Value::String(message)) => ApiError::validation(format!("{step}: {message}")),
        other => other,
    })
}

/// What a host prints on starting, in order: the administrator created and its token, the
/// projects registered, a first request to try, and last `listening on URL`, which tells a
/// supervisor the host is ready.
fn start_lines(administrator: Option<&Administrator>, projects: &[Registered], url: &str) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(administrator) = administrator {
        if administrator.created {
            lines.push(format!("created the administrator {}", administrator.username));
        }
        lines.push(format!("admin token: {}", administrator.token));
    }
    for project in projects {
        lines.push(format!("project: {}{}", project.path, if project.created { " (new)" } else { "" }));
    }
    let token = administrator.map_or("<token>", |a| a.token.as_str());
    lines.push(format!("try: curl -H \"PRIVATE-TOKEN: {token}\" {url}/api/v4/member_roles"));
    if projects.iter().any(|p| p.path == "forgecore") {
        // `make run` serves this checkout as `forgecore`: its tree is a request worth trying.
        lines.push(format!("     curl {url}/api/v4/projects/forgecore/repository/tree"));
    }
    lines.push(format!("listening on {url}"));
    lines
}

/// Copies this instance's whole store into the empty PostgreSQL database `to` (a libpq URL),
/// ids and token digests as they are: `{"copied": {"<table>": rows, ...}}`. A target that holds
/// anything, or cannot be reached, is a 400 that says so.
fn store_copy(ctx: &Context, params: &Params) -> ApiResult<Response> {
    let url = params.required_string("to")?;
    let defaults = crate::config::StoreConfig::default();
    let target = store::PostgresSettings {
        url,
        pool_size: 1,
        timeout: std::time::Duration::from_millis(defaults.timeout_millis),
    };
    let copied = store::copy::to_postgres(&ctx.store, &target).map_err(|e| match e {
        store::copy::CopyError::Store(e) => e.into(),
        refused => ApiError::validation(refused.to_string()),
    })?;
    let copied: serde_json::Map<String, Value> =
        copied.into_iter().map(|(table, rows)| (table.to_string(), json!(rows))).collect();
    Ok(Response::json(200, &json!({ "copied": copied })))
}
