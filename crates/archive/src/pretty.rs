//! The placeholders of an `export-subst` format on the archived commit, as git 2.39's
//! `format_commit_message` expands them for `git archive` (`pretty.c`, dates from `date.c`,
//! decorations from `log-tree.c`), with no color and git's default abbreviation.
//!
//! Expanded as git does: `%H %h %T %t %P %p %m %d %D %e %B %s %f %b %n %% %xNN`, the person
//! parts `%a?`/`%c?` (`n e l t d D r i I s`; `N E L` without a mailmap), the reflog, notes and
//! signature placeholders as git answers them for an unsigned commit outside a reflog walk,
//! `%C...` (no color), and the `%+ %- % ` magic. An unknown placeholder stays as it is.
//!
//! `%(describe[:args])` is what `git describe` prints, computed by [`describe`] (git runs the
//! program; none runs here), once per archive as git archive allows.
//!
//! Not expanded (left as they are, where git would expand them): `%(trailers)`, `%w(...)`,
//! padding (`%<`, `%>`),
//! `%ah`/`%ch` and `%G?` on a signed commit. A commit whose `encoding` is not UTF-8 is not
//! re-encoded.

use crate::describe;
use crate::error::Error;
use crate::objects::Objects;
use crate::output::{Emitter, Out};
use forgecore_date::{MONTHS, WEEKDAYS};
use gix::bstr::ByteSlice;
use gix::prelude::ObjectIdExt;
use std::io;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decoration {
    Head,
    Local,
    Tag,
    Remote,
    Stash,
    Other,
}

/// What the placeholders say about the archived commit, gathered once per archive.
pub struct Facts {
    hex: String,
    short: String,
    tree: String,
    tree_short: String,
    parents: Vec<(String, String)>,
    /// The commit object up to its first NUL (git reads it as a C string).
    raw: Vec<u8>,
    /// Newest first, as git lists them: (kind, full ref name).
    decorations: Vec<(Decoration, String)>,
    /// The branch HEAD points at, when HEAD is symbolic.
    head: Option<String>,
    now: i64,
    /// The repository and commit `%(describe)` describes.
    describe: Option<(gix::Repository, gix::ObjectId)>,
    /// `%(describe)` runs left in this archive (git allows one).
    describe_left: std::cell::Cell<u32>,
    /// The last `%(describe)` answer, by its arguments: a file is expanded more than once
    /// (its size, then its bytes), its history walked once.
    described: std::cell::RefCell<Option<(describe::Args, Vec<u8>)>>,
}

fn shorten(repo: &gix::Repository, id: gix::ObjectId) -> String {
    id.attach(repo).shorten_or_id().to_string()
}

impl Facts {
    pub fn gather(objects: &mut Objects, commit: gix::ObjectId) -> Result<Facts, Error> {
        let mut raw = Vec::new();
        objects.load(&commit, gix::objs::Kind::Commit, &mut raw)?;
        let decode = |source| Error::DecodeCommit { id: commit, source };
        let (tree, parents) = {
            let parsed = gix::objs::CommitRef::from_bytes(&raw, objects.object_hash()).map_err(decode)?;
            (parsed.tree(), parsed.parents().collect::<Vec<_>>())
        };
        if let Some(nul) = raw.iter().position(|b| *b == 0) {
            raw.truncate(nul);
        }
        let repo = objects.repo().clone();
        let parents = parents.into_iter().map(|p| (p.to_hex().to_string(), shorten(&repo, p))).collect();
        let (decorations, head) = decorations(&repo, objects, commit);
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
        Ok(Facts {
            hex: commit.to_hex().to_string(),
            short: shorten(&repo, commit),
            tree: tree.to_hex().to_string(),
            tree_short: shorten(&repo, tree),
            parents,
            raw,
            decorations,
            head,
            now,
            describe: Some((repo, commit)),
            describe_left: std::cell::Cell::new(1),
            described: std::cell::RefCell::new(None),
        })
    }

    /// `%(describe)` runs left, to expand one file again from the same state
    /// ([`Facts::rewind_describe`]).
    pub fn describe_mark(&self) -> u32 {
        self.describe_left.get()
    }

    pub fn rewind_describe(&self, mark: u32) {
        self.describe_left.set(mark);
    }

