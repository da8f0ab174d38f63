//! The configuration handed to `fc_open` as JSON: where data lives (the store and the
//! repository storages), the public URL, rate limits, feature switches and request limits
//! (decisions D5, D6).
//! Unknown keys are refused so that a typo never silently falls back to a default.

use crate::observe::client::Cidr;
use crate::store::{Backend, PostgresSettings};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// The GitLab API version we answer for (`GET /version`, hooks' `User-Agent`); clients
/// compare it, so it names a real release.
pub const GITLAB_VERSION: &str = "18.1.0-forgecore";

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Directory holding the SQLite file; created when missing.
    pub data_dir: PathBuf,
    /// Public base URL (`http://host:port`) used for absolute links; the request's Host otherwise.
    #[serde(default)]
    pub external_url: Option<String>,
    #[serde(default)]
    pub rate_limits: RateLimits,
    #[serde(default)]
    pub features: Features,
    #[serde(default)]
    pub limits: Limits,
    #[serde(default)]
    pub cache: CacheConfig,
    /// Where the data lives: SQLite in `data_dir` (the default) or a PostgreSQL database.
    #[serde(default)]
    pub store: StoreConfig,
    /// Named repository storages, as Gitaly has them: a name and the root directory under
    /// which the repositories of the projects on that storage live.
    #[serde(default)]
    pub storages: BTreeMap<String, PathBuf>,
    /// The git whose programs serve git over HTTP and maintenance (`src/git/command.rs`): a
    /// path, or a name looked up once in the host's `PATH` when the context opens. Checked
    /// then: missing or older than 2.39.4 refuses `fc_open`.
    #[serde(default = "default_git_binary")]
    pub git_binary: String,
    /// What the core believes of a request beyond its peer: forwarded addresses, request ids.
    #[serde(default)]
    pub requests: RequestsConfig,
    /// The `/-/` routes (probes and metrics): who may reach them, and whether metrics are kept.
    #[serde(default)]
    pub monitoring: MonitoringConfig,
    /// Housekeeping of the repositories served (commit-graph, repacks).
    #[serde(default)]
    pub maintenance: MaintenanceConfig,
    /// Webhooks: where they may point and how they are delivered (decisions D11).
    #[serde(default)]
    pub hooks: HooksConfig,
}

/// `"hooks": {"allow_local_requests": false, "allowlist": ["10.0.0.7", "*.internal"], ...}`:
/// what webhook URLs may reach (GitLab's `allow_local_requests_from_web_hooks_and_services`
/// and `outbound_local_requests_whitelist`: host names, `*.` suffixes, addresses and address
/// blocks) and how deliveries go: `delivery_threads` threads per context (0: this host
/// delivers nothing, another does), each waiting up to `poll_millis` for work; a request may
/// take `connect_timeout_millis` to connect and `timeout_millis` in all (GitLab's
/// `webhook_timeout`, 10 s); a delivery is tried up to `attempts` times, `retry_seconds` apart,
/// doubling; a host claims a delivery for `lease_seconds` (past that, another host may take
/// it); a push changing more than `push_event_hooks_limit` branches or tags at once fires no
/// hooks for them (GitLab's `push_event_hooks_limit`, 3).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HooksConfig {
    pub allow_local_requests: bool,
    pub allowlist: Vec<String>,
    pub delivery_threads: u32,
    pub poll_millis: u64,
    pub connect_timeout_millis: u64,
    pub timeout_millis: u64,
    pub attempts: u32,
    pub retry_seconds: u64,
    pub lease_seconds: u64,
    pub push_event_hooks_limit: u32,
    /// A PEM file of CA certificates trusted for https deliveries besides Mozilla's roots
    /// (a private CA); empty: none.
    pub ca_file: String,
}

impl Default for HooksConfig {
    fn default() -> Self {
        HooksConfig {
            allow_local_requests: false,
            allowlist: Vec::new(),
            delivery_threads: 2,
            poll_millis: 1_000,
            connect_timeout_millis: 5_000,
            timeout_millis: 10_000,
            attempts: 5,
            retry_seconds: 60,
            lease_seconds: 60,
            push_event_hooks_limit: 3,
            ca_file: String::new(),
        }
    }
}

