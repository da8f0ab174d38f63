//! Objects decoded from git's packs the way git decodes them, faster than through gix: an entry
//! of known size is inflated whole with libdeflate ([`Inflater`]; about 0.6 of zlib-rs's time
//! for commits and 0.8 for deltas on the benchmark's pack), and a delta chain is decoded from
//! its base up ([`Decoder`]), each member handed to a cache of the caller's ([`Bases`]), git's
//! deltas applied by [`delta::apply`]. One copy for the core's walks (`src/git/packs.rs`,
//! commit heads, read-ahead) and the archive's reader (`forgecore-archive`).
//!
//! Nothing here finds a pack or an object: the caller has the pack's data file and the entry,
//! and says where a delta's base named by id is. Anything that does not decode (a damaged
//! entry, a delta that does not fit its base, a base in another pack) is `None`, for the caller
//! to read some other way.
//!
//! Large buffers are kept between objects and readers ([`buffers`]): a fresh one costs its
//! page faults every time.
#![forbid(unsafe_code)]

pub mod buffers;
pub mod chain;
pub mod delta;
pub mod inflate;

pub use chain::{Bases, Decoder};
pub use inflate::Inflater;