    /// What `git describe` prints with `args`, computed once.
    fn describe_with(&self, args: &describe::Args) -> Vec<u8> {
        if let Some((known, text)) = self.described.borrow().as_ref() {
            if known == args {
                return text.clone();
            }
        }
        let text = self.describe.as_ref().map(|(repo, id)| describe::describe(repo, *id, args)).unwrap_or_default();
        *self.described.borrow_mut() = Some((args.clone(), text.clone()));
        text
    }

    /// git's `parse_commit_header`: the author and committer lines, and where the header ends
    /// (at the newline of the empty line).
    fn header(&self) -> (Option<&[u8]>, Option<&[u8]>, usize) {
        let (mut author, mut committer) = (None, None);
        let mut i = 0;
        let raw = &self.raw[..];
        while i < raw.len() {
            let eol = raw[i..].iter().position(|b| *b == b'\n').map_or(raw.len(), |at| i + at);
            if i == eol {
                break;
            }
            let line = &raw[i..eol];
            if let Some(rest) = line.strip_prefix(b"author ") {
                author = Some(rest);
            } else if let Some(rest) = line.strip_prefix(b"committer ") {
                committer = Some(rest);
            }
            i = eol + 1;
            if eol == raw.len() {
                i = raw.len();
            }
        }
        (author, committer, i)
    }

    fn encoding(&self) -> Option<&[u8]> {
        let (_, _, end) = self.header();
        self.raw[..end].lines().find_map(|line| line.strip_prefix(b"encoding "))
    }

    /// The message after the header's empty line (`%B`).
    fn body_raw(&self) -> &[u8] {
        let (_, _, end) = self.header();
        self.raw.get(end + 1..).unwrap_or_default()
    }
}

/// Refs that point at `commit` (tags peeled), as `load_ref_decorations` lists them for it:
/// every ref in name order, then HEAD, each new one first.
fn decorations(
    repo: &gix::Repository,
    objects: &mut Objects,
    commit: gix::ObjectId,
) -> (Vec<(Decoration, String)>, Option<String>) {
    let mut found = Vec::new();
    let mut refs: Vec<(String, gix::ObjectId)> = Vec::new();
    if let Ok(platform) = repo.references() {
        if let Ok(all) = platform.all() {
            for mut reference in all.flatten() {
                let name = reference.name().as_bstr().to_string();
                // Symbolic refs count with what they resolve to, tags unpeeled.
                if let Ok(id) = reference.follow_to_object() {
                    refs.push((name, id.detach()));
                }
            }
        }
    }
    refs.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let head = repo.head().ok();
    let head_branch = head.as_ref().and_then(|head| head.referent_name().map(|name| name.as_bstr().to_string()));
    if let Some(id) = head.as_ref().and_then(|head| head.id()) {
        refs.push(("HEAD".to_string(), id.detach()));
    }
    let mut buf = Vec::new();
    for (name, id) in refs {
        if name.starts_with("refs/replace/") {
            continue;
        }
        let kind = if name == "HEAD" {
            Decoration::Head
        } else if name.starts_with("refs/heads/") {
            Decoration::Local
        } else if name.starts_with("refs/tags/") {
            Decoration::Tag
        } else if name.starts_with("refs/remotes/") {
            Decoration::Remote
        } else if name == "refs/stash" {
            Decoration::Stash
        } else {
            Decoration::Other
        };
        if id == commit {
            found.push((kind, name.clone()));
        }
        // Annotated tags decorate what they point at too, as tags.
        let mut current = id;
        for _ in 0..64 {
            match objects.load(&current, gix::objs::Kind::Tag, &mut buf) {
                Ok(()) => {}
                Err(_) => break,
            }
            let Ok(tag) = gix::objs::TagRef::from_bytes(&buf, objects.object_hash()) else { break };
            current = tag.target();
            if current == commit {
                found.push((Decoration::Tag, name.clone()));
            }
        }
    }
    found.reverse();
    (found, head_branch)
}

fn prettify(name: &str) -> &str {
    name.strip_prefix("refs/heads/")
        .or_else(|| name.strip_prefix("refs/tags/"))
        .or_else(|| name.strip_prefix("refs/remotes/"))
        .unwrap_or(name)
}

