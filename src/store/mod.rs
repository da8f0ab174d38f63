//! The store: users, tokens, groups, projects, protected branches, memberships, member roles,
//! job tokens, health reports, rate-limit counters and merge requests, in one of two backends behind one interface.
//!
//! - [`sqlite`]: the embedded default, one file in the data directory (zero configuration).
//! - [`postgres`]: one PostgreSQL database shared by many hosts.
//! - [`migrations`]: the schema, one numbered list of migrations that both backends run.
//!
//! Callers run work with [`Store::read`] (each statement by itself) or [`Store::write`] (one
//! transaction) on a [`Db`], and the query files (one per table family) run the same SQL on
//! either. Everything answers [`StoreError`]; what that means for a request is the caller's to
//! say. Nothing here knows about HTTP or permissions.

mod db;
mod error;
mod notified;
mod postgres;
mod sqlite;

pub mod auto_merges;
pub mod award_emoji;
pub mod ci_variables;
pub mod copy;
pub mod groups;
pub mod health_reports;
pub mod hooks;
pub mod issues;
pub mod labels;
pub mod member_roles;
pub mod members;
pub mod merge_requests;
pub mod migrations;
pub mod namespaces;
pub mod notes;
pub mod projects;
pub mod protected_branches;
pub mod push_rules;
pub mod rate_limits;
pub mod releases;
pub mod shares;
pub mod statuses;
pub mod tokens;
pub mod topics;
pub mod users;

pub use db::{Db, Dialect, Param};
pub use error::{StoreError, StoreResult};
pub use postgres::Settings as PostgresSettings;
pub use sqlite::DB_FILE;

use crate::observe::metrics::{self, Histogram, Sample};
use crate::observe::stats;
use std::path::Path;
use std::time::Instant;

/// Which backend holds the data, as the configuration names it.
#[derive(Debug, Clone)]
pub enum Backend {
    Sqlite,
    Postgres(PostgresSettings),
}

pub struct Store {
    inner: Inner,
    /// How long each store operation took (a read, a transaction, a memo lookup), for
    /// `/-/metrics`; each also counts in its request's record (`observe::stats`).
    operations: Histogram,
}

enum Inner {
    Sqlite(sqlite::Sqlite),
    Postgres(postgres::Postgres),
}

impl Store {
    /// Opens the store the configuration names, migrating it; `data_dir` holds SQLite's file.
    pub fn open(backend: &Backend, data_dir: &Path) -> Result<Store, String> {
        let inner = match backend {
            Backend::Sqlite => Inner::Sqlite(sqlite::Sqlite::open(data_dir)?),
            Backend::Postgres(settings) => Inner::Postgres(postgres::Postgres::open(settings)?),
        };
        Ok(Store { inner, operations: Histogram::new(metrics::WORK_BUCKETS) })
    }

    /// Runs one store operation, timing it.
    fn timed<T>(&self, work: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let result = work();
        let spent = started.elapsed();
        self.operations.observe(spent);
        stats::add_db(spent);
        result
    }

    /// Whether the store answers now: a statement through the pool (within `timeout`) and,
    /// for PostgreSQL, a listener that is connected and heard from lately. The error says which.
    pub fn check(&self, timeout: std::time::Duration) -> Result<(), String> {
        match &self.inner {
            Inner::Sqlite(store) => store
                .read(|db| db.one("SELECT 1", &[], |r| r.i64(0)))
                .map(|_| ())
                .map_err(|e| format!("the SQLite store does not answer: {e}")),
            Inner::Postgres(store) => store.check(timeout),
        }
    }

