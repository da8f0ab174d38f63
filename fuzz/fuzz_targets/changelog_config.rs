//! Arbitrary `.gitlab/changelog_config.yml` contents: YAML, templates, categories, tag regexes.
//! Loading either succeeds or fails with a changelog error, within its budget, never a panic.
#![no_main]

use forgecore_changelog::config::{Config, ConfigLimits};
use libfuzzer_sys::fuzz_target;
use std::time::{Duration, Instant};

fuzz_target!(|data: &[u8]| {
    let limits = ConfigLimits::with_deadline(Instant::now() + Duration::from_millis(500));
    let _ = Config::load(".gitlab/changelog_config.yml", Some(data), limits);
});