/// `format_decorations_extended` without color.
fn format_decorations(facts: &Facts, out: &mut Vec<u8>, prefix: &str, separator: &str, suffix: &str) {
    if facts.decorations.is_empty() {
        return;
    }
    let has_head = facts.decorations.iter().any(|(kind, _)| *kind == Decoration::Head);
    let current =
        has_head.then_some(facts.head.as_deref()).flatten().filter(|branch| branch.starts_with("refs/")).and_then(
            |branch| facts.decorations.iter().position(|(kind, name)| *kind == Decoration::Local && name == branch),
        );
    let mut lead = prefix;
    for (i, (kind, name)) in facts.decorations.iter().enumerate() {
        if Some(i) == current {
            continue;
        }
        out.extend_from_slice(lead.as_bytes());
        if *kind == Decoration::Tag {
            out.extend_from_slice(b"tag: ");
        }
        out.extend_from_slice(prettify(name).as_bytes());
        if let (Some(current), Decoration::Head) = (current, kind) {
            out.extend_from_slice(b" -> ");
            out.extend_from_slice(prettify(&facts.decorations[current].1).as_bytes());
        }
        lead = separator;
    }
    out.extend_from_slice(suffix.as_bytes());
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// git's `get_one_line`: the length of the first line with its newline.
fn one_line(msg: &[u8]) -> usize {
    msg.iter().position(|b| *b == b'\n').map_or(msg.len(), |at| at + 1)
}

/// git's `is_blank_line`, answering the line's length without trailing whitespace.
fn trimmed(line: &[u8]) -> usize {
    line.iter().rposition(|b| !is_space(*b)).map_or(0, |at| at + 1)
}

fn skip_blank_lines(mut msg: &[u8]) -> &[u8] {
    loop {
        let len = one_line(msg);
        if len == 0 || trimmed(&msg[..len]) != 0 {
            return msg;
        }
        msg = &msg[len..];
    }
}

/// git's `format_subject`: the first paragraph, lines joined by `separator`; answers the rest.
fn format_subject<'m>(out: Option<&mut Vec<u8>>, mut msg: &'m [u8], separator: &[u8]) -> &'m [u8] {
    let mut out = out;
    let mut first = true;
    loop {
        let len = one_line(msg);
        let line = &msg[..len];
        msg = &msg[len..];
        let kept = trimmed(line);
        if len == 0 || kept == 0 {
            return msg;
        }
        if let Some(out) = out.as_mut() {
            if !first {
                out.extend_from_slice(separator);
            }
            out.extend_from_slice(&line[..kept]);
        }
        first = false;
    }
}

fn format_sanitized_subject(out: &mut Vec<u8>, msg: &[u8]) {
    let start = out.len();
    let mut space = 2;
    let mut i = 0;
    while i < msg.len() {
        let c = msg[i];
        if c.is_ascii_alphanumeric() || c == b'.' || c == b'_' {
            if space == 1 {
                out.push(b'-');
            }
            space = 0;
            out.push(c);
            if c == b'.' {
                while msg.get(i + 1) == Some(&b'.') {
                    i += 1;
                }
            }
        } else {
            space |= 1;
        }
        i += 1;
    }
    while out.len() > start && matches!(out.last(), Some(b'.') | Some(b'-')) {
        out.pop();
    }
}

/// The civil time of `time` in the zone `tz` (git's `+hhmm` as a number).
struct Tm {
    year: i64,
    month: u32,
    day: u32,
    weekday: usize,
    hour: i64,
    minute: i64,
    second: i64,
}

fn time_to_tm(time: i64, tz: i64) -> Tm {
    let minutes = (tz.abs() / 100) * 60 + tz.abs() % 100;
    let t = time + if tz < 0 { -minutes } else { minutes } * 60;
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400);
    let (year, month, day) = forgecore_date::civil_from_days(days);
    Tm {
        year,
        month,
        day,
        weekday: (days + 4).rem_euclid(7) as usize,
        hour: secs / 3600,
        minute: secs / 60 % 60,
        second: secs % 60,
    }
}

