//! One seam for what happened: every change the core makes or accepts is announced here once,
//! as a typed [`Event`], from the place that made it, and every party that must know of it is
//! a [`Listener`] of the context's [`Events`]. No operation calls a listener by hand.
//!
//! Today's events are refs moved ([`RefsMoved`]), merge requests changed
//! ([`MergeRequestChanged`], announced by their operations and by the [`refresh`] listener,
//! which hears refs moved and records what they did to merge requests), issues opened, changed,
//! closed and reopened ([`IssueEvent`]), notes added ([`NoteCreated`]), releases changed
//! ([`ReleaseChanged`]) and commit statuses posted ([`StatusChanged`], with their pipeline's
//! status). Refs move by the API's write path (files, commits, branches, tags, merges, the
//! changelog commit), announced by the operation with the [`RefUpdate`]s the write path
//! reported, and by a push, announced by the transport when receive-pack has ended; store
//! changes are recorded in the transaction that writes them and heard once it is committed.
//! Today's listeners ([`listeners`]) are the default branch of an empty project's first
//! branch, the repository handles a host keeps open, the maintenance queue, the releases of
//! deleted tags, the merge-request refresh and the webhook outbox (`crate::hooks::Outbox`,
//! durable). Members will announce through the same seam.
//!
//! Two kinds of listener, as Gitea's `services/notify` has one interface for all of them:
//! - A durable listener (the webhook outbox) writes what it must keep in the store, in
//!   the same step as the change: [`Listener::record`] runs inside the store transaction that
//!   makes a store change ([`Events::record`], called by the code making it), and for a change
//!   outside the store (a ref moved in the repository) in a transaction of its own, right after
//!   the change and before the answer ([`Events::announce`]).
//! - Every listener then hears the event once the change is done ([`Listener::heard`]): in
//!   memory, never failing, never waiting on anything slow.
//!
//! The module sits below the context (which owns the listeners) and above the store and git
//! (which the listeners use); it knows nothing of HTTP, the API or the transport.

pub mod auto_merge;
pub mod closing_issues;
pub mod listeners;
pub mod merge;
pub mod refresh;

use crate::error::ApiError;
use crate::git::write::RefUpdate;
use crate::store::{Db, Store};
use std::path::PathBuf;
use std::sync::{Arc, RwLock, RwLockReadGuard};

/// Something the core changed or accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    RefsMoved(RefsMoved),
    /// A release was created, updated or deleted (issue #42), announced by the operation that
    /// changed it, or by [`listeners::TagReleases`] when its tag was deleted.
    Release(ReleaseChanged),
    /// A commit status was posted, and what its pipeline's status is since (issue #42).
    CommitStatus(StatusChanged),
    /// An issue was opened, changed, closed or reopened (announced by `api::issues`).
    Issue(IssueEvent),
    /// A note was added to an issue, a merge request or a commit (announced by `api::notes`,
    /// for notes, discussions and commit comments alike).
    NoteCreated(NoteCreated),
    /// A merge request was opened, changed, closed, reopened or merged (decisions D10): by
    /// its REST operations, or by the refresh after a ref moved ([`refresh`]).
    MergeRequest(Box<MergeRequestChanged>),
}

/// What happened to a release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReleaseAction {
    Created,
    Updated,
    Deleted,
}

/// A release of one project changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseChanged {
    pub project_id: i64,
    pub release_id: i64,
    pub tag_name: String,
    pub action: ReleaseAction,
    /// Who changed it (`None` for a job token or a push that deleted its tag anonymously).
    pub user_id: Option<i64>,
}

/// A commit status was posted to an external pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusChanged {
    pub project_id: i64,
    pub pipeline_id: i64,
    pub status_id: i64,
    pub sha: String,
    pub ref_name: String,
    pub name: String,
    /// The status's own state now.
    pub status: String,
    /// The pipeline's status before and after (equal when it did not change).
    pub pipeline_before: String,
    pub pipeline_status: String,
    pub user_id: Option<i64>,
}

/// What happened to an issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IssueAction {
    Opened,
    Updated,
    Closed,
    Reopened,
}

/// An issue changed: GitLab's issue hook actions `open`, `update`, `close`, `reopen`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssueEvent {
    pub action: IssueAction,
    pub project_id: i64,
    /// The issue's global id and its `iid` in the project.
    pub issue_id: i64,
    pub iid: i64,
    /// The user who made the change.
    pub user_id: Option<i64>,
    /// Whether the issue is confidential (GitLab sends those to `confidential_issues_events`).
    pub confidential: bool,
}

