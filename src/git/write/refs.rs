//! Creating and deleting branches and tags with a compare-and-swap, durably: a reference is
//! created only where none exists and deleted only while it still names the object the caller
//! saw, in one gix ref transaction, and the reference (or the directory it left, and
//! `packed-refs`) is flushed to disk before the answer. Annotated tags write their tag object
//! first and flush it. Part of the one write path: flushing is [`super::durable`]'s.

use super::durable;
use super::{signature, Identity, RefUpdate};
use crate::git::error::{boxed, BoxError, Classify, Missing};
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
use gix::refs::{FullName, Target};
use gix::ObjectId;

/// Why a reference could not be written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the reference name is invalid")]
    InvalidName,
    #[error("the reference already exists")]
    AlreadyExists,
    #[error("the reference moved or went away since it was read")]
    Changed,
    #[error("cannot write the reference")]
    Git(#[source] BoxError),
}

impl Classify for Error {
    fn missing(&self) -> Option<Missing> {
        None
    }
}

fn broken(e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Git(boxed(e))
}

fn apply(repo: &gix::Repository, edit: RefEdit, who: &Identity, ref_name: &str) -> Result<(), Error> {
    let signature = signature(who);
    let mut time_buf = gix::date::parse::TimeBuf::default();
    match repo.edit_references_as([edit], Some(signature.to_ref(&mut time_buf))) {
        Ok(_) => durable::flush_ref(repo, ref_name).map_err(broken),
        Err(e) if durable::lost_race(&e) => Err(Error::Changed),
        Err(e) => Err(broken(e)),
    }
}

fn full_name(ref_name: &str) -> Result<FullName, Error> {
    FullName::try_from(ref_name).map_err(|_| Error::InvalidName)
}

/// Creates `ref_name` (`refs/heads/x`, `refs/tags/x`) at `target`, only if it does not exist.
pub fn create(
    repo: &gix::Repository,
    ref_name: &str,
    target: ObjectId,
    who: &Identity,
    message: &str,
) -> Result<RefUpdate, Error> {
    let name = full_name(ref_name)?;
    if repo.try_find_reference(name.as_ref()).map_err(broken)?.is_some() {
        return Err(Error::AlreadyExists);
    }
    let edit = RefEdit {
        change: Change::Update {
            log: LogChange { mode: RefLog::AndReference, force_create_reflog: false, message: message.into() },
            expected: PreviousValue::MustNotExist,
            new: Target::Object(target),
        },
        name,
        deref: false,
    };
    match apply(repo, edit, who, ref_name) {
        Ok(()) => Ok(RefUpdate { name: ref_name.to_string(), old: None, new: Some(target) }),
        // Created by someone else in between: it exists now.
        Err(Error::Changed) => Err(Error::AlreadyExists),
        Err(e) => Err(e),
    }
}

/// Deletes `ref_name` if it still names `expected`.
pub fn delete(repo: &gix::Repository, ref_name: &str, expected: ObjectId, who: &Identity) -> Result<RefUpdate, Error> {
    let edit = RefEdit {
        change: Change::Delete {
            expected: PreviousValue::MustExistAndMatch(Target::Object(expected)),
            log: RefLog::AndReference,
        },
        name: full_name(ref_name)?,
        deref: false,
    };
    apply(repo, edit, who, ref_name)?;
    Ok(RefUpdate { name: ref_name.to_string(), old: Some(expected), new: None })
}

/// Writes an annotated tag object `name` of the commit `target` by `tagger` with `message`
/// (ending with a newline, as `git tag -m` writes it), flushed; its id.
pub fn tag_object(
    repo: &gix::Repository,
    name: &str,
    target: ObjectId,
    message: &str,
    tagger: &Identity,
) -> Result<ObjectId, Error> {
    let mut message = message.to_string();
    if !message.ends_with('\n') {
        message.push('\n');
    }
    let tag = gix::objs::Tag {
        target,
        target_kind: gix::object::Kind::Commit,
        name: name.into(),
        tagger: Some(signature(tagger)),
        message: message.into(),
        signature: None,
    };
    let id = repo.write_object(&tag).map_err(broken)?.detach();
    durable::flush_objects(repo, &[id]).map_err(broken)?;
    Ok(id)
}

/// The first commit of an empty repository, as GitLab makes one before creating a branch in
/// it: an empty `README.md`, "Add README.md", by `who`, on `branch` (created only if it
/// still does not exist).
pub fn initial_commit(repo: &gix::Repository, branch: &str, who: &Identity) -> Result<RefUpdate, Error> {
    let blob = repo.write_blob(b"").map_err(broken)?.detach();
    let tree = gix::objs::Tree {
        entries: vec![gix::objs::tree::Entry {
            mode: gix::objs::tree::EntryKind::Blob.into(),
            filename: "README.md".into(),
            oid: blob,
        }],
    };
    let tree = repo.write_object(&tree).map_err(broken)?.detach();
    let signature = signature(who);
    let mut time_buf = gix::date::parse::TimeBuf::default();
    let signature = signature.to_ref(&mut time_buf);
    let commit =
        repo.new_commit_as(signature, signature, "Add README.md", tree, [] as [ObjectId; 0]).map_err(broken)?.id;
    durable::flush_objects(repo, &[blob, tree, commit]).map_err(broken)?;
    create(repo, &format!("refs/heads/{branch}"), commit, who, "commit (initial): Add README.md")
}

/// Whether `name` is a valid branch name, as `git check-ref-format --branch` judges it.
pub fn valid_branch_name(name: &str) -> bool {
    !name.starts_with('-')
        && gix::validate::reference::branch_name(format!("refs/heads/{name}").as_str().into()).is_ok()
}

/// Whether `name` is a valid tag name (`git check-ref-format refs/tags/<name>`).
pub fn valid_tag_name(name: &str) -> bool {
    !name.starts_with('-') && gix::validate::reference::name(format!("refs/tags/{name}").as_str().into()).is_ok()
}