fn plural(n: i64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

/// git's `show_date_relative`.
fn relative(time: i64, now: i64) -> String {
    if now < time {
        return "in the future".into();
    }
    let mut diff = now - time;
    if diff < 90 {
        return format!("{} ago", plural(diff, "second", "seconds"));
    }
    diff = (diff + 30) / 60;
    if diff < 90 {
        return format!("{} ago", plural(diff, "minute", "minutes"));
    }
    diff = (diff + 30) / 60;
    if diff < 36 {
        return format!("{} ago", plural(diff, "hour", "hours"));
    }
    diff = (diff + 12) / 24;
    if diff < 14 {
        return format!("{} ago", plural(diff, "day", "days"));
    }
    if diff < 70 {
        return format!("{} ago", plural((diff + 3) / 7, "week", "weeks"));
    }
    if diff < 365 {
        return format!("{} ago", plural((diff + 15) / 30, "month", "months"));
    }
    if diff < 1825 {
        let total = (diff * 12 * 2 + 365) / (365 * 2);
        let (years, months) = (total / 12, total % 12);
        if months > 0 {
            return format!("{}, {} ago", plural(years, "year", "years"), plural(months, "month", "months"));
        }
        return format!("{} ago", plural(years, "year", "years"));
    }
    format!("{} ago", plural((diff + 183) / 365, "year", "years"))
}

/// `show_ident_date` in the mode a person placeholder names.
fn show_date(part: u8, time: i64, tz: i64, now: i64) -> String {
    if part == b'r' {
        return relative(time, now);
    }
    let tm = time_to_tm(time, tz);
    let (wday, mon) = (&WEEKDAYS[tm.weekday][..3], &MONTHS[tm.month as usize - 1][..3]);
    match part {
        b's' => format!("{:04}-{:02}-{:02}", tm.year, tm.month, tm.day),
        b'i' => format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02} {tz:+05}",
            tm.year, tm.month, tm.day, tm.hour, tm.minute, tm.second
        ),
        b'I' => format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{}{:02}:{:02}",
            tm.year,
            tm.month,
            tm.day,
            tm.hour,
            tm.minute,
            tm.second,
            if tz >= 0 { '+' } else { '-' },
            tz.abs() / 100,
            tz.abs() % 100
        ),
        b'D' => {
            format!("{wday}, {} {mon} {} {:02}:{:02}:{:02} {tz:+05}", tm.day, tm.year, tm.hour, tm.minute, tm.second)
        }
        _ => format!("{wday} {mon} {} {:02}:{:02}:{:02} {} {tz:+05}", tm.day, tm.hour, tm.minute, tm.second, tm.year),
    }
}

/// git's `split_ident_line`: name, mail, and the date and zone when they parse.
struct Ident<'a> {
    name: &'a [u8],
    mail: &'a [u8],
    date: Option<(&'a [u8], &'a [u8])>,
}

fn split_ident(line: &[u8]) -> Option<Ident<'_>> {
    let lt = line.iter().position(|b| *b == b'<')?;
    let name_end = line[..lt].iter().rposition(|b| !is_space(*b)).map_or(0, |at| at + 1);
    let gt = lt + 1 + line[lt + 1..].iter().position(|b| *b == b'>')?;
    let last_gt = line.iter().rposition(|b| *b == b'>').unwrap_or(gt);
    let mut cp = last_gt + 1;
    while cp < line.len() && is_space(line[cp]) {
        cp += 1;
    }
    let date = (|| {
        let digits = line[cp..].iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        let date = &line[cp..cp + digits];
        let mut at = cp + digits;
        while at < line.len() && is_space(line[at]) {
            at += 1;
        }
        if at >= line.len() || !matches!(line[at], b'+' | b'-') {
            return None;
        }
        let tz_digits = line[at + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
        if tz_digits == 0 {
            return None;
        }
        Some((date, &line[at..at + 1 + tz_digits]))
    })();
    Some(Ident { name: &line[..name_end], mail: &line[lt + 1..gt], date })
}

/// `format_person_part`: bytes consumed (0 for an unknown placeholder).
fn person(out: &mut Vec<u8>, part: u8, line: Option<&[u8]>, now: i64) -> usize {
    let known_on_skip = matches!(part, b'n' | b'e' | b't' | b'd' | b'D' | b'r' | b'i');
    let skip = if known_on_skip { 2 } else { 0 };
    let Some(ident) = line.and_then(split_ident) else { return skip };
    match part {
        b'n' | b'N' => {
            out.extend_from_slice(ident.name);
            return 2;
        }
        b'e' | b'E' => {
            out.extend_from_slice(ident.mail);
            return 2;
        }
        b'l' | b'L' => {
            let local = ident.mail.iter().position(|b| *b == b'@').map_or(ident.mail, |at| &ident.mail[..at]);
            out.extend_from_slice(local);
            return 2;
        }
        _ => {}
    }
    let Some((date, tz)) = ident.date else { return skip };
    if part == b't' {
        out.extend_from_slice(date);
        return 2;
    }
    if !matches!(part, b'd' | b'D' | b'r' | b'i' | b'I' | b's') {
        return skip;
    }
    // strtoumax / strtol; a date beyond what git can show is the epoch in UTC.
    let (time, tz) = match std::str::from_utf8(date).ok().and_then(|d| d.parse::<i64>().ok()) {
        Some(time) if time <= 253_402_300_799 * 100 => {
            let tz = std::str::from_utf8(tz).ok().and_then(|t| t.parse::<i64>().ok()).unwrap_or(0);
            (time, if tz.abs() >= i64::from(i32::MAX) { 0 } else { tz })
        }
        _ => (0, 0),
    };
    out.extend_from_slice(show_date(part, time, tz, now).as_bytes());
    2
}

