//! The push policy, in two stages (reference `git-http.md` §4). Every decision about a branch is
//! `auth::protection::check`'s (the one rule); this module only says which change a ref line
//! makes and words the refusal as GitLab does.
//!
//! A push may create, update and delete any ref under `refs/` (decisions D13: notes, as
//! semantic-release pushes them), except in GitLab's [`RESERVED_NAMESPACES`], which
//! receive-pack itself refuses ref by ref, as Gitaly has it refuse them (`receive.hideRefs`).
//! Both stages judge the ref a push writes: receive-pack writes through a symbolic ref, so a
//! push to `refs/heads/alias` -> `refs/heads/main` is judged as one to main.
//!
//! 1. Before receive-pack starts, [`parse_commands`] reads the command list at the head of the
//!    body (`<old> <new> <ref>` pkt-lines; no objects needed) and [`stage_one`] refuses
//!    deleting the default branch, creating 40-hex branch names, and protected-branch
//!    creation, update or deletion without the right. A refused push never starts git: its
//!    answer is the report git would give ([`refused_report`]).
//! 2. While receive-pack runs, forgecore's own `pre-receive` (`git::push_hook`, in forgecore's
//!    `core.hooksPath`; a repository's hooks never run) hands the ref lines and the quarantine's
//!    object directories back over two FIFOs in a private (0700) directory (`HookChannel`).
//!    The core decides force pushes there, opening the repository with gix over the pushed
//!    objects in the quarantine: an update whose old tip is not an ancestor of the new one is a
//!    force push. The refusal is printed by the hook, so git shows
//!    `remote: GitLab: ...` and `[remote rejected] ... (pre-receive hook declined)`. A push
//!    that only deletes brings no objects, so git makes no quarantine: nothing is read then.
//!    The project's push rule is judged there too, once protection agrees
//!    (`api::push_rules::enforce`), over the push's new commits read from the quarantine.

use super::auth::Access;
use super::pkt_line;
use crate::auth::protection::{self, RefChange, Refusal};
use crate::context::Context;
use crate::git::write::refs::{tag_name_problem, TagNameProblem};
use std::path::Path;

const ZERO: &str = "0000000000000000000000000000000000000000";

/// GitLab's reserved namespaces (decisions D13): no push writes a ref in them. Gitaly makes
/// receive-pack hide them (`receive.hideRefs` for each of its `InternalRefPrefixes`,
/// `internal/git/gitcmd/command_description.go`), so git refuses each such ref by itself,
/// `deny updating a hidden ref` (or `deny deleting a hidden ref`), and the push's other refs
/// go on; forgecore's receive-pack is configured the same way (`transport::start`).
pub const RESERVED_NAMESPACES: [&str; 5] =
    ["refs/merge-requests/", "refs/pipelines/", "refs/environments/", "refs/keep-around/", "refs/tmp/"];

/// One ref a push changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    pub old: String,
    pub new: String,
    pub name: String,
}

impl Command {
    fn is_create(&self) -> bool {
        self.old == ZERO
    }

    fn is_delete(&self) -> bool {
        self.new == ZERO
    }
}

/// The command list at the head of a receive-pack body.
#[derive(Debug, Default)]
pub struct Commands {
    pub commands: Vec<Command>,
    /// The client's capabilities (after the NUL of the first command).
    pub capabilities: Vec<String>,
}

