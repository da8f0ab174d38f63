//! Reading branches and tags as `git for-each-ref` lists them: every `refs/heads/*` with the
//! commit it names, every `refs/tags/*` with what it points at, its annotation (for annotated
//! tags) and the commit it peels to. Names are sorted by their bytes, as git sorts refnames.

use super::commit::Signature;
use super::error::{boxed, BoxError, Classify, Missing};
use gix::ObjectId;
use std::convert::Infallible;
use std::sync::Mutex;

/// The references could not be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the repository's references")]
pub struct Error(#[source] BoxError);

impl Classify for Error {
    fn missing(&self) -> Option<Missing> {
        None
    }
}

fn broken(e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error(boxed(e))
}

/// One branch: its short name and the commit at its tip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Branch {
    pub name: String,
    pub tip: ObjectId,
}

/// A tag's annotation: the tag object's message and tagger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotation {
    pub message: String,
    pub tagger: Option<Signature>,
}

/// One tag: its short name, the object the reference names (the tag object of an annotated
/// tag), the commit it peels to (`None` for a tag of a tree or blob) and its annotation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    pub name: String,
    pub target: ObjectId,
    pub commit: Option<ObjectId>,
    pub annotation: Option<Annotation>,
}

/// The id a reference leads to, following symbolic references.
fn id_of(mut reference: gix::Reference<'_>) -> Option<ObjectId> {
    match reference.target().try_id() {
        Some(id) => Some(id.to_owned()),
        None => reference.peel_to_id().ok().map(|id| id.detach()),
    }
}

/// Every branch, by name. A branch that names no object is left out, as git leaves it out.
pub fn branches(repo: &gix::Repository) -> Result<Vec<Branch>, Error> {
    let platform = repo.references().map_err(broken)?;
    let mut out = Vec::new();
    for reference in platform.local_branches().map_err(broken)? {
        let reference = reference.map_err(|e| Error(e.into()))?;
        let name = reference.name().shorten().to_string();
        if let Some(tip) = id_of(reference) {
            out.push(Branch { name, tip });
        }
    }
    out.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    Ok(out)
}

/// The tip of the branch `name`, if there is such a branch.
pub fn branch(repo: &gix::Repository, name: &str) -> Result<Option<ObjectId>, Error> {
    target(repo, &format!("refs/heads/{name}"))
}

/// The reference `name` names, looked up again on a fresh read of `packed-refs` when the first
/// look misses or fails. `git pack-refs` (maintenance) writes a new `packed-refs` and then
/// deletes the loose files it packed; a reader whose snapshot of `packed-refs` is older than the
/// deletion (gix refreshes it by modification time, which may not change within a second)
/// would find the ref in neither, and answer a ref that exists as missing.
/// The second look's error is the answer's.
pub fn find_fresh<'r>(
    repo: &'r gix::Repository,
    name: &gix::refs::PartialNameRef,
) -> Result<Option<gix::Reference<'r>>, Error> {
    if let Ok(Some(found)) = repo.try_find_reference(name) {
        return Ok(Some(found));
    }
    // A packed-refs that cannot be read again leaves the second look to say what is wrong.
    let _ = repo.refs.force_refresh_packed_buffer();
    repo.try_find_reference(name).map_err(broken)
}

/// The object the reference `full_name` (`refs/tags/v1`) names, unpeeled, if it exists.
pub fn target(repo: &gix::Repository, full_name: &str) -> Result<Option<ObjectId>, Error> {
    let Ok(full) = gix::refs::FullName::try_from(full_name) else { return Ok(None) };
    let name: &gix::refs::PartialNameRef = full.as_ref().as_partial_name();
    Ok(find_fresh(repo, name)?.and_then(id_of))
}

fn signature(sig: gix::actor::SignatureRef<'_>) -> Signature {
    let time = sig.time().unwrap_or_default();
    Signature { name: sig.name.to_string(), email: sig.email.to_string(), seconds: time.seconds, offset: time.offset }
}

/// The tag `name` pointing at `target`: its annotation and peeled commit.
pub fn tag_of(repo: &gix::Repository, name: String, target: ObjectId) -> Result<Tag, Error> {
    // A target that is missing or cannot be read (a corrupt pack) is a tag of nothing: the
    // caller answers its missing commit as it answers any.
    let Ok(Some(object)) = repo.try_find_object(target) else {
        return Ok(Tag { name, target, commit: None, annotation: None });
    };
    let annotation = if object.kind == gix::object::Kind::Tag {
        match gix::objs::TagRef::from_bytes(&object.data, repo.object_hash()) {
            Ok(decoded) => {
                let tagger = decoded.tagger().ok().flatten().map(signature);
                Some(Annotation { message: decoded.message.to_string(), tagger })
            }
            // A malformed tag object: shown as a tag without annotation.
            Err(_) => None,
        }
    } else {
        None
    };
    let commit = object.peel_to_commit().ok().map(|c| c.id);
    Ok(Tag { name, target, commit, annotation })
}

/// Every tag's name and the object its reference names, by name (no object is read).
pub fn tag_refs(repo: &gix::Repository) -> Result<Vec<(String, ObjectId)>, Error> {
    let platform = repo.references().map_err(broken)?;
    let mut found = Vec::new();
    for reference in platform.tags().map_err(broken)? {
        let reference = reference.map_err(|e| Error(e.into()))?;
        let name = reference.name().shorten().to_string();
        if let Some(target) = id_of(reference) {
            found.push((name, target));
        }
    }
    found.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    Ok(found)
}

