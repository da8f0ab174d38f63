//! What blame diffs: the change at the blamed path between a commit's tree and a parent's (a
//! rename found as git finds it when the path was added), and the lines changed between two
//! versions of the file, as gix-blame 0.20 computes them (`src/file/function.rs`, MIT or
//! Apache-2.0), through a diff platform whose memory is bounded.
//!
//! gix's diff platform keeps every blob it was given until it is cleared, and gix-blame never
//! clears it while a blame runs: a blame of a file with 20,000 versions held all 20,000 (a
//! gigabyte for a 50 KiB file). [`Diffs`] clears it once what it holds passes [`HELD_MAX`],
//! keeping the buffers for reuse; the versions of one diff are all a blame needs (git's blame
//! drops an origin's blob once it has passed its lines on), and a version read again after a
//! clear comes from the pack reader's kept objects.

use super::hunks::Change;
use gix::bstr::{BStr, BString};
use gix::diff::blob::ResourceKind;
use gix::objs::tree::EntryKind;
use gix::objs::{Find, FindExt, FindHeader};
use gix::ObjectId;
use std::collections::HashSet;
use std::ops::ControlFlow;

use crate::git::error::BoxError;

/// Bytes of file versions the diff platform may hold before it is cleared: a hundred versions
/// of a usual source file, so that a blame reads each version about once.
const HELD_MAX: usize = 1 << 20;

/// The change at the blamed path between a parent's tree and a commit's, as gix-blame tells it.
pub enum TreeChange {
    Addition,
    Deletion,
    Modification { previous_id: ObjectId, id: ObjectId },
    Rewrite { source_location: BString, source_id: ObjectId, id: ObjectId },
}

/// Blob diffs through gix's diff platform, with what it holds bounded.
pub struct Diffs {
    platform: gix::diff::blob::Platform,
    algorithm: gix::diff::blob::Algorithm,
    /// The versions set since the platform was last cleared, and their bytes.
    held: HashSet<ObjectId>,
    held_bytes: usize,
    tree_state: gix::diff::tree::State,
    /// The trees diffed, reused from diff to diff.
    trees: (Vec<u8>, Vec<u8>),
}

impl Diffs {
    pub fn new(platform: gix::diff::blob::Platform, algorithm: gix::diff::blob::Algorithm) -> Diffs {
        let (held, tree_state, trees) = (HashSet::new(), Default::default(), Default::default());
        Diffs { platform, algorithm, held, held_bytes: 0, tree_state, trees }
    }

    /// The changes from version `old` (at `old_path`) to `new` (at `path`), in lines of `new`.
    pub fn lines(
        &mut self,
        odb: &(impl Find + FindHeader),
        (old, old_path): (ObjectId, &BStr),
        (new, path): (ObjectId, &BStr),
    ) -> Result<Vec<Change>, BoxError> {
        self.platform.set_resource(old, EntryKind::Blob, old_path, ResourceKind::OldOrSource, odb)?;
        self.platform.set_resource(new, EntryKind::Blob, path, ResourceKind::NewOrDestination, odb)?;
        let outcome = self.platform.prepare_diff()?;
        let (old_data, new_data) =
            (outcome.old.data.as_slice().unwrap_or_default(), outcome.new.data.as_slice().unwrap_or_default());
        let changes = changes(old_data, new_data, self.algorithm);
        for (id, len) in [(old, old_data.len()), (new, new_data.len())] {
            if self.held.insert(id) {
                self.held_bytes += len;
            }
        }
        if self.held_bytes > HELD_MAX {
            self.clear();
        }
        Ok(changes)
    }

    fn clear(&mut self) {
        self.platform.clear_resource_cache_keep_allocation();
        self.held.clear();
        self.held_bytes = 0;
    }

