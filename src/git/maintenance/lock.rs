//! One maintenance run per repository, across threads, processes and hosts: the lock is a file
//! in the repository, `objects/maintenance.lock`, created with `O_CREAT | O_EXCL`: the very file
//! `git maintenance run` takes, so an operator's own `git maintenance` and forgecore's exclude
//! each other too. Every host that serves a repository reads it from the same directory, so a
//! file there is seen by all of them, whatever their store (SQLite on one host, or a PostgreSQL
//! cluster); `O_EXCL` is atomic on local file systems and on NFS from version 3.
//!
//! Why not a PostgreSQL advisory lock: it would protect only hosts on one database (not SQLite
//! ones, nor a second cluster on the same storage), not against git's own maintenance, and it
//! lives as long as a database session, which would pin a pooled connection for a whole run.
//!
//! The file says who holds it (`forgecore <host> <pid> <unix seconds>`). A holder that died
//! leaves it behind, so a lock is stale, and broken, when its process is gone (same host), or
//! when it is older than the longest a run may take plus a margin (any host: a run is killed at
//! its time limit, so a live holder is never that old). Breaking is a rename to a name of the
//! breaker's own, then a check that what was renamed is the stale lock that was judged (another
//! host may have broken it and taken it meanwhile: then it is linked back, and the breaker
//! gives up this time).

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The lock's file, under the repository's objects directory (git's `maintenance.lock`).
pub const FILE: &str = "maintenance.lock";

/// Held while it lives; the file is removed on drop.
#[derive(Debug)]
pub struct Lock {
    path: PathBuf,
    content: String,
}

/// Why the lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Another run (this host's, another's, or git's own maintenance) holds it.
    #[error("another maintenance run holds {0}")]
    Busy(String),
    #[error("cannot take the maintenance lock")]
    Io(#[source] io::Error),
}

/// This host's name (the kernel's), as the lock records it.
pub fn host_name() -> String {
    fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty() && !name.contains(char::is_whitespace))
        .unwrap_or_else(|| "unknown".into())
}

fn now_seconds() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Who holds a lock, as its file says.
struct Holder {
    host: String,
    pid: u32,
    since: u64,
}

fn parse(content: &str) -> Option<Holder> {
    let mut words = content.split_whitespace();
    if words.next()? != "forgecore" {
        return None;
    }
    let host = words.next()?.to_string();
    let pid = words.next()?.parse().ok()?;
    let since = words.next()?.parse().ok()?;
    Some(Holder { host, pid, since })
}

/// Whether process `pid` of this host still exists.
fn alive(pid: u32) -> bool {
    match rustix::process::Pid::from_raw(pid as i32) {
        Some(pid) => match rustix::process::test_kill_process(pid) {
            Ok(()) => true,
            // It exists, as another user's.
            Err(e) => e == rustix::io::Errno::PERM,
        },
        None => false,
    }
}

impl Lock {
    /// Takes the lock of the repository whose objects directory is `objects`. A lock older than
    /// `stale_after`, or held by a process of this host that is gone, is broken first.
    pub fn acquire(objects: &Path, stale_after: Duration) -> Result<Lock, Error> {
        let path = objects.join(FILE);
        let content = format!("forgecore {} {} {}\n", host_name(), std::process::id(), now_seconds());
        match create(&path, &content) {
            Ok(()) => return Ok(Lock { path, content }),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(Error::Io(e)),
        }
        let found = fs::read_to_string(&path).unwrap_or_default();
        if !stale(&path, &found, stale_after) || !break_stale(&path, &found) {
            return Err(Error::Busy(found.trim().to_string()));
        }
        match create(&path, &content) {
            Ok(()) => Ok(Lock { path, content }),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                Err(Error::Busy(fs::read_to_string(&path).unwrap_or_default().trim().to_string()))
            }
            Err(e) => Err(Error::Io(e)),
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Only our own file: a lock that was (wrongly) broken and taken by another stays theirs.
        if fs::read_to_string(&self.path).is_ok_and(|c| c == self.content) {
            let _ = fs::remove_file(&self.path);
        }
    }
}

fn create(path: &Path, content: &str) -> io::Result<()> {
    let mut file = OpenOptions::new().write(true).create_new(true).open(path)?;
    file.write_all(content.as_bytes())
}

/// Whether the lock at `path`, reading `content`, may be broken.
fn stale(path: &Path, content: &str, stale_after: Duration) -> bool {
    let holder = parse(content);
    if let Some(holder) = &holder {
        if holder.host == host_name() && !alive(holder.pid) {
            return true;
        }
    }
    // Age by the file's time and by what it says, whichever is younger (a foreign lock, git's
    // own, says nothing).
    let by_file = fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .unwrap_or(Duration::ZERO);
    let by_content = holder.map_or(by_file, |h| Duration::from_secs(now_seconds().saturating_sub(h.since)));
    by_file.min(by_content) > stale_after
}

/// Moves the stale lock `path` (read as `judged`) out of the way; `false` when what was moved
/// is not it (another breaker took the lock meanwhile: it is put back).
fn break_stale(path: &Path, judged: &str) -> bool {
    let aside = path.with_extension(format!("lock.stale-{}-{}", host_name(), std::process::id()));
    if fs::rename(path, &aside).is_err() {
        return false;
    }
    let moved = fs::read_to_string(&aside).unwrap_or_default();
    if moved != judged {
        // Not the lock we judged: hand it back (link fails if yet another one was taken).
        let _ = fs::hard_link(&aside, path);
        let _ = fs::remove_file(&aside);
        return false;
    }
    let _ = fs::remove_file(&aside);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("fc-lock-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn one_holder_at_a_time_and_released_on_drop() {
        let dir = scratch("one");
        let lock = Lock::acquire(&dir, Duration::from_secs(3600)).unwrap();
        assert!(matches!(Lock::acquire(&dir, Duration::from_secs(3600)), Err(Error::Busy(_))));
        drop(lock);
        assert!(!dir.join(FILE).exists());
        assert!(Lock::acquire(&dir, Duration::from_secs(3600)).is_ok());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn stale_locks_are_broken_live_ones_are_not() {
        let dir = scratch("stale");
        let hour = Duration::from_secs(3600);
        // A process of this host that is gone.
        let dead = format!("forgecore {} {} {}\n", host_name(), i32::MAX - 7, now_seconds());
        fs::write(dir.join(FILE), &dead).unwrap();
        let lock = Lock::acquire(&dir, hour).expect("a dead holder's lock is broken");
        drop(lock);
        // Another host's, fresh: busy; the same, two hours old: broken.
        let other = format!("forgecore other-host 1 {}\n", now_seconds());
        fs::write(dir.join(FILE), &other).unwrap();
        assert!(matches!(Lock::acquire(&dir, hour), Err(Error::Busy(_))));
        let old = format!("forgecore other-host 1 {}\n", now_seconds() - 7200);
        fs::write(dir.join(FILE), &old).unwrap();
        let file = fs::File::options().write(true).open(dir.join(FILE)).unwrap();
        file.set_modified(SystemTime::now() - Duration::from_secs(7200)).unwrap();
        assert!(Lock::acquire(&dir, hour).is_ok(), "an old lock is broken");
        // git's own lock (empty), fresh: busy.
        let _ = fs::remove_file(dir.join(FILE));
        fs::write(dir.join(FILE), "").unwrap();
        assert!(matches!(Lock::acquire(&dir, hour), Err(Error::Busy(_))));
        let _ = fs::remove_dir_all(&dir);
    }
}