/// `format_commit_one`: what one placeholder (the text after `%`) adds, and how many bytes it
/// takes; 0 for an unknown one.
fn format_one(facts: &Facts, p: &[u8], out: &mut Vec<u8>) -> usize {
    let at = |i: usize| p.get(i).copied().unwrap_or(0);
    match at(0) {
        b'n' => {
            out.push(b'\n');
            return 1;
        }
        b'x' => {
            let hex = |b: u8| (b as char).to_digit(16);
            return match (hex(at(1)), hex(at(2))) {
                (Some(high), Some(low)) => {
                    out.push((high * 16 + low) as u8);
                    3
                }
                _ => 0,
            };
        }
        b'C' => {
            if p[1..].starts_with(b"(auto)") {
                return 7;
            }
            if at(1) == b'(' {
                return p[2..].iter().position(|b| *b == b')').map_or(0, |end| end + 3);
            }
            return [&b"red"[..], b"green", b"blue", b"reset"]
                .iter()
                .find(|color| p[1..].starts_with(color))
                .map_or(0, |color| color.len() + 1);
        }
        b'w' | b'<' | b'>' => return 0,
        _ => {}
    }
    if let Some(rest) = p.strip_prefix(b"(describe") {
        // git archive runs `git describe` once per archive: later ones stay as they are,
        // and so does a malformed one, which still used the one run.
        if facts.describe_left.get() == 0 {
            return 0;
        }
        facts.describe_left.set(facts.describe_left.get() - 1);
        let (args, used) = match rest.strip_prefix(b":") {
            Some(after) => match describe::parse_args(after) {
                Some((args, used)) => (args, used + 1),
                None => return 0,
            },
            None => (describe::Args::default(), 0),
        };
        if rest.get(used) != Some(&b')') {
            return 0;
        }
        let mut text = facts.describe_with(&args);
        while text.last().is_some_and(u8::is_ascii_whitespace) {
            text.pop();
        }
        out.extend_from_slice(&text);
        return "(describe".len() + used + 1;
    }
    match at(0) {
        b'H' => out.extend_from_slice(facts.hex.as_bytes()),
        b'h' => out.extend_from_slice(facts.short.as_bytes()),
        b'T' => out.extend_from_slice(facts.tree.as_bytes()),
        b't' => out.extend_from_slice(facts.tree_short.as_bytes()),
        b'P' | b'p' => {
            for (i, (hex, short)) in facts.parents.iter().enumerate() {
                if i > 0 {
                    out.push(b' ');
                }
                out.extend_from_slice(if at(0) == b'P' { hex } else { short }.as_bytes());
            }
        }
        b'm' => out.push(b'>'),
        b'd' => format_decorations(facts, out, " (", ", ", ")"),
        b'D' => format_decorations(facts, out, "", ", ", ""),
        b'S' | b'N' => return 0,
        b'g' => {
            return match at(1) {
                b'd' | b'D' | b's' | b'n' | b'N' | b'e' | b'E' => 2,
                _ => 0,
            }
        }
        b'G' => {
            match at(1) {
                b'?' => out.push(b'N'),
                b'T' => out.extend_from_slice(b"undefined"),
                b'G' | b'S' | b'K' | b'F' | b'P' => {}
                _ => return 0,
            }
            return 2;
        }
        b'a' | b'c' => {
            let (author, committer, _) = facts.header();
            let line = if at(0) == b'a' { author } else { committer };
            return person(out, at(1), line, facts.now);
        }
        b'e' => out.extend_from_slice(facts.encoding().unwrap_or_default()),
        b'B' => out.extend_from_slice(facts.body_raw()),
        b's' | b'f' | b'b' => {
            let (_, _, end) = facts.header();
            let message = skip_blank_lines(facts.raw.get(end..).unwrap_or_default());
            match at(0) {
                b's' => {
                    format_subject(Some(out), message, b" ");
                }
                b'f' => {
                    let line = &message[..message.iter().position(|b| *b == b'\n').unwrap_or(message.len())];
                    format_sanitized_subject(out, line);
                }
                _ => out.extend_from_slice(skip_blank_lines(format_subject(None, message, b""))),
            }
        }
        _ => return 0,
    }
    1
}