    /// The change at `path` from the tree of `parent` to the tree of `commit` (trees as the
    /// view shows them), a rename looked for as gix-blame looks for it: when the path was not
    /// modified, the trees are diffed again with rename tracking.
    pub fn at_path(
        &mut self,
        odb: &(impl Find + FindHeader),
        trees: (ObjectId, ObjectId),
        path: &BStr,
        rewrites: Option<gix::diff::Rewrites>,
    ) -> Result<Option<TreeChange>, BoxError> {
        let parent_tree = odb.find_tree_iter(&trees.0, &mut self.trees.0)?;
        let tree = odb.find_tree_iter(&trees.1, &mut self.trees.1)?;
        let mut found = ChangeAt { path: path.to_owned(), recorder: Default::default(), change: None };
        found.recorder = found.recorder.track_location(Some(gix::diff::tree::recorder::Location::Path));
        match gix::diff::tree(parent_tree, tree, &mut self.tree_state, odb, &mut found) {
            Ok(()) | Err(gix::diff::tree::Error::Cancelled) => {}
            Err(error) => return Err(error.into()),
        }
        let change = found.change;
        let Some(rewrites) = rewrites.filter(|_| !matches!(change, Some(TreeChange::Modification { .. }))) else {
            return Ok(change);
        };
        let mut change = None;
        let options = gix::diff::tree_with_rewrites::Options {
            location: Some(gix::diff::tree::recorder::Location::Path),
            rewrites: Some(rewrites),
        };
        let found = gix::diff::tree_with_rewrites(
            parent_tree,
            tree,
            &mut self.platform,
            &mut self.tree_state,
            odb,
            |seen| {
                if seen.location() == path {
                    change = Some(seen.into_owned());
                    Ok(ControlFlow::Break(()))
                } else {
                    Ok(ControlFlow::Continue(()))
                }
            },
            options,
        );
        // Rename tracking compares the contents of candidates through the platform: let all of
        // them go at once.
        self.clear();
        match found {
            Ok(_) | Err(gix::diff::tree::Error::Cancelled) => {}
            Err(error) => return Err(error.into()),
        }
        use gix::diff::tree_with_rewrites::Change as Rewritten;
        Ok(change.map(|change| match change {
            Rewritten::Addition { .. } => TreeChange::Addition,
            Rewritten::Deletion { .. } => TreeChange::Deletion,
            Rewritten::Modification { previous_id, id, .. } => TreeChange::Modification { previous_id, id },
            Rewritten::Rewrite { source_location, source_id, id, .. } => {
                TreeChange::Rewrite { source_location, source_id, id }
            }
        }))
    }
}

/// The lines changed from `old` to `new`, in lines of `new`, unchanged stretches included.
fn changes(old: &[u8], new: &[u8], algorithm: gix::diff::blob::Algorithm) -> Vec<Change> {
    let input = gix::diff::blob::InternedInput::new(old, new);
    let mut diff = gix::diff::blob::Diff::compute(algorithm, &input);
    diff.postprocess_lines(&input);
    let mut changes = Vec::new();
    let mut after_last = 0;
    for gix::diff::blob::Hunk { before, after } in diff.hunks() {
        if after.start > after_last {
            changes.push(Change::Unchanged(after_last..after.start));
        }
        let deleted = before.end - before.start;
        changes.push(if after.is_empty() {
            Change::Deleted(after.start, deleted)
        } else {
            Change::AddedOrReplaced(after.start..after.end, deleted)
        });
        after_last = after.end;
    }
    let lines = u32::try_from(input.after.len()).unwrap_or(u32::MAX);
    if lines > after_last {
        changes.push(Change::Unchanged(after_last..lines));
    }
    changes
}

/// The first change at one path of a tree diff, which it then stops.
struct ChangeAt {
    path: BString,
    recorder: gix::diff::tree::Recorder,
    change: Option<TreeChange>,
}

impl gix::diff::tree::Visit for ChangeAt {
    fn pop_front_tracked_path_and_set_current(&mut self) {
        self.recorder.pop_front_tracked_path_and_set_current();
    }

    fn push_back_tracked_path_component(&mut self, component: &BStr) {
        self.recorder.push_back_tracked_path_component(component);
    }

    fn push_path_component(&mut self, component: &BStr) {
        self.recorder.push_path_component(component);
    }

    fn pop_path_component(&mut self) {
        self.recorder.pop_path_component();
    }

    fn visit(&mut self, change: gix::diff::tree::visit::Change) -> gix::diff::tree::visit::Action {
        use gix::diff::tree::visit::Change as Seen;
        if self.recorder.path() != self.path {
            return ControlFlow::Continue(());
        }
        self.change = Some(match change {
            Seen::Addition { .. } => TreeChange::Addition,
            Seen::Deletion { .. } => TreeChange::Deletion,
            Seen::Modification { previous_oid, oid, .. } => {
                TreeChange::Modification { previous_id: previous_oid, id: oid }
            }
        });
        ControlFlow::Break(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_cover_the_newer_version() {
        let changes = changes(b"a\nb\nc\nd\n", b"a\nB\nB2\nc\n", gix::diff::blob::Algorithm::Myers);
        assert_eq!(
            changes,
            [Change::Unchanged(0..1), Change::AddedOrReplaced(1..3, 1), Change::Unchanged(3..4), Change::Deleted(4, 1)]
        );
    }
}
