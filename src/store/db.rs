//! One connection of either backend, as the query files see it: [`Db`] runs a statement with
//! parameters and hands each result row over as a [`Row`], whichever database is underneath.
//!
//! Every statement is written once, in the SQL both SQLite and PostgreSQL read, with `$1`, `$2`
//! ... placeholders (rewritten to SQLite's `?1`, `?2` on the way there). Where the dialects part
//! (row locks, case-insensitive lookups), a query file asks [`Db::dialect`]. Parameters are any
//! value both drivers can bind ([`Param`]: integers, text, bytes, booleans, and their options);
//! every PostgreSQL integer column is a `BIGINT`, so every integer reads as `i64`.

use super::error::{StoreError, StoreResult};

/// A value both drivers can bind.
pub trait Param {
    fn as_sqlite(&self) -> &dyn rusqlite::ToSql;
    fn as_postgres(&self) -> &(dyn postgres::types::ToSql + Sync);
}

impl<T: rusqlite::ToSql + postgres::types::ToSql + Sync> Param for T {
    fn as_sqlite(&self) -> &dyn rusqlite::ToSql {
        self
    }

    fn as_postgres(&self) -> &(dyn postgres::types::ToSql + Sync) {
        self
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// What a backend's connection does for [`Db`].
pub(super) trait Connection {
    fn dialect(&self) -> Dialect;
    /// Runs `sql`, handing every row to `each`.
    fn query(
        &mut self,
        sql: &str,
        params: &[&dyn Param],
        each: &mut dyn FnMut(&Row) -> StoreResult<()>,
    ) -> StoreResult<()>;
    /// Runs `sql`; the number of rows it changed.
    fn execute(&mut self, sql: &str, params: &[&dyn Param]) -> StoreResult<u64>;
}

/// One connection, inside a transaction when it writes.
pub struct Db<'a> {
    connection: &'a mut dyn Connection,
}

impl<'a> Db<'a> {
    pub(super) fn new(connection: &'a mut dyn Connection) -> Db<'a> {
        Db { connection }
    }

    pub fn dialect(&self) -> Dialect {
        self.connection.dialect()
    }

    /// Every row, read by `read`.
    pub fn rows<T>(
        &mut self,
        sql: &str,
        params: &[&dyn Param],
        mut read: impl FnMut(&Row) -> StoreResult<T>,
    ) -> StoreResult<Vec<T>> {
        let mut out = Vec::new();
        self.connection.query(sql, params, &mut |row| {
            out.push(read(row)?);
            Ok(())
        })?;
        Ok(out)
    }

    /// The first row, if there is one.
    pub fn row<T>(
        &mut self,
        sql: &str,
        params: &[&dyn Param],
        mut read: impl FnMut(&Row) -> StoreResult<T>,
    ) -> StoreResult<Option<T>> {
        let mut out = None;
        self.connection.query(sql, params, &mut |row| {
            if out.is_none() {
                out = Some(read(row)?);
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// The one row a statement always answers (`count(*)`, `EXISTS`, `RETURNING`).
    pub fn one<T>(
        &mut self,
        sql: &str,
        params: &[&dyn Param],
        read: impl FnMut(&Row) -> StoreResult<T>,
    ) -> StoreResult<T> {
        self.row(sql, params, read)?.ok_or(StoreError::NoRow)
    }

    /// Runs a statement; the number of rows it changed.
    pub fn execute(&mut self, sql: &str, params: &[&dyn Param]) -> StoreResult<u64> {
        self.connection.execute(sql, params)
    }
}

/// One result row of either backend. Columns are read by position.
pub enum Row<'r> {
    Sqlite(&'r rusqlite::Row<'r>),
    Postgres(&'r postgres::Row),
}

impl Row<'_> {
    fn get<T>(&self, index: usize) -> StoreResult<T>
    where
        T: rusqlite::types::FromSql + for<'a> postgres::types::FromSql<'a>,
    {
        match self {
            Row::Sqlite(row) => row.get(index).map_err(StoreError::from),
            Row::Postgres(row) => row.try_get(index).map_err(StoreError::from),
        }
    }

    pub fn i64(&self, index: usize) -> StoreResult<i64> {
        self.get(index)
    }

    pub fn opt_i64(&self, index: usize) -> StoreResult<Option<i64>> {
        self.get(index)
    }

    pub fn string(&self, index: usize) -> StoreResult<String> {
        self.get(index)
    }

    pub fn opt_string(&self, index: usize) -> StoreResult<Option<String>> {
        self.get(index)
    }

    pub fn bytes(&self, index: usize) -> StoreResult<Vec<u8>> {
        self.get(index)
    }

    /// A boolean: PostgreSQL's `BOOLEAN`, SQLite's integer 0 or 1.
    pub fn bool(&self, index: usize) -> StoreResult<bool> {
        match self {
            Row::Sqlite(row) => row.get::<_, i64>(index).map(|n| n != 0).map_err(StoreError::from),
            Row::Postgres(row) => row.try_get(index).map_err(StoreError::from),
        }
    }
}

impl Row<'_> {
    /// A nullable boolean, as [`Row::bool`].
    pub fn opt_bool(&self, index: usize) -> StoreResult<Option<bool>> {
        match self {
            Row::Sqlite(row) => row.get::<_, Option<i64>>(index).map(|n| n.map(|n| n != 0)).map_err(StoreError::from),
            Row::Postgres(row) => row.try_get(index).map_err(StoreError::from),
        }
    }
}

/// `sql` with PostgreSQL's `$N` placeholders as SQLite's `?N`.
pub(super) fn sqlite_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push('?');
        } else {
            out.push(c);
        }
    }
    out
}

/// A `LIKE` pattern matching `search` anywhere in a lower-cased column, with `%`, `_` and `\`
/// escaped (the query says `ESCAPE '\'`): GitLab's `search` of names and paths, ignoring case.
pub fn like_pattern(search: &str) -> String {
    let escaped: String = search
        .to_lowercase()
        .chars()
        .flat_map(|c| match c {
            '%' | '_' | '\\' => vec!['\\', c],
            c => vec![c],
        })
        .collect();
    format!("%{escaped}%")
}

#[cfg(test)]
mod tests {
    #[test]
    fn placeholders_become_sqlites() {
        assert_eq!(super::sqlite_placeholders("a = $1 AND b = $12 OR c = '$'"), "a = ?1 AND b = ?12 OR c = '$'");
    }
}
