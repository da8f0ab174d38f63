//! The PostgreSQL backend, for many hosts on one data set: a pool of connections (r2d2) to the
//! server a libpq URL names, each keeping its prepared statements, so a query is one round trip.
//!
//! - Reads run statement by statement (autocommit); writes in one transaction. Invariants that
//!   SQLite gets from `BEGIN IMMEDIATE` take explicit row locks here (`Db::lock_group`).
//! - Every wait is bounded by `timeout_millis`: connecting, taking a connection from the pool,
//!   each statement (`statement_timeout`) and each lock (`lock_timeout`). A server that is gone
//!   or slower than that is [`StoreError::Unavailable`], which the API answers 503; the pool
//!   drops broken connections and makes new ones when the server is back.
//! - Migrations ([`super::migrations`]) run under an advisory lock, so hosts starting together
//!   migrate once; their version is the one row of `schema_version`.
//! - What a token authenticates, the member roles of each namespace and projects by name are
//!   kept in memory while a listener connection hears every change to them from any host
//!   ([`super::notified`]), so an authenticated read is one round trip fewer, and concurrent
//!   role lists and project lookups share one.

use super::db::{Connection, Db, Dialect, Param, Row};
use super::error::{StoreError, StoreResult};
use super::member_roles::{self, MemberRole};
use super::migrations;
use super::notified::{self, Lookup, Memo, Notified};
use super::projects::{self, Project};
use super::tokens::{self, Principal};
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Arbitrary, fixed: the advisory lock key every host takes to migrate.
const MIGRATION_LOCK: i64 = 0x666f_7267_6563_6f72;

/// How to reach the server and how long to wait for it.
#[derive(Debug, Clone)]
pub struct Settings {
    pub url: String,
    pub pool_size: u32,
    pub timeout: Duration,
}

pub struct Postgres {
    pool: r2d2::Pool<Manager>,
    notified: Arc<Notified>,
}

struct Manager {
    config: postgres::Config,
    timeout: Duration,
}

/// A pooled connection and the statements prepared on it, by their SQL.
pub struct PooledClient {
    client: postgres::Client,
    statements: HashMap<String, postgres::Statement>,
}

impl r2d2::ManageConnection for Manager {
    type Connection = PooledClient;
    type Error = postgres::Error;

    fn connect(&self) -> Result<PooledClient, postgres::Error> {
        let mut client = self.config.connect(postgres::NoTls)?;
        let millis = self.timeout.as_millis();
        client.batch_execute(&format!(
            "SET statement_timeout = {millis}; SET lock_timeout = {millis}; SET idle_in_transaction_session_timeout = {}",
            millis * 4
        ))?;
        Ok(PooledClient { client, statements: HashMap::new() })
    }

    fn is_valid(&self, conn: &mut PooledClient) -> Result<(), postgres::Error> {
        conn.client.simple_query("").map(|_| ())
    }

    fn has_broken(&self, conn: &mut PooledClient) -> bool {
        conn.client.is_closed()
    }
}

impl Postgres {
    /// Connects (within the timeout) and migrates; the error says why in one line.
    pub fn open(settings: &Settings) -> Result<Postgres, String> {
        let mut config: tokio_postgres::Config =
            settings.url.parse().map_err(|e| format!("store.postgres is not a valid PostgreSQL URL: {e}"))?;
        config.connect_timeout(settings.timeout);
        config.tcp_user_timeout(settings.timeout);
        config.keepalives_idle(Duration::from_secs(30));
        let mut listener = config.clone();
        listener.application_name("forgecore-listener");
        config.application_name("forgecore");
        let config = postgres::Config::from(config);
        let manager = Manager { config, timeout: settings.timeout };
        // The first connection is made here, so a bad URL, host or password is refused now,
        // with the server's own words.
        let mut first = r2d2::ManageConnection::connect(&manager)
            .map_err(|e| format!("cannot connect to the PostgreSQL store: {}", describe(&e)))?;
        migrate(&mut first.client)?;
        drop(first);
        let pool = r2d2::Pool::builder()
            .max_size(settings.pool_size.max(1))
            .min_idle(Some(0))
            .connection_timeout(settings.timeout)
            .test_on_check_out(false)
            .build_unchecked(manager);
        let notified = Arc::new(Notified::new());
        notified::spawn_listener(listener, &notified)
            .map_err(|e| format!("cannot start the PostgreSQL store's listener thread: {e}"))?;
        Ok(Postgres { pool, notified })
    }

    /// What the token with this digest authenticates: from memory while the listener keeps it
    /// correct, else (and then kept, when live) from the database. A token's scopes and expiry
    /// date are in what is kept (expiry is judged by the caller at each use); a revocation,
    /// rotation or any other change to the table is an update, which the listener hears and
    /// which empties the memo on every host.
    pub fn principal(&self, digest: &[u8], job: bool) -> StoreResult<Option<Principal>> {
        let Ok(bytes) = <[u8; 32]>::try_from(digest) else {
            return self.read(|db| tokens::principal(db, digest, job));
        };
        let key = (job, bytes);
        let ticket = match self.notified.principals.lookup(&key, Instant::now()) {
            Lookup::Hit(principal) => return Ok(Some(principal)),
            Lookup::Miss(ticket) => ticket,
        };
        let found = self.read(|db| tokens::principal(db, digest, job))?;
        let live = !matches!(&found, Some(Principal::User(_, grant)) if grant.revoked);
        if let (Some(principal), Some(_), true) = (&found, ticket, live) {
            self.notified.principals.remember(ticket, key, principal.clone(), Instant::now());
        }
        Ok(found)
    }