impl HooksConfig {
    /// The outbound door's rules.
    pub fn rules(&self) -> crate::outbound::Rules {
        crate::outbound::Rules {
            allow_local_requests: self.allow_local_requests,
            allowlist: self.allowlist.clone(),
            connect_timeout: Duration::from_millis(self.connect_timeout_millis),
            timeout: Duration::from_millis(self.timeout_millis),
            extra_roots: self.extra_roots(),
        }
    }

    /// The certificates of `ca_file` (DER); a file that cannot be read is logged and trusts
    /// nothing more.
    fn extra_roots(&self) -> Vec<Vec<u8>> {
        use rustls::pki_types::{pem::PemObject, CertificateDer};
        if self.ca_file.is_empty() {
            return Vec::new();
        }
        match CertificateDer::pem_file_iter(&self.ca_file) {
            Ok(iter) => iter.filter_map(|c| c.ok()).map(|c| c.as_ref().to_vec()).collect(),
            Err(e) => {
                log::warn!("hooks.ca_file {}: {e}", self.ca_file);
                Vec::new()
            }
        }
    }
}

/// `"requests": {"trusted_proxies": ["10.0.0.0/8"], "trust_request_id": false}`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RequestsConfig {
    /// Peers whose `X-Forwarded-For` is believed (none by default: the peer is the client).
    pub trusted_proxies: Vec<Cidr>,
    /// Whether a client's well-formed `X-Request-Id` becomes the correlation id (GitLab's
    /// Workhorse `propagateCorrelationID`, off by default).
    pub trust_request_id: bool,
}

/// `"monitoring": {"ip_allowlist": ["127.0.0.0/8", "::1/128"], "metrics": true}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MonitoringConfig {
    /// Client addresses that may reach `/-/health`, `/-/liveness`, `/-/readiness` and
    /// `/-/metrics` (GitLab's `monitoring.ip_whitelist`); others get an empty 404.
    pub ip_allowlist: Vec<Cidr>,
    /// Whether requests, git operations and the rest are counted for `/-/metrics`.
    pub metrics: bool,
}

impl Default for MonitoringConfig {
    fn default() -> Self {
        let loopback = ["127.0.0.0/8", "::1/128"].iter().filter_map(|c| Cidr::parse(c).ok()).collect();
        MonitoringConfig { ip_allowlist: loopback, metrics: true }
    }
}

/// `"maintenance": {"enabled": true, "run_timeout_seconds": 3600, "check_interval_seconds":
/// 600}`: housekeeping of the repositories served (`src/git/maintenance`): after forgecore
/// changes one, and when a request finds one unmaintained (looked at most once every
/// `check_interval_seconds` per repository); one run takes at most `run_timeout_seconds`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MaintenanceConfig {
    pub enabled: bool,
    pub run_timeout_seconds: u64,
    pub check_interval_seconds: u64,
}

impl Default for MaintenanceConfig {
    fn default() -> Self {
        MaintenanceConfig { enabled: true, run_timeout_seconds: 3600, check_interval_seconds: 600 }
    }
}

fn default_git_binary() -> String {
    "git".into()
}

/// `"store": {"postgres": "postgresql://user:password@host:port/db"}` (with an optional
/// `pool_size` and `timeout_millis`), or `{"sqlite": {}}`, the default.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StoreConfig {
    pub sqlite: Option<SqliteConfig>,
    /// A libpq URL.
    pub postgres: Option<String>,
    /// Connections each process keeps to PostgreSQL at most (8; see the README on sizing it).
    pub pool_size: u32,
    /// The longest wait for PostgreSQL: connecting, a pooled connection, a statement, a lock.
    pub timeout_millis: u64,
}

/// SQLite takes no settings: its file is `data_dir/forgecore.sqlite3`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SqliteConfig {}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig { sqlite: None, postgres: None, pool_size: 8, timeout_millis: 5_000 }
    }
}

impl StoreConfig {
    /// The backend it names.
    pub fn backend(&self) -> Backend {
        match &self.postgres {
            Some(url) => Backend::Postgres(PostgresSettings {
                url: url.clone(),
                pool_size: self.pool_size,
                timeout: Duration::from_millis(self.timeout_millis),
            }),
            None => Backend::Sqlite,
        }
    }
}

/// One rate limit: at most `limit` hits per `period_seconds`; `limit` 0 turns it off.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RateLimit {
    pub limit: u32,
    pub period_seconds: u32,
}

