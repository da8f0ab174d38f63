//! What repeated reads reuse: [`answers`] in memory (pure functions of commit ids) and
//! [`archives`] on disk. A context owns one of each; the configuration's `cache` sizes them.

pub mod answers;
pub mod archives;

use crate::config::CacheConfig;
use std::path::Path;
use std::sync::Arc;

pub struct Caches {
    pub answers: answers::Answers,
    /// `None` when archives are not cached (`cache.archives` false or `archive_bytes` 0).
    pub archives: Option<Arc<archives::Archives>>,
}

impl Caches {
    pub fn open(config: &CacheConfig, data_dir: &Path) -> Result<Caches, String> {
        let archives = if config.archives && config.archive_bytes > 0 {
            let dir = archives::dir_in(data_dir);
            let cache = archives::Archives::open(dir.clone(), config.archive_bytes)
                .map_err(|e| format!("cannot use the archive cache {}: {e}", dir.display()))?;
            Some(Arc::new(cache))
        } else {
            None
        };
        Ok(Caches { answers: answers::Answers::new(config.answers_bytes), archives })
    }
}
