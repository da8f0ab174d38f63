//! Webhooks' engine (issue #41, decisions D11): the outbox listener and the delivery threads.
//!
//! - [`Outbox`], a durable listener of the events seam: for every branch or tag a change moved
//!   (a REST write or a push), the payload GitLab builds ([`payload`]) is written, one row per
//!   hook that wants it (its event flag, its branch filter), in the outbox table, in the same
//!   transaction as the change's record, before the answer. A push changing more than
//!   `push_event_hooks_limit` branches (or tags) at once in one way (created, updated,
//!   removed) fires no hooks for those, as GitLab's `ProcessRefChangesService`.
//! - [`Delivery`], the threads of one context (started with it, stopped when it closes): each
//!   claims a due delivery with a lease, sends it through the outbound door ([`deliver`]),
//!   logs it, counts the hook's failures (GitLab's auto-disabling) and settles the row:
//!   delivered; due again later (`retry_seconds`, doubling, and never before a temporarily
//!   disabled hook is back); or failed after `attempts` tries. On PostgreSQL several hosts
//!   share the outbox: a claim skips rows another host holds, and a host that dies mid-delivery
//!   leaves the row to whoever claims it after its lease. Every try of one delivery carries the
//!   same `Idempotency-Key`, so that a receiver can drop a repeat: delivery is at least once.
//!
//! Nothing here waits on a receiver while a request or a push waits: writes only record.

pub mod deliver;
pub mod filter;
pub mod payload;
pub mod uuid;

pub use uuid::uuid;

use crate::auth::protection;
use crate::config::HooksConfig;
use crate::error::ApiError;
use crate::events::{Event, Listener};
use crate::outbound::Rules;
use crate::store::{self, hooks, Db, Store};
use payload::push::{self, Push};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

pub fn now_millis() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// What the delivery threads share.
struct Shared {
    store: Arc<Store>,
    settings: HooksConfig,
    rules: Rules,
    instance: String,
    /// Who claims: one name per context.
    owner: String,
    state: Mutex<State>,
    wake: Condvar,
}

#[derive(Default)]
struct State {
    closed: bool,
    /// Bumped by every new delivery recorded here.
    generation: u64,
}

/// The delivery threads of one context.
pub struct Delivery {
    shared: Arc<Shared>,
    workers: Mutex<Vec<JoinHandle<()>>>,
}

impl Delivery {
    /// Starts `settings.delivery_threads` threads delivering from `store`'s outbox; `instance`
    /// is the `X-Gitlab-Instance` (the external URL).
    pub fn start(store: Arc<Store>, settings: &HooksConfig, instance: String) -> Delivery {
        let shared = Arc::new(Shared {
            store,
            rules: settings.rules(),
            settings: settings.clone(),
            instance,
            owner: uuid(),
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
        });
        let workers = (0..settings.delivery_threads)
            .filter_map(|i| {
                let shared = Arc::clone(&shared);
                std::thread::Builder::new().name(format!("fc-hooks-{i}")).spawn(move || work(&shared, i == 0)).ok()
            })
            .collect();
        Delivery { shared, workers: Mutex::new(workers) }
    }

    /// New deliveries are in the outbox: the threads look now rather than at their next poll.
    pub fn wake(&self) {
        self.shared.state.lock().unwrap_or_else(|p| p.into_inner()).generation += 1;
        self.shared.wake.notify_all();
    }

    pub fn rules(&self) -> &Rules {
        &self.shared.rules
    }

    pub fn instance(&self) -> &str {
        &self.shared.instance
    }
}

impl Drop for Delivery {
    fn drop(&mut self) {
        self.shared.state.lock().unwrap_or_else(|p| p.into_inner()).closed = true;
        self.shared.wake.notify_all();
        for worker in self.workers.lock().unwrap_or_else(|p| p.into_inner()).drain(..) {
            let _ = worker.join();
        }
    }
}

/// One delivery thread; the `first` also drops week-old logs and settled deliveries now and
/// then (every 600 idle polls: ten minutes by default), never as the context opens.
fn work(shared: &Shared, first: bool) {
    let poll = Duration::from_millis(shared.settings.poll_millis);
    let lease = (shared.settings.lease_seconds * 1000) as i64;
    let mut rounds: u64 = 0;
    loop {
        let generation = {
            let state = shared.state.lock().unwrap_or_else(|p| p.into_inner());
            if state.closed {
                return;
            }
            state.generation
        };
        let due = shared.store.read(|db| hooks::any_due(db, now_millis())).unwrap_or(false);
        let claimed = if due {
            shared.store.write(|db| hooks::claim(db, &shared.owner, now_millis(), lease, 1)).unwrap_or_default()
        } else {
            Vec::new()
        };
        if let Some(delivery) = claimed.into_iter().next() {
            settle(shared, delivery);
            continue;
        }
        rounds += 1;
        if first && rounds % 600 == 300 {
            let week = 7 * 86_400;
            let _ = shared.store.write(|db| hooks::prune(db, now_millis() - week * 1000, store::now_seconds() - week));
        }
        let state = shared.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.closed {
            return;
        }
        if state.generation == generation {
            let _ = shared.wake.wait_timeout(state, poll);
        }
    }
}