/// A note was added (GitLab's note hook).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteCreated {
    pub project_id: i64,
    pub note_id: i64,
    /// `Issue`, `MergeRequest` or `Commit`, and the noteable's global id (`None` for a commit,
    /// named by `commit_id`).
    pub noteable_type: String,
    pub noteable_id: Option<i64>,
    pub commit_id: Option<String>,
    pub user_id: Option<i64>,
    /// An internal note, or one on a confidential issue (GitLab's `confidential_note_events`).
    pub confidential: bool,
}

/// What happened to a merge request, and the merge request after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeRequestChanged {
    pub action: MergeRequestAction,
    pub merge_request: crate::store::merge_requests::MergeRequest,
    /// The merge request before an update (`Updated` only): what changed, for a hook's `changes`.
    pub previous: Option<crate::store::merge_requests::MergeRequest>,
    /// Who did it (`None`: a job token, or nobody known).
    pub user_id: Option<i64>,
}

/// GitLab's merge request hook actions (`open`, `update`, `close`, `reopen`, `merge`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeRequestAction {
    Opened,
    /// Title, description, branches, people, flags, or a new diff version (a push).
    Updated,
    Closed,
    Reopened,
    Merged,
}

/// References of one project's repository moved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefsMoved {
    pub project_id: i64,
    /// The repository as the API opens it (the store's path on this host).
    pub repository: PathBuf,
    /// The git directory the change was made in: the canonical one for a push, `repository`
    /// for the API's writes.
    pub git_dir: PathBuf,
    /// What moved, in the order it moved; never empty. For a push, the ref lines the client
    /// sent.
    pub updates: Vec<RefUpdate>,
    /// The user who made the change (`None` for a job token).
    pub user_id: Option<i64>,
    pub through: Through,
}

/// Which path a change came in by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Through {
    /// A REST write (or a typed export's): the core's own write path, with gix.
    Api,
    /// `git push` over HTTP: receive-pack wrote the objects and refs.
    Push,
}

/// A party that must know what happened.
pub trait Listener: Send + Sync {
    /// Whether [`record`](Listener::record) writes anything for `event`: only then does a
    /// change outside the store open a transaction for it.
    fn durable(&self, _event: &Event) -> bool {
        false
    }

    /// Keeps what this listener must not lose of `event`, in the transaction `db` that makes
    /// or follows the change. An error fails the announcement (and rolls the transaction back).
    fn record(&self, _db: &mut Db, _event: &Event) -> Result<(), ApiError> {
        Ok(())
    }

    /// As [`record`](Listener::record), for a listener that makes changes of its own in that
    /// transaction (the merge-request refresh): the events of those changes, which every
    /// durable listener then records in the same transaction and every listener hears after
    /// `event`.
    fn record_changes(&self, db: &mut Db, event: &Event) -> Result<Vec<Event>, ApiError> {
        self.record(db, event).map(|()| Vec::new())
    }

    /// The change is done: act on it in memory. Never fails, never blocks for long.
    fn heard(&self, event: &Event);
}

/// The listeners of one context, in the order they hear: those it opened with, then those
/// added since ([`listen`](Events::listen): an embedder's, a test's).
#[derive(Default)]
pub struct Events {
    listeners: RwLock<Vec<Arc<dyn Listener>>>,
}

impl Events {
    pub fn new(listeners: Vec<Arc<dyn Listener>>) -> Events {
        Events { listeners: RwLock::new(listeners) }
    }

    /// Adds `listener`, which hears every event announced from now on.
    pub fn listen(&self, listener: Arc<dyn Listener>) {
        self.listeners.write().unwrap_or_else(|p| p.into_inner()).push(listener);
    }

