//! The table and the mismatches: each row is checked once (forgecore's answer against git's
//! output), then both sides are timed with `harness::measure` (warm-up, then samples until
//! the budget is spent, at least `min_iters`; the median is reported).
//!
//! A mismatch is a line of text saying what differs, at which revision and file, with the
//! request and the git command that reproduce it. A row prints its first [`SHOWN`] mismatches
//! and counts the rest; any mismatch makes the run exit non-zero once every row has run.

use crate::git::Cmd;
use crate::harness::{self, human, Settings, Stats};
use std::hint::black_box;

/// Mismatches printed per row; the others are counted.
const SHOWN: usize = 12;

/// The `forgecore` argument of [`Report::row`] for a row with nothing to time.
pub const UNTIMED: Option<fn() -> bool> = None;

/// What checking one row found.
#[derive(Default)]
pub struct Check {
    /// Differences from git, each a self-contained description.
    pub mismatches: Vec<String>,
    /// Facts about the answer for the notes column (sizes, counts).
    pub notes: Vec<String>,
}

impl Check {
    pub fn new() -> Check {
        Check::default()
    }

    pub fn mismatch(&mut self, text: impl Into<String>) {
        self.mismatches.push(text.into());
    }

    pub fn note(&mut self, text: impl Into<String>) {
        self.notes.push(text.into());
    }

    /// Records `Err` as a mismatch (the check could not finish), passing `Ok` on.
    pub fn or_mismatch<T>(&mut self, result: Result<T, String>) -> Option<T> {
        result.map_err(|e| self.mismatch(e)).ok()
    }
}

/// One line of the table.
struct Row {
    name: String,
    forgecore: Option<Stats>,
    git: Result<Stats, String>,
    check: Check,
}

impl Row {
    fn ratio(&self) -> Option<f64> {
        match (&self.forgecore, &self.git) {
            (Some(ours), Ok(git)) => Some(ours.median.as_secs_f64() / git.median.as_secs_f64().max(1e-12)),
            _ => None,
        }
    }
}

pub struct Report {
    settings: Settings,
    rows: Vec<Row>,
}

impl Report {
    pub fn new(settings: Settings) -> Report {
        Report { settings, rows: Vec::new() }
    }

    /// Whether the row `name` runs (`FC_BENCH_FILTER`: only rows whose name contains it).
    pub fn wants(&self, name: &str) -> bool {
        self.settings.filter.as_deref().is_none_or(|f| name.contains(f))
    }

    /// Adds a row: `check` is what comparing the answers found; `forgecore` does the row's
    /// request once and says whether it was answered 200 (`None` when there is nothing
    /// sensible to time, e.g. forgecore failed); `git` is the command doing the same work.
    pub fn row(&mut self, name: &str, mut check: Check, forgecore: Option<impl FnMut() -> bool>, git: &Cmd) {
        eprint!("  {name} ...");
        let mut failed = 0usize;
        let ours = forgecore.map(|mut op| {
            harness::measure(&self.settings, || {
                if !op() {
                    failed += 1;
                }
            })
        });
        if failed > 0 {
            check.mismatch(format!("{failed} of the timed requests were not answered 200"));
        }
        let git = match git.run() {
            Ok(_) => Ok(harness::measure(&self.settings, || black_box(git.run()))),
            Err(e) => Err(e),
        };
        let row = Row { name: name.to_string(), forgecore: ours, git, check };
        eprintln!(
            " {} / {}{}",
            row.forgecore.map_or("-".into(), |s| human(s.median)),
            row.git.as_ref().map_or("failed".into(), |s| human(s.median)),
            if row.check.mismatches.is_empty() { "" } else { " MISMATCH" }
        );
        self.rows.push(row);
    }

    /// Whether any row found a mismatch.
    pub fn failed(&self) -> bool {
        self.rows.iter().any(|r| !r.check.mismatches.is_empty())
    }

    /// The table: row, forgecore median, git median, ratio, equal, notes.
    pub fn table(&self) -> String {
        let mut lines = vec![["row", "forgecore", "git", "ratio", "equal", "notes"].map(String::from)];
        for row in &self.rows {
            let equal = match row.check.mismatches.len() {
                0 => "yes".to_string(),
                n => format!("NO ({n})"),
            };
            let mut notes = row.check.notes.clone();
            let samples =
                |s: &Stats| if s.batch > 1 { format!("{}x{}", s.samples, s.batch) } else { s.samples.to_string() };
            if let (Some(ours), Ok(git)) = (&row.forgecore, &row.git) {
                notes.push(format!("n={}/{}", samples(ours), samples(git)));
            }
            if let Err(e) = &row.git {
                notes.push(format!("git failed: {e}"));
            }
            lines.push([
                row.name.clone(),
                row.forgecore.map_or("-".into(), |s| human(s.median)),
                row.git.as_ref().map_or("failed".into(), |s| human(s.median)),
                row.ratio().map_or("-".into(), |r| if r < 0.01 { format!("{r:.4}") } else { format!("{r:.2}") }),
                equal,
                notes.join("; "),
            ]);
        }
        let mut widths = [0usize; 6];
        for line in &lines {
            for (width, cell) in widths.iter_mut().zip(line) {
                *width = (*width).max(cell.chars().count());
            }
        }
        let mut out = String::new();
        for (i, line) in lines.iter().enumerate() {
            let cells: Vec<String> = line
                .iter()
                .zip(widths)
                .enumerate()
                .map(|(column, (cell, width))| {
                    let pad = " ".repeat(width - cell.chars().count());
                    if matches!(column, 1..=3) {
                        format!("{pad}{cell}")
                    } else {
                        format!("{cell}{pad}")
                    }
                })
                .collect();
            out.push_str(cells.join(" | ").trim_end());
            out.push('\n');
            if i == 0 {
                out.push_str(&widths.map(|w| "-".repeat(w)).join("-|-"));
                out.push('\n');
            }
        }
        out
    }

    /// Every row's mismatches, numbered, the first [`SHOWN`] of each row in full.
    pub fn mismatches(&self) -> String {
        let mut out = String::new();
        for row in self.rows.iter().filter(|r| !r.check.mismatches.is_empty()) {
            out.push_str(&format!("{} ({} mismatches):\n", row.name, row.check.mismatches.len()));
            for (i, text) in row.check.mismatches.iter().take(SHOWN).enumerate() {
                let mut lines = text.lines();
                out.push_str(&format!("  {:>3}. {}\n", i + 1, lines.next().unwrap_or("")));
                for line in lines {
                    out.push_str(&format!("       {line}\n"));
                }
            }
            if row.check.mismatches.len() > SHOWN {
                out.push_str(&format!("  ... and {} more\n", row.check.mismatches.len() - SHOWN));
            }
        }
        out
    }
}

/// The first place two texts differ, as "line N" with both lines, for a mismatch message.
pub fn first_difference(ours: &str, theirs: &str) -> String {
    let (mut a, mut b) = (ours.split_inclusive('\n'), theirs.split_inclusive('\n'));
    for line in 1.. {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) if x == y => continue,
            (x, y) => {
                let show = |l: Option<&str>| l.map_or("<end>".to_string(), |l| format!("{:?}", clip(l, 200)));
                return format!("line {line}: forgecore {} | git {}", show(x), show(y));
            }
        }
    }
    unreachable!("the loop returns")
}

/// At most `max` characters of `text`, marked when cut.
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}
