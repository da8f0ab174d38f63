//! Reading one commit into the fields GitLab's commit entity shows.

use super::{GitError, GitResult};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    pub name: String,
    pub email: String,
    pub seconds: i64,
    pub offset: i32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitInfo {
    pub id: gix::ObjectId,
    pub parent_ids: Vec<gix::ObjectId>,
    /// The whole message, lossily decoded as UTF-8.
    pub message: String,
    pub author: Signature,
    pub committer: Signature,
    /// The trailers of the message's last paragraph, in order (`git interpret-trailers --parse`).
    pub trailers: Vec<(String, String)>,
}

impl CommitInfo {
    /// GitLab's title: the first line of the message.
    pub fn title(&self) -> &str {
        self.message.split(['\r', '\n']).next().unwrap_or("")
    }
}

fn signature(sig: gix::actor::SignatureRef<'_>) -> Signature {
    let time = sig.time().unwrap_or_default();
    Signature { name: sig.name.to_string(), email: sig.email.to_string(), seconds: time.seconds, offset: time.offset }
}

pub fn read(repo: &gix::Repository, id: gix::ObjectId) -> GitResult<CommitInfo> {
    let object = repo.find_object(id).map_err(|_| GitError::UnknownObject)?;
    let commit = object.try_into_commit().map_err(|_| GitError::UnknownObject)?;
    let decoded = commit.decode().map_err(GitError::broken)?;
    let author = decoded.author().map_err(GitError::broken)?;
    let committer = decoded.committer().map_err(GitError::broken)?;
    let trailers = decoded.message_trailers().map(|t| (t.token.to_string(), t.value.to_string())).collect();
    Ok(CommitInfo {
        id,
        parent_ids: decoded.parents().collect(),
        message: decoded.message.to_string(),
        author: signature(author),
        committer: signature(committer),
        trailers,
    })
}
