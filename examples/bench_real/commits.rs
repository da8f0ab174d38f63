//! GitLab's commit entity (compare's `commits`, merge base's answer) against `git log`, field
//! by field, as tests/merge_base.rs checks it: id, short id (8 digits), parents, author and
//! committer names and emails as stored (`%an`, `%ae`: no mailmap), dates (`%aI`, `%cI`: git
//! has no fraction, GitLab has milliseconds; the same instant and offset), `created_at` the
//! committed date, `message` (the whole message, trailing whitespace aside) and `title` (its
//! first line, GitLab's `message.split(/[\r\n]/).first`).

use crate::git::Git;
use crate::report::{clip, first_difference};
use serde_json::Value;

/// A commit as `git log` prints it.
pub struct GitCommit {
    pub id: String,
    pub parents: Vec<String>,
    author_name: String,
    author_email: String,
    authored: String,
    committer_name: String,
    committer_email: String,
    committed: String,
    /// The committer time in seconds (`%ct`): git lists a range by it.
    pub committed_seconds: i64,
    message: String,
}

/// Fields of one commit, NUL-separated; each commit ends with NUL, SOH and git's newline
/// (a message never holds NUL, so that end cannot occur inside one).
const FORMAT: &str = "--format=tformat:%H%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%ct%x00%B%x00%x01";

/// `git log <args>` with every field the entity has, in git's order.
pub fn log(git: &Git, args: &[&str]) -> Result<Vec<GitCommit>, String> {
    let out = git.bytes(&[&["log", FORMAT][..], args].concat())?;
    let text = String::from_utf8_lossy(&out);
    let mut commits = Vec::new();
    for record in text.split("\0\u{1}\n").filter(|r| !r.is_empty()) {
        let fields: Vec<&str> = record.split('\0').collect();
        let [id, parents, an, ae, ad, cn, ce, cd, ct, message] = fields[..] else {
            return Err(format!("git log: a record of {} fields: {}", fields.len(), clip(record, 200)));
        };
        commits.push(GitCommit {
            id: id.to_string(),
            parents: parents.split_whitespace().map(str::to_string).collect(),
            author_name: an.to_string(),
            author_email: ae.to_string(),
            authored: ad.to_string(),
            committer_name: cn.to_string(),
            committer_email: ce.to_string(),
            committed: cd.to_string(),
            committed_seconds: ct.parse().map_err(|e| format!("git log: %ct {ct}: {e}"))?,
            message: message.to_string(),
        });
    }
    Ok(commits)
}

/// The fields of `ours` that differ from git's commit, as `field: forgecore ... git ...`.
pub fn differences(ours: &Value, git: &GitCommit) -> Vec<String> {
    let text = |name: &str| ours[name].as_str().unwrap_or("<missing>").to_string();
    // GitLab's dates carry milliseconds, git's none: the same instant reads the same without.
    let date = |name: &str| text(name).replacen(".000", "", 1);
    let title = git.message.split(['\r', '\n']).next().unwrap_or("").to_string();
    let parents: Vec<String> = ours["parent_ids"]
        .as_array()
        .map_or(Vec::new(), |p| p.iter().map(|v| v.to_string().replace('"', "")).collect());
    let short = git.id.get(..8).unwrap_or(&git.id).to_string();
    let fields = [
        ("id", text("id"), git.id.clone()),
        ("short_id", text("short_id"), short),
        ("parent_ids", parents.join(" "), git.parents.join(" ")),
        ("title", text("title"), title),
        ("message", text("message").trim_end().to_string(), git.message.trim_end().to_string()),
        ("author_name", text("author_name"), git.author_name.clone()),
        ("author_email", text("author_email"), git.author_email.clone()),
        ("authored_date", date("authored_date"), git.authored.clone()),
        ("committer_name", text("committer_name"), git.committer_name.clone()),
        ("committer_email", text("committer_email"), git.committer_email.clone()),
        ("committed_date", date("committed_date"), git.committed.clone()),
        ("created_at", date("created_at"), git.committed.clone()),
    ];
    fields
        .into_iter()
        .filter(|(_, ours, theirs)| ours != theirs)
        .map(|(field, ours, theirs)| match field {
            "message" => format!("message: {}", first_difference(&ours, &theirs)),
            _ => format!("{field}: forgecore {:?} | git {:?}", clip(&ours, 160), clip(&theirs, 160)),
        })
        .collect()
}