/// Makes one claimed delivery and settles it.
fn settle(shared: &Shared, delivery: hooks::Delivery) {
    let owner = &shared.owner;
    let now = store::now_seconds();
    let hook = shared.store.read(|db| hooks::find_by_id(db, delivery.hook_id)).ok().flatten();
    let Some(hook) = hook else {
        let _ = shared.store.write(|db| hooks::settle(db, delivery.id, owner, "failed", now_millis()));
        return;
    };
    if hook.disabled {
        let _ = shared.store.write(|db| hooks::settle(db, delivery.id, owner, "failed", now_millis()));
        return;
    }
    if let Some(until) = hook.disabled_until.filter(|u| *u > now) {
        // Stricter than GitLab, which drops events while a hook is off: kept until it is back.
        let _ = shared.store.write(|db| -> Result<_, store::StoreError> {
            db.execute("UPDATE web_hook_deliveries SET attempts = attempts - 1 WHERE id = $1", &[&delivery.id])?;
            hooks::settle(db, delivery.id, owner, "pending", until * 1000)
        });
        return;
    }
    let outcome = deliver::execute(
        &shared.rules,
        &shared.instance,
        &hook,
        &delivery.hook_name,
        &delivery.payload,
        &delivery.idempotency_key,
        &delivery.event_uuid,
    );
    let (state, next_at) = if outcome.success {
        ("delivered", now_millis())
    } else if delivery.attempts >= i64::from(shared.settings.attempts) {
        ("failed", now_millis())
    } else {
        let backoff = shared.settings.retry_seconds.saturating_mul(1 << (delivery.attempts - 1).clamp(0, 16)) as i64;
        ("pending", now_millis() + backoff * 1000)
    };
    let _ = shared.store.write(|db| -> Result<_, store::StoreError> {
        // A host that outlived its lease finds the row taken and leaves it to the new owner.
        if hooks::settle(db, delivery.id, owner, state, next_at)? {
            hooks::insert_log(db, &outcome.log)?;
            hooks::record_outcome(db, hook.id, outcome.success, store::now_seconds())?;
        }
        Ok(())
    });
}

/// The hooks of the groups holding project `project_id`: its group's, then each ancestor's
/// up to the root (a group hook gets the events of its subgroups' projects). GitLab runs group
/// hooks after project and system hooks (`execute_hooks`' order, EE).
fn group_hooks(db: &mut Db, project_id: i64) -> Result<Vec<hooks::Hook>, ApiError> {
    let mut out = Vec::new();
    let Some(project) = store::projects::find_by_id(db, project_id)? else { return Ok(out) };
    let mut next = project.group_id;
    let mut seen = Vec::new();
    while let Some(id) = next.filter(|id| !seen.contains(id)) {
        seen.push(id);
        out.extend(hooks::list_group(db, id)?);
        next = store::groups::find_by_id(db, id)?.and_then(|g| g.parent_id);
    }
    Ok(out)
}

impl Outbox {
    /// Writes one row per hook of `project_id` subscribed to `flag` (and to the trigger the
    /// payload turns out to be), the payload built only when some hook wants it; then, for
    /// merge requests, one per system hook subscribed to it (`SystemHook`'s triggers are
    /// repository update, push, tag push and merge request hooks, V `system_hook.rb`).
    fn record_project(
        &self,
        db: &mut Db,
        project_id: i64,
        flag: &str,
        build: impl FnOnce(&mut Db, &Self) -> Result<Option<(payload::Trigger, crate::response::ordered::Node)>, ApiError>,
    ) -> Result<(), ApiError> {
        let mut hooks = hooks::list(db, project_id)?;
        if flag == "merge_requests_events" {
            hooks.extend(hooks::list_system(db)?);
        }
        hooks.extend(group_hooks(db, project_id)?);
        if !hooks.iter().any(|h| !h.disabled && h.event(flag)) {
            return Ok(());
        }
        let Some((trigger, payload)) = build(db, self)? else { return Ok(()) };
        let text = payload.text();
        let event_uuid = uuid();
        let now = now_millis();
        for hook in hooks.iter().filter(|h| !h.disabled && h.event(trigger.flag())) {
            hooks::enqueue(db, hook.id, trigger.hook_name(), &text, &uuid(), &event_uuid, now)?;
        }
        Ok(())
    }

    /// The project's repository on this host and its default branch, when it has one.
    fn repository(&self, db: &mut Db, project_id: i64) -> Result<(Option<gix::Repository>, Option<String>), ApiError> {
        let Some(project) = store::projects::find_by_id(db, project_id)? else { return Ok((None, None)) };
        let Some(dir) = project.git_dir(&self.storages) else { return Ok((None, None)) };
        let default_branch = crate::git::default_branch(&dir);
        Ok((crate::git::open(&dir).ok(), default_branch))
    }