fn is_hex_id(text: &str) -> bool {
    text.len() == 40 && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Parses the command list from the head of `body`: `Ok(None)` while its flush has not
/// arrived, `Ok(Some((commands, length)))` once it has (`length`: the bytes it took), `Err`
/// for a malformed list.
pub fn parse_commands(body: &[u8]) -> Result<Option<(Commands, usize)>, String> {
    let mut parsed = Commands::default();
    let mut at = 0;
    loop {
        let Some(head) = body.get(at..at + 4) else { return Ok(None) };
        let head = std::str::from_utf8(head).map_err(|_| "a pkt-line length is not hex".to_string())?;
        let length = usize::from_str_radix(head, 16).map_err(|_| "a pkt-line length is not hex".to_string())?;
        if length == 0 {
            return Ok(Some((parsed, at + 4)));
        }
        if length < 4 {
            return Err("an unexpected special pkt-line in the command list".into());
        }
        let Some(data) = body.get(at + 4..at + length) else { return Ok(None) };
        at += length;
        let line = data.strip_suffix(b"\n").unwrap_or(data);
        let (line, capabilities) = match line.iter().position(|b| *b == 0) {
            Some(nul) => (&line[..nul], Some(&line[nul + 1..])),
            None => (line, None),
        };
        let line = std::str::from_utf8(line).map_err(|_| "a command is not UTF-8".to_string())?;
        if let Some(capabilities) = capabilities {
            parsed.capabilities = String::from_utf8_lossy(capabilities)
                .split(' ')
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect();
        }
        if line.starts_with("shallow ") {
            continue;
        }
        if line.starts_with("push-cert") {
            return Err("signed pushes are not supported".into());
        }
        let mut parts = line.splitn(3, ' ');
        let (Some(old), Some(new), Some(name)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(format!("a malformed command {line:?}"));
        };
        if !is_hex_id(old) || !is_hex_id(new) || name.is_empty() {
            return Err(format!("a malformed command {line:?}"));
        }
        parsed.commands.push(Command { old: old.into(), new: new.into(), name: name.into() });
    }
}

/// GitLab's words for a refusal of `change` to a protected branch.
fn protected_text(refusal: Refusal, change: RefChange) -> &'static str {
    match refusal {
        Refusal::DeleteDefault => "The default branch of a project cannot be deleted.",
        Refusal::DeleteProtected => {
            "You are not allowed to delete protected branches from this project. Only a project maintainer or \
             owner can delete a protected branch."
        }
        Refusal::ForcePush => "You are not allowed to force push code to a protected branch on this project.",
        Refusal::Push if change == RefChange::Create => {
            "You are not allowed to create protected branches on this project."
        }
        Refusal::Push => "You are not allowed to push code to protected branches on this project.",
    }
}

/// Why `command` may not be applied as `change` (for a branch), if it may not; `Err` when the
/// store could not answer.
fn refusal(
    ctx: &Context,
    access: &Access,
    default_branch: Option<&str>,
    command: &Command,
    force: bool,
) -> Result<Option<String>, crate::error::ApiError> {
    if let Some(tag) = command.name.strip_prefix("refs/tags/") {
        // GitLab's tag check: names it prohibits are refused on creation and update, the
        // default branch's on creation only.
        let problem = (!command.is_delete()).then(|| tag_name_problem(tag, default_branch)).flatten();
        let problem = problem.filter(|p| command.is_create() || *p != TagNameProblem::DefaultBranch);
        return Ok(problem.map(|p| p.text().to_string()));
    }
    // Any other ref is the pusher's (decisions D13): notes, as semantic-release pushes them.
    let Some(branch) = command.name.strip_prefix("refs/heads/") else { return Ok(None) };
    if command.is_create() && is_hex_id(&branch.to_ascii_lowercase()) {
        return Ok(Some("You cannot create a branch with a 40-character hexadecimal branch name.".into()));
    }
    if !command.is_delete() && !crate::git::write::refs::valid_branch_name(branch) {
        return Ok(Some(format!("The branch name {branch:?} is invalid.")));
    }
    let change = if command.is_create() {
        RefChange::Create
    } else if command.is_delete() {
        RefChange::Delete
    } else if force {
        RefChange::ForceUpdate
    } else {
        RefChange::Update
    };
    let decided =
        ctx.store.read(|db| protection::check(db, &access.caller, &access.project, default_branch, branch, change))?;
    Ok(decided.err().map(|refusal| protected_text(refusal, change).to_string()))
}

/// `command` as it changes the repository `repo`: git's receive-pack writes through a symbolic
/// ref (a push to `refs/heads/alias` -> `refs/heads/main` moves main, deleting `alias` deletes
/// main), so every rule judges the ref at the end of the chain. `Err`: GitLab's words for a
/// refusal, when the chain ends in a reserved namespace (`receive.hideRefs` refuses a pushed
/// name there, but not one that points there), cannot be read, or is longer than 5 (git itself
/// follows 4).
pub(super) fn written(repo: Option<&gix::Repository>, command: &Command) -> Result<Command, String> {
    let unchecked = || "The push could not be checked.".to_string();
    let Some(repo) = repo else { return Ok(command.clone()) };
    let mut name = command.name.clone();
    let mut followed = 0;
    while let Ok(full) = gix::refs::FullName::try_from(name.as_str()) {
        let found = repo.try_find_reference(full.as_ref()).map_err(|_| unchecked())?;
        let Some(gix::refs::TargetRef::Symbolic(target)) = found.as_ref().map(|r| r.target()) else { break };
        followed += 1;
        if followed > 5 {
            return Err(unchecked());
        }
        name = target.as_bstr().to_string();
    }
    if name != command.name && RESERVED_NAMESPACES.iter().any(|prefix| name.starts_with(prefix)) {
        let hidden = if command.is_delete() { "deny deleting a hidden ref" } else { "deny updating a hidden ref" };
        return Err(format!("{hidden}: {} points to {name}", command.name));
    }
    Ok(Command { name, ..command.clone() })
}

