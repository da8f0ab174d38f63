//! What a token digest authenticated, kept in memory by the PostgreSQL backend, so an
//! authenticated read costs one round trip fewer. SQLite answers from its own file in
//! microseconds and has no such cache.
//!
//! Kept correct across hosts by invalidation, never by time:
//!
//! - Only live tokens are kept (a token that is unknown or revoked is asked of the database
//!   every time), at most [`CAPACITY`] of them (a full cache starts over).
//! - Every statement that updates, deletes or truncates users, personal access tokens or job
//!   tokens notifies the channel [`CHANNEL`] (schema version 2's triggers); each store keeps one
//!   connection that `LISTEN`s on it, on a thread of its own, and forgets everything on any
//!   notification. A write through this store forgets everything as soon as it commits too.
//! - The cache is used only while that listener is connected and has heard from the server
//!   within [`FRESH_FOR`]: it pings every [`PING_EVERY`], and a ping answered means every
//!   notification committed before it was sent has been read (the server sends pending
//!   notifications before it says it is ready). While the listener is not connected (starting,
//!   connection lost, server down), or has not heard back in time (a network that drops
//!   packets), the cache is empty and bypassed. So a token revoked on one host stops working on
//!   every other host once the notification arrives there, and never later than [`FRESH_FOR`]
//!   after the revoke was acknowledged, whatever the network does.
//! - A lookup that missed takes a ticket (the cache's generation); its answer is kept only if
//!   nothing was forgotten since, so an answer read before a revoke committed is never kept
//!   after the revoke's notification.

use super::tokens::Principal;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

/// The channel the triggers of schema version 2 notify.
pub const CHANNEL: &str = "forgecore_auth";
/// At most this many digests are kept; a full cache is emptied and starts over.
pub const CAPACITY: usize = 10_000;
/// The listener pings the server this often when no notification comes.
pub const PING_EVERY: Duration = Duration::from_millis(250);
/// The cache is used only within this long of the last ping the server answered.
pub const FRESH_FOR: Duration = Duration::from_secs(1);
/// After a failed connection, the listener tries again this often.
const RETRY_EVERY: Duration = Duration::from_millis(500);

/// A personal access token's digest or a job token's.
pub type Key = (bool, [u8; 32]);

/// What a lookup found.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    Hit(Principal),
    /// Not kept: ask the database, then [`PrincipalCache::remember`] the answer with this
    /// ticket (`None`: the cache is bypassed and keeps nothing).
    Miss(Option<u64>),
}

pub struct PrincipalCache {
    state: Mutex<State>,
    capacity: usize,
    fresh_for: Duration,
}

struct State {
    /// When the server last confirmed the listener is up to date (the moment the ping it
    /// answered was sent); `None` while the listener is not connected.
    confirmed: Option<Instant>,
    /// Moves on every time everything is forgotten.
    generation: u64,
    entries: HashMap<Key, Principal>,
}

impl State {
    fn usable(&self, now: Instant, fresh_for: Duration) -> bool {
        self.confirmed.is_some_and(|at| now.saturating_duration_since(at) < fresh_for)
    }

    fn forget(&mut self) {
        self.generation += 1;
        self.entries.clear();
    }
}

impl PrincipalCache {
    pub fn new(capacity: usize, fresh_for: Duration) -> PrincipalCache {
        PrincipalCache {
            state: Mutex::new(State { confirmed: None, generation: 0, entries: HashMap::new() }),
            capacity: capacity.max(1),
            fresh_for,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // Nothing here can leave the state half-changed: a panic elsewhere poisons nothing real.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn lookup(&self, key: &Key, now: Instant) -> Lookup {
        let mut state = self.state();
        if !state.usable(now, self.fresh_for) {
            if !state.entries.is_empty() {
                state.forget();
            }
            return Lookup::Miss(None);
        }
        match state.entries.get(key) {
            Some(principal) => Lookup::Hit(principal.clone()),
            None => Lookup::Miss(Some(state.generation)),
        }
    }

    /// Keeps what the database answered for `key`, unless something was forgotten since the
    /// ticket was taken or the cache is not usable now.
    pub fn remember(&self, ticket: Option<u64>, key: Key, principal: Principal, now: Instant) {
        let mut state = self.state();
        if ticket != Some(state.generation) || !state.usable(now, self.fresh_for) {
            return;
        }
        if state.entries.len() >= self.capacity {
            state.entries.clear();
        }
        state.entries.insert(key, principal);
    }

    /// Something that decides authentication changed (a notification, a write here).
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
    #[cfg(test)]
    pub fn usable(&self, now: Instant) -> bool {
        self.state().usable(now, self.fresh_for)
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.state().entries.len()
    }
}

/// Starts the listener of `cache` on a thread of its own, connecting with `config` (its
/// connect and TCP timeouts bound every wait). The thread holds the cache weakly and ends,
/// closing its connection, at its next wake after the store's end: within [`PING_EVERY`] while
/// listening, half a second while waiting to retry, or one connection attempt.
pub fn spawn_listener(config: postgres::Config, cache: &Arc<PrincipalCache>) -> std::io::Result<()> {
    let cache = Arc::downgrade(cache);
    std::thread::Builder::new().name("forgecore-listen".into()).spawn(move || listen(&config, &cache)).map(|_| ())
}

fn listen(config: &postgres::Config, cache: &Weak<PrincipalCache>) {
    loop {
        if cache.strong_count() == 0 {
            return;
        }
        if let Ok(mut client) = config.connect(postgres::NoTls) {
            let listening = client.batch_execute(&format!("LISTEN {CHANNEL}"));
            if listening.is_ok() {
                // Every commit from here on notifies this connection.
                match cache.upgrade() {
                    Some(cache) => cache.connected(Instant::now()),
                    None => return,
                }
                if !serve(&mut client, cache) {
                    return;
                }
            }
        }
        match cache.upgrade() {
            Some(cache) => cache.disconnected(),
            None => return,
        }
        std::thread::sleep(RETRY_EVERY);
    }
}

/// Reads notifications and pings until the connection fails (true) or the store is gone
/// (false).
fn serve(client: &mut postgres::Client, cache: &Weak<PrincipalCache>) -> bool {
    use postgres::fallible_iterator::FallibleIterator;
    let mut pinged = Instant::now();
    loop {
        let heard = match client.notifications().timeout_iter(PING_EVERY).next() {
            Ok(heard) => heard.is_some(),
            Err(_) => return true,
        };
        let Some(cache) = cache.upgrade() else { return false };
        if heard {
            cache.forget_all();
        }
        if client.is_closed() {
            return true;
        }
        if pinged.elapsed() >= PING_EVERY {
            let sent = Instant::now();
            if client.simple_query("").is_err() {
                return true;
            }
            // Notifications that came with the answer are read before the ping counts.
            let pending = client.notifications().iter().count().unwrap_or(0);
            if pending > 0 {
                cache.forget_all();
            }
            cache.confirm(sent);
            pinged = sent;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::users::User;

    fn alice() -> Principal {
        Principal::User(User { id: 1, username: "alice".into(), name: "Alice".into(), email: None, is_admin: false })
    }

    const KEY: Key = (false, [7; 32]);

    fn connected(now: Instant) -> PrincipalCache {
        let cache = PrincipalCache::new(3, FRESH_FOR);
        cache.connected(now);
        cache
    }

    fn remembered(cache: &PrincipalCache, key: Key, now: Instant) {
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
        let cache = PrincipalCache::new(3, FRESH_FOR);
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