impl RateLimit {
    const fn per(limit: u32, period_seconds: u32) -> Self {
        RateLimit { limit, period_seconds }
    }
    pub fn enabled(&self) -> bool {
        self.limit > 0 && self.period_seconds > 0
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RateLimits {
    /// Every authenticated or anonymous API request, per caller (off by default).
    pub api_requests: RateLimit,
    /// Anonymous API requests, per client address: GitLab's `throttle_unauthenticated_api`
    /// (off by default, as GitLab ships it).
    pub unauthenticated_api: RateLimit,
    /// Archive downloads per user and project.
    pub archive: RateLimit,
    /// Blobs over 10 MB, per caller and project.
    pub large_blob: RateLimit,
    /// Health report generation, per project.
    pub health_generate: RateLimit,
}

impl Default for RateLimits {
    fn default() -> Self {
        RateLimits {
            api_requests: RateLimit::per(0, 60),
            unauthenticated_api: RateLimit::per(0, 60),
            archive: RateLimit::per(5, 60),
            large_blob: RateLimit::per(5, 60),
            health_generate: RateLimit::per(5, 3600),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Features {
    pub repository_health: bool,
    /// Serves `GET /api/v4/__panic`, which panics: only for testing the panic guard.
    pub test_panic_route: bool,
}

impl Default for Features {
    fn default() -> Self {
        Features { repository_health: true, test_panic_route: false }
    }
}

/// `"cache": {"answers_bytes": ..., "archives": true, "archive_bytes": ...}`: what repeated
/// reads may reuse. Answers that are pure functions of commit ids (contributors of a tip, merge
/// bases, compares, a changelog range's commits) are kept in memory up to `answers_bytes`;
/// archives on disk under `data_dir/archive-cache` up to `archive_bytes` (0 or `archives`
/// false: none). Least recently used entries go first.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CacheConfig {
    pub answers_bytes: u64,
    pub archives: bool,
    pub archive_bytes: u64,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig { answers_bytes: 32 << 20, archives: true, archive_bytes: 1 << 30 }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    pub per_page_default: u32,
    pub per_page_max: u32,
    pub max_body_bytes: usize,
    pub changelog_max_commits: u32,
    pub changelog_parse_millis: u64,
    /// Blob JSON (`/blobs/:sha`) answers with content up to this size; larger ones need `raw`.
    pub blob_json_max_bytes: u64,
    /// Diff limits of one compare (GitLab's defaults: `diff_max_files` 1000, `diff_max_lines`
    /// 50000, bytes 5 KiB a file, `diff_max_patch_bytes` 200 KiB). Past a tenth of the first
    /// three, patches collapse; past them, the list ends (`compare_timeout`). A patch of
    /// `diff_max_patch_bytes` or more is `too_large`, one of a tenth of it collapses.
    pub diff_max_files: u32,
    pub diff_max_lines: u32,
    pub diff_max_bytes: u64,
    pub diff_max_patch_bytes: u64,
    /// At most this many refs in one merge-base request.
    pub max_refs: u32,
    /// A compare lists at most the newest this many commits, whoever calls.
    pub compare_max_commits: u32,
    /// Time budget of one compare: a walk still running past it is a 503; diffs past it end
    /// the list with `compare_timeout` true.
    pub compare_timeout_millis: u64,
    /// Time budget of one blame (GitLab calls Gitaly's `RawBlame` with `gitaly_timeout_medium`,
    /// 30 s): a blame still running past it is GitLab's 500.
    pub blame_timeout_millis: u64,
    /// Archives built at once, by all requests of this process (each is a thread for as long as
    /// its slowest reader takes); a build waits up to `archive_queue_millis` for its turn, then
    /// is a 503 with `Retry-After`. Cached archives and downloads joining a build wait for none.
    pub archive_builds: u32,
    pub archive_queue_millis: u64,
    /// Git over HTTP: the largest pack a push may send (`receive.maxInputSize`; 1 GiB), the
    /// time one git program may run (an hour), and how many run at once on one repository
    /// (8; one more is a 503 with `Retry-After`).
    pub git_push_max_bytes: u64,
    pub git_timeout_seconds: u64,
    pub git_per_repository: u32,
    /// Days a project or group marked for deletion stays restorable before it is purged
    /// (decisions D9; GitLab's `deletion_adjourned_period`, 7); 0 purges at once.
    pub deletion_delay_days: u32,
    /// The longest a personal access token may live, in days (GitLab's 365): a token made
    /// without `expires_at` expires this many days from today, and a later date is refused.
    /// 0: tokens need not expire (one made without a date never does).
    pub token_max_lifetime_days: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            per_page_default: 20,
            per_page_max: 100,
            max_body_bytes: 1 << 20,
            changelog_max_commits: 15_000,
            changelog_parse_millis: 2_000,
            blob_json_max_bytes: 100 << 20,
            diff_max_files: 1_000,
            diff_max_lines: 50_000,
            diff_max_bytes: 1_000 * 5 * 1024,
            diff_max_patch_bytes: 200 * 1024,
            max_refs: 100,
            compare_max_commits: 10_000,
            compare_timeout_millis: 10_000,
            blame_timeout_millis: 30_000,
            archive_builds: 16,
            archive_queue_millis: 10_000,
            git_push_max_bytes: 1 << 30,
            git_timeout_seconds: 3600,
            git_per_repository: 8,
            deletion_delay_days: 7,
            token_max_lifetime_days: 365,
        }
    }
}

impl Config {
    /// Parses and checks a configuration; the error says what is wrong in one line.
    pub fn from_json(text: &str) -> Result<Config, String> {
        let config: Config = serde_json::from_str(text).map_err(|e| format!("invalid configuration: {e}"))?;
        config.validate()?;
        Ok(config)
    }

    fn validate(&self) -> Result<(), String> {
        if self.data_dir.as_os_str().is_empty() {
            return Err("invalid configuration: data_dir is empty".into());
        }
        if let Some(url) = &self.external_url {
            let rest = url
                .strip_prefix("http://")
                .or_else(|| url.strip_prefix("https://"))
                .ok_or("invalid configuration: external_url must start with http:// or https://")?;
            if rest.trim_end_matches('/').is_empty() || rest.contains(['?', '#', ' ']) {
                return Err("invalid configuration: external_url must be scheme://host[:port][/path]".into());
            }
        }
        let l = &self.limits;
        if l.per_page_default == 0 || l.per_page_max == 0 || l.per_page_default > l.per_page_max {
            return Err("invalid configuration: per_page_default must be between 1 and per_page_max".into());
        }
        if l.max_body_bytes == 0 {
            return Err("invalid configuration: max_body_bytes must be positive".into());
        }
        let store = &self.store;
        if store.sqlite.is_some() && store.postgres.is_some() {
            return Err("invalid configuration: store names both sqlite and postgres; name one backend".into());
        }
        if store.pool_size == 0 || store.timeout_millis == 0 {
            return Err("invalid configuration: store.pool_size and store.timeout_millis must be positive".into());
        }
        for (name, root) in &self.storages {
            if name.is_empty() || !root.is_absolute() {
                return Err(format!(
                    "invalid configuration: storage {name:?} needs a name and an absolute root directory, not {}",
                    root.display()
                ));
            }
        }
        if l.compare_max_commits == 0 || l.compare_timeout_millis == 0 {
            return Err("invalid configuration: compare_max_commits and compare_timeout_millis must be positive".into());
        }
        if l.git_push_max_bytes == 0 || l.git_timeout_seconds == 0 || l.git_per_repository == 0 {
            return Err(
                "invalid configuration: git_push_max_bytes, git_timeout_seconds and git_per_repository must be positive"
                    .into(),
            );
        }
        if l.blame_timeout_millis == 0 {
            return Err("invalid configuration: blame_timeout_millis must be positive".into());
        }
        if l.archive_builds == 0 {
            return Err("invalid configuration: archive_builds must be positive".into());
        }
        let h = &self.hooks;
        if h.poll_millis == 0 || h.connect_timeout_millis == 0 || h.timeout_millis == 0 || h.attempts == 0 {
            return Err(
                "invalid configuration: hooks.poll_millis, connect_timeout_millis, timeout_millis and attempts must be positive"
                    .into(),
            );
        }
        if h.lease_seconds * 1000 <= h.timeout_millis + h.connect_timeout_millis {
            return Err("invalid configuration: hooks.lease_seconds must be longer than a request may take".into());
        }
        for entry in &h.allowlist {
            if entry.trim().is_empty() || entry.contains(['/', ' ']) && Cidr::parse(entry).is_err() {
                return Err(format!("invalid configuration: hooks.allowlist entry {entry:?} is not a host or address"));
            }
        }
        Ok(())
    }

    /// `external_url` without a trailing slash.
    pub fn external_base(&self) -> Option<&str> {
        self.external_url.as_deref().map(|u| u.trim_end_matches('/'))
    }
}