/// Adds GitLab's refusal `text` to `messages`, once.
fn note(messages: &mut Vec<String>, text: &str) {
    let line = format!("GitLab: {text}");
    if !messages.contains(&line) {
        messages.push(line);
    }
}

/// Stage 1: GitLab's refusals for `commands`, each prefixed `GitLab: ` (empty: go on). Updates
/// are judged as fast-forwards here; stage 2 judges force pushes.
pub fn stage_one(ctx: &Context, access: &Access, commands: &[Command]) -> Result<Vec<String>, crate::error::ApiError> {
    let default_branch = crate::git::default_branch(&access.git_dir);
    let repo = crate::git::open(&access.git_dir).ok();
    let mut messages = Vec::new();
    for command in commands {
        let text = match written(repo.as_ref(), command) {
            Ok(command) => refusal(ctx, access, default_branch.as_deref(), &command, false)?,
            Err(text) => Some(text),
        };
        if let Some(text) = text {
            note(&mut messages, &text);
        }
    }
    Ok(messages)
}

/// The answer receive-pack would give when its pre-receive hook declines every command: the
/// messages on side band 2 (git prints them as `remote: ...`), then the report.
pub fn refused_report(parsed: &Commands, messages: &[String]) -> Vec<u8> {
    let has = |name: &str| parsed.capabilities.iter().any(|c| c == name);
    let sideband = has("side-band-64k") || has("side-band");
    let mut report = Vec::new();
    if has("report-status") || has("report-status-v2") {
        report.extend(pkt_line(b"unpack ok\n"));
        for command in &parsed.commands {
            report.extend(pkt_line(format!("ng {} pre-receive hook declined\n", command.name).as_bytes()));
        }
        report.extend_from_slice(b"0000");
    }
    if !sideband {
        return report;
    }
    let band_size = if has("side-band-64k") { 65515 } else { 995 };
    let mut out = Vec::new();
    for message in messages {
        let mut data = vec![2u8];
        data.extend_from_slice(message.as_bytes());
        data.push(b'\n');
        out.extend(pkt_line(&data));
    }
    for piece in report.chunks(band_size) {
        let mut data = vec![1u8];
        data.extend_from_slice(piece);
        out.extend(pkt_line(&data));
    }
    out.extend_from_slice(b"0000");
    out
}

/// What the hook handed over: the quarantine's directories and the ref lines.
#[derive(Debug, Default)]
struct HookRequest {
    quarantine: String,
    objects: String,
    alternates: String,
    commands: Vec<Command>,
}

fn parse_request(text: &str) -> Option<HookRequest> {
    let (head, lines) = text.split_once("\n\n")?;
    let mut request = HookRequest::default();
    for line in head.lines() {
        let (key, value) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "quarantine" => request.quarantine = value.to_string(),
            "objects" => request.objects = value.to_string(),
            "alternates" => request.alternates = value.to_string(),
            _ => return None,
        }
    }
    for line in lines.lines().filter(|l| !l.is_empty()) {
        let mut parts = line.splitn(3, ' ');
        let (Some(old), Some(new), Some(name)) = (parts.next(), parts.next(), parts.next()) else { return None };
        if !is_hex_id(old) || !is_hex_id(new) {
            return None;
        }
        request.commands.push(Command { old: old.into(), new: new.into(), name: name.into() });
    }
    Some(request)
}

/// Whether `path` (a directory git named) lies inside `git_dir`.
fn inside(path: &str, git_dir: &Path) -> bool {
    !path.is_empty() && Path::new(path).canonicalize().is_ok_and(|p| p.starts_with(git_dir))
}

