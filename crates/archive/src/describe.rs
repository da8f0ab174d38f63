//! `%(describe)` in `export-subst` files: what `git describe <commit>` prints (git 2.39's
//! `builtin/describe.c`), computed here, since no program runs. The nearest tag: annotated
//! tags only unless `tags`, filtered by `match` and `exclude` (git's wildmatch, `*` crossing
//! `/`), found by walking the history newest first and counting the commits each candidate
//! does not reach; `<tag>` when the commit is tagged, `<tag>-<n>-g<abbreviated id>` otherwise,
//! nothing when no tag describes it (git's `describe` fails and `archive` writes nothing).

use std::collections::HashMap;

use gix::bstr::{BStr, ByteSlice};
use gix::prelude::ObjectIdExt;
use gix::ObjectId;

/// git's `max_candidates`: the search stops after this many tags.
const MAX_CANDIDATES: usize = 10;
/// git's `MINIMUM_ABBREV`.
const MINIMUM_ABBREV: usize = 4;

/// The arguments of one `%(describe:...)`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Args {
    pub tags: bool,
    /// `abbrev=<n>`; `None` is git's default length.
    pub abbrev: Option<i64>,
    pub matches: Vec<Vec<u8>>,
    pub excludes: Vec<Vec<u8>>,
}

/// git's `parse_describe_args` on what follows `%(describe:`: the arguments and the bytes they
/// took; `None` when an argument is malformed in a way that makes git leave the placeholder.
pub fn parse_args(text: &[u8]) -> Option<(Args, usize)> {
    let mut args = Args::default();
    let mut at = 0;
    loop {
        let rest = &text[at..];
        let Some((name, value, used)) = ["tags", "abbrev", "exclude", "match"].iter().find_map(|name| {
            let after = rest.strip_prefix(name.as_bytes())?;
            let (value, tail) = match after.first() {
                Some(b'=') => {
                    let len = after[1..].iter().position(|b| matches!(b, b',' | b')')).unwrap_or(after.len() - 1);
                    (Some(&after[1..1 + len]), &after[1 + len..])
                }
                Some(b',' | b')') => (None, after),
                _ => return None,
            };
            let used = rest.len() - tail.len() + usize::from(tail.first() == Some(&b','));
            matches!(tail.first(), Some(b',' | b')')).then_some((*name, value, used))
        }) else {
            return Some((args, at));
        };
        match name {
            "tags" => args.tags = parse_bool(value)?,
            "abbrev" => {
                let value = value.filter(|v| !v.is_empty())?;
                args.abbrev = Some(parse_integer(value)?);
            }
            _ => {
                let value = value.filter(|v| !v.is_empty())?.to_vec();
                if name == "match" { &mut args.matches } else { &mut args.excludes }.push(value);
            }
        }
        at += used;
    }
}

/// git's `git_parse_maybe_bool`; no value is true.
fn parse_bool(value: Option<&[u8]>) -> Option<bool> {
    let Some(value) = value else { return Some(true) };
    match value.to_ascii_lowercase().as_slice() {
        b"true" | b"yes" | b"on" => Some(true),
        b"false" | b"no" | b"off" | b"" => Some(false),
        other => std::str::from_utf8(other).ok()?.parse::<i64>().ok().map(|n| n != 0),
    }
}

/// `strtol` that must take the whole text (leading spaces and a sign allowed).
fn parse_integer(value: &[u8]) -> Option<i64> {
    let text = std::str::from_utf8(value).ok()?;
    let trimmed = text.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let trimmed = trimmed.strip_prefix('+').unwrap_or(trimmed);
    trimmed.parse::<i64>().ok()
}

/// A tag that can name a commit (git's `struct commit_name`).
struct Name {
    /// The ref's name after `refs/tags/`.
    path: String,
    /// 2 annotated, 1 lightweight.
    prio: u8,
    /// The tag object of an annotated tag.
    tag: Option<TagObject>,
}

/// An annotated tag's object: the name it gives itself and its date.
struct TagObject {
    name: Vec<u8>,
    date: i64,
}

/// What `git describe` prints for `commit`; empty when it fails.
pub fn describe(repo: &gix::Repository, commit: ObjectId, args: &Args) -> Vec<u8> {
    let names = known_names(repo, args);
    describe_with(repo, commit, args, &names).unwrap_or_default()
}

