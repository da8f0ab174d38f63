//! What the PostgreSQL backend keeps in memory, and how it stays correct across hosts: what a
//! token digest authenticated, the member roles of each namespace, and projects by the name a
//! request gave. SQLite answers from its own file in microseconds and keeps nothing.
//!
//! Kept correct by invalidation, never by time:
//!
//! - Every statement that changes the rows an answer comes from notifies a channel (schema
//!   versions 2 and 3's triggers): [`AUTH_CHANNEL`] for users, personal access tokens and job
//!   tokens (updates, deletes, truncates), [`ROLES_CHANNEL`] for member roles and
//!   [`PROJECTS_CHANNEL`] for projects (any change). Each store keeps one connection that
//!   `LISTEN`s on all three, on a thread of its own, and the memo of a channel forgets
//!   everything on any notification of it. A write through this store forgets everything as
//!   soon as it commits too.
//! - A memo is used only while that listener is connected and has heard from the server within
//!   [`FRESH_FOR`]: it pings every [`PING_EVERY`], and a ping answered means every notification
//!   committed before it was sent has been read (PostgreSQL 14 and later send pending
//!   notifications before they say they are ready, and the listener reads messages in order).
//!   While the listener is not connected or not heard from in time, memos are empty and
//!   bypassed.
//! - Tokens are answered from memory at once: a token revoked on one host stops working on
//!   every other once the notification arrives there, and never later than [`FRESH_FOR`] after
//!   the revoke was acknowledged. Only live tokens are kept (an unknown or revoked one is asked
//!   of the database every time), with their scopes and expiry date (judged at each use).
//! - Role lists and projects are answered from memory only after a ping sent after the request
//!   came in was answered ([`Notified::settled`]): so a role or a project change that any host
//!   acknowledged before the request is seen, as GitLab's single database would show it.
//!   Requests that arrive together share a ping, so under load many lookups cost one round
//!   trip, and that round trip needs no statement, plan or rows.
//! - A lookup that missed takes a ticket (the memo's generation); its answer is kept only if
//!   nothing was forgotten since, so an answer read before a change committed is never kept
//!   after the change's notification.

use super::member_roles::MemberRole;
use super::projects::{self, Project};
use super::tokens::Principal;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

/// The channel schema version 2's triggers notify when users or tokens change.
pub const AUTH_CHANNEL: &str = "forgecore_auth";
/// The channel schema version 3's triggers notify when member roles change.
pub const ROLES_CHANNEL: &str = "forgecore_roles";
/// The channel schema version 3's triggers notify when projects change.
pub const PROJECTS_CHANNEL: &str = "forgecore_projects";
/// At most this many tokens are kept; a full memo is emptied and starts over.
pub const CAPACITY: usize = 10_000;
/// At most this many namespaces' role lists are kept.
pub const ROLE_LISTS: usize = 1_000;
/// At most this many project names (found or not) are kept.
pub const PROJECT_NAMES: usize = 10_000;
/// The listener pings the server this often when no request asks for a ping sooner.
pub const PING_EVERY: Duration = Duration::from_millis(250);
/// A memo is used only within this long of the last ping the server answered.
pub const FRESH_FOR: Duration = Duration::from_secs(1);
/// A request waits this long at most for a ping of its own before it asks the database.
pub const SETTLE_WITHIN: Duration = Duration::from_millis(25);
/// After a failed connection, the listener tries again this often.
const RETRY_EVERY: Duration = Duration::from_millis(500);

/// A personal access token's digest or a job token's.
pub type Key = (bool, [u8; 32]);

/// What a lookup found.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup<V> {
    Hit(V),
    /// Not kept: ask the database, then [`Memo::remember`] the answer with this ticket
    /// (`None`: the memo is bypassed and keeps nothing).
    Miss(Option<u64>),
}

/// Answers by key, kept while the listener vouches for them.
pub struct Memo<K, V> {
    state: Mutex<State<K, V>>,
    capacity: usize,
    fresh_for: Duration,
}

struct State<K, V> {
    /// When the server last confirmed the listener is up to date (the moment the ping it
    /// answered was sent); `None` while the listener is not connected.
    confirmed: Option<Instant>,
    /// Moves on every time everything is forgotten.
    generation: u64,
    entries: HashMap<K, V>,
}

impl<K, V> State<K, V> {
    fn usable(&self, now: Instant, fresh_for: Duration) -> bool {
        self.confirmed.is_some_and(|at| now.saturating_duration_since(at) < fresh_for)
    }