    fn record_event(&self, db: &mut Db, event: &Event) -> Result<(), ApiError> {
        match event {
            Event::Issue(issue) => {
                let flag = if issue.confidential { "confidential_issues_events" } else { "issues_events" };
                self.record_project(db, issue.project_id, flag, |db, me| {
                    Ok(payload::issue::build(db, &me.base, issue)?)
                })
            }
            Event::MergeRequest(changed) => {
                let project_id = changed.merge_request.target_project_id;
                self.record_project(db, project_id, "merge_requests_events", |db, me| {
                    let (repo, default_branch) = me.repository(db, project_id)?;
                    let src = payload::merge_request::Sources {
                        base: &me.base,
                        repo: repo.as_ref(),
                        default_branch: default_branch.as_deref(),
                    };
                    Ok(payload::merge_request::build(db, &src, changed)?)
                })
            }
            Event::NoteCreated(note) => {
                let flag = if note.confidential { "confidential_note_events" } else { "note_events" };
                self.record_project(db, note.project_id, flag, |db, me| {
                    let (repo, default_branch) = me.repository(db, note.project_id)?;
                    let src = payload::merge_request::Sources {
                        base: &me.base,
                        repo: repo.as_ref(),
                        default_branch: default_branch.as_deref(),
                    };
                    Ok(payload::note::build(db, &src, note)?)
                })
            }
            Event::Release(release) => self.record_project(db, release.project_id, "releases_events", |db, me| {
                let (repo, default_branch) = me.repository(db, release.project_id)?;
                Ok(payload::release::build(db, &me.base, repo.as_ref(), default_branch.as_deref(), release)?)
            }),
            _ => Ok(()),
        }
    }
}

/// The durable listener writing the outbox.
pub struct Outbox {
    pub delivery: Arc<Delivery>,
    /// The instance's URL, for the payloads' links.
    pub base: String,
    pub limit: usize,
    /// The named repository storages, to open a project's repository (a merge request's last
    /// commit, a release's commit) for events that do not name it.
    pub storages: std::collections::BTreeMap<String, std::path::PathBuf>,
}

impl Listener for Outbox {
    fn durable(&self, event: &Event) -> bool {
        if matches!(event, Event::Issue(_) | Event::MergeRequest(_) | Event::NoteCreated(_) | Event::Release(_)) {
            return true;
        }
        let Event::RefsMoved(moved) = event else { return false };
        moved.updates.iter().any(|u| u.name.starts_with("refs/heads/") || u.name.starts_with("refs/tags/"))
    }

    fn record(&self, db: &mut Db, event: &Event) -> Result<(), ApiError> {
        if !matches!(event, Event::RefsMoved(_)) {
            return self.record_event(db, event);
        }
        let Event::RefsMoved(moved) = event else { return Ok(()) };
        // Project hooks, then system hooks with the same data, then group hooks (`execute_hooks`'
        // order).
        let mut all = hooks::list(db, moved.project_id)?;
        all.extend(hooks::list_system(db)?);
        all.extend(group_hooks(db, moved.project_id)?);
        let wanted: Vec<&hooks::Hook> =
            all.iter().filter(|h| !h.disabled && (h.event("push_events") || h.event("tag_push_events"))).collect();
        if wanted.is_empty() {
            return Ok(());
        }
        let Some(project) = store::projects::find_by_id(db, moved.project_id)? else { return Ok(()) };
        let repo = crate::git::open(&moved.git_dir).map_err(ApiError::internal)?;
        let default_branch = crate::git::default_branch(&moved.git_dir);
        let user = match moved.user_id {
            Some(id) => store::users::find_by_id(db, id)?,
            None => None,
        };
        let rules = protection::rules(db, &project, default_branch.as_deref())?;
        // GitLab's groups of changes: by kind and action; one over the limit fires nothing.
        let group_of = |u: &crate::git::write::RefUpdate| {
            let kind = u.name.starts_with("refs/tags/");
            let action = match (u.old, u.new) {
                (None, _) => 0,
                (_, None) => 1,
                _ => 2,
            };
            (kind, action)
        };
        let event_uuid = uuid();
        let now = now_millis();
        for update in &moved.updates {
            let size = moved.updates.iter().filter(|u| group_of(u) == group_of(update)).count();
            if size > self.limit {
                continue;
            }
            let branch = update.name.strip_prefix("refs/heads/");
            let ref_protected = branch.is_some_and(|b| rules.iter().any(|r| protection::matches(&r.name, b)));
            let push = Push {
                project: &project,
                user: user.as_ref(),
                base: &self.base,
                default_branch: default_branch.as_deref(),
                ref_protected,
            };
            let Some((trigger, payload)) =
                push::build(db, &repo, &push, update).map_err(|e| ApiError::internal(std::io::Error::other(e)))?
            else {
                continue;
            };
            let text = payload.text();
            for hook in &wanted {
                if !hook.event(trigger.flag()) {
                    continue;
                }
                if let Some(branch) = branch {
                    if !filter::matches(hook.push_events_branch_filter.as_deref(), &hook.branch_filter_strategy, branch)
                    {
                        continue;
                    }
                }
                hooks::enqueue(db, hook.id, trigger.hook_name(), &text, &uuid(), &event_uuid, now)?;
            }
        }
        Ok(())
    }

    fn heard(&self, _event: &Event) {
        self.delivery.wake();
    }
}
