//! The attributes an archive honours, looked up as `git archive` does: `export-ignore`,
//! `export-subst`, `filter` (for `filter=lfs`), the conversion attributes `text`, `crlf`, `eol` and
//! `ident` (see `convert`), and `diff` (a zip member's text flag), from the `.gitattributes` blobs of the archived commit (never a
//! work tree), plus `$GIT_DIR/info/attributes` with the highest priority and git's built-in
//! `binary` macro with the lowest. Macros are honoured only where git allows them (the root
//! `.gitattributes` and `info/attributes`).
//!
//! The walk pushes a directory's `.gitattributes` when it enters the directory and pops it
//! when it leaves, so a lookup sees exactly the files git would consult for that path.

use gix::attrs::search::{MetadataCollection, Outcome};
use gix::attrs::{Search, StateRef};
use gix::bstr::ByteSlice;
use gix::glob::pattern::Case;
use std::path::{Path, PathBuf};

const SELECTED: [&str; 8] = ["export-ignore", "filter", "export-subst", "text", "crlf", "eol", "ident", "diff"];

/// The state of one attribute, as git's `ATTR_TRUE` / `ATTR_FALSE` / `ATTR_UNSET` / a value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum State {
    /// Not mentioned, or `!attr`.
    #[default]
    Unspecified,
    Set,
    Unset,
    Value(Vec<u8>),
}

impl State {
    fn of(state: StateRef<'_>) -> State {
        match state {
            StateRef::Set => State::Set,
            StateRef::Unset => State::Unset,
            StateRef::Value(value) => State::Value(value.as_bstr().to_vec()),
            StateRef::Unspecified => State::Unspecified,
        }
    }
}

/// What the attributes say about one path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    pub export_ignore: bool,
    pub lfs: bool,
    pub export_subst: bool,
    pub text: State,
    pub crlf: State,
    pub eol: State,
    pub ident: bool,
    pub diff: State,
}

pub struct Attributes {
    /// `info/attributes`: consulted first.
    info: Search,
    /// The `.gitattributes` of the directories from the root down to the current one.
    stack: Search,
    /// git's built-ins: consulted last.
    builtin: Search,
    collection: MetadataCollection,
    outcome: Outcome,
    /// Whether any pattern list besides the built-ins was loaded: without one, every answer is
    /// the default and no lookup is needed.
    loaded: usize,
}

/// Path bytes as a `PathBuf` (the pattern lists use it only to name their source and base).
fn path_of(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

impl Attributes {
    pub fn new(info_attributes: Option<&Path>) -> Attributes {
        let mut collection = MetadataCollection::default();
        let mut buf = Vec::new();
        let builtin = Search::new_globals(std::iter::empty::<PathBuf>(), &mut buf, &mut collection).unwrap_or_default();
        let mut info = Search::default();
        let mut loaded = 0;
        if let Some(path) = info_attributes {
            // Not following a symlink, as git reads attribute files since 2.32.
            if let Ok(true) = info.add_patterns_file(path.to_path_buf(), false, None, &mut buf, &mut collection, true) {
                loaded += 1;
            }
        }
        let mut attributes =
            Attributes { info, stack: Search::default(), builtin, collection, outcome: Outcome::default(), loaded };
        attributes.outcome.initialize_with_selection(&attributes.collection, SELECTED);
        attributes
    }

    /// Enters directory `dir` (repository-relative, empty for the root) whose `.gitattributes`
    /// holds `bytes`.
    pub fn push(&mut self, dir: &[u8], bytes: &[u8]) {
        let mut source = dir.to_vec();
        if !source.is_empty() {
            source.push(b'/');
        }
        source.extend_from_slice(b".gitattributes");
        let root = dir.is_empty();
        if self
            .stack
            .add_patterns_buffer(bytes, path_of(&source), Some(Path::new("")), &mut self.collection, root)
            .is_ok()
        {
            self.loaded += 1;
            self.outcome.initialize_with_selection(&self.collection, SELECTED);
        } else {
            // Keep push and pop balanced even when a list could not be made.
            let _ =
                self.stack.add_patterns_buffer(b"", path_of(&source), Some(Path::new("")), &mut self.collection, false);
            self.loaded += 1;
        }
    }

    /// Leaves the directory of the last [`push`](Self::push).
    pub fn pop(&mut self) {
        if self.stack.pop_pattern_list().is_some() {
            self.loaded -= 1;
        }
    }

    /// The attributes of the entry at `path` (repository-relative).
    pub fn lookup(&mut self, path: &[u8], is_dir: bool) -> Verdict {
        if self.loaded == 0 {
            return Verdict::default();
        }
        let out = &mut self.outcome;
        out.reset();
        let path = path.as_bstr();
        for search in [&self.info, &self.stack, &self.builtin] {
            search.pattern_matching_relative_path(path, Case::Sensitive, Some(is_dir), out);
            if out.is_done() {
                break;
            }
        }
        let mut verdict = Verdict::default();
        for found in out.iter_selected() {
            let state = found.assignment.state;
            match found.assignment.name.as_str() {
                "export-ignore" => verdict.export_ignore = state == StateRef::Set,
                "filter" => verdict.lfs = matches!(state, StateRef::Value(value) if value.as_bstr() == "lfs"),
                "export-subst" => verdict.export_subst = state == StateRef::Set,
                "text" => verdict.text = State::of(state),
                "crlf" => verdict.crlf = State::of(state),
                "eol" => verdict.eol = State::of(state),
                "ident" => verdict.ident = state == StateRef::Set,
                "diff" => verdict.diff = State::of(state),
                _ => {}
            }
        }
        verdict
    }
}
