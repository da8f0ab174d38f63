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
    #[error("the branch is checked out in the repository's work tree")]
    CheckedOut,
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
    if checked_out(repo, ref_name) {
        return Err(Error::CheckedOut);
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

/// Points the internal ref `ref_name` (`refs/merge-requests/1/head`) at `target`, whatever it
/// named before: such refs belong to the forge, never to a push (receive-pack hides them), so
/// the newest writer is right. Whether it moved.
pub fn point(repo: &gix::Repository, ref_name: &str, target: ObjectId, who: &Identity) -> Result<bool, Error> {
    let name = full_name(ref_name)?;
    if crate::git::refs::target(repo, ref_name).map_err(broken)? == Some(target) {
        return Ok(false);
    }
    let edit = RefEdit {
        change: Change::Update {
            log: LogChange { mode: RefLog::AndReference, force_create_reflog: false, message: "forgecore".into() },
            expected: PreviousValue::Any,
            new: Target::Object(target),
        },
        name,
        deref: false,
    };
    apply(repo, edit, who, ref_name)?;
    Ok(true)
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

/// Whether a write to `ref_name` (`refs/heads/main`) is refused because it is the branch
/// checked out in the repository's work tree, as git's `receive.denyCurrentBranch` refuses a
/// push to it (decisions D13): a served work tree never goes out of step with its branch. A
/// bare repository refuses nothing; the repository's own `receive.denyCurrentBranch` set to
/// `ignore`, `warn` or false lets the write through. `updateInstead` does not (git updates the
/// work tree then; the core's writes never touch one).
pub fn checked_out(repo: &gix::Repository, ref_name: &str) -> bool {
    if repo.workdir().is_none() {
        return false;
    }
    match repo.head_name() {
        Ok(Some(head)) if head.as_bstr() == ref_name => {}
        _ => return false,
    }
    let setting =
        repo.config_snapshot().string("receive.denyCurrentBranch").map(|v| v.to_string().to_ascii_lowercase());
    !matches!(setting.as_deref(), Some("ignore" | "warn" | "false" | "no" | "off" | "0"))
}

/// Points HEAD at `refs/heads/<branch>` whatever it named (a project's default branch changed
/// through the API), flushed.
pub fn set_head(repo: &gix::Repository, branch: &str) -> Result<(), Error> {
    let full: FullName = format!("refs/heads/{branch}").try_into().map_err(broken)?;
    let edit = RefEdit {
        change: Change::Update { log: LogChange::default(), expected: PreviousValue::Any, new: Target::Symbolic(full) },
        name: "HEAD".try_into().map_err(broken)?,
        deref: false,
    };
    repo.edit_references([edit]).map_err(broken)?;
    durable::flush_ref(repo, "HEAD").map_err(broken)
}

/// Points HEAD, which names `current` (a branch that does not exist), at `branch`; a writer
/// that pointed it elsewhere first wins.
pub(super) fn repoint_head(repo: &gix::Repository, current: FullName, branch: FullName) -> Result<(), Error> {
    let edit = RefEdit {
        change: Change::Update {
            log: LogChange::default(),
            expected: PreviousValue::MustExistAndMatch(Target::Symbolic(current)),
            new: Target::Symbolic(branch),
        },
        name: "HEAD".try_into().map_err(broken)?,
        deref: false,
    };
    match repo.edit_references([edit]) {
        Ok(_) => durable::flush_ref(repo, "HEAD").map_err(broken),
        Err(e) if durable::lost_race(&e) => Ok(()),
        Err(e) => Err(broken(e)),
    }
}

/// The default branch after branches were pushed to a repository whose HEAD names a branch
/// that does not exist (an empty project's first push): HEAD is pointed at Gitaly's choice
/// (`GetDefaultBranch`: the only branch; else `main`, then `master`, then the first by name),
/// as GitLab's `ProtectDefaultBranchService` does with `change_head`. The branch HEAD names
/// afterwards, when it exists; `None` for a repository still without branches or whose HEAD
/// is detached.
pub fn follow_first_branch(repo: &gix::Repository) -> Result<Option<String>, Error> {
    let head = repo.find_reference("HEAD").map_err(broken)?;
    let Target::Symbolic(current) = head.target().into_owned() else { return Ok(None) };
    // One `refs/heads/` off, no more: a branch may be named `refs/heads/x` itself.
    let short = |name: &FullName| {
        let text = name.as_bstr().to_string();
        text.strip_prefix("refs/heads/").map_or_else(|| text.clone(), str::to_string)
    };
    if repo.try_find_reference(current.as_ref()).map_err(broken)?.is_some() {
        return Ok(Some(short(&current)));
    }
    let mut branches: Vec<String> =
        crate::git::refs::branches(repo).map_err(broken)?.into_iter().map(|b| b.name).collect();
    branches.sort();
    let guess = match branches.as_slice() {
        [] => return Ok(None),
        [only] => only.clone(),
        _ => ["main", "master"]
            .into_iter()
            .find(|name| branches.iter().any(|b| b == name))
            .map_or_else(|| branches[0].clone(), str::to_string),
    };
    let full = full_name(&format!("refs/heads/{guess}"))?;
    repoint_head(repo, current, full)?;
    // What HEAD names now: the guess, or what a writer that came first pointed it at.
    let head = repo.find_reference("HEAD").map_err(broken)?;
    Ok(match head.target().into_owned() {
        Target::Symbolic(now) => Some(short(&now)),
        Target::Object(_) => None,
    })
}

/// Why GitLab refuses to create a tag named so, in the order it asks: the name fails
/// `Gitlab::GitRefValidator` (not a valid ref name, `HEAD`, or one starting with `refs/heads/`,
/// `refs/remotes/` or `-`), it is the project's default branch (`TagCheck`'s
/// `default_branch_collision`: a tag `main` would shadow the branch for every read of `main`,
/// since git's lookup order finds `refs/tags/main` before `refs/heads/main`), it starts with
/// `refs/tags/`, or it starts with a full SHA-1 or SHA-256 id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagNameProblem {
    Invalid,
    DefaultBranch,
    Prohibited,
    ShaLike,
}

impl TagNameProblem {
    /// GitLab's words for a push (`Gitlab::Checks::TagCheck`), which the API's tag creation
    /// answers too, but for [`TagNameProblem::Invalid`] (`Tag name invalid` there).
    pub fn text(self) -> &'static str {
        match self {
            TagNameProblem::Invalid | TagNameProblem::Prohibited => {
                "You cannot create a tag with a prohibited pattern."
            }
            TagNameProblem::DefaultBranch => "You cannot use default branch name to create a tag",
            TagNameProblem::ShaLike => "You cannot create a tag with a SHA-1 or SHA-256 tag name.",
        }
    }
}

