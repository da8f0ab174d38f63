//! Bench rows for the changelog operation (filled in with the operation).

use crate::fixture::Fixture;
use crate::harness::Bench;
use std::path::Path;

pub fn rows(_bench: &mut Bench, _fx: &Fixture, _repo: &Path) -> Result<(), String> {
    Ok(())
}