/// The tag `name`, if there is one.
pub fn tag(repo: &gix::Repository, name: &str) -> Result<Option<Tag>, Error> {
    let Ok(full) = gix::refs::FullName::try_from(format!("refs/tags/{name}")) else { return Ok(None) };
    match repo.try_find_reference(full.as_ref()).map_err(broken)? {
        Some(reference) => match id_of(reference) {
            Some(target) => Ok(Some(tag_of(repo, name.to_string(), target)?)),
            None => Ok(None),
        },
        None => Ok(None),
    }
}

/// Whether `ancestor` is reachable from `tip` (`git merge-base --is-ancestor`).
pub fn is_ancestor(repo: &gix::Repository, ancestor: ObjectId, tip: ObjectId) -> Result<bool, Error> {
    if ancestor == tip {
        return Ok(true);
    }
    let bases = super::merge_base::best(repo, ancestor, &[tip]).map_err(broken)?;
    Ok(bases == Some(ancestor))
}

/// Every commit reachable from `tip` (`git rev-list tip`), for asking of many branches at once
/// whether each is merged: one walk instead of one per branch.
pub fn reachable(repo: &gix::Repository, tip: ObjectId) -> Result<std::collections::HashSet<ObjectId>, Error> {
    let mut seen = std::collections::HashSet::new();
    for info in repo.rev_walk([tip]).all().map_err(broken)? {
        seen.insert(info.map_err(broken)?.id);
    }
    Ok(seen)
}

/// Creator dates already read, by object id: an object's date never changes, and one id is one
/// object in every repository, so a tag list asked for again reads no object. At most
/// [`KNOWN_DATES_MAX`] (about 5 MiB); past it, the memory starts over.
static KNOWN_DATES: Mutex<Option<gix::hashtable::HashMap<ObjectId, i64>>> = Mutex::new(None);
const KNOWN_DATES_MAX: usize = 1 << 17;

/// The creator date of each of `targets` as `git for-each-ref --sort=creatordate` reads it
/// (GitLab orders tags by `updated` so, through Gitaly): the tagger's date of a tag object,
/// the committer's date of a commit, nothing (0, the oldest) for anything else or what cannot
/// be read. Tags are not peeled: a tag's own date counts. Dates read before are remembered
/// ([`KNOWN_DATES`]); commits are dated from the commit-graph when it has them (no object
/// read), the rest read on every core.
pub fn creator_dates(repo: &gix::Repository, targets: &[ObjectId]) -> Vec<i64> {
    use gix::objs::{CommitRefIter, TagRefIter};
    use gix::prelude::Find;
    let mut dated: Vec<Option<i64>> = {
        let known = KNOWN_DATES.lock().unwrap_or_else(|p| p.into_inner());
        match known.as_ref() {
            Some(known) => targets.iter().map(|id| known.get(id).copied()).collect(),
            None => vec![None; targets.len()],
        }
    };
    let unknown: Vec<usize> = (0..targets.len()).filter(|&i| dated[i].is_none()).collect();
    if unknown.is_empty() {
        return dated.into_iter().map(|date| date.unwrap_or(0)).collect();
    }
    let graph = repo.commit_graph_if_enabled().ok().flatten();
    if let Some(graph) = graph.as_ref() {
        for &i in &unknown {
            let commit = graph.commit_by_id(targets[i]);
            dated[i] = commit.and_then(|commit| i64::try_from(commit.committer_timestamp()).ok());
        }
    }
    let unread: Vec<ObjectId> =
        targets.iter().zip(&dated).filter(|(_, date)| date.is_none()).map(|(id, _)| *id).collect();
    let read = |repo: &gix::Repository, id: ObjectId, buf: &mut Vec<u8>| -> Result<Option<i64>, Infallible> {
        let Ok(Some(data)) = repo.objects.try_find(&id, buf) else { return Ok(None) };
        let time = match data.kind {
            gix::object::Kind::Tag => TagRefIter::from_bytes(data.data, repo.object_hash())
                .tagger()
                .ok()
                .flatten()
                .and_then(|tagger| tagger.time().ok()),
            gix::object::Kind::Commit => CommitRefIter::from_bytes(data.data, repo.object_hash())
                .committer()
                .ok()
                .and_then(|committer| committer.time().ok()),
            // Neither a tag nor a commit: no date, for good.
            _ => return Ok(Some(0)),
        };
        Ok(time.map(|t| t.seconds))
    };
    let read_dates = match super::parallel::read_commits(repo, &unread, read) {
        Ok(dates) => dates,
        Err(never) => match never {},
    };
    {
        let mut known = KNOWN_DATES.lock().unwrap_or_else(|p| p.into_inner());
        let known = known.get_or_insert_with(Default::default);
        if known.len() + unknown.len() > KNOWN_DATES_MAX {
            known.clear();
        }
        let from_graph = unknown.iter().filter_map(|&i| Some((targets[i], dated[i]?)));
        let read = unread.iter().zip(&read_dates).filter_map(|(id, date)| Some((*id, (*date)?)));
        known.extend(from_graph.chain(read).take(KNOWN_DATES_MAX));
    }
    let mut read_dates = read_dates.into_iter();
    dated.into_iter().map(|date| date.unwrap_or_else(|| read_dates.next().flatten().unwrap_or(0))).collect()
}