/// Stage 2: the hook's answer to `text` (first line `ok` or `refused`, then messages);
/// `scratch` is the push's private directory.
pub fn stage_two(ctx: &Context, access: &Access, text: &str, scratch: &Path) -> String {
    let refuse = |message: &str| format!("refused\nGitLab: {message}\n");
    let Some(request) = parse_request(text) else { return refuse("The push could not be checked.") };
    // A push that only deletes sends no pack, so receive-pack makes no quarantine and names no
    // object directory (its `delete_only`); nothing is read from one then.
    let deletes_only = request.objects.is_empty() && request.commands.iter().all(Command::is_delete);
    let directories_ok = deletes_only
        || (inside(&request.objects, &access.git_dir)
            && (request.quarantine.is_empty() || inside(&request.quarantine, &access.git_dir))
            && request.alternates.split(':').filter(|p| !p.is_empty()).all(|p| inside(p, &access.git_dir)));
    if !directories_ok {
        return refuse("The push could not be checked.");
    }
    let default_branch = crate::git::default_branch(&access.git_dir);
    let repo = crate::git::open(&access.git_dir).ok();
    let mut messages = Vec::new();
    for command in &request.commands {
        let command = match written(repo.as_ref(), command) {
            Ok(command) => command,
            Err(text) => {
                note(&mut messages, &text);
                continue;
            }
        };
        let update = command.name.starts_with("refs/heads/") && !command.is_create() && !command.is_delete();
        let force = if update {
            match is_ancestor(access, &request, &command.old, &command.new, scratch) {
                Some(ancestor) => !ancestor,
                None => return refuse("The push could not be checked."),
            }
        } else {
            false
        };
        match refusal(ctx, access, default_branch.as_deref(), &command, force) {
            Ok(None) => {}
            Ok(Some(text)) => note(&mut messages, &text),
            Err(_) => return refuse("The push could not be checked: the store is unavailable."),
        }
    }
    if messages.is_empty() {
        if let Err(answer) = push_rules(ctx, access, &request, scratch, default_branch.as_deref(), repo.as_ref()) {
            return answer;
        }
        "ok\n".into()
    } else {
        format!("refused\n{}\n", messages.join("\n"))
    }
}

/// The project's push rule over the push's refs and new commits (read from the quarantine);
/// `Err` is the hook's answer refusing it, with GitLab's text.
fn push_rules(
    ctx: &Context,
    access: &Access,
    request: &HookRequest,
    scratch: &Path,
    default_branch: Option<&str>,
    repo: Option<&gix::Repository>,
) -> Result<(), String> {
    use crate::api::push_rules::enforce::{self, Change, Refusal, Via};
    let refuse = |message: &str| format!("refused\nGitLab: {message}\n");
    let rule = match enforce::rule_of(ctx, &access.project) {
        Ok(Some(rule)) => rule,
        Ok(None) => return Ok(()),
        Err(_) => return Err(refuse("The push could not be checked: the store is unavailable.")),
    };
    let id = |hex: &str| (hex != ZERO).then(|| gix::ObjectId::from_hex(hex.as_bytes()).ok()).flatten();
    let mut names = Vec::with_capacity(request.commands.len());
    for command in &request.commands {
        match written(repo, command) {
            Ok(written) => names.push((written.name, id(&command.old), id(&command.new))),
            Err(text) => return Err(refuse(&text)),
        }
    }
    let changes: Vec<Change> =
        names.iter().map(|(name, old, new)| Change { name: name.as_str(), old: *old, new: *new }).collect();
    let deletes_only = changes.iter().all(|c| c.new.is_none());
    let repo =
        if deletes_only { crate::git::open(&access.git_dir).ok() } else { quarantined(access, request, scratch) };
    let Some(repo) = repo else { return Err(refuse("The push could not be checked.")) };
    match enforce::check_rule(ctx, &rule, &repo, default_branch, &changes, Via::Push, access.caller.user()) {
        Ok(()) => Ok(()),
        Err(Refusal::Rule(text)) => Err(refuse(&text)),
        Err(Refusal::Failed(_)) => Err(refuse("The push could not be checked.")),
    }
}

/// The repository seeing the pushed objects in the quarantine: opened with gix over an object
/// directory of our own in `scratch` (the push's private directory) that holds nothing but an
/// alternates file naming the quarantine and the repository's objects (gix reads a store's
/// alternates from that file only; git's quarantine has none, and is git's to move, so it is
/// not written to).
fn quarantined(access: &Access, request: &HookRequest, scratch: &Path) -> Option<gix::Repository> {
    let objects = scratch.join("objects");
    std::fs::create_dir_all(objects.join("info")).ok()?;
    let mut alternates = vec![request.objects.clone()];
    alternates.extend(request.alternates.split(':').filter(|p| !p.is_empty()).map(str::to_string));
    std::fs::write(objects.join("info").join("alternates"), alternates.join("\n") + "\n").ok()?;
    let mut repo = crate::git::open(&access.git_dir).ok()?;
    let store = gix::odb::at(&objects, repo.object_hash()).ok()?;
    repo.objects = store.into();
    Some(repo)
}

