//! `POST /<project>.git/git-receive-pack`: a push. The command list at the head of the body is
//! checked before anything starts (stage 1 of [`policy`](super::policy)); a refused push is
//! answered with the report git would give, its pack read and dropped. An allowed one is taken
//! whole first, its pack in an unlinked file of the data directory's ([`Spool`], bounded by
//! `limits.git_push_max_bytes`), so that a slow client holds none of the repository's places;
//! then it is handed to `receive-pack --stateless-rpc` (`receive.fsckObjects`,
//! `receive.maxInputSize`, the time limit and the repository's places apply), while the core
//! answers forgecore's `pre-receive` hook (stage 2: force pushes). After it ends, the refs it
//! changed are announced once, as `events::RefsMoved` ([`announce`]).

use super::policy::{self, Command, Commands};
use super::spool::{bodies_dir, Spool};
use super::{auth, text, Inflater, Service, MAX_NEGOTIATION_BYTES};
use crate::context::Context;
use crate::error::ApiError;
use crate::events::{Event, RefsMoved, Through};
use crate::git::command::Running;
use crate::git::places::Slot;
use crate::git::push_hook::{pushes_dir, HookChannel};
use crate::git::write::RefUpdate;
use crate::incoming::{BodySink, Opened};
use crate::response::{Body, Response};
use gix::ObjectId;
use std::io::Read;
use std::process::ChildStdin;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

/// receive-pack's own answer (its report and progress) is kept up to this size.
const MAX_OUTPUT_BYTES: usize = 4 << 20;

/// A push of `commands` to the project of `access` has ended: the refs it moved (those that
/// now name what the client sent; receive-pack's hook may have refused the others), each by
/// the name at the end of its symbolic chain, are announced to the context's listeners, once.
fn announce(ctx: &Context, access: &auth::Access, commands: &[Command]) -> Result<(), ApiError> {
    let id = |hex: &str| ObjectId::from_hex(hex.as_bytes()).ok().filter(|id| !id.is_null());
    let repo = crate::git::open(&access.git_dir).ok();
    // A repository that cannot be read now announces every line: more, never less.
    let moved = |update: &RefUpdate| {
        repo.as_ref()
            .is_none_or(|repo| crate::git::refs::target(repo, &update.name).map_or(true, |now| now == update.new))
    };
    // A push through a symbolic ref moved the ref at its end: that one is announced.
    let updates: Vec<RefUpdate> = commands
        .iter()
        .map(|c| super::policy::written(repo.as_ref(), c).unwrap_or_else(|_| c.clone()))
        .map(|c| RefUpdate { name: c.name, old: id(&c.old), new: id(&c.new) })
        .filter(moved)
        .collect();
    let Ok(repository) = ctx.git_dir(&access.project) else { return Ok(()) };
    if updates.is_empty() {
        return Ok(());
    }
    let moved = RefsMoved {
        project_id: access.project.id,
        repository,
        git_dir: access.git_dir.clone(),
        updates,
        user_id: access.caller.user().map(|u| u.id),
        through: Through::Push,
    };
    ctx.events.announce(&ctx.store, Event::RefsMoved(moved))
}

fn too_large(limit: u64) -> Response {
    text(413, &format!("Request Entity Too Large: a push is limited to {limit} bytes."))
}

/// A push by the caller `access` allows (`super::open` asked).
pub fn open(ctx: &Context, access: auth::Access, headers: &[(String, String)]) -> Opened {
    let limit = ctx.config.limits.git_push_max_bytes.saturating_add(MAX_NEGOTIATION_BYTES);
    let refusal = || too_large(ctx.config.limits.git_push_max_bytes);
    let inflater = match super::prepare(headers, limit, refusal) {
        Ok(inflater) => inflater,
        Err(answer) => return Opened::Answer(answer),
    };
    let protocol = super::git_protocol(headers);
    super::sink(ReceivePack {
        inflater,
        state: State { access, received: 0, limit, protocol, phase: Phase::Commands(Vec::new()) },
    })
}

struct ReceivePack {
    inflater: Inflater,
    state: State,
}

struct State {
    access: auth::Access,
    received: u64,
    limit: u64,
    protocol: Option<String>,
    phase: Phase,
}

enum Phase {
    /// The head of the body, until its command list is complete.
    Commands(Vec<u8>),
    /// Refused by stage 1 (or nothing to do): the rest of the body is read and dropped.
    Refused { parsed: Commands, messages: Vec<String> },
    /// Allowed by stage 1: the body is held until it is whole.
    Spooled {
        commands: Vec<Command>,
        /// The command list and the pack after it, as they came.
        body: Spool,
    },
}

/// A receive-pack at work.
struct Push {
    running: Running,
    _slot: Slot,
    hook: HookChannel,
    /// `None` once receive-pack stopped reading (it refused the pack; its report says why).
    stdin: Option<ChildStdin>,
    /// receive-pack's whole answer, once it closed its stdout.
    output: Receiver<Vec<u8>>,
    commands: Vec<Command>,
}

