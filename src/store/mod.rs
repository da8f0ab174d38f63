//! The SQLite store: one file in the data directory, shared by every process that opens it.
//!
//! Owns the connection pool, the pragmas (WAL, `synchronous=FULL`, busy timeout, foreign keys)
//! and transactions. Writes run in `BEGIN IMMEDIATE` so that a check and the write it guards
//! (the 10-role cap, unique names, rate-limit counters) are one atomic step across processes.
//! Queries live in one file per table family; nothing here knows about HTTP or permissions.

mod schema;

pub mod groups;
pub mod health_reports;
pub mod member_roles;
pub mod members;
pub mod projects;
pub mod rate_limits;
pub mod tokens;
pub mod users;

use crate::error::ApiResult;
use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

pub use schema::SCHEMA_VERSION;

/// Connections kept for reuse; more may be open at once under load, the rest are closed.
const POOL_KEEP: usize = 16;
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
pub const DB_FILE: &str = "forgecore.sqlite3";

pub struct Store {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
}

impl Store {
    /// Opens (creating when needed) the database in `data_dir` and migrates it.
    pub fn open(data_dir: &Path) -> Result<Store, String> {
        std::fs::create_dir_all(data_dir).map_err(|e| format!("cannot create data_dir {}: {e}", data_dir.display()))?;
        check_writable(data_dir)?;
        let path = data_dir.join(DB_FILE);
        let store = Store { path, idle: Mutex::new(Vec::new()) };
        let mut conn = store.connect().map_err(|e| format!("cannot open the database: {e}"))?;
        schema::migrate(&mut conn)?;
        store.put_back(conn);
        Ok(store)
    }

    fn connect(&self) -> rusqlite::Result<Connection> {
        let conn = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.execute_batch(
            "PRAGMA journal_mode = WAL;
             PRAGMA synchronous = FULL;
             PRAGMA foreign_keys = ON;",
        )?;
        Ok(conn)
    }

    fn take(&self) -> ApiResult<Connection> {
        let reused = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        match reused {
            Some(conn) => Ok(conn),
            None => Ok(self.connect()?),
        }
    }

    fn put_back(&self, conn: Connection) {
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        if idle.len() < POOL_KEEP {
            idle.push(conn);
        }
    }

    /// Runs read-only work on a pooled connection.
    pub fn read<T>(&self, work: impl FnOnce(&Connection) -> ApiResult<T>) -> ApiResult<T> {
        let conn = self.take()?;
        let result = work(&conn);
        self.put_back(conn);
        result
    }

    /// Runs `work` in one `BEGIN IMMEDIATE` transaction, committed when it returns `Ok`.
    pub fn write<T>(&self, work: impl FnOnce(&Transaction) -> ApiResult<T>) -> ApiResult<T> {
        let mut conn = self.take()?;
        let result = (|| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let value = work(&tx)?;
            tx.commit()?;
            Ok(value)
        })();
        self.put_back(conn);
        result
    }
}

/// Says plainly why a data directory cannot hold the database, before SQLite says it vaguely.
fn check_writable(data_dir: &Path) -> Result<(), String> {
    let probe = data_dir.join(".forgecore-write-check");
    let result = std::fs::write(&probe, b"ok");
    let _ = std::fs::remove_file(&probe);
    result.map_err(|e| {
        let why = match e.raw_os_error() {
            Some(libc::EROFS) => "is on a read-only file system".to_string(),
            Some(libc::EACCES) | Some(libc::EPERM) => "is not writable".to_string(),
            Some(libc::ENOSPC) => "is full".to_string(),
            _ => format!("cannot be written: {e}"),
        };
        format!("data_dir {} {why}", data_dir.display())
    })
}

/// One row of a statement prepared once per connection (SQLite's planning is a large share of
/// a small query's cost).
pub(crate) fn row<T>(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
    read: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    conn.prepare_cached(sql)?.query_row(params, read)
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
}

impl rusqlite::types::FromSql for Visibility {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        let text = value.as_str()?;
        Visibility::parse(text).ok_or(rusqlite::types::FromSqlError::InvalidType)
    }
}

/// Seconds since the Unix epoch.
pub fn now_seconds() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}