    /// The member roles of a namespace: from memory once the listener has heard every change
    /// acknowledged before this call, else (and then kept) from the database.
    pub fn member_roles(&self, namespace: Option<i64>) -> StoreResult<Vec<MemberRole>> {
        self.settled_read(&self.notified.roles, namespace, |db| member_roles::list(db, namespace))
    }

    /// The project a request names, the same way.
    pub fn project(&self, name: &projects::Name) -> StoreResult<Option<Project>> {
        self.settled_read(&self.notified.projects, name.clone(), |db| projects::find(db, name))
    }

    /// What `read` answers for `key`: from `memo` once the listener has heard every change
    /// acknowledged before this call, else (and then kept) from the database.
    fn settled_read<K: Eq + Hash, V: Clone>(
        &self,
        memo: &Memo<K, V>,
        key: K,
        read: impl FnOnce(&mut Db) -> StoreResult<V>,
    ) -> StoreResult<V> {
        let ticket = match self.notified.settled(notified::SETTLE_WITHIN) {
            true => match memo.lookup(&key, Instant::now()) {
                Lookup::Hit(value) => return Ok(value),
                Lookup::Miss(ticket) => ticket,
            },
            false => None,
        };
        let value = self.read(read)?;
        if ticket.is_some() {
            memo.remember(ticket, key, value.clone(), Instant::now());
        }
        Ok(value)
    }

    /// A statement through the pool within `timeout`, and a listener that is connected and
    /// has heard from the server lately (else this host's memos are off and it reads on).
    pub fn check(&self, timeout: Duration) -> Result<(), String> {
        let mut conn = self
            .pool
            .get_timeout(timeout)
            .map_err(|e| format!("the PostgreSQL store does not answer: {}", StoreError::from(e)))?;
        conn.client
            .simple_query("SELECT 1")
            .map_err(|e| format!("the PostgreSQL store does not answer: {}", describe(&e)))?;
        if !self.notified.roles.usable(Instant::now()) {
            return Err("the PostgreSQL store's listener is not connected".into());
        }
        Ok(())
    }

    /// The pool's connections: (open, idle).
    pub fn pool_state(&self) -> (u32, u32) {
        let state = self.pool.state();
        (state.connections, state.idle_connections)
    }

    /// Runs `work` on a pooled connection, each statement committing by itself.
    pub fn read<T, E: From<StoreError>>(&self, work: impl FnOnce(&mut Db) -> Result<T, E>) -> Result<T, E> {
        let mut conn = self.pool.get().map_err(StoreError::from)?;
        work(&mut Db::new(&mut *conn))
    }

    /// Runs `work` in one transaction, committed when it returns `Ok`, rolled back otherwise.
    pub fn write<T, E: From<StoreError>>(&self, work: impl FnOnce(&mut Db) -> Result<T, E>) -> Result<T, E> {
        let mut conn = self.pool.get().map_err(StoreError::from)?;
        conn.client.batch_execute("BEGIN").map_err(StoreError::from)?;
        match work(&mut Db::new(&mut *conn)) {
            Ok(value) => {
                let committed = conn.client.batch_execute("COMMIT").map_err(StoreError::from);
                // This host forgets at once what its own writes may have changed (the listener
                // hears it too, a moment later). A failed COMMIT may have committed.
                self.notified.forget_all();
                committed?;
                Ok(value)
            }
            Err(e) => {
                // A connection that cannot even roll back is broken; the pool drops it.
                let _ = conn.client.batch_execute("ROLLBACK");
                Err(e)
            }
        }
    }
}

impl PooledClient {
    fn statement(&mut self, sql: &str) -> StoreResult<postgres::Statement> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(sql)?;
        self.statements.insert(sql.to_string(), statement.clone());
        Ok(statement)
    }
}

fn bind<'p>(params: &'p [&'p dyn Param]) -> Vec<&'p (dyn postgres::types::ToSql + Sync)> {
    params.iter().map(|p| p.as_postgres()).collect()
}

impl Connection for PooledClient {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn query(
        &mut self,
        sql: &str,
        params: &[&dyn Param],
        each: &mut dyn FnMut(&Row) -> StoreResult<()>,
    ) -> StoreResult<()> {
        let statement = self.statement(sql)?;
        for row in self.client.query(&statement, &bind(params))? {
            each(&Row::Postgres(&row))?;
        }
        Ok(())
    }

    fn execute(&mut self, sql: &str, params: &[&dyn Param]) -> StoreResult<u64> {
        let statement = self.statement(sql)?;
        Ok(self.client.execute(&statement, &bind(params))?)
    }
}

/// The server's message when it gave one (a wrong password, an unknown database), else the
/// client's (a refused connection, a timeout).
fn describe(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => db.message().to_string(),
        None => {
            let mut text = e.to_string();
            let mut source = std::error::Error::source(e);
            while let Some(cause) = source {
                text.push_str(&format!(": {cause}"));
                source = cause.source();
            }
            text
        }
    }
}

/// Runs the migrations the database has not seen, under an advisory lock, in one transaction;
/// a database newer than this library is refused.
fn migrate(client: &mut postgres::Client) -> Result<(), String> {
    let fail = |e: postgres::Error| format!("cannot migrate the PostgreSQL store: {}", describe(&e));
    let mut tx = client.transaction().map_err(fail)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK]).map_err(fail)?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)").map_err(fail)?;
    let version: i64 = match tx.query_opt("SELECT version FROM schema_version", &[]).map_err(fail)? {
        Some(row) => row.get(0),
        None => {
            tx.execute("INSERT INTO schema_version (version) VALUES (0)", &[]).map_err(fail)?;
            0
        }
    };
    for (next, sql) in migrations::pending(Dialect::Postgres, version)? {
        tx.batch_execute(sql).map_err(fail)?;
        tx.execute("UPDATE schema_version SET version = $1", &[&next]).map_err(fail)?;
    }
    tx.commit().map_err(fail)
}