    /// What `/-/metrics` shows of the store: operation times and, for PostgreSQL, the pool.
    pub fn samples(&self) -> Vec<Sample<'_>> {
        let backend = match self.dialect() {
            Dialect::Sqlite => "sqlite",
            Dialect::Postgres => "postgres",
        };
        let mut samples = vec![Sample {
            name: "forgecore_store_operation_duration_seconds",
            kind: "histogram",
            help: "Time of store operations (a read, a transaction), pool waits included.",
            labels: format!("backend=\"{backend}\""),
            value: metrics::Value::Histogram(&self.operations),
        }];
        if let Inner::Postgres(store) = &self.inner {
            let (open, idle) = store.pool_state();
            for (state, count) in [("idle", idle), ("busy", open.saturating_sub(idle))] {
                samples.push(Sample {
                    name: "forgecore_store_pool_connections",
                    kind: "gauge",
                    help: "Connections of the store's pool, by state.",
                    labels: format!("backend=\"{backend}\",state=\"{state}\""),
                    value: metrics::Value::Number(f64::from(count)),
                });
            }
        }
        samples
    }

    pub fn dialect(&self) -> Dialect {
        match self.inner {
            Inner::Sqlite(_) => Dialect::Sqlite,
            Inner::Postgres(_) => Dialect::Postgres,
        }
    }

    /// What the live token with this digest authenticates (`job`: a CI job token, else a
    /// personal access token); `None` when no live token has it. PostgreSQL answers tokens it
    /// has seen from memory, kept correct across hosts by invalidation (see `notified.rs`).
    pub fn principal(&self, digest: &[u8], job: bool) -> StoreResult<Option<tokens::Principal>> {
        self.timed(|| match &self.inner {
            Inner::Sqlite(store) => store.read(|db| tokens::principal(db, digest, job)),
            Inner::Postgres(store) => store.principal(digest, job),
        })
    }

    /// The member roles of one namespace (`None`: the instance's), ordered by name. PostgreSQL
    /// answers from memory once every change acknowledged before the call has been heard (see
    /// `notified.rs`).
    pub fn member_roles(&self, namespace: Option<i64>) -> StoreResult<Vec<member_roles::MemberRole>> {
        self.timed(|| match &self.inner {
            Inner::Sqlite(store) => store.read(|db| member_roles::list(db, namespace)),
            Inner::Postgres(store) => store.member_roles(namespace),
        })
    }

    /// The project a request names (`None`: there is none). PostgreSQL answers from memory once
    /// every change acknowledged before the call has been heard (see `notified.rs`).
    pub fn project(&self, name: &projects::Name) -> StoreResult<Option<projects::Project>> {
        self.timed(|| match &self.inner {
            Inner::Sqlite(store) => store.read(|db| projects::find(db, name)),
            Inner::Postgres(store) => store.project(name),
        })
    }

    /// Runs read-only work, or one statement that is atomic by itself.
    pub fn read<T, E: From<StoreError>>(&self, work: impl FnOnce(&mut Db) -> Result<T, E>) -> Result<T, E> {
        self.timed(|| match &self.inner {
            Inner::Sqlite(store) => store.read(work),
            Inner::Postgres(store) => store.read(work),
        })
    }

    /// Runs `work` in one transaction, committed when it returns `Ok`.
    pub fn write<T, E: From<StoreError>>(&self, work: impl FnOnce(&mut Db) -> Result<T, E>) -> Result<T, E> {
        self.timed(|| match &self.inner {
            Inner::Sqlite(store) => store.write(work),
            Inner::Postgres(store) => store.write(work),
        })
    }
}

/// Visibility of a project or group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Visibility {
    Private,
    Internal,
    Public,
}

impl Visibility {
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Private => "private",
            Visibility::Internal => "internal",
            Visibility::Public => "public",
        }
    }

    pub fn parse(text: &str) -> Option<Visibility> {
        match text {
            "private" => Some(Visibility::Private),
            "internal" => Some(Visibility::Internal),
            "public" => Some(Visibility::Public),
            _ => None,
        }
    }

    /// A stored visibility; anything else is a broken database.
    fn read(text: &str) -> StoreResult<Visibility> {
        Visibility::parse(text).ok_or_else(|| StoreError::Schema(format!("unknown visibility {text:?}")))
    }
}

/// Seconds since the Unix epoch.
pub fn now_seconds() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// Today's date in UTC, `YYYY-MM-DD`: memberships expiring on it or before no longer count.
pub fn today() -> String {
    days_from_today(0)
}

/// The date `days` from today (UTC), `YYYY-MM-DD`: a token's default expiry, a lifetime's end.
pub fn days_from_today(days: i64) -> String {
    date_text(now_seconds().div_euclid(86_400) + days)
}

/// Day `days` of the Unix epoch as `YYYY-MM-DD`.
pub fn date_text(days: i64) -> String {
    let (year, month, day) = forgecore_date::civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}")
}
