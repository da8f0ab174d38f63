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
/// per replayed commit).
pub struct Engine<'r> {
    repo: &'r gix::Repository,
    diff_cache: gix::diff::blob::Platform,
    blob_merge: plumbing::blob::Platform,
    options: plumbing::tree::Options,
    state: gix::diff::tree::State,
}

impl<'r> Engine<'r> {
    pub fn new(repo: &'r gix::Repository) -> Result<Engine<'r>, MergeError> {
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
        Ok(Engine { repo, diff_cache, blob_merge, options, state: Default::default() })
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
        let labels = plumbing::blob::builtin_driver::text::Labels {
            ancestor: Some(labels.0.into()),
            current: Some(labels.1.into()),
            other: Some(labels.2.into()),
        };
        let mut outcome = plumbing::tree(
            &base,
            &ours,
            &theirs,
            labels,
            &repo.objects,
            |buf| repo.write_buf(gix::object::Kind::Blob, buf),
            &mut self.state,
            &mut self.diff_cache,
            &mut self.blob_merge,
            self.options.clone(),
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
    let mut engine = Engine::new(repo)?;
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