    fn forget(&mut self) {
        self.generation += 1;
        self.entries.clear();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing here can leave a state half-changed: a panic elsewhere poisons nothing real.
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl<K: Eq + Hash, V: Clone> Memo<K, V> {
    pub fn new(capacity: usize, fresh_for: Duration) -> Memo<K, V> {
        Memo {
            state: Mutex::new(State { confirmed: None, generation: 0, entries: HashMap::new() }),
            capacity: capacity.max(1),
            fresh_for,
        }
    }

    fn state(&self) -> MutexGuard<'_, State<K, V>> {
        lock(&self.state)
    }

    pub fn lookup(&self, key: &K, now: Instant) -> Lookup<V> {
        let mut state = self.state();
        if !state.usable(now, self.fresh_for) {
            if !state.entries.is_empty() {
                state.forget();
            }
            return Lookup::Miss(None);
        }
        match state.entries.get(key) {
            Some(value) => Lookup::Hit(value.clone()),
            None => Lookup::Miss(Some(state.generation)),
        }
    }

    /// Keeps what the database answered for `key`, unless something was forgotten since the
    /// ticket was taken or the memo is not usable now.
    pub fn remember(&self, ticket: Option<u64>, key: K, value: V, now: Instant) {
        let mut state = self.state();
        if ticket != Some(state.generation) || !state.usable(now, self.fresh_for) {
            return;
        }
        if state.entries.len() >= self.capacity {
            state.entries.clear();
        }
        state.entries.insert(key, value);
    }

    /// Something an answer depends on changed (a notification, a write here).
    pub fn forget_all(&self) {
        self.state().forget();
    }

    /// The listener is connected and listening, as of `at`: start from nothing, since
    /// notifications sent before it listened were not heard.
    pub fn connected(&self, at: Instant) {
        let mut state = self.state();
        state.forget();
        state.confirmed = Some(at);
    }

    /// The server answered a ping sent at `at`, after every notification before it was read.
    pub fn confirm(&self, at: Instant) {
        let mut state = self.state();
        if let Some(confirmed) = state.confirmed {
            state.confirmed = Some(confirmed.max(at));
        }
    }

    /// The listener lost its connection (or never had one): bypass and forget.
    pub fn disconnected(&self) {
        let mut state = self.state();
        state.forget();
        state.confirmed = None;
    }

    /// Whether lookups may be answered from memory now.
    pub fn usable(&self, now: Instant) -> bool {
        self.state().usable(now, self.fresh_for)
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.state().entries.len()
    }
}

/// The memos of one store, the listener's view of them, and the pings requests wait for.
pub struct Notified {
    pub principals: Memo<Key, Principal>,
    /// Member roles by namespace (`None`: the instance's).
    pub roles: Memo<Option<i64>, Vec<MemberRole>>,
    /// Projects by the name a request gave (`None`: no such project).
    pub projects: Memo<projects::Name, Option<Project>>,
    pings: Pings,
}

/// Requests that wait for a ping sent after they came in, and the pings that answer them.
struct Pings {
    /// (requests counted so far, requests a ping has answered so far)
    counts: Mutex<(u64, u64)>,
    answered: Condvar,
    /// Wakes the listener to ping now.
    wanted: Arc<tokio::sync::Notify>,
}

impl Notified {
    pub fn new() -> Notified {
        Notified {
            principals: Memo::new(CAPACITY, FRESH_FOR),
            roles: Memo::new(ROLE_LISTS, FRESH_FOR),
            projects: Memo::new(PROJECT_NAMES, FRESH_FOR),
            pings: Pings {
                counts: Mutex::new((0, 0)),
                answered: Condvar::new(),
                wanted: Arc::new(tokio::sync::Notify::new()),
            },
        }
    }

    /// Waits until the listener has read every notification committed before this call (a
    /// ping sent after it was answered); false when that took longer than `within`, or the
    /// memos are not in use.
    pub fn settled(&self, within: Duration) -> bool {
        if !self.roles.usable(Instant::now()) {
            return false;
        }
        let deadline = Instant::now() + within;
        let mut counts = lock(&self.pings.counts);
        counts.0 += 1;
        let mine = counts.0;
        self.pings.wanted.notify_one();
        while counts.1 < mine {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            counts = self.pings.answered.wait_timeout(counts, left).unwrap_or_else(|poisoned| poisoned.into_inner()).0;
        }
        true
    }