/// git's `strbuf_expand` with `format_commit_item` on `format`, into `emitter`.
pub fn expand(facts: &Facts, format: &[u8], emitter: &mut Emitter, out: Out<'_>) -> io::Result<()> {
    let mut rest = format;
    let mut piece = Vec::new();
    loop {
        let percent = rest.iter().position(|b| *b == b'%').unwrap_or(rest.len());
        emitter.emit(&rest[..percent], out)?;
        if percent == rest.len() {
            return Ok(());
        }
        rest = &rest[percent + 1..];
        if rest.first() == Some(&b'%') {
            emitter.emit(b"%", out)?;
            rest = &rest[1..];
            continue;
        }
        let magic = match rest.first() {
            Some(m @ (b'-' | b'+' | b' ')) => Some(*m),
            _ => None,
        };
        piece.clear();
        let consumed = match magic {
            None => format_one(facts, rest, &mut piece),
            Some(_) if rest.get(1) == Some(&b'w') => 0,
            Some(magic) => {
                let consumed = format_one(facts, &rest[1..], &mut piece);
                match (piece.is_empty(), magic) {
                    (true, b'-') => emitter.drop_newlines(),
                    (false, b'+') => piece.insert(0, b'\n'),
                    (false, b' ') => piece.insert(0, b' '),
                    _ => {}
                }
                consumed + 1
            }
        };
        emitter.emit(&piece, out)?;
        if consumed == 0 {
            emitter.emit(b"%", out)?;
        } else {
            rest = &rest[consumed..];
        }
    }
}

#[cfg(test)]
impl Facts {
    pub const EXAMPLE_HEX: &'static str = "1234567890123456789012345678901234567890";

    /// Facts of a made-up commit, for tests that have no repository.
    pub fn example() -> Facts {
        let hex = Facts::EXAMPLE_HEX.to_string();
        let raw = format!(
            "tree {hex}\nauthor A <a@example.com> 1700000000 +0000\ncommitter C <c@example.com> 1700000000 +0000\n\nExample subject\n\nBody\n"
        );
        Facts {
            short: hex[..7].to_string(),
            tree: hex.clone(),
            tree_short: hex[..7].to_string(),
            hex,
            parents: Vec::new(),
            raw: raw.into_bytes(),
            decorations: Vec::new(),
            head: None,
            now: 1_700_000_000,
            describe: None,
            describe_left: std::cell::Cell::new(1),
            described: std::cell::RefCell::new(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_read_as_git_shows_them() {
        // 1700000000 is 2023-11-14 22:13:20 UTC, a Tuesday.
        assert_eq!(show_date(b'd', 1_700_000_000, 100, 0), "Tue Nov 14 23:13:20 2023 +0100");
        assert_eq!(show_date(b'D', 1_700_000_000, -130, 0), "Tue, 14 Nov 2023 20:43:20 -0130");
        assert_eq!(show_date(b'i', 1_700_000_000, 0, 0), "2023-11-14 22:13:20 +0000");
        assert_eq!(show_date(b'I', 1_700_000_000, -130, 0), "2023-11-14T20:43:20-01:30");
        assert_eq!(show_date(b's', 1_700_000_000, 0, 0), "2023-11-14");
        assert_eq!(relative(0, 100), "2 minutes ago");
    }

    #[test]
    fn subjects_join_the_first_paragraph() {
        let mut out = Vec::new();
        let rest = format_subject(Some(&mut out), b"one  \ntwo\n\nbody\n", b" ");
        assert_eq!(out, b"one two");
        assert_eq!(skip_blank_lines(rest), b"body\n");
        let mut out = Vec::new();
        format_sanitized_subject(&mut out, b"Fix: the ...bug!");
        assert_eq!(out, b"Fix-the-.bug");
    }
}
