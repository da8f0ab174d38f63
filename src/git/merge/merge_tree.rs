//! The three-way tree merge (gix's port of git's ort) and mergeability: what
//! `git merge-tree --write-tree --allow-unrelated-histories <target> <source>` answers, which is
//! what GitLab asks Gitaly (`ListConflictFiles`) for `can_be_merged?`.
//!
//! The blob merges read no work tree, no index and no configured driver: a bare repository's
//! merge as git 2.39 does it (attributes from `info/attributes` only; forgecore opens every
//! repository isolated, so no user or system configuration is read either). Building an index
//! of the target's tree, which gix's `Repository::merge_trees` does for attribute lookups, would
//! cost a walk of every file of the target; a merge here reads only the trees both sides changed.

use super::{broken, tree_of, MergeError};
use crate::git::merge_base;
use gix::merge::plumbing;
use gix::objs::Write as _;
use gix::ObjectId;

/// What merging a source into a target gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mergeability {
    /// The merge is clean: `tree` is the merged tree, `base` the merge base (`None`: unrelated
    /// histories, merged onto the empty tree as Gitaly merges them).
    Clean { tree: ObjectId, base: Option<ObjectId> },
    /// The merge leaves conflicts at `paths` (sorted, each once).
    Conflicts { paths: Vec<String>, base: Option<ObjectId> },
    /// The source is already reachable from the target: nothing to merge.
    AlreadyMerged,
}

impl Mergeability {
    /// Whether the histories share no commit (GitLab still merges them: Gitaly passes
    /// `--allow-unrelated-histories`).
    pub fn unrelated(&self) -> bool {
        matches!(self, Mergeability::Clean { base: None, .. } | Mergeability::Conflicts { base: None, .. })
    }

    /// Whether a merge commit can be made (GitLab's `can_be_merged`).
    pub fn can_be_merged(&self) -> bool {
        !matches!(self, Mergeability::Conflicts { .. })
    }
}

/// One tree merge: the merged tree (written, with conflict markers where content conflicted)
/// and the paths left in conflict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeMerge {
    pub tree: ObjectId,
    pub conflicts: Vec<String>,
}

/// Merges trees in one repository, keeping gix's caches across merges (a rebase merges once
/// per replayed commit). They are made on the first merge that needs more than ort's trivial
/// resolution ([`trivial`]).
pub struct Engine<'r> {
    repo: &'r gix::Repository,
    full: Option<Full>,
}

/// What gix's full tree merge needs.
struct Full {
    diff_cache: gix::diff::blob::Platform,
    blob_merge: plumbing::blob::Platform,
    options: plumbing::tree::Options,
    state: gix::diff::tree::State,
}

impl Full {
    fn new(repo: &gix::Repository) -> Result<Full, MergeError> {
        let diff_cache = repo.diff_resource_cache_for_tree_diff().map_err(broken)?;
        let filter = gix::filter::plumbing::Pipeline::new(
            repo.command_context().map_err(broken)?,
            repo.object_hash(),
            gix::filter::Pipeline::options(repo).map_err(broken)?,
        );
        // git's core.bigFileThreshold default: larger blobs merge as binary.
        let pipeline_options = plumbing::blob::pipeline::Options { large_file_threshold_bytes: 512 << 20 };
        let pipeline = plumbing::blob::Pipeline::new(Default::default(), filter, pipeline_options);
        let empty = gix::index::State::new(repo.object_hash());
        let attributes = repo
            .attributes_only(&empty, gix::worktree::stack::state::attributes::Source::IdMapping)
            .map_err(broken)?
            .detach();
        let blob_merge = plumbing::blob::Platform::new(
            pipeline,
            plumbing::blob::pipeline::Mode::ToGit,
            attributes,
            Vec::new(),
            Default::default(),
        );
        let options: plumbing::tree::Options = repo.tree_merge_options().map_err(broken)?.into();
        Ok(Full { diff_cache, blob_merge, options, state: Default::default() })
    }
}

