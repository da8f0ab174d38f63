//! `StoreError`: why the store could not do what it was asked, in the store's own terms. What a
//! caller answers for each (a 503, a validation message, a 500) is `src/api`'s business.

/// The cause of a failure in a driver, whatever its type.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database cannot serve now and may later: the data directory is full or read-only,
    /// the database stayed locked or unreachable past its timeout, the server went away.
    #[error("the store is unavailable: {reason}")]
    Unavailable {
        reason: &'static str,
        #[source]
        source: Option<BoxError>,
    },
    /// A unique key (a name, a path, a token digest) is taken.
    #[error("a row with the same unique key exists")]
    Conflict(#[source] BoxError),
    /// A statement that always answers one row answered none.
    #[error("the statement answered no row")]
    NoRow,
    /// The database has a schema this library does not know, or cannot be migrated.
    #[error("{0}")]
    Schema(String),
    /// Anything else: a bug or a broken database.
    #[error("the store failed")]
    Failed(#[source] BoxError),
}

pub type StoreResult<T> = Result<T, StoreError>;

impl StoreError {
    fn unavailable(reason: &'static str, source: impl std::error::Error + Send + Sync + 'static) -> StoreError {
        StoreError::Unavailable { reason, source: Some(Box::new(source)) }
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        use rusqlite::ErrorCode::*;
        match e.sqlite_error_code() {
            Some(DiskFull) => StoreError::unavailable("the data directory is full", e),
            Some(ReadOnly) => StoreError::unavailable("the data directory is read-only", e),
            Some(DatabaseBusy | DatabaseLocked) => StoreError::unavailable("the database is busy, try again", e),
            Some(CannotOpen | SystemIoFailure | PermissionDenied) => {
                StoreError::unavailable("the data directory cannot be read or written", e)
            }
            Some(ConstraintViolation)
                if matches!(
                    &e,
                    rusqlite::Error::SqliteFailure(f, _)
                        if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                            || f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
                ) =>
            {
                StoreError::Conflict(Box::new(e))
            }
            _ => StoreError::Failed(Box::new(e)),
        }
    }
}

impl From<postgres::Error> for StoreError {
    fn from(e: postgres::Error) -> StoreError {
        use postgres::error::SqlState;
        let Some(code) = e.code() else {
            // No answer from the server: the connection broke or could not be made.
            return StoreError::unavailable("the database cannot be reached", e);
        };
        match code {
            c if *c == SqlState::UNIQUE_VIOLATION => StoreError::Conflict(Box::new(e)),
            c if *c == SqlState::QUERY_CANCELED => StoreError::unavailable("the database did not answer in time", e),
            c if *c == SqlState::DISK_FULL => StoreError::unavailable("the database is full", e),
            c if *c == SqlState::T_R_SERIALIZATION_FAILURE || *c == SqlState::T_R_DEADLOCK_DETECTED => {
                StoreError::unavailable("the database is busy, try again", e)
            }
            c if c.code().starts_with("08") || c.code().starts_with("57") || c.code().starts_with("53") => {
                // Connection exceptions, operator intervention (shutdown), insufficient resources.
                StoreError::unavailable("the database cannot be reached", e)
            }
            _ => StoreError::Failed(Box::new(e)),
        }
    }
}

impl From<r2d2::Error> for StoreError {
    fn from(e: r2d2::Error) -> StoreError {
        StoreError::unavailable("the database cannot be reached", e)
    }
}
