//! Measuring and reporting. Rows are declared in `main.rs`; this file knows nothing about
//! forgecore.
//!
//! Every operation is warmed up, then run until the time budget per side is spent (or
//! `max_iters` is reached, but at least `min_iters` times). Operations shorter than
//! [`BATCH_TARGET`] are timed in batches so that the clock's own cost does not show; a sample
//! is then the mean of one batch. The table shows the median and the 90th percentile of the
//! samples. Nothing here fails: a missed target is printed as MISS, a failing command as a note.

// Rows added later use the parts that the current rows do not.
#![allow(dead_code)]

use std::hint::black_box;
use std::process::Command;
use std::time::{Duration, Instant};

/// A single sample should last at least this long; faster operations are batched.
const BATCH_TARGET: Duration = Duration::from_micros(20);

/// Knobs, all from the environment so that `make bench` needs no arguments.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Measuring time per side of a row (`FC_BENCH_SECONDS`, default 1).
    pub budget: Duration,
    /// Warm-up time per side (a tenth of the budget, at most 200 ms).
    pub warmup: Duration,
    /// At least this many samples, even past the budget (`FC_BENCH_MIN_ITERS`, default 10).
    pub min_iters: usize,
    /// At most this many samples (`FC_BENCH_MAX_ITERS`, default 100000).
    pub max_iters: usize,
    /// Only rows whose name contains this text (`FC_BENCH_FILTER`).
    pub filter: Option<String>,
    /// Calls made before the budget, at least (3; rows whose one call takes seconds lower it).
    pub min_warmup_calls: u32,
}

fn env_number<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

impl Settings {
    pub fn from_env() -> Settings {
        let seconds = env_number::<f64>("FC_BENCH_SECONDS").filter(|s| *s > 0.0).unwrap_or(1.0);
        let budget = Duration::from_secs_f64(seconds);
        Settings {
            budget,
            warmup: (budget / 10).min(Duration::from_millis(200)),
            min_iters: env_number("FC_BENCH_MIN_ITERS").unwrap_or(10).max(1),
            max_iters: env_number("FC_BENCH_MAX_ITERS").unwrap_or(100_000).max(1),
            filter: std::env::var("FC_BENCH_FILTER").ok().filter(|f| !f.is_empty()),
            min_warmup_calls: 3,
        }
    }
}

/// The distribution of one side of a row.
#[derive(Debug, Clone, Copy)]
pub struct Stats {
    /// Samples taken.
    pub samples: usize,
    /// Operations per sample (1 unless the operation was batched).
    pub batch: usize,
    pub median: Duration,
    pub p90: Duration,
    pub min: Duration,
}

/// Warms `op` up, then samples it as described in the module documentation.
pub fn measure<R>(settings: &Settings, mut op: impl FnMut() -> R) -> Stats {
    // Warm-up, which also estimates one call's cost to choose the batch size.
    let started = Instant::now();
    let mut calls = 0u32;
    while calls < settings.min_warmup_calls || (started.elapsed() < settings.warmup && calls < 100_000) {
        black_box(op());
        calls += 1;
    }
    let per_call = started.elapsed() / calls;
    let batch = if per_call >= BATCH_TARGET {
        1
    } else {
        (BATCH_TARGET.as_nanos() / per_call.as_nanos().max(1)).clamp(1, 10_000) as usize
    };

    let mut samples: Vec<Duration> = Vec::with_capacity(1024);
    let started = Instant::now();
    while samples.len() < settings.min_iters
        || (started.elapsed() < settings.budget && samples.len() < settings.max_iters)
    {
        let t = Instant::now();
        for _ in 0..batch {
            black_box(op());
        }
        samples.push(t.elapsed() / batch as u32);
    }
    stats(samples, batch)
}

/// Samples each of `ops` in turn, one call a sample, for as long as `go_on` says so (asked
/// before every round, with the rounds done); the distribution of each, in order. For rows
/// that measure operations while something else happens, with no warm-up and no batching.
pub fn measure_in_turn(ops: &mut [&mut dyn FnMut()], mut go_on: impl FnMut(usize) -> bool) -> Vec<Stats> {
    let mut samples: Vec<Vec<Duration>> = ops.iter().map(|_| Vec::new()).collect();
    let mut rounds = 0;
    while go_on(rounds) {
        for (op, taken) in ops.iter_mut().zip(&mut samples) {
            let t = Instant::now();
            op();
            taken.push(t.elapsed());
        }
        rounds += 1;
    }
    samples.into_iter().map(|taken| stats(taken, 1)).collect()
}

/// The distribution of `samples` (each the mean of `batch` calls); all zero without any.
fn stats(mut samples: Vec<Duration>, batch: usize) -> Stats {
    if samples.is_empty() {
        return Stats { samples: 0, batch, median: Duration::ZERO, p90: Duration::ZERO, min: Duration::ZERO };
    }
    samples.sort_unstable();
    let at = |q: f64| samples[((samples.len() as f64 * q).ceil() as usize).saturating_sub(1).min(samples.len() - 1)];
    let n = samples.len();
    let median = if n % 2 == 1 { samples[n / 2] } else { (samples[n / 2 - 1] + samples[n / 2]) / 2 };
    Stats { samples: n, batch, median, p90: at(0.90), min: samples[0] }
}