    /// Everything this store's own write may have changed is forgotten.
    pub fn forget_all(&self) {
        self.principals.forget_all();
        self.roles.forget_all();
        self.projects.forget_all();
    }

    fn heard(&self, channel: &str) {
        match channel {
            ROLES_CHANNEL => self.roles.forget_all(),
            PROJECTS_CHANNEL => self.projects.forget_all(),
            _ => self.principals.forget_all(),
        }
    }

    fn connected(&self, at: Instant) {
        self.principals.connected(at);
        self.roles.connected(at);
        self.projects.connected(at);
    }

    fn disconnected(&self) {
        self.principals.disconnected();
        self.roles.disconnected();
        self.projects.disconnected();
    }

    /// The requests counted so far: a ping sent now answers all of them.
    fn counted(&self) -> u64 {
        lock(&self.pings.counts).0
    }

    /// A ping sent at `sent`, after `counted` requests, was answered.
    fn answered(&self, sent: Instant, counted: u64) {
        self.principals.confirm(sent);
        self.roles.confirm(sent);
        self.projects.confirm(sent);
        let mut counts = lock(&self.pings.counts);
        counts.1 = counts.1.max(counted);
        self.pings.answered.notify_all();
    }
}

/// Starts the listener of `notified` on a thread of its own, connecting with `config` (its
/// connect and TCP timeouts bound every wait). The thread holds the memos weakly and ends,
/// closing its connection, at its next wake after the store's end: within [`PING_EVERY`] while
/// listening, half a second while waiting to retry, or one connection attempt.
pub fn spawn_listener(config: tokio_postgres::Config, notified: &Arc<Notified>) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let weak = Arc::downgrade(notified);
    let wanted = notified.pings.wanted.clone();
    std::thread::Builder::new()
        .name("forgecore-listen".into())
        .spawn(move || runtime.block_on(listen(&config, &weak, &wanted)))
        .map(|_| ())
}

async fn listen(config: &tokio_postgres::Config, notified: &Weak<Notified>, wanted: &tokio::sync::Notify) {
    loop {
        if notified.strong_count() == 0 {
            return;
        }
        if let Ok((client, connection)) = config.connect(tokio_postgres::NoTls).await {
            let reader = tokio::spawn(read(connection, notified.clone()));
            let listening = client
                .batch_execute(&format!("LISTEN {AUTH_CHANNEL}; LISTEN {ROLES_CHANNEL}; LISTEN {PROJECTS_CHANNEL}"))
                .await;
            let go_on = match (listening, notified.upgrade()) {
                (Ok(_), Some(memos)) => {
                    // Every commit from here on notifies this connection.
                    memos.connected(Instant::now());
                    drop(memos);
                    ping(&client, notified, wanted).await
                }
                (_, memos) => memos.is_some(),
            };
            reader.abort();
            if !go_on {
                return;
            }
        }
        match notified.upgrade() {
            Some(memos) => memos.disconnected(),
            None => return,
        }
        tokio::time::sleep(RETRY_EVERY).await;
    }
}

/// Reads the connection's messages in order, forgetting on every notification, until it ends.
async fn read(
    mut connection: tokio_postgres::Connection<tokio_postgres::Socket, tokio_postgres::tls::NoTlsStream>,
    notified: Weak<Notified>,
) {
    while let Some(message) = std::future::poll_fn(|cx| connection.poll_message(cx)).await {
        match message {
            Ok(tokio_postgres::AsyncMessage::Notification(notification)) => match notified.upgrade() {
                Some(memos) => memos.heard(notification.channel()),
                None => return,
            },
            Ok(_) => {}
            Err(_) => return,
        }
    }
}

