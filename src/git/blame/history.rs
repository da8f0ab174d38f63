//! What the skipping view ([`super::skip`]) reads of the blamed path's history, and what the
//! walk ahead of it ([`super::ahead`]) hands over: a commit, and a stretch of first parents.

use gix::ObjectId;

/// What is read of a commit.
#[derive(Clone)]
pub struct Info {
    pub tree: ObjectId,
    pub parents: Vec<ObjectId>,
    pub time: i64,
    /// Its position in the commit-graph, when the graph holds it.
    pub position: Option<u32>,
}

/// A stretch of first parents, walked: from its first commit to `P'`, the first commit that
/// did not certainly leave the path as its first parent had it.
pub struct Stretch {
    pub from: ObjectId,
    pub to: ObjectId,
    /// The commits at its ends.
    pub infos: Vec<(ObjectId, Info)>,
    /// The path's entry in them (`None`: the commit lacks the path).
    pub entries: Vec<(ObjectId, Option<(ObjectId, u16)>)>,
}