/// Runs a command once, capturing its output: `Err` with the reason when it cannot run or fails.
fn run_command(argv: &[&str]) -> Result<Vec<u8>, String> {
    let (program, args) = argv.split_first().ok_or("empty command")?;
    let output = Command::new(program).args(args).output().map_err(|e| format!("{program}: {e}"))?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        Err(format!("{} ({})", stderr.lines().next().unwrap_or("").trim(), output.status))
    }
}

/// What a row is held to; printed as PASS or MISS in the notes.
#[derive(Debug, Clone, Copy)]
pub enum Target {
    None,
    /// The forgecore median is under this.
    Under(Duration),
    /// forgecore median / git median is under this (compare rows only).
    RatioUnder(f64),
    /// The forgecore median is at most the reference's 90th percentile: within the spread of
    /// the reference's own samples (rows measured against the same operation at another time).
    WithinSpread,
}

impl Target {
    pub fn under_us(micros: u64) -> Target {
        Target::Under(Duration::from_micros(micros))
    }
}

/// One line of the table.
pub struct Row {
    pub name: String,
    pub forgecore: Stats,
    /// `None` for rows without a git equivalent; `Err` when the git command failed.
    pub git: Option<Result<Stats, String>>,
    pub target: Target,
    pub notes: Vec<String>,
}

impl Row {
    /// forgecore's median time.
    pub fn median(&self) -> Duration {
        self.forgecore.median
    }

    /// forgecore median / git median.
    pub fn ratio(&self) -> Option<f64> {
        match &self.git {
            Some(Ok(git)) => Some(self.forgecore.median.as_secs_f64() / git.median.as_secs_f64().max(1e-12)),
            _ => None,
        }
    }

    /// `Some(true)` when the row meets its target, `None` when it has none to meet.
    pub fn passed(&self) -> Option<bool> {
        match self.target {
            Target::None => None,
            Target::Under(limit) => Some(self.forgecore.median < limit),
            Target::RatioUnder(limit) => Some(self.ratio().is_some_and(|r| r < limit)),
            Target::WithinSpread => match &self.git {
                Some(Ok(reference)) => Some(self.forgecore.median <= reference.p90),
                _ => Some(false),
            },
        }
    }

    pub fn missed(&self) -> bool {
        self.passed() == Some(false)
    }

    pub fn note(&mut self, text: impl Into<String>) -> &mut Row {
        self.notes.push(text.into());
        self
    }

    pub fn target(&mut self, target: Target) -> &mut Row {
        self.target = target;
        self
    }

    fn notes_text(&self) -> String {
        let mut parts = Vec::new();
        match (self.target, self.passed()) {
            (Target::Under(limit), Some(ok)) => {
                parts.push(format!("target < {}: {}", human(limit), if ok { "PASS" } else { "MISS" }))
            }
            (Target::RatioUnder(limit), Some(ok)) => {
                parts.push(format!("target ratio < {limit}: {}", if ok { "PASS" } else { "MISS" }))
            }
            (Target::WithinSpread, Some(ok)) => {
                parts.push(format!("target median <= the reference's p90: {}", if ok { "PASS" } else { "MISS" }))
            }
            _ => {}
        }
        let mut counts = format!("n={}", self.forgecore.samples);
        if self.forgecore.batch > 1 {
            counts.push_str(&format!("x{}", self.forgecore.batch));
        }
        if let Some(Ok(git)) = &self.git {
            counts.push_str(&format!("/{}", git.samples));
        }
        parts.push(counts);
        if let Some(Err(reason)) = &self.git {
            parts.push(format!("git failed: {reason}"));
        }
        parts.extend(self.notes.iter().cloned());
        parts.join("; ")
    }
}

/// The rows of one run.
pub struct Bench {
    pub settings: Settings,
    /// How the repositories are kept in this pass (`as built`, `commit-graph`): every row's name
    /// ends with it in brackets.
    pub repositories: Option<String>,
    rows: Vec<Row>,
    /// Returned by `compare`/`alone` for a row the filter skips, so that chaining still works.
    skipped: Option<Row>,
}

impl Bench {
    pub fn new(settings: Settings) -> Bench {
        Bench { settings, repositories: None, rows: Vec::new(), skipped: None }
    }

    /// Whether a row of this name runs (see `FC_BENCH_FILTER`).
    pub fn selected(&self, name: &str) -> bool {
        self.settings.filter.as_deref().is_none_or(|f| name.contains(f))
    }

    fn placeholder(&mut self, name: &str) -> &mut Row {
        let none = Stats { samples: 0, batch: 1, median: Duration::ZERO, p90: Duration::ZERO, min: Duration::ZERO };
        self.skipped.insert(Row {
            name: name.into(),
            forgecore: none,
            git: None,
            target: Target::None,
            notes: Vec::new(),
        })
    }