/// Pings every [`PING_EVERY`], and at once whenever a request asks, until the connection fails
/// (true) or the store is gone (false).
async fn ping(client: &tokio_postgres::Client, notified: &Weak<Notified>, wanted: &tokio::sync::Notify) -> bool {
    loop {
        let _ = tokio::time::timeout(PING_EVERY, wanted.notified()).await;
        let Some(memos) = notified.upgrade() else { return false };
        let (sent, counted) = (Instant::now(), memos.counted());
        drop(memos);
        // The reader has handed every notification sent before the answer to the memos by
        // the time the answer is here.
        if !matches!(tokio::time::timeout(FRESH_FOR, client.simple_query("")).await, Ok(Ok(_))) {
            return true;
        }
        let Some(memos) = notified.upgrade() else { return false };
        memos.answered(sent, counted);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::users::User;

    fn alice() -> Principal {
        let user = User {
            id: 1,
            username: "alice".into(),
            name: "Alice".into(),
            email: None,
            is_admin: false,
            ..User::default()
        };
        let grant = crate::store::tokens::Grant {
            id: 1,
            scopes: vec!["api".into()],
            expires_at: None,
            revoked: false,
            last_used_at: None,
        };
        Principal::User(user, grant)
    }

    const KEY: Key = (false, [7; 32]);

    fn connected(now: Instant) -> Memo<Key, Principal> {
        let cache = Memo::new(3, FRESH_FOR);
        cache.connected(now);
        cache
    }

    fn remembered(cache: &Memo<Key, Principal>, key: Key, now: Instant) {
        match cache.lookup(&key, now) {
            Lookup::Miss(ticket) => cache.remember(ticket, key, alice(), now),
            Lookup::Hit(_) => panic!("a hit before anything was kept"),
        }
    }

    #[test]
    fn a_connected_listener_lets_answers_be_kept_and_found() {
        let now = Instant::now();
        let cache = connected(now);
        remembered(&cache, KEY, now);
        assert_eq!(cache.lookup(&KEY, now), Lookup::Hit(alice()));
        assert_eq!(cache.lookup(&(true, [7; 32]), now), Lookup::Miss(Some(1)), "job tokens are other keys");
    }

    #[test]
    fn without_a_listener_nothing_is_kept_or_found() {
        let now = Instant::now();
        let cache = Memo::new(3, FRESH_FOR);
        assert!(!cache.usable(now));
        assert_eq!(cache.lookup(&KEY, now), Lookup::Miss(None));
        cache.remember(Some(0), KEY, alice(), now);
        assert_eq!(cache.len(), 0, "a ticket from before is no licence while the listener is down");
        // Connected, filled, then the connection is lost: empty and bypassed at once.
        cache.connected(now);
        remembered(&cache, KEY, now);
        assert_eq!(cache.len(), 1);
        cache.disconnected();
        assert_eq!(cache.len(), 0);
        assert_eq!(cache.lookup(&KEY, now), Lookup::Miss(None));
    }

    #[test]
    fn a_listener_not_heard_from_within_fresh_for_is_bypassed() {
        let start = Instant::now();
        let cache = connected(start);
        remembered(&cache, KEY, start);
        let late = start + FRESH_FOR;
        assert_eq!(cache.lookup(&KEY, late), Lookup::Miss(None));
        assert_eq!(cache.len(), 0, "a stale cache is emptied, not kept for later");
        // A ping answered brings it back, empty.
        cache.confirm(late);
        assert!(cache.usable(late));
        assert_eq!(cache.lookup(&KEY, late), Lookup::Miss(Some(2)));
        // An older confirmation never moves the clock back.
        cache.confirm(start);
        assert!(cache.usable(late + FRESH_FOR / 2));
    }

    #[test]
    fn an_answer_read_before_a_notification_is_not_kept_after_it() {
        let now = Instant::now();
        let cache = connected(now);
        let Lookup::Miss(ticket) = cache.lookup(&KEY, now) else { panic!("a miss") };
        // The database answered "live", then a revoke's notification came in before the
        // answer was kept.
        cache.forget_all();
        cache.remember(ticket, KEY, alice(), now);
        assert_eq!(cache.len(), 0);
        assert!(matches!(cache.lookup(&KEY, now), Lookup::Miss(Some(_))));
    }

    #[test]
    fn a_notification_forgets_everything() {
        let now = Instant::now();
        let cache = connected(now);
        remembered(&cache, KEY, now);
        remembered(&cache, (false, [8; 32]), now);
        cache.forget_all();
        assert_eq!(cache.len(), 0);
        assert!(matches!(cache.lookup(&KEY, now), Lookup::Miss(Some(_))));
    }

    #[test]
    fn the_cache_is_bounded() {
        let now = Instant::now();
        let cache = connected(now);
        for n in 0..10u8 {
            remembered(&cache, (false, [n; 32]), now);
            assert!(cache.len() <= 3, "{} entries", cache.len());
        }
        assert_eq!(cache.lookup(&(false, [9; 32]), now), Lookup::Hit(alice()), "the newest is kept");
    }
}