/// The tags under `refs/tags/` that `args` let describe, by the commit they peel to (git's
/// `get_name` and `add_to_known_names`, over the refs in name order).
fn known_names(repo: &gix::Repository, args: &Args) -> HashMap<ObjectId, Name> {
    let mut names: HashMap<ObjectId, Name> = HashMap::new();
    let Ok(platform) = repo.references() else { return names };
    let Ok(tags) = platform.prefixed(b"refs/tags/".as_bstr()) else { return names };
    let mut refs: Vec<(String, ObjectId)> = tags
        .flatten()
        .filter_map(|mut r| Some((r.name().as_bstr().to_string(), r.follow_to_object().ok()?.detach())))
        .collect();
    refs.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    for (full, id) in refs {
        let path = full["refs/tags/".len()..].to_string();
        let matches = |pattern: &Vec<u8>| {
            gix::glob::wildmatch(pattern.as_bstr(), path.as_bytes().as_bstr(), gix::glob::wildmatch::Mode::empty())
        };
        if args.excludes.iter().any(matches) || (!args.matches.is_empty() && !args.matches.iter().any(matches)) {
            continue;
        }
        let Some((peeled, first_tag)) = peel(repo, id) else { continue };
        let prio = if first_tag.is_some() { 2 } else { 1 };
        let replace = match names.get(&peeled) {
            None => true,
            Some(existing) if existing.prio < prio => true,
            // Two annotated tags of one commit: the newer tag date wins.
            Some(existing) if existing.prio == 2 && prio == 2 => match (&existing.tag, &first_tag) {
                (None, _) => true,
                (_, None) => false,
                (Some(old), Some(new)) => old.date < new.date,
            },
            Some(_) => false,
        };
        if replace {
            names.insert(peeled, Name { path, prio, tag: first_tag });
        }
    }
    names
}

/// What `id` peels to, and the first tag object on the way.
fn peel(repo: &gix::Repository, id: ObjectId) -> Option<(ObjectId, Option<TagObject>)> {
    let mut current = id;
    let mut first = None;
    for _ in 0..64 {
        let object = repo.find_object(current).ok()?;
        if object.kind != gix::objs::Kind::Tag {
            return Some((current, first));
        }
        let tag = gix::objs::TagRef::from_bytes(&object.data, repo.object_hash()).ok()?;
        if first.is_none() {
            let date = tag.tagger().ok().flatten().map_or(0, |t| t.seconds());
            first = Some(TagObject { name: tag.name.to_vec(), date });
        }
        current = tag.target();
    }
    None
}

/// A commit's parents and committer date.
fn parse(repo: &gix::Repository, id: ObjectId) -> Option<(Vec<ObjectId>, i64)> {
    let object = repo.find_object(id).ok()?;
    let commit = gix::objs::CommitRef::from_bytes(&object.data, repo.object_hash()).ok()?;
    Some((commit.parents().collect(), commit.committer().ok()?.seconds()))
}

/// One candidate of the search (git's `struct possible_tag`).
struct Candidate<'n> {
    name: &'n Name,
    depth: u64,
    within: u32,
    found_order: usize,
}

const SEEN: u32 = 1;

/// The walk's state: the list of commits to visit, newest first and first in first out among
/// equal dates (`commit_list_insert_by_date`), each commit's flags, and what was parsed.
struct Walk<'r> {
    repo: &'r gix::Repository,
    list: std::collections::VecDeque<(ObjectId, i64)>,
    flags: HashMap<ObjectId, u32>,
    parsed: HashMap<ObjectId, (Vec<ObjectId>, i64)>,
}

impl Walk<'_> {
    fn insert(&mut self, id: ObjectId, date: i64) {
        let at = self.list.iter().position(|&(_, d)| d < date).unwrap_or(self.list.len());
        self.list.insert(at, (id, date));
    }

    /// The committer date of `id`, parsing it once.
    fn date(&mut self, id: ObjectId) -> Option<i64> {
        if let Some((_, date)) = self.parsed.get(&id) {
            return Some(*date);
        }
        let (parents, date) = parse(self.repo, id)?;
        self.parsed.insert(id, (parents, date));
        Some(date)
    }

    fn flags(&self, id: &ObjectId) -> u32 {
        self.flags.get(id).copied().unwrap_or_default()
    }

    /// Queues the parents of `c` not seen yet and passes its flags on to them.
    fn visit_parents(&mut self, c: ObjectId) -> Option<()> {
        self.date(c)?;
        let c_flags = self.flags(&c);
        let parents = self.parsed.get(&c).map(|p| p.0.clone()).unwrap_or_default();
        for p in parents {
            let date = self.date(p)?;
            if self.flags(&p) & SEEN == 0 {
                self.insert(p, date);
            }
            *self.flags.entry(p).or_default() |= c_flags;
        }
        Some(())
    }
}