impl State {
    fn take(&mut self, ctx: &Context, data: &[u8]) -> Result<(), Response> {
        self.received += data.len() as u64;
        if self.received > self.limit {
            return Err(too_large(ctx.config.limits.git_push_max_bytes));
        }
        match &mut self.phase {
            Phase::Refused { .. } => Ok(()),
            Phase::Spooled { body, .. } => body.write(data).map_err(|_| super::unbuffered()),
            Phase::Commands(head) => {
                head.extend_from_slice(data);
                let parsed = policy::parse_commands(head).map_err(|reason| text(400, &reason))?;
                let Some((parsed, _)) = parsed else {
                    if head.len() as u64 > MAX_NEGOTIATION_BYTES {
                        return Err(text(413, "Request Entity Too Large: a push's command list is limited to 10 MiB."));
                    }
                    return Ok(());
                };
                let head = std::mem::take(head);
                let messages = policy::stage_one(ctx, &self.access, &parsed.commands)
                    .map_err(|_| text(503, "The push could not be checked: the store is unavailable."))?;
                self.phase = if parsed.commands.is_empty() {
                    // git's probe before a large push (a flush alone): nothing to run.
                    Phase::Refused { parsed, messages: Vec::new() }
                } else if messages.is_empty() {
                    let mut body = Spool::new(bodies_dir(&ctx.config.data_dir));
                    body.write(&head).map_err(|_| super::unbuffered())?;
                    Phase::Spooled { commands: parsed.commands, body }
                } else {
                    Phase::Refused { parsed, messages }
                };
                Ok(())
            }
        }
    }

    /// Starts receive-pack for `access` with its hook channel, hands it the whole `body`.
    fn start(
        ctx: &Context,
        access: &auth::Access,
        protocol: Option<&str>,
        commands: Vec<Command>,
        body: Spool,
    ) -> Result<Push, Response> {
        let unavailable = || text(500, "The git service could not be started.");
        let hook = HookChannel::new(&pushes_dir(&ctx.config.data_dir)).map_err(|_| unavailable())?;
        let mut env: Vec<(String, std::ffi::OsString)> =
            vec![("FORGECORE_PUSH_DIR".into(), hook.dir().as_os_str().to_os_string())];
        if let Some(protocol) = protocol {
            env.push(("GIT_PROTOCOL".into(), protocol.into()));
        }
        let (mut running, slot) = super::start(ctx, access, Service::ReceivePack, &[], env)?;
        let stdout = running.stdout.take();
        let (tx, output) = mpsc::channel();
        std::thread::Builder::new()
            .name("git-receive-pack".into())
            .spawn(move || {
                let mut kept = Vec::new();
                if let Some(mut stdout) = stdout {
                    let _ = (&mut stdout).take(MAX_OUTPUT_BYTES as u64).read_to_end(&mut kept);
                    // Past the bound, keep reading so receive-pack never blocks on a full pipe.
                    let _ = std::io::copy(&mut stdout, &mut std::io::sink());
                }
                let _ = tx.send(kept);
            })
            .map_err(|_| unavailable())?;
        let mut stdin = running.stdin.take();
        // On `Err`, dropping `running` ends receive-pack: a pack that cannot be read back
        // whole is never received.
        body.feed(&mut stdin).map_err(|_| super::unbuffered())?;
        Ok(Push { running, _slot: slot, hook, stdin, output, commands })
    }
}

impl BodySink for ReceivePack {
    fn write(&mut self, ctx: &Context, piece: &[u8]) -> Option<Response> {
        let state = &mut self.state;
        self.inflater.feed(piece, |data| state.take(ctx, data)).err()
    }

    fn finish(mut self: Box<Self>, ctx: &Context) -> Response {
        let state = &mut self.state;
        if let Err(answer) = self.inflater.finish(|data| state.take(ctx, data)) {
            return answer;
        }
        let State { access, phase, protocol, .. } = self.state;
        let body = match phase {
            Phase::Commands(head) if head.is_empty() => return text(400, "The push is empty."),
            Phase::Commands(_) => return text(400, "The push's command list is incomplete."),
            Phase::Refused { parsed, .. } if parsed.commands.is_empty() => Vec::new(),
            Phase::Refused { parsed, messages } => policy::refused_report(&parsed, &messages),
            // The body is whole: only now does receive-pack start, holding a place.
            Phase::Spooled { commands, body } => {
                let push = match State::start(ctx, &access, protocol.as_deref(), commands, body) {
                    Ok(push) => push,
                    Err(answer) => return answer,
                };
                let Push { running, _slot, hook, stdin, output, commands } = push;
                drop(stdin);
                // receive-pack answers after its pre-receive hook: serve the hook until the
                // answer is complete (the time limit ends receive-pack, and so the answer).
                let deadline = Instant::now() + Duration::from_secs(ctx.config.limits.git_timeout_seconds + 5);
                let kept = loop {
                    if let Ok(kept) = output.try_recv() {
                        break kept;
                    }
                    if Instant::now() > deadline {
                        break Vec::new();
                    }
                    if let Some((request, reply)) = hook.poll(Duration::from_millis(10)) {
                        let _ = reply.send(policy::stage_two(ctx, &access, &request, hook.dir()));
                    }
                };
                drop(hook);
                let finished = running.finish();
                if finished.is_ok() && announce(ctx, &access, &commands).is_err() {
                    return text(503, "The push was received, but the store could not record it.");
                }
                if kept.is_empty() && finished.is_err() {
                    return text(500, "The push failed: git ended without an answer.");
                }
                kept
            }
        };
        super::no_cache(Response {
            status: 200,
            headers: vec![("Content-Type".into(), "application/x-git-receive-pack-result".into())],
            body: Body::Bytes(body),
        })
    }
}
