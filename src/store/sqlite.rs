//! The SQLite backend, the embedded default: one file in the data directory, shared by every
//! process that opens it. Owns the connection pool, the pragmas (WAL, `synchronous=FULL`, busy
//! timeout, foreign keys) and the running of the migrations ([`super::migrations`]), their
//! version kept in SQLite's `user_version`. Writes run in `BEGIN IMMEDIATE`, so a check and the
//! write it guards (the 10-role cap, unique names) are one atomic step across processes.

use super::db::{sqlite_placeholders, Connection, Db, Dialect, Param, Row};
use super::error::{StoreError, StoreResult};
use super::migrations;
use rusqlite::{OpenFlags, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// Connections kept for reuse; more may be open at once under load, the rest are closed.
const POOL_KEEP: usize = 16;
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// Prepared statements kept per connection: every statement the store runs stays prepared.
const STATEMENT_CACHE: usize = 128;
pub const DB_FILE: &str = "forgecore.sqlite3";

pub struct Sqlite {
    path: PathBuf,
    idle: Mutex<Vec<rusqlite::Connection>>,
}

impl Sqlite {
    /// Opens (creating when needed) the database in `data_dir` and migrates it.
    pub fn open(data_dir: &Path) -> Result<Sqlite, String> {
        std::fs::create_dir_all(data_dir).map_err(|e| format!("cannot create data_dir {}: {e}", data_dir.display()))?;
        check_writable(data_dir)?;
        let store = Sqlite { path: data_dir.join(DB_FILE), idle: Mutex::new(Vec::new()) };
        let mut conn = store.connect().map_err(|e| format!("cannot open the database: {e}"))?;
        migrate(&mut conn)?;
        store.put_back(conn);
        Ok(store)
    }

    fn connect(&self) -> rusqlite::Result<rusqlite::Connection> {
        let conn = rusqlite::Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        // The query planner's stability guarantee: one plan per statement whatever the values
        // bound. Without it SQLite expires a prepared join each time its parameters are bound
        // and parses it again at the next step (a quarter of the Go host's time for a token's
        // `GET /version` went to re-preparing the token lookup).
        conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
        conn.execute_batch(
            "PRAGMA journal_mode = WAL;
             PRAGMA synchronous = FULL;
             PRAGMA foreign_keys = ON;",
        )?;
        Ok(conn)
    }

    fn take(&self) -> StoreResult<rusqlite::Connection> {
        let reused = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        match reused {
            Some(conn) => Ok(conn),
            None => Ok(self.connect()?),
        }
    }

    fn put_back(&self, conn: rusqlite::Connection) {
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        if idle.len() < POOL_KEEP {
            idle.push(conn);
        }
    }

    /// Runs `work` on a pooled connection, each statement committing by itself.
    pub fn read<T, E: From<StoreError>>(&self, work: impl FnOnce(&mut Db) -> Result<T, E>) -> Result<T, E> {
        let conn = self.take()?;
        let result = work(&mut Db::new(&mut SqliteConnection(&conn)));
        self.put_back(conn);
        result
    }

    /// Runs `work` in one `BEGIN IMMEDIATE` transaction, committed when it returns `Ok`.
    pub fn write<T, E: From<StoreError>>(&self, work: impl FnOnce(&mut Db) -> Result<T, E>) -> Result<T, E> {
        let mut conn = self.take()?;
        let result = (|| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(StoreError::from)?;
            let value = work(&mut Db::new(&mut SqliteConnection(&tx)))?;
            tx.commit().map_err(StoreError::from)?;
            Ok(value)
        })();
        self.put_back(conn);
        result
    }
}

struct SqliteConnection<'c>(&'c rusqlite::Connection);

fn bind<'a>(params: &'a [&'a dyn Param]) -> impl rusqlite::Params + 'a {
    rusqlite::params_from_iter(params.iter().map(|p| p.as_sqlite()))
}

impl Connection for SqliteConnection<'_> {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn query(
        &mut self,
        sql: &str,
        params: &[&dyn Param],
        each: &mut dyn FnMut(&Row) -> StoreResult<()>,
    ) -> StoreResult<()> {
        let mut statement = self.0.prepare_cached(&sqlite_placeholders(sql))?;
        let mut rows = statement.query(bind(params))?;
        while let Some(row) = rows.next()? {
            each(&Row::Sqlite(row))?;
        }
        Ok(())
    }

    fn execute(&mut self, sql: &str, params: &[&dyn Param]) -> StoreResult<u64> {
        let mut statement = self.0.prepare_cached(&sqlite_placeholders(sql))?;
        Ok(statement.execute(bind(params))? as u64)
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

/// Runs the migrations this database has not seen, in one transaction; a database newer than
/// this library is refused.
fn migrate(conn: &mut rusqlite::Connection) -> Result<(), String> {
    let fail = |e: rusqlite::Error| format!("cannot migrate the database: {e}");
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(fail)?;
    let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(fail)?;
    for (next, sql) in migrations::pending(Dialect::Sqlite, version)? {
        tx.execute_batch(sql).map_err(fail)?;
        tx.pragma_update(None, "user_version", next).map_err(fail)?;
    }
    tx.commit().map_err(fail)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

    /// A join run again with new parameters keeps its plan: it is not parsed again.
    #[test]
    fn a_cached_join_is_not_prepared_again() {
        let dir = std::env::temp_dir().join(format!("forgecore-qpsg-{}", std::process::id()));
        let store = super::Sqlite::open(&dir).unwrap();
        let conn = store.take().unwrap();
        let sql = "SELECT u.id FROM personal_access_tokens t JOIN users u ON u.id = t.user_id
                   WHERE t.digest = ?1 AND NOT t.revoked";
        for digest in [[1u8; 32], [2u8; 32], [3u8; 32]] {
            let mut statement = conn.prepare_cached(sql).unwrap();
            let mut rows = statement.query([digest.to_vec()]).unwrap();
            while rows.next().unwrap().is_some() {}
            drop(rows);
            assert_eq!(statement.get_status(rusqlite::StatementStatus::RePrepare), 0);
        }
        drop(conn);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
