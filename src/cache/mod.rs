//! What repeated reads reuse: [`answers`] in memory (pure functions of commit ids) and
//! [`archives`] on disk. A context owns one of each; the configuration's `cache` sizes them.

pub mod answers;
pub mod archives;

use crate::config::CacheConfig;
use crate::observe::metrics::{Sample, Value};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub struct Caches {
    /// Shared with the answers that finish computing while they are written (a compare's).
    pub answers: Arc<answers::Answers>,
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
        Ok(Caches { answers: Arc::new(answers::Answers::new(config.answers_bytes)), archives })
    }
}

impl Caches {
    /// What `/-/metrics` shows of the caches: lookups by result, and the archive cache's bytes.
    pub fn samples(&self) -> Vec<Sample<'static>> {
        let lookups = |cache: &str, result: &str, count: &AtomicU64| Sample {
            name: "forgecore_cache_requests_total",
            kind: "counter",
            help: "Cache lookups, by cache and result.",
            labels: format!("cache=\"{cache}\",result=\"{result}\""),
            value: Value::Number(count.load(Ordering::Relaxed) as f64),
        };
        let mut samples =
            vec![lookups("answers", "hit", &self.answers.hits), lookups("answers", "miss", &self.answers.misses)];
        let mut archive_bytes = 0;
        if let Some(archives) = &self.archives {
            samples.push(lookups("archives", "hit", &archives.hits));
            samples.push(lookups("archives", "miss", &archives.misses));
            archive_bytes = archives.used_bytes();
        }
        samples.push(Sample {
            name: "forgecore_archive_cache_bytes",
            kind: "gauge",
            help: "Bytes the archive cache holds on disk (finished entries and builds under way).",
            labels: String::new(),
            value: Value::Number(archive_bytes as f64),
        });
        samples.push(Sample {
            name: "forgecore_answer_cache_bytes",
            kind: "gauge",
            help: "Bytes the in-memory answer cache holds.",
            labels: String::new(),
            value: Value::Number(self.answers.bytes() as f64),
        });
        samples
    }
}