    fn push(&mut self, mut row: Row) -> &mut Row {
        if let Some(repositories) = &self.repositories {
            row.name = format!("{} [{repositories}]", row.name);
        }
        eprintln!("  {:<48} {}", row.name, human(row.forgecore.median));
        self.rows.push(row);
        self.rows.last_mut().expect("just pushed")
    }

    /// A row comparing an in-process forgecore operation with a command line (`git ...`) that
    /// does the same work. The command's output is captured, as a caller would read it.
    pub fn compare<R>(&mut self, name: &str, op: impl FnMut() -> R, command: &[&str]) -> &mut Row {
        if !self.selected(name) {
            return self.placeholder(name);
        }
        let forgecore = measure(&self.settings, op);
        let git = match run_command(command) {
            Ok(_) => Ok(measure(&self.settings, || run_command(command))),
            Err(reason) => Err(reason),
        };
        self.push(Row { name: name.into(), forgecore, git: Some(git), target: Target::None, notes: Vec::new() })
    }

    /// A row with no command-line equivalent, held to `target`.
    pub fn alone<R>(&mut self, name: &str, target: Target, op: impl FnMut() -> R) -> &mut Row {
        if !self.selected(name) {
            return self.placeholder(name);
        }
        let forgecore = measure(&self.settings, op);
        self.push(Row { name: name.into(), forgecore, git: None, target, notes: Vec::new() })
    }

    /// A row of `measured` against `reference`, the same operation measured at another time
    /// (shown in the git columns, and its ratio printed as the git rows' are), held to the
    /// reference's spread.
    pub fn against_itself(&mut self, name: &str, measured: Stats, reference: Stats) -> &mut Row {
        if !self.selected(name) {
            return self.placeholder(name);
        }
        let row = Row {
            name: name.into(),
            forgecore: measured,
            git: Some(Ok(reference)),
            target: Target::WithinSpread,
            notes: Vec::new(),
        };
        self.push(row)
    }

    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// One line per row measured against git: exactly `ratio <row> [<setting>]: <forgecore/git>`.
    pub fn ratio_lines(&self) -> String {
        self.rows.iter().filter_map(|row| row.ratio().map(|r| format!("ratio {}: {r:.2}\n", row.name))).collect()
    }

    /// The table, as aligned plain text.
    pub fn table(&self) -> String {
        let header = ["operation", "forgecore median", "p90", "git median", "p90", "ratio fc/git", "notes"];
        let mut lines: Vec<[String; 7]> = vec![header.map(String::from)];
        for row in &self.rows {
            let (git_median, git_p90) = match &row.git {
                Some(Ok(git)) => (human(git.median), human(git.p90)),
                Some(Err(_)) => ("failed".into(), "-".into()),
                None => ("-".into(), "-".into()),
            };
            let ratio =
                row.ratio().map_or("-".into(), |r| if r < 0.01 { format!("{r:.4}") } else { format!("{r:.2}") });
            lines.push([
                row.name.clone(),
                human(row.forgecore.median),
                human(row.forgecore.p90),
                git_median,
                git_p90,
                ratio,
                row.notes_text(),
            ]);
        }
        let mut widths = [0usize; 7];
        for line in &lines {
            for (w, cell) in widths.iter_mut().zip(line) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let mut out = String::new();
        for (i, line) in lines.iter().enumerate() {
            let cells: Vec<String> = line
                .iter()
                .enumerate()
                .map(|(c, cell)| {
                    let pad = widths[c] - cell.chars().count();
                    match c {
                        0 | 6 => format!("{cell}{}", " ".repeat(pad)),
                        _ => format!("{}{cell}", " ".repeat(pad)),
                    }
                })
                .collect();
            out.push_str(cells.join(" | ").trim_end());
            out.push('\n');
            if i == 0 {
                let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
                out.push_str(&rule.join("-|-"));
                out.push('\n');
            }
        }
        out
    }
}

/// A duration with a unit that keeps three or four significant digits.
pub fn human(d: Duration) -> String {
    let ns = d.as_nanos() as f64;
    if ns < 1_000.0 {
        format!("{ns:.0} ns")
    } else if ns < 1_000_000.0 {
        format!("{:.1} µs", ns / 1e3)
    } else if ns < 1_000_000_000.0 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// One line describing where the numbers come from: CPUs, CPU model, kernel, load, git.
pub fn machine() -> String {
    let nproc = run_command(&["nproc"])
        .ok()
        .map(|o| String::from_utf8_lossy(&o).trim().to_string())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or("?".into(), |n| n.to_string()));
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").map_or("?".into(), |s| s.trim().to_string());
    let load = std::fs::read_to_string("/proc/loadavg")
        .map_or("?".into(), |s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "));
    let git = run_command(&["git", "--version"])
        .map(|o| String::from_utf8_lossy(&o).trim().to_string())
        .unwrap_or_else(|e| format!("git unavailable ({e})"));
    format!("nproc {nproc} ({model}), Linux {kernel}, load {load}; {git}")
}