fn describe_with(
    repo: &gix::Repository,
    commit: ObjectId,
    args: &Args,
    names: &HashMap<ObjectId, Name>,
) -> Option<Vec<u8>> {
    if let Some(name) = names.get(&commit).filter(|n| args.tags || n.prio == 2) {
        let (mut out, misnamed) = append_name(name);
        if misnamed {
            append_suffix(repo, &mut out, 0, commit, args)?;
        }
        return Some(out);
    }
    let mut walk = Walk { repo, list: Default::default(), flags: HashMap::new(), parsed: HashMap::new() };
    let mut matches: Vec<Candidate<'_>> = Vec::new();
    let (mut annotated, mut seen_commits) = (0usize, 0u64);
    let mut gave_up_on = None;
    let date = walk.date(commit)?;
    walk.flags.insert(commit, SEEN);
    walk.insert(commit, date);
    while let Some((c, c_date)) = walk.list.pop_front() {
        seen_commits += 1;
        if let Some(name) = names.get(&c) {
            if !args.tags && name.prio < 2 {
                // An unannotated tag: only a hint in git's error message.
            } else if matches.len() < MAX_CANDIDATES {
                let within = 1u32 << (matches.len() + 1);
                matches.push(Candidate { name, depth: seen_commits - 1, within, found_order: matches.len() + 1 });
                *walk.flags.entry(c).or_default() |= within;
                if name.prio == 2 {
                    annotated += 1;
                }
            } else {
                gave_up_on = Some((c, c_date));
                break;
            }
        }
        let c_flags = walk.flags(&c);
        for candidate in &mut matches {
            if c_flags & candidate.within == 0 {
                candidate.depth += 1;
            }
        }
        // Stop when the last path left is already covered by the best candidates.
        if annotated > 0 && walk.list.is_empty() {
            let best_depth = matches.iter().map(|m| m.depth).min().unwrap_or(u64::MAX);
            let best_within = matches.iter().filter(|m| m.depth == best_depth).fold(0, |acc, m| acc | m.within);
            if c_flags & best_within == best_within {
                break;
            }
        }
        walk.visit_parents(c)?;
    }
    if matches.is_empty() {
        return None;
    }
    matches.sort_by(|a, b| a.depth.cmp(&b.depth).then(a.found_order.cmp(&b.found_order)));
    if let Some((c, date)) = gave_up_on {
        walk.insert(c, date);
    }
    // finish_depth_computation: walk on until only commits the best candidate reaches remain.
    let best_within = matches[0].within;
    let mut extra = 0u64;
    while let Some((c, _)) = walk.list.pop_front() {
        if walk.flags(&c) & best_within != 0 {
            if walk.list.iter().all(|(i, _)| walk.flags(i) & best_within != 0) {
                break;
            }
        } else {
            extra += 1;
        }
        walk.visit_parents(c)?;
    }
    let best = &matches[0];
    let (mut out, misnamed) = append_name(best.name);
    if misnamed || args.abbrev != Some(0) {
        append_suffix(repo, &mut out, best.depth + extra, commit, args)?;
    }
    Some(out)
}

/// git's `append_name`: an annotated tag by the name it gives itself (misnamed when that
/// differs from the ref's), a lightweight one by its ref name.
fn append_name(name: &Name) -> (Vec<u8>, bool) {
    match &name.tag {
        Some(tag) if name.prio == 2 => (tag.name.clone(), tag.name.as_bstr() != BStr::new(name.path.as_bytes())),
        _ => (name.path.as_bytes().to_vec(), false),
    }
}

/// git's `append_suffix`: `-<depth>-g<abbreviated id>`.
fn append_suffix(repo: &gix::Repository, out: &mut Vec<u8>, depth: u64, id: ObjectId, args: &Args) -> Option<()> {
    let hex = match args.abbrev {
        None => id.attach(repo).shorten_or_id().to_string(),
        Some(n) => {
            let hex_len = id.kind().len_in_hex();
            // describe's --abbrev: 0 is the whole id; below the minimum, the minimum.
            let wanted = match n {
                0 => hex_len,
                n if n < MINIMUM_ABBREV as i64 => MINIMUM_ABBREV,
                n => usize::try_from(n).unwrap_or(hex_len).min(hex_len),
            };
            unique_prefix(repo, id, wanted)
        }
    };
    out.extend_from_slice(format!("-{depth}-g{hex}").as_bytes());
    Some(())
}

/// The shortest prefix of `id`, at least `min` hex digits, that names no other object.
fn unique_prefix(repo: &gix::Repository, id: ObjectId, min: usize) -> String {
    let hex = id.to_hex().to_string();
    for len in min..hex.len() {
        let Ok(prefix) = gix::hash::Prefix::new(&id, len) else { break };
        if let Ok(Some(Ok(found))) = repo.objects.lookup_prefix(prefix, None) {
            if found == id {
                return hex[..len].to_string();
            }
        }
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_parse_as_git_parses_them() {
        fn args(text: &str) -> Option<(Args, &str)> {
            parse_args(text.as_bytes()).map(|(a, used)| (a, &text[used..]))
        }
        let (parsed, rest) = args("abbrev=12)").unwrap();
        assert_eq!((parsed.abbrev, rest), (Some(12), ")"));
        let (parsed, rest) = args("tags,match=v*,exclude=x)").unwrap();
        assert!(parsed.tags);
        assert_eq!((parsed.matches, parsed.excludes, rest), (vec![b"v*".to_vec()], vec![b"x".to_vec()], ")"));
        assert!(!args("tags=no)").unwrap().0.tags);
        assert_eq!(args("foo)").unwrap().1, "foo)", "an unknown argument ends the list");
        assert!(args("match=)").is_none() && args("abbrev=x)").is_none());
    }
}
