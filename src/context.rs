//! `Context`: everything one opened forgecore instance owns (configuration, store, caches), shared by
//! every thread that calls into it. It is `Send + Sync`; nothing in it is per request.

use crate::cache::archives::Slots;
use crate::cache::Caches;
use crate::config::{Config, RateLimit};
use crate::error::{ApiError, ApiResult};
use crate::git::command::Git;
use crate::git::maintenance::{worker::Maintenance, Limits};
use crate::observe::metrics::Metrics;
use crate::store::{self, Store};
use std::sync::Arc;
use std::time::Duration;

pub struct Context {
    pub config: Config,
    pub store: Store,
    pub caches: Caches,
    /// The bound on archives built at once (`limits.archive_builds`).
    pub archive_builds: Arc<Slots>,
    /// What `/-/metrics` shows; shared with the answers still streaming when they end.
    pub metrics: Arc<Metrics>,
    /// The git binary, checked at open, that git's own programs run from.
    pub git: Git,
    /// The git programs running per repository (`limits.git_per_repository`).
    pub git_places: crate::transport::Places,
    /// Housekeeping of the repositories served: a thread of its own, closed with the context.
    pub maintenance: Maintenance,
}

const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Context>();
};

impl Context {
    pub fn open(config: Config) -> Result<Context, String> {
        // The git binary first: a missing or old one refuses the open before anything is made.
        let git = Git::open(&config.git_binary, &config.data_dir, crate::transport::policy::HOOKS)?;
        crate::transport::policy::sweep(&crate::transport::receive_pack::pushes_dir(&config.data_dir));
        let store = Store::open(&config.store.backend(), &config.data_dir)?;
        let caches = Caches::open(&config.cache, &config.data_dir)?;
        let archive_builds = Arc::new(Slots::new(
            config.limits.archive_builds as usize,
            Duration::from_millis(config.limits.archive_queue_millis),
        ));
        let settings = &config.maintenance;
        let maintenance = if settings.enabled {
            let limits = Limits { run: Duration::from_secs(settings.run_timeout_seconds) };
            Maintenance::new(git.clone(), limits, Duration::from_secs(settings.check_interval_seconds))
        } else {
            Maintenance::off()
        };
        Ok(Context {
            config,
            store,
            caches,
            archive_builds,
            git,
            git_places: Default::default(),
            metrics: Arc::new(Metrics::new()),
            maintenance,
        })
    }

    pub fn from_json(config_json: &str) -> Result<Context, String> {
        Context::open(Config::from_json(config_json)?)
    }

    /// Counts one hit on `key` under `limit`; past it, a 429 carrying `message` and `Retry-After`.
    /// The counters live in the store, so every process on this data directory shares them.
    pub fn throttle(&self, limit: RateLimit, key: &str, message: &str) -> ApiResult<()> {
        if !limit.enabled() {
            return Ok(());
        }
        let now = store::now_seconds();
        let refused = self.store.read(|db| store::rate_limits::hit(db, key, limit.limit, limit.period_seconds, now))?;
        match refused {
            None => Ok(()),
            Some(retry_after) => Err(ApiError::TooManyRequests { message: message.to_string(), retry_after }),
        }
    }
}