    fn listeners(&self) -> RwLockReadGuard<'_, Vec<Arc<dyn Listener>>> {
        self.listeners.read().unwrap_or_else(|p| p.into_inner())
    }

    /// A change outside the store is done (a ref moved): the durable listeners record it in
    /// one transaction of `store`, then every listener hears it.
    pub fn announce(&self, store: &Store, event: Event) -> Result<(), ApiError> {
        let followed = if self.listeners().iter().any(|l| l.durable(&event)) {
            store.write(|db| self.record(db, &event))?
        } else {
            Vec::new()
        };
        self.heard(&event);
        for event in &followed {
            self.heard(event);
        }
        Ok(())
    }

    /// Inside the transaction `db` of a store change: the durable listeners record `event`,
    /// and the events of the changes they made in turn (breadth first). The code making the
    /// change calls [`heard`](Events::heard) for `event` and then for each returned event, in
    /// order, once it is committed.
    pub fn record(&self, db: &mut Db, event: &Event) -> Result<Vec<Event>, ApiError> {
        let mut followed = Vec::new();
        let mut next = 0;
        let mut current = event.clone();
        loop {
            for listener in self.listeners().iter().filter(|l| l.durable(&current)) {
                followed.extend(listener.record_changes(db, &current)?);
            }
            let Some(event) = followed.get(next) else { break };
            current = event.clone();
            next += 1;
        }
        Ok(followed)
    }

    /// Every listener hears `event` and then the events its recording led to.
    pub fn heard_all(&self, event: &Event, followed: &[Event]) {
        self.heard(event);
        for event in followed {
            self.heard(event);
        }
    }

    /// Every listener hears `event`, which is done.
    pub fn heard(&self, event: &Event) {
        for listener in self.listeners().iter() {
            listener.heard(event);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Writes what it hears into `heard`; when durable, records each event as a row of
    /// `rate_limits` (a table every store has), or fails when `fail` is set.
    struct Probe {
        durable: bool,
        fail: bool,
        heard: Arc<Mutex<Vec<Event>>>,
    }

    impl Listener for Probe {
        fn durable(&self, _event: &Event) -> bool {
            self.durable
        }

        fn record(&self, db: &mut Db, event: &Event) -> Result<(), ApiError> {
            if self.fail {
                return Err(ApiError::validation("refused"));
            }
            let Event::RefsMoved(moved) = event else { return Ok(()) };
            crate::store::rate_limits::hit(db, &format!("probe:{}", moved.project_id), 100, 60, 0)?;
            Ok(())
        }

        fn heard(&self, event: &Event) {
            self.heard.lock().unwrap().push(event.clone());
        }
    }

    fn moved(project_id: i64) -> Event {
        Event::RefsMoved(RefsMoved {
            project_id,
            repository: "/r".into(),
            git_dir: "/r".into(),
            updates: vec![RefUpdate {
                name: "refs/heads/main".into(),
                old: None,
                new: Some(gix::ObjectId::null(gix::hash::Kind::Sha1)),
            }],
            user_id: Some(1),
            through: Through::Api,
        })
    }

    fn store() -> (Store, std::path::PathBuf) {
        let dir =
            std::env::temp_dir().join(format!("fc-events-{}-{:?}", std::process::id(), std::thread::current().id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let store = Store::open(&crate::store::Backend::Sqlite, &dir).unwrap();
        (store, dir)
    }

    fn recorded(store: &Store, project_id: i64) -> bool {
        let key = format!("probe:{project_id}");
        // A second hit inside the window answers how many came before through its count.
        store.read(|db| crate::store::rate_limits::hit(db, &key, 1, 60, 0)).unwrap().is_some()
    }

    #[test]
    fn every_listener_hears_each_announcement_once_in_order() {
        let (store, dir) = store();
        let heard = Arc::new(Mutex::new(Vec::new()));
        let probe = |durable| Arc::new(Probe { durable, fail: false, heard: Arc::clone(&heard) }) as Arc<dyn Listener>;
        let events = Events::new(vec![probe(false)]);
        events.listen(probe(true));
        events.announce(&store, moved(7)).unwrap();
        events.announce(&store, moved(8)).unwrap();
        assert_eq!(*heard.lock().unwrap(), [moved(7), moved(7), moved(8), moved(8)]);
        assert!(recorded(&store, 7) && recorded(&store, 8), "the durable listener recorded both");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_record_that_fails_fails_the_announcement_and_nobody_hears_it() {
        let (store, dir) = store();
        let heard = Arc::new(Mutex::new(Vec::new()));
        let events = Events::new(vec![
            Arc::new(Probe { durable: false, fail: false, heard: Arc::clone(&heard) }),
            Arc::new(Probe { durable: true, fail: true, heard: Arc::clone(&heard) }),
        ]);
        assert!(events.announce(&store, moved(7)).is_err());
        assert!(heard.lock().unwrap().is_empty());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_store_change_records_in_its_own_transaction() {
        let (store, dir) = store();
        let heard = Arc::new(Mutex::new(Vec::new()));
        let events = Events::new(vec![Arc::new(Probe { durable: true, fail: false, heard: Arc::clone(&heard) })]);
        // The change's transaction fails after recording: nothing of it is kept.
        let failed: Result<(), ApiError> = store.write(|db| {
            events.record(db, &moved(9))?;
            Err(ApiError::validation("the change itself failed"))
        });
        assert!(failed.is_err());
        assert!(!recorded(&store, 9), "a record rolls back with its change");
        store.write(|db| events.record(db, &moved(10))).unwrap();
        events.heard(&moved(10));
        assert!(recorded(&store, 10));
        assert_eq!(*heard.lock().unwrap(), [moved(10)]);
        let _ = std::fs::remove_dir_all(dir);
    }
}