/// Whether `old` is an ancestor of `new`, seeing the pushed objects in the quarantine
/// ([`quarantined`]); `None` when it cannot be said.
fn is_ancestor(access: &Access, request: &HookRequest, old: &str, new: &str, scratch: &Path) -> Option<bool> {
    let (old, new) = (gix::ObjectId::from_hex(old.as_bytes()).ok()?, gix::ObjectId::from_hex(new.as_bytes()).ok()?);
    if old == new {
        return Some(true);
    }
    let repo = quarantined(access, request, scratch)?;
    match repo.merge_base(old, new) {
        Ok(base) => Some(base.is_some_and(|base| base.detach() == old)),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_list_and_its_end() {
        let old = "1".repeat(40);
        let new = "2".repeat(40);
        let mut body = pkt_line(format!("{old} {new} refs/heads/main\0report-status side-band-64k\n").as_bytes());
        assert!(parse_commands(&body).unwrap().is_none(), "no flush yet");
        body.extend(pkt_line(format!("{ZERO} {new} refs/tags/v1\n").as_bytes()));
        body.extend_from_slice(b"0000PACK...");
        let (parsed, length) = parse_commands(&body).unwrap().unwrap();
        assert_eq!(&body[length..], b"PACK...");
        assert_eq!(parsed.commands.len(), 2);
        assert_eq!(parsed.commands[1].name, "refs/tags/v1");
        assert_eq!(parsed.capabilities, ["report-status", "side-band-64k"]);
        assert!(parse_commands(b"0010not a command0000").is_err());
        assert!(parse_commands(b"zzzz").is_err());
    }

    #[test]
    fn a_refusal_reads_as_receive_pack_writes_it() {
        let parsed = Commands {
            commands: vec![Command { old: ZERO.into(), new: "2".repeat(40), name: "refs/heads/x".into() }],
            capabilities: vec!["report-status".into()],
        };
        let report = refused_report(&parsed, &["GitLab: no".into()]);
        assert_eq!(report, b"000eunpack ok\n002eng refs/heads/x pre-receive hook declined\n0000".to_vec());
    }

    #[test]
    fn symbolic_refs_are_judged_by_their_end() {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("forgecore-policy-{}-{nanos}", std::process::id()));
        gix::init_bare(&dir).unwrap();
        std::fs::create_dir_all(dir.join("refs/heads")).unwrap();
        // A symbolic ref is a file `ref: <target>`, as git symbolic-ref writes it.
        let symbolic = |name: &str, target: &str| {
            std::fs::write(dir.join(name), format!("ref: {target}\n")).unwrap();
        };
        let mut previous = "refs/heads/main".to_string();
        for hop in 1..=6 {
            symbolic(&format!("refs/heads/l{hop}"), &previous);
            previous = format!("refs/heads/l{hop}");
        }
        symbolic("refs/heads/mr", "refs/merge-requests/1/head");
        let repo = crate::git::open(&dir).unwrap();
        let push = |name: &str, new: &str| {
            written(Some(&repo), &Command { old: "1".repeat(40), new: new.into(), name: name.into() })
        };
        assert_eq!(push("refs/heads/plain", &"2".repeat(40)).unwrap().name, "refs/heads/plain");
        assert_eq!(push("refs/notes/x", &"2".repeat(40)).unwrap().name, "refs/notes/x");
        // A reserved name pushed as it is: git's to refuse, ref by ref.
        assert_eq!(push("refs/pipelines/1", &"2".repeat(40)).unwrap().name, "refs/pipelines/1");
        // git follows 4 symbolic refs; forgecore follows 5, so it sees at least what git writes.
        for hop in 1..=5 {
            assert_eq!(push(&format!("refs/heads/l{hop}"), ZERO).unwrap().name, "refs/heads/main");
        }
        assert_eq!(push("refs/heads/l6", ZERO).unwrap_err(), "The push could not be checked.");
        assert_eq!(
            push("refs/heads/mr", &"2".repeat(40)).unwrap_err(),
            "deny updating a hidden ref: refs/heads/mr points to refs/merge-requests/1/head"
        );
        assert!(push("refs/heads/mr", ZERO).unwrap_err().starts_with("deny deleting a hidden ref"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn hook_requests_parse() {
        let text = format!("quarantine /q\nobjects /o\nalternates /a:/b\n\n{ZERO} {} refs/heads/x\n", "2".repeat(40));
        let request = parse_request(&text).unwrap();
        assert_eq!((request.quarantine.as_str(), request.alternates.as_str()), ("/q", "/a:/b"));
        assert_eq!(request.commands.len(), 1);
        assert!(parse_request("nonsense").is_none());
    }
}
