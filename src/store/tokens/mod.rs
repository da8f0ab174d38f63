//! Tokens, kept only as SHA-256 digests of the token text: a lookup is by digest, and the
//! token itself never reaches the database. Each kind is an entity with a table and a module
//! of its own, `personal_access_tokens` (a user's) and `job_tokens` (a CI job's, for its
//! project), whose functions are used from here; this module owns what spans both, what a
//! live token authenticates ([`principal`]), the one lookup every authenticated request makes.

mod deploy_tokens;
mod job_tokens;
mod personal_access_tokens;
mod resource_access_tokens;

pub use deploy_tokens::{
    delete_deploy, deploy_token_by_digest, find_deploy, insert_deploy, list_deploy, touch_deploy, DeployOwner,
    DeployToken, NewDeployToken,
};
pub use resource_access_tokens::{insert_bot, is_bot, is_placed_bot};

pub use job_tokens::{insert_job, job_token_project, revoke_job};
pub use personal_access_tokens::{
    find_personal, insert_personal, list_personal, personal_token_user, revoke_personal, revoke_personal_by_id,
    rotate_personal, set_resource, touch_personal, Filter, Grant, NewToken, PersonalToken,
};

use super::db::Db;
use super::error::StoreResult;
use super::users::User;

/// What a token authenticates: a user (personal access token, with what it grants; revoked
/// and expired ones too, which the caller refuses with GitLab's texts) or a live CI job
/// token's project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    User(User, Grant),
    Job { project_id: i64 },
}

/// What the live token with this digest authenticates (`job`: a job token, else a personal
/// access token), in one lookup; `None` when there is no such token (or no live job token).
pub fn principal(db: &mut Db, digest: &[u8], job: bool) -> StoreResult<Option<Principal>> {
    Ok(if job {
        job_token_project(db, digest)?.map(|project_id| Principal::Job { project_id })
    } else {
        personal_token_user(db, digest)?.map(|(user, grant)| Principal::User(user, grant))
    })
}