impl<'r> Engine<'r> {
    pub fn new(repo: &'r gix::Repository) -> Engine<'r> {
        Engine { repo, full: None }
    }

    /// Merges `ours` and `theirs` (trees) over `base` (a tree; the empty tree for unrelated
    /// histories), writing the result into the engine's repository.
    pub fn merge(
        &mut self,
        base: ObjectId,
        ours: ObjectId,
        theirs: ObjectId,
        labels: (&str, &str, &str),
    ) -> Result<TreeMerge, MergeError> {
        let repo = self.repo;
        if let Some(tree) = trivial(repo, Some(base), ours, theirs)? {
            return Ok(TreeMerge { tree, conflicts: Vec::new() });
        }
        let labels = plumbing::blob::builtin_driver::text::Labels {
            ancestor: Some(labels.0.into()),
            current: Some(labels.1.into()),
            other: Some(labels.2.into()),
        };
        let full = match &mut self.full {
            Some(full) => full,
            none => none.insert(Full::new(repo)?),
        };
        let mut outcome = plumbing::tree(
            &base,
            &ours,
            &theirs,
            labels,
            &repo.objects,
            |buf| repo.write_buf(gix::object::Kind::Blob, buf),
            &mut full.state,
            &mut full.diff_cache,
            &mut full.blob_merge,
            full.options.clone(),
        )
        .map_err(broken)?;
        let how = plumbing::tree::TreatAsUnresolved::git();
        let mut conflicts = Vec::new();
        for conflict in outcome.conflicts.iter().filter(|c| c.is_unresolved(how)) {
            let (ours, theirs) = conflict.changes_in_resolution();
            for change in [ours, theirs] {
                conflicts.push(change.location().to_string());
                conflicts.push(change.source_location().to_string());
            }
        }
        conflicts.sort();
        conflicts.dedup();
        let tree = outcome.tree.write(|tree| repo.write(tree)).map_err(broken)?;
        Ok(TreeMerge { tree, conflicts })
    }
}

/// One entry of a tree: its mode and object.
type Slot = Option<(gix::objs::tree::EntryMode, ObjectId)>;

/// The entries of the tree `id` by name (`None`: no tree, nothing in it).
fn entries(
    repo: &gix::Repository,
    id: Option<ObjectId>,
) -> Result<std::collections::BTreeMap<Vec<u8>, (gix::objs::tree::EntryMode, ObjectId)>, MergeError> {
    let mut out = std::collections::BTreeMap::new();
    let Some(id) = id else { return Ok(out) };
    let tree = repo.find_tree(id).map_err(broken)?;
    for entry in tree.iter() {
        let entry = entry.map_err(broken)?;
        out.insert(entry.filename().to_vec(), (entry.mode(), entry.object_id()));
    }
    Ok(out)
}

/// ort's trivial directory resolution, as the whole merge when it suffices: walking the three
/// trees together, a path one side left as the base has it takes the other side's version
/// (a whole directory at once, never opened), a path both changed the same way takes it, and
/// only directories both sides changed are opened. Any path both sides changed differently, or
/// both removed (a rename on each side, or a rename against a removal, may hide there), leaves
/// the merge to gix's full tree merge (`None`). Renames need no detection otherwise: a rename on
/// one side only touches paths the other side left alone, and its result is that side's.
/// A merge whose target moved little (the usual merge request) reads only the trees along the
/// target's own changes.
fn trivial(
    repo: &gix::Repository,
    base: Option<ObjectId>,
    ours: ObjectId,
    theirs: ObjectId,
) -> Result<Option<ObjectId>, MergeError> {
    if Some(ours) == base || ours == theirs {
        return Ok(Some(theirs));
    }
    if Some(theirs) == base {
        return Ok(Some(ours));
    }
    let (b, o, t) = (entries(repo, base)?, entries(repo, Some(ours))?, entries(repo, Some(theirs))?);
    let mut names: Vec<&Vec<u8>> = b.keys().chain(o.keys()).chain(t.keys()).collect();
    names.sort();
    names.dedup();
    let mut merged = gix::objs::Tree::empty();
    for name in names {
        let (bs, os, ts): (Slot, Slot, Slot) = (b.get(name).copied(), o.get(name).copied(), t.get(name).copied());
        let pick = if os == ts {
            match os {
                None => return Ok(None),
                some => some,
            }
        } else if os == bs {
            ts
        } else if ts == bs {
            os
        } else {
            match (bs, os, ts) {
                (base @ (None | Some((_, _))), Some((om, oid)), Some((tm, tid)))
                    if om.is_tree() && tm.is_tree() && base.is_none_or(|(bm, _)| bm.is_tree()) =>
                {
                    match trivial(repo, base.map(|(_, id)| id), oid, tid)? {
                        Some(id) => Some((om, id)),
                        None => return Ok(None),
                    }
                }
                _ => return Ok(None),
            }
        };
        if let Some((mode, oid)) = pick {
            merged.entries.push(gix::objs::tree::Entry { mode, filename: name.as_slice().into(), oid });
        }
    }
    merged.entries.sort();
    Ok(Some(repo.write_object(&merged).map_err(broken)?.detach()))
}

/// Merges the commits `target` and `source` as a merge commit of `source` into `target` would
/// (`git merge-tree --write-tree --allow-unrelated-histories target source`). Several merge
/// bases are merged into a virtual one first, as ort does. Objects the merge makes are written
/// into `repo` (give a handle with object memory to keep them off disk). The merge base (the
/// first, when there are several) comes with it.
pub fn merge_commits(
    repo: &gix::Repository,
    target: ObjectId,
    source: ObjectId,
) -> Result<(TreeMerge, Option<ObjectId>), MergeError> {
    let bases = merge_base::all(repo, target, source).map_err(broken)?;
    merge_over(repo, target, source, &bases)
}

fn merge_over(
    repo: &gix::Repository,
    target: ObjectId,
    source: ObjectId,
    bases: &[ObjectId],
) -> Result<(TreeMerge, Option<ObjectId>), MergeError> {
    let mut engine = Engine::new(repo);
    let base_tree = match bases {
        [] => ObjectId::empty_tree(repo.object_hash()),
        [one] => tree_of(repo, *one)?,
        several => {
            let options = repo.tree_merge_options().map_err(broken)?;
            repo.virtual_merge_base(several.iter().copied(), options).map_err(broken)?.tree_id.detach()
        }
    };
    let labels = (if bases.len() > 1 { "merged common ancestors" } else { "base" }, "target", "source");
    let merged = engine.merge(base_tree, tree_of(repo, target)?, tree_of(repo, source)?, labels)?;
    Ok((merged, bases.first().copied()))
}

/// Whether `source` merges into `target`, and how, without writing anything to disk.
pub fn mergeability(repo: &gix::Repository, target: ObjectId, source: ObjectId) -> Result<Mergeability, MergeError> {
    let bases = merge_base::all(repo, target, source).map_err(broken)?;
    if source == target || bases.contains(&source) {
        return Ok(Mergeability::AlreadyMerged);
    }
    let staging = super::Staging::new(repo);
    let (merged, base) = merge_over(&staging.repo, target, source, &bases)?;
    Ok(if merged.conflicts.is_empty() {
        Mergeability::Clean { tree: merged.tree, base }
    } else {
        Mergeability::Conflicts { paths: merged.conflicts, base }
    })
}
