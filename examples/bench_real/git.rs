//! The git side of every row: commands on the repository's git directory, run as the oracle
//! (their output is what forgecore must answer) and timed against forgecore.
//!
//! Every command runs with `GIT_CONFIG_NOSYSTEM=1` and `GIT_CONFIG_GLOBAL=/dev/null`, as the
//! tests run git, so no user or system setting (`diff.renames`, `log.mailmap`, a pager, ...)
//! changes an answer; only the repository's own configuration applies. Commands name the git
//! directory (`--git-dir`), not a work tree: forgecore serves the git directory, and git
//! with a work tree would read `.gitattributes` from files forgecore never sees.
//!
//! A [`Cmd`] prints as a shell command line, so every mismatch comes with the git command
//! that reproduces it.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment every git command runs with (see the module documentation).
const CLEAN_ENV: [(&str, &str); 2] = [("GIT_CONFIG_NOSYSTEM", "1"), ("GIT_CONFIG_GLOBAL", "/dev/null")];

/// One repository, reached through its git directory.
pub struct Git {
    git_dir: PathBuf,
}

impl Git {
    /// The repository at `path`: a git directory or a work tree.
    pub fn open(path: &Path) -> Result<Git, String> {
        let probe = Cmd::new("git", ["-C", &path.to_string_lossy(), "rev-parse", "--absolute-git-dir"]);
        let out = probe.run().map_err(|e| format!("{} is not a git repository: {e}", path.display()))?;
        let git_dir = PathBuf::from(String::from_utf8_lossy(&out).trim());
        Ok(Git { git_dir })
    }

    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    /// `git --git-dir=<dir> <args>`, to run or to time.
    pub fn cmd(&self, args: &[&str]) -> Cmd {
        let dir = format!("--git-dir={}", self.git_dir.display());
        Cmd::new("git", std::iter::once(dir.as_str()).chain(args.iter().copied()))
    }

    /// A shell pipeline or sequence of git commands on this repository (`GIT_DIR` exported).
    pub fn shell(&self, script: &str) -> Cmd {
        let dir = quote(&self.git_dir.to_string_lossy());
        Cmd::new("bash", ["-c", &format!("set -eo pipefail; export GIT_DIR={dir}; {script}")])
    }

    /// The standard output of `git <args>`, or why it failed.
    pub fn bytes(&self, args: &[&str]) -> Result<Vec<u8>, String> {
        self.cmd(args).run()
    }

    /// `bytes` as text, lossily decoded, without the trailing newline.
    pub fn text(&self, args: &[&str]) -> Result<String, String> {
        Ok(String::from_utf8_lossy(&self.bytes(args)?).trim_end().to_string())
    }

    /// `git rev-list --count <args>`.
    pub fn count(&self, args: &[&str]) -> Result<usize, String> {
        let text = self.text(&[&["rev-list", "--count"][..], args].concat())?;
        text.parse().map_err(|e| format!("rev-list --count {args:?}: {e}: {text}"))
    }
}

/// A command line (program and arguments), run with the clean git environment.
#[derive(Clone)]
pub struct Cmd {
    argv: Vec<String>,
}

impl Cmd {
    fn new<'a>(program: &'a str, args: impl IntoIterator<Item = &'a str>) -> Cmd {
        Cmd { argv: std::iter::once(program).chain(args).map(str::to_string).collect() }
    }

    /// Runs the command once, its whole standard output captured, as a caller reading it
    /// would; `Err` with the first line of its standard error when it fails.
    pub fn run(&self) -> Result<Vec<u8>, String> {
        self.output().map(|(stdout, _)| stdout)
    }

    /// `run`, with the standard error too (git's warnings).
    pub fn output(&self) -> Result<(Vec<u8>, String), String> {
        let output = Command::new(&self.argv[0])
            .args(&self.argv[1..])
            .envs(CLEAN_ENV)
            .output()
            .map_err(|e| format!("{}: {e}", self.argv[0]))?;
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        if output.status.success() {
            return Ok((output.stdout, stderr));
        }
        Err(format!("`{self}` failed ({}): {}", output.status, stderr.lines().next().unwrap_or("").trim()))
    }
}

impl fmt::Display for Cmd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let words: Vec<String> = self.argv.iter().map(|w| quote(w)).collect();
        f.write_str(&words.join(" "))
    }
}

/// `word` as one shell word: as is when it is plain, in single quotes otherwise.
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,@%^+".contains(&b));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