/// What is wrong with creating the tag `name` where the default branch is `default_branch`, if
/// anything (see [`TagNameProblem`]).
pub fn tag_name_problem(name: &str, default_branch: Option<&str>) -> Option<TagNameProblem> {
    let expanded = ["refs/heads/", "refs/remotes/"].iter().any(|prefix| name.starts_with(prefix));
    if expanded || name == "HEAD" || !valid_tag_name(name) {
        return Some(TagNameProblem::Invalid);
    }
    if default_branch == Some(name) {
        return Some(TagNameProblem::DefaultBranch);
    }
    if name.starts_with("refs/tags/") {
        return Some(TagNameProblem::Prohibited);
    }
    let hex_run = name.bytes().take_while(u8::is_ascii_hexdigit).count();
    if hex_run >= 40 {
        return Some(TagNameProblem::ShaLike);
    }
    None
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

/// Moves `ref_name` from `expected` to `new` (any move, forced or not: the caller decided), if
/// it still names `expected`: [`Error::Changed`] when another writer moved it first.
pub fn update(
    repo: &gix::Repository,
    ref_name: &str,
    expected: ObjectId,
    new: ObjectId,
    who: &Identity,
    message: &str,
) -> Result<RefUpdate, Error> {
    if checked_out(repo, ref_name) {
        return Err(Error::CheckedOut);
    }
    let edit = RefEdit {
        change: Change::Update {
            log: LogChange { mode: RefLog::AndReference, force_create_reflog: false, message: message.into() },
            expected: PreviousValue::MustExistAndMatch(Target::Object(expected)),
            new: Target::Object(new),
        },
        name: full_name(ref_name)?,
        deref: false,
    };
    apply(repo, edit, who, ref_name)?;
    Ok(RefUpdate { name: ref_name.to_string(), old: Some(expected), new: Some(new) })
}

#[cfg(test)]
mod tests {
    use super::{tag_name_problem, TagNameProblem::*};

    #[test]
    fn tag_names_gitlab_refuses() {
        let main = Some("main");
        assert_eq!(tag_name_problem("v1.0", main), None);
        assert_eq!(tag_name_problem("main", main), Some(DefaultBranch));
        assert_eq!(tag_name_problem("main", Some("trunk")), None, "only the default branch's name");
        assert_eq!(tag_name_problem("HEAD", main), Some(Invalid));
        assert_eq!(tag_name_problem("refs/heads/main", main), Some(Invalid));
        assert_eq!(tag_name_problem("refs/remotes/x", main), Some(Invalid));
        assert_eq!(tag_name_problem("-x", main), Some(Invalid));
        assert_eq!(tag_name_problem("a..b", main), Some(Invalid));
        assert_eq!(tag_name_problem("refs/tags/v1", main), Some(Prohibited));
        let sha = "0123456789abcdef0123456789ABCDEF01234567";
        assert_eq!(tag_name_problem(sha, main), Some(ShaLike));
        assert_eq!(tag_name_problem(&format!("{sha}-suffix"), main), Some(ShaLike), "a name starting with one");
        assert_eq!(tag_name_problem(&sha[..39], main), None);
    }
}
