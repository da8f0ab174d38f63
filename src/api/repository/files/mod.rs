//! The repository files API (`/projects/:id/repository/files/:file_path`), as GitLab's
//! `lib/api/files.rb` serves it: [`get`] (JSON, and HEAD), [`raw`], [`blame`], and the writes in
//! [`write`] (create, update, delete: one commit each, through the one write path).
//!
//! This module owns what the routes share: the `file_path` rules (Grape's `file_path`
//! validator), finding the file at a `ref` (`404 Commit Not Found`, `404 File Not Found` for a
//! missing path or a directory), and the entity with its `X-Gitlab-*` headers.

pub mod blame;
pub mod get;
pub mod raw;
pub mod write;

use super::blobs;
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult, GitResultExt};
use crate::git::{self, blob::BlobHeader, last_commit, write::entry_at};
use crate::params::Params;
use crate::store::projects::Project;
use gix::objs::tree::EntryKind;
use gix::ObjectId;
use percent_encoding::percent_decode_str;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::path::PathBuf;

pub use forgecore_archive::BLOB_STREAM_FROM;

/// Grape's message for a path its `file_path` validator refuses.
const INVALID_PATH: &str = "file_path should be a valid file path";

/// `file_path` as GitLab's `Gitlab::PathTraversal` accepts it: no `.` or `..` as the whole path,
/// no `..` component (split on `/` or `\`), no newline, and no leading `/` unless `absolute_ok`
/// (the raw route allows one, and drops it). Checked once more after a second decoding, as
/// GitLab decodes the path again before checking.
pub fn file_path(path: &str, absolute_ok: bool) -> ApiResult<String> {
    let invalid = || ApiError::ParamError(INVALID_PATH.into());
    let twice = percent_decode_str(path).decode_utf8().map_err(|_| invalid())?;
    for text in [path, twice.as_ref()] {
        if text == "." || text.contains('\n') || text.split(['/', '\\']).any(|c| c == "..") {
            return Err(invalid());
        }
    }
    match path.strip_prefix('/') {
        Some(rest) if absolute_ok => Ok(rest.to_string()),
        Some(_) => Err(invalid()),
        None => Ok(path.to_string()),
    }
}

/// The `ref` parameter as the reads require it: present (`ref is missing`) and not blank (`ref
/// is empty`).
pub fn required_ref(params: &Params) -> ApiResult<String> {
    let reference = params.revision("ref")?.ok_or_else(|| ApiError::MissingParam("ref".into()))?;
    if reference.trim().is_empty() {
        return Err(ApiError::ParamError("ref is empty".into()));
    }
    Ok(reference)
}

/// What every read answers about a file, but its content's SHA-256.
#[derive(Debug, Clone)]
pub struct Meta {
    /// `ref` as the request sent it (GitLab echoes it, `HEAD` included).
    pub reference: String,
    pub path: String,
    pub commit: ObjectId,
    pub blob: ObjectId,
    pub size: u64,
    pub executable: bool,
    pub last_commit: Option<ObjectId>,
}

/// A file found at a ref, with its repository.
pub struct Found {
    pub repo: gix::Repository,
    pub project: Project,
    pub git_dir: PathBuf,
    pub meta: Meta,
}

/// The file at `path` in the commit `reference` names (`None`: the default branch), for a
/// caller who may read the project's code.
pub fn find(call: &Call, project: &str, path: &str, reference: Option<String>) -> ApiResult<Found> {
    let project = call.project(project, ProjectAbility::ReadCode)?;
    let git_dir = call.git_dir(&project)?;
    let repo = call.repository(&project, "Commit")?;
    let commit = git::resolve_or_head(&repo, reference.as_deref()).or_not_found(ApiError::NotFound("Commit"))?;
    let root = git::tree::commit_tree(&repo, commit).or_broken()?;
    let components: Vec<&str> = path.split('/').collect();
    let (blob, kind) = match entry_at(&repo, root, &components).or_broken()? {
        Some((id, kind @ (EntryKind::Blob | EntryKind::BlobExecutable | EntryKind::Link))) => (id, kind),
        _ => return Err(ApiError::NotFound("File")),
    };
    let size = repo.find_header(blob).map_err(ApiError::internal)?.size();
    let reference = reference.unwrap_or_else(|| git::default_branch(&git_dir).unwrap_or_else(|| commit.to_string()));
    let last_commit = last_commit::find(&repo, commit, path).or_broken()?;
    let meta = Meta {
        reference,
        path: path.to_string(),
        commit,
        blob,
        size,
        executable: kind == EntryKind::BlobExecutable,
        last_commit,
    };
    Ok(Found { repo, project, git_dir, meta })
}

impl Found {
    /// The file's bytes, whole: for files under [`BLOB_STREAM_FROM`] (larger ones are streamed).
    pub fn content(&self) -> ApiResult<Vec<u8>> {
        git::blob::read(&self.repo, self.meta.blob).map_err(|_| ApiError::NotFound("File"))
    }

    /// The blob as the large-blob limit sees it.
    pub fn header(&self) -> BlobHeader {
        BlobHeader { id: self.meta.blob, size: self.meta.size }
    }
}

/// Lowercase hex SHA-256 of `content`.
pub fn sha256(content: &[u8]) -> String {
    blobs::hex(&Sha256::digest(content))
}

impl Meta {
    /// GitLab's `blob_data`: every field but `content`, in GitLab's order.
    pub fn entity(&self, sha256: &str) -> Entity {
        let name = self.path.rsplit('/').next().unwrap_or(&self.path);
        vec![
            ("file_name", json!(name)),
            ("file_path", json!(self.path)),
            ("size", json!(self.size)),
            ("encoding", json!("base64")),
            ("content_sha256", json!(sha256)),
            ("ref", json!(self.reference)),
            ("blob_id", json!(self.blob.to_string())),
            ("commit_id", json!(self.commit.to_string())),
            ("last_commit_id", json!(self.last_commit.map(|id| id.to_string()))),
            ("execute_filemode", json!(self.executable)),
        ]
    }
}

/// An entity's fields in GitLab's order (serde_json's maps sort their keys).
pub type Entity = Vec<(&'static str, Value)>;

/// The JSON object of `entity`, its keys in order.
pub fn object(entity: &Entity) -> Vec<u8> {
    let fields: Vec<String> = entity.iter().map(|(key, value)| format!("{}:{value}", json!(key))).collect();
    format!("{{{}}}", fields.join(",")).into_bytes()
}

/// GitLab's `X-Gitlab-*` headers of an entity: each key but `content`, `file_name` as
/// `X-Gitlab-File-Name`. Control characters (a newline in a file name) are percent-encoded so
/// that no value can end a header.
pub fn headers(entity: &Entity) -> Vec<(String, String)> {
    entity
        .iter()
        .filter(|(key, _)| *key != "content")
        .map(|(key, value)| {
            let name: Vec<String> = key
                .split('_')
                .map(|part| {
                    let mut chars = part.chars();
                    chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
                })
                .collect();
            let text = match value {
                Value::String(s) => s.clone(),
                Value::Null => String::new(),
                other => other.to_string(),
            };
            let safe: String = text
                .chars()
                .map(|c| if c.is_control() { format!("%{:02X}", c as u32) } else { c.to_string() })
                .collect();
            (format!("X-Gitlab-{}", name.join("-")), safe)
        })
        .collect()
}
