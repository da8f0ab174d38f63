//! The commit-graph's changed-path Bloom filters (`git commit-graph write --changed-paths`):
//! which commits certainly did not change a path against their first parent.
//!
//! Not read yet: [`ChangedPaths::for_path`] answers `None`, so every walk compares trees.

/// The filters of one commit-graph, queried for one path.
pub struct ChangedPaths {
    _private: (),
}

impl ChangedPaths {
    /// The filters of `graph` for `path`, when the repository's commit-graph has them.
    pub fn for_path(_repo: &gix::Repository, _graph: &gix::commitgraph::Graph, _path: &str) -> Option<ChangedPaths> {
        None
    }

    /// Whether commit `id`'s filter proves the path unchanged against its first parent.
    pub fn unchanged_in(&self, _graph: &gix::commitgraph::Graph, _id: gix::ObjectId) -> bool {
        false
    }
}
