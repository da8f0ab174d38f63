//! What a failed git operation means to its caller. Every operation has an error enum of its
//! own (as gitoxide has them: a message per variant, the cause as its `source()`); each says,
//! through [`Classify`], whether it is something the request named that the repository does
//! not have ([`Missing`]), or the repository could not be read. `src/api` turns the first into
//! the endpoint's 404 and the second into a 500 that keeps the whole chain.

/// The cause of a failure in gix, whatever its concrete type.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What a request named that the repository does not have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// The repository directory cannot be opened.
    Repository,
    /// The revision names no commit (unknown, malformed, or another kind of object).
    Revision,
    /// The path does not exist at that revision, or is not of the kind asked for.
    Path,
    /// The object does not exist or is of another kind.
    Object,
}

/// Errors of git operations say whether something named was missing.
pub trait Classify: std::error::Error + Send + Sync + 'static {
    /// `Some` when the failure is that something the request named does not exist.
    fn missing(&self) -> Option<Missing>;
}

/// The cause as a [`BoxError`].
pub fn boxed(error: impl std::error::Error + Send + Sync + 'static) -> BoxError {
    Box::new(error)
}
