//! `Context`: everything one opened forgecore instance owns (configuration, store, caches), shared by
//! every thread that calls into it. It is `Send + Sync`; nothing in it is per request.

use crate::cache::archives::Slots;
use crate::cache::Caches;
use crate::config::{Config, RateLimit};
use crate::error::{ApiError, ApiResult};
use crate::events::auto_merge::AutoMerge;
use crate::events::closing_issues::ClosingIssues;
use crate::events::listeners::{DefaultBranch, OpenHandles, TagReleases};
use crate::events::{Events, Listener};
use crate::git::command::Git;
use crate::git::maintenance::{worker::Maintenance, Limits};
use crate::git::places::Places;
use crate::git::push_hook;
use crate::hooks::{Delivery, Outbox};
use crate::observe::metrics::Metrics;
use crate::observe::record::{Setup, Trace};
use crate::store::{self, projects::Project, Store};
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub struct Context {
    pub config: Config,
    pub store: Arc<Store>,
    pub caches: Caches,
    /// The bound on archives built at once (`limits.archive_builds`).
    pub archive_builds: Arc<Slots>,
    /// What `/-/metrics` shows; shared with the answers still streaming when they end.
    pub metrics: Arc<Metrics>,
    /// The git binary, checked at open, that git's own programs run from.
    pub git: Git,
    /// The git programs running per repository (`limits.git_per_repository`).
    pub git_places: Places,
    /// Housekeeping of the repositories served: a thread of its own, closed with the context.
    pub maintenance: Arc<Maintenance>,
    /// Who hears of every change the core makes or accepts ([`Events`]): the default branch,
    /// the open repository handles, maintenance and the webhook outbox.
    pub events: Events,
    /// Webhook deliveries: threads of their own, closed with the context.
    pub hooks: Arc<Delivery>,
}

impl AsRef<Store> for Context {
    fn as_ref(&self) -> &Store {
        &self.store
    }
}

const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Context>();
};

impl Context {
    pub fn open(config: Config) -> Result<Context, String> {
        // The git binary first: a missing or old one refuses the open before anything is made.
        let git = Git::open(&config.git_binary, &config.data_dir, push_hook::HOOKS)?;
        push_hook::sweep(&push_hook::pushes_dir(&config.data_dir));
        let store = Arc::new(Store::open(&config.store.backend(), &config.data_dir)?);
        let caches = Caches::open(&config.cache, &config.data_dir)?;
        let archive_builds = Arc::new(Slots::new(
            config.limits.archive_builds as usize,
            Duration::from_millis(config.limits.archive_queue_millis),
        ));
        let settings = &config.maintenance;
        let maintenance = Arc::new(if settings.enabled {
            let limits = Limits { run: Duration::from_secs(settings.run_timeout_seconds) };
            Maintenance::new(git.clone(), limits, Duration::from_secs(settings.check_interval_seconds))
        } else {
            Maintenance::off()
        });
        let base = config.external_base().unwrap_or("http://localhost").to_string();
        let hooks = Arc::new(Delivery::start(Arc::clone(&store), &config.hooks, base.clone()));
        let outbox = Outbox {
            delivery: Arc::clone(&hooks),
            base: base.clone(),
            limit: config.hooks.push_event_hooks_limit as usize,
            storages: config.storages.clone(),
        };
        let events = Events::new(vec![
            Arc::new(DefaultBranch),
            Arc::new(OpenHandles),
            Arc::new(TagReleases),
            Arc::new(crate::events::refresh::Refresh),
            Arc::new(ClosingIssues { storages: config.storages.clone() }),
            Arc::new(AutoMerge { storages: config.storages.clone(), base_url: base.clone() }),
            Arc::clone(&maintenance) as Arc<dyn Listener>,
            Arc::new(outbox),
        ]);
        Ok(Context {
            config,
            store,
            caches,
            archive_builds,
            git,
            git_places: Default::default(),
            metrics: Arc::new(Metrics::new()),
            maintenance,
            events,
            hooks,
        })
    }

    pub fn from_json(config_json: &str) -> Result<Context, String> {
        Context::open(Config::from_json(config_json)?)
    }

    /// Where `project`'s repository is on this host: under the root this host's configuration
    /// gives its storage, or at the absolute path it was registered with. A project on a storage
    /// this host does not have is a 503: another host serves it (a front proxy routes by project).
    pub fn git_dir(&self, project: &Project) -> ApiResult<PathBuf> {
        project
            .git_dir(&self.config.storages)
            .ok_or(ApiError::Unavailable("the project's repository storage is not on this host"))
    }

    /// Starts the record of a request from `peer` with these raw `headers`
    /// ([`Trace::begin`] with this context's settings and metrics).
    pub fn trace(&self, peer: Option<IpAddr>, method: &str, target: &str, headers: &[(String, String)]) -> Trace {
        let settings = &self.config.requests;
        let setup = Setup {
            trusted_proxies: &settings.trusted_proxies,
            trust_request_id: settings.trust_request_id,
            metrics: self.config.monitoring.metrics.then(|| Arc::clone(&self.metrics)),
        };
        Trace::begin(setup, peer, method, target, headers)
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
