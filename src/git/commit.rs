//! Reading a commit: the fields GitLab's commit entity shows ([`read`]), and what a history
//! walk reads of it ([`header`]: tree, parents, committer date).

use super::error::{boxed, BoxError, Classify, Missing};

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

/// Why a commit could not be read.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0} is no commit")]
    NotACommit(gix::ObjectId),
    #[error("commit {id} is malformed")]
    Decode {
        id: gix::ObjectId,
        #[source]
        source: BoxError,
    },
}

impl Classify for Error {
    fn missing(&self) -> Option<Missing> {
        match self {
            Error::NotACommit(_) => Some(Missing::Object),
            Error::Decode { .. } => None,
        }
    }
}

/// Commit `id` of `repo`, as GitLab's entity shows it.
pub fn read(repo: &gix::Repository, id: gix::ObjectId) -> Result<CommitInfo, Error> {
    let object = repo.find_object(id).map_err(|_| Error::NotACommit(id))?;
    if object.kind != gix::objs::Kind::Commit {
        return Err(Error::NotACommit(id));
    }
    parse(id, &object.data)
}

/// Reads commits one after another ([`read`]'s answers) from the repository's packs, whole
/// commits inflated with libdeflate (about 0.6 of zlib-rs's time for commits), through gix
/// for anything else: for lists of thousands of commits (a compare's).
pub struct Reader<'r> {
    repo: &'r gix::Repository,
    packs: super::packs::Packs,
    data: Vec<u8>,
}

impl<'r> Reader<'r> {
    pub fn new(repo: &'r gix::Repository) -> Reader<'r> {
        // Each commit is read once: keeping them would only hold memory.
        Reader { repo, packs: super::packs::Packs::of(repo).keeping(0), data: Vec::new() }
    }

    /// What [`read`] answers for commit `id`.
    pub fn read(&mut self, id: gix::ObjectId) -> Result<CommitInfo, Error> {
        match self.packs.find(&id, &mut self.data) {
            Some(gix::objs::Kind::Commit) => parse(id, &self.data),
            Some(_) => Err(Error::NotACommit(id)),
            None => read(self.repo, id),
        }
    }
}

/// The fields of commit `id` from its object's `data`.
fn parse(id: gix::ObjectId, data: &[u8]) -> Result<CommitInfo, Error> {
    let malformed = |e: BoxError| Error::Decode { id, source: e };
    let decoded = gix::objs::CommitRef::from_bytes(data, id.kind()).map_err(|e| malformed(boxed(e)))?;
    let author = decoded.author().map_err(|e| malformed(boxed(e)))?;
    let committer = decoded.committer().map_err(|e| malformed(boxed(e)))?;
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

/// What a history walk reads of a commit: its root tree, parents and committer date (seconds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub tree: gix::ObjectId,
    pub parents: Vec<gix::ObjectId>,
    pub time: i64,
}

/// The [`Header`] of the commit object `data`, read no further than its committer line.
pub fn header(data: &[u8], kind: gix::hash::Kind) -> Result<Header, BoxError> {
    use gix::objs::commit::ref_iter::Token;
    let (mut tree, mut parents) = (None, Vec::new());
    for token in gix::objs::CommitRefIter::from_bytes(data, kind) {
        match token.map_err(boxed)? {
            Token::Tree { id } => tree = Some(id),
            Token::Parent { id } => parents.push(id),
            Token::Committer { signature } => {
                let tree = tree.ok_or("the commit has no tree")?;
                return Ok(Header { tree, parents, time: signature.seconds() });
            }
            _ => {}
        }
    }
    Err("the commit has no committer".into())
}
