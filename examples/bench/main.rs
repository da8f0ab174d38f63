//! `cargo run --release --example bench` (part of `make bench`): in-process forgecore
//! operations, timed against the `git` command that does the same work where there is one.
//!
//! Add a row with one call in `rows` (see README.md):
//!   bench.compare("tree -r", || fx.request("GET", &tree_url, None), &["git", "-C", dir, "ls-tree", "-r", "-t", "HEAD"]);
//!   bench.alone("GET /version via fc_request", Target::under_us(20), || ...);
//! Every row runs twice: on the repositories as built, and on maintained copies (a commit-graph
//! and one pack with a bitmap, as a forge's maintenance keeps them); the run ends with one line
//! per row measured against git, `ratio <row> [<setting>]: <forgecore/git>`.
//! This is not a test: a slow row prints MISS and the run still succeeds. Only a broken setup
//! (the instance cannot be opened, a fixture request fails) exits non-zero.

mod fixture;
mod harness;
mod rows_archive;
mod rows_cache;
mod rows_changelog;
mod rows_commits;
mod rows_compare;
mod rows_files;
mod rows_health;
mod rows_maintenance;
mod rows_merges;
mod rows_refs;

use fixture::Fixture;
use forgecore::ffi::{fc_request, fc_response_body, fc_response_free, fc_response_status};
use harness::{Bench, Settings, Target};
use serde_json::json;
use std::ffi::CString;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Roles created for the member-roles rows (the instance has no cap; groups have ten).
const ROLES: usize = 10;
const ROLE_LEVELS: [i64; 6] = [10, 15, 20, 30, 40, 50];

fn main() {
    if let Err(message) = run() {
        eprintln!("bench: setup failed: {message}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let settings = Settings::from_env();
    println!(
        "forgecore bench ({} build)",
        if cfg!(debug_assertions) { "DEBUG: numbers are meaningless" } else { "release" }
    );
    println!("machine: {}", harness::machine());
    println!(
        "per side: warm-up {:?}, then {:?} or {} samples (at least {}); median and p90 of the samples",
        settings.warmup, settings.budget, settings.max_iters, settings.min_iters
    );
    println!();

    // Every row twice: on the repositories as built, and as a forge's maintenance keeps them
    // (`git commit-graph write --reachable --changed-paths` and `git repack -adb`), which git then uses too.
    let mut bench = Bench::new(settings.clone());
    let mut last = None;
    for kept in [Kept::AsBuilt, Kept::Maintained] {
        KEPT.set(kept);
        bench.repositories = Some(kept.label().into());
        let fx = Fixture::new()?;
        eprintln!("measuring, repositories {}:", kept.label());
        rows(&mut bench, &fx)?;
        last = Some(fx);
    }
    let fx = last.ok_or("no pass ran")?;
    println!("{}", bench.table());
    print!("{}", bench.ratio_lines());

    let missed = bench.rows().iter().any(|r| r.name.contains("member_roles") && r.missed());
    let breakdown = match std::env::var("FC_BENCH_BREAKDOWN").as_deref() {
        Ok("1") => true,
        Ok("0") => false,
        _ => missed,
    };
    if breakdown {
        println!("breakdown of GET /api/v4/member_roles (library internals, same data directory):");
        // The breakdown is one unit: FC_BENCH_FILTER selects table rows, not its parts.
        let mut parts = Bench::new(Settings { filter: None, ..settings });
        breakdown_rows(&mut parts, &fx)?;
        println!("{}", parts.table());
    }
    Ok(())
}

/// The rows of the table. One call per row.
fn rows(bench: &mut Bench, fx: &Fixture) -> Result<(), String> {
    for i in 0..ROLES {
        let role = json!({
            "name": format!("bench role {i:02}"),
            "description": format!("custom role {i} created by the benchmark"),
            "base_access_level": ROLE_LEVELS[i % ROLE_LEVELS.len()],
            "read_code": i % 2 == 0,
            "read_vulnerability": i % 3 == 0,
        });
        fx.expect(201, "POST", "/api/v4/member_roles", Some(&role))?;
    }
    let listed = fx.expect(200, "GET", "/api/v4/member_roles", None)?;
    let count = listed.as_array().map_or(0, Vec::len);
    if count != ROLES {
        return Err(format!("GET /api/v4/member_roles listed {count} roles, expected {ROLES}"));
    }
    let body_bytes = fx.request("GET", "/api/v4/member_roles", None).1.len();

    // Exactly what a C caller does: strings prepared once, then request, read the body, free.
    let ctx = fx.ctx();
    let (get, target) = (c"GET", CString::new("/api/v4/member_roles").expect("no NUL"));
    let headers = &fx.auth_headers;
    bench
        .alone("GET /api/v4/member_roles via fc_request", Target::under_us(50), || {
            let response = fc_request(ctx, get.as_ptr(), target.as_ptr(), headers.as_ptr(), std::ptr::null(), 0);
            let status = fc_response_status(response);
            let mut len = 0usize;
            let body = fc_response_body(response, &mut len);
            black_box((status, body, len));
            fc_response_free(response);
            status
        })
        .note(format!("{ROLES} roles, {body_bytes} B body, admin token"));

    rows_refs::rows(bench, fx)?;
    repository_rows(bench, fx)
}

/// How the benchmark repositories are kept in the current pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kept {
    AsBuilt,
    /// After `git commit-graph write --reachable --changed-paths` and `git repack -adb`, as maintenance leaves
    /// a repository on a forge.
    Maintained,
}

impl Kept {
    fn label(self) -> &'static str {
        match self {
            Kept::AsBuilt => "as built",
            Kept::Maintained => "commit-graph",
        }
    }
}

thread_local! {
    static KEPT: std::cell::Cell<Kept> = const { std::cell::Cell::new(Kept::AsBuilt) };
}

/// A maintained copy of `repo` (`<name>-kept.git` beside it), made once: cloned, then
/// with a commit-graph of every reachable commit (with changed-path Bloom filters) and one pack
/// with a bitmap.
fn maintained(repo: &Path) -> Result<PathBuf, String> {
    let name = repo.file_name().and_then(|n| n.to_str()).ok_or("an odd repository name")?;
    // "-kept": maintained with changed-path Bloom filters (copies named "-maintained" had none).
    let copy = repo.with_file_name(format!("{}-kept.git", name.trim_end_matches(".git")));
    // A copy of an earlier build of the repository (other options) is made again.
    let same_tip =
        || Ok::<_, String>(git_out(&copy, &["rev-parse", "HEAD"])? == git_out(repo, &["rev-parse", "HEAD"])?);
    if copy.join("objects/info/commit-graph").exists() && same_tip().unwrap_or(false) {
        return Ok(copy);
    }
    eprintln!("maintaining a copy of {} (commit-graph, repack -adb)...", repo.display());
    let _ = std::fs::remove_dir_all(&copy);
    let run = |args: &[&str]| -> Result<(), String> {
        let status = Command::new("git").args(args).stdout(std::process::Stdio::null()).status();
        match status {
            Ok(s) if s.success() => Ok(()),
            other => Err(format!("git {args:?}: {other:?}")),
        }
    };
    let copy_text = copy.to_str().ok_or("the repository path is not UTF-8")?;
    run(&["clone", "-q", "--bare", "--no-local", repo.to_str().ok_or("not UTF-8")?, copy_text])?;
    run(&["-C", copy_text, "commit-graph", "write", "--reachable", "--changed-paths"])?;
    run(&["-C", copy_text, "repack", "-q", "-adb"])?;
    Ok(copy)
}

/// The benchmark repository: `make-repo.sh --files 100000 --commits 20000 --hot-file 1500` (a
/// file changed by 1,500 commits, for blame), built once into `.bench/` (about two minutes)
/// and reused; `FC_BENCH_REPO` names another bare repository.
fn bench_repository() -> Result<PathBuf, String> {
    built_repository("FC_BENCH_REPO", "repo-100k.git", 100_000, 20_000, &["--hot-file", "1500"])
}

/// A `make-repo.sh` repository (`extra` options after `--files` and `--commits`) built once
/// into `.bench/NAME` and reused while its options stay the same (`.bench/NAME.options`), or
/// the repository the environment variable `env` names.
/// In the maintained pass, the maintained copy of it.
pub fn built_repository(env: &str, name: &str, files: u32, commits: u32, extra: &[&str]) -> Result<PathBuf, String> {
    let repo = as_built(env, name, files, commits, extra)?;
    match KEPT.get() {
        Kept::AsBuilt => Ok(repo),
        Kept::Maintained => maintained(&repo),
    }
}

fn as_built(env: &str, name: &str, files: u32, commits: u32, extra: &[&str]) -> Result<PathBuf, String> {
    if let Ok(path) = std::env::var(env) {
        return Ok(PathBuf::from(path));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let repo = root.join(".bench").join(name);
    let options = format!("--files {files} --commits {commits} {}\n", extra.join(" "));
    let stamp = root.join(".bench").join(format!("{name}.options"));
    let built_with = std::fs::read_to_string(&stamp).ok();
    // A host serving it with maintenance on (another benchmark run by hand, say) may have
    // repacked it and written a commit-graph: it is not as built any more.
    let maintained = ["objects/info/commit-graph", "objects/info/commit-graphs", "forgecore-maintenance.json"]
        .iter()
        .any(|p| repo.join(p).exists());
    if maintained {
        eprintln!("{} was maintained since it was built", repo.display());
    }
    if !repo.join("HEAD").exists() || built_with.as_deref() != Some(options.as_str()) || maintained {
        eprintln!("building {} with make-repo.sh (a minute or more)...", repo.display());
        let status = Command::new("bash")
            .arg(root.join("examples/bench/make-repo.sh"))
            .args(["--files", &files.to_string(), "--commits", &commits.to_string(), "--force"])
            .args(extra)
            .arg(&repo)
            .stdout(std::process::Stdio::null())
            .status()
            .map_err(|e| format!("make-repo.sh: {e}"))?;
        if !status.success() {
            return Err("make-repo.sh failed".into());
        }
        std::fs::write(&stamp, options).map_err(|e| format!("{}: {e}", stamp.display()))?;
    }
    Ok(repo)
}

pub fn git_out(repo: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new("git").arg("-C").arg(repo).args(args).output().map_err(|e| format!("git: {e}"))?;
    if !output.status.success() {
        return Err(format!("git {args:?}: {}", String::from_utf8_lossy(&output.stderr)));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// Repository reads against the git CLI on the same repository (goal: ratio at most 1.0).
fn repository_rows(bench: &mut Bench, fx: &Fixture) -> Result<(), String> {
    let repo = bench_repository()?;
    let dir = repo.to_str().ok_or("the repository path is not UTF-8")?;
    fx.project("bench", &repo)?;
    let project = "/api/v4/projects/bench/repository";
    let readme = git_out(&repo, &["rev-parse", "HEAD:README.md"])?;
    let big = git_out(&repo, &["rev-parse", "HEAD:data/big.txt"])?;
    let entries = git_out(&repo, &["ls-tree", "-r", "-t", "HEAD"])?.lines().count();
    let ratio = Target::RatioUnder(1.0);
    let mut row = |name: &str, target: String, command: &[&str]| {
        let expected_ok = fx.request("GET", &target, None).0 == 200;
        let row = bench.compare(name, || fx.request("GET", &target, None), command);
        row.target(ratio);
        if !expected_ok {
            row.note("the forgecore request failed");
        }
    };
    row(
        &format!("tree, recursive, all {entries} entries"),
        format!("{project}/tree?recursive=true&pagination=none"),
        &["git", "-C", dir, "ls-tree", "-r", "-t", "HEAD"],
    );
    row(
        "blob README.md (JSON, base64)",
        format!("{project}/blobs/{readme}"),
        &["git", "-C", dir, "cat-file", "-p", &readme],
    );
    row("raw blob data/big.txt", format!("{project}/blobs/{big}/raw"), &["git", "-C", dir, "cat-file", "-p", &big]);
    row(
        "contributors (all non-merge commits)",
        format!("{project}/contributors?per_page=100"),
        &["git", "-C", dir, "shortlog", "-sne", "--no-merges", "HEAD"],
    );
    row(
        "merge base main, feature/unmerged",
        format!("{project}/merge_base?refs[]=main&refs[]=feature%2Funmerged"),
        &["git", "-C", dir, "merge-base", "main", "feature/unmerged"],
    );
    rows_archive::rows(bench, fx, &repo)?;
    rows_compare::rows(bench, fx, &repo)?;
    rows_changelog::rows(bench, fx, &repo)?;
    rows_files::rows(bench, fx, &repo)?;
    rows_commits::rows(bench, fx, &repo)?;
    rows_health::rows(bench, fx, &repo)?;
    rows_merges::rows(bench, &repo)?;
    // A maintained copy gives a maintenance run nothing to do.
    if KEPT.get() == Kept::AsBuilt {
        rows_maintenance::rows(bench, fx, &repo)?;
    }
    rows_cache::rows(bench, &repo)
}

/// Where the time of `GET /api/v4/member_roles` goes: the same work in pieces, through the
/// library's public Rust API on a second context over the same data directory.
fn breakdown_rows(bench: &mut Bench, fx: &Fixture) -> Result<(), String> {
    use forgecore::api::member_roles::entity;
    use forgecore::auth::{self, tokens, Credentials};
    use forgecore::store;

    let config = json!({ "data_dir": fx.data_dir(), "maintenance": {"enabled": false} }).to_string();
    let ctx = forgecore::Context::from_json(&config)?;
    let token = fx.token.clone();
    let digest = tokens::digest(&token);
    let credentials = Credentials { personal: vec![token.clone()], job: Vec::new(), malformed: false };
    ctx.store
        .read(|db| store::tokens::personal_token_user(db, &digest))
        .map_err(|e| format!("token lookup: {e:?}"))?
        .ok_or("the token is unknown")?;
    let roles = ctx.store.read(|db| store::member_roles::list(db, None)).map_err(|e| format!("{e:?}"))?;

    let (fc_ctx, headers) = (fx.ctx(), &fx.auth_headers);
    let (get, version) = (c"GET", c"/api/v4/version");
    bench.alone("GET /api/v4/version via fc_request (no auth, no SQL)", Target::None, || {
        let response = fc_request(fc_ctx, get.as_ptr(), version.as_ptr(), c"{}".as_ptr(), std::ptr::null(), 0);
        let status = fc_response_status(response);
        fc_response_free(response);
        status
    });
    bench.alone("GET /version via fc_request with the token (auth only)", Target::None, || {
        let response = fc_request(fc_ctx, get.as_ptr(), version.as_ptr(), headers.as_ptr(), std::ptr::null(), 0);
        let status = fc_response_status(response);
        fc_response_free(response);
        status
    });
    bench.alone("http::handle member_roles (no C marshalling)", Target::None, || {
        forgecore::http::handle(&ctx, "GET", "/api/v4/member_roles", vec![("PRIVATE-TOKEN".into(), token.clone())], &[])
    });
    bench.alone("auth::identify (digest + token + user lookups)", Target::None, || {
        auth::identify(&ctx, &credentials).is_ok()
    });
    bench.alone("  sha256 digest of the token", Target::None, || tokens::digest(&token));
    bench.alone("  store.read pool take/put, no query", Target::None, || {
        ctx.store.read(|_| Ok::<_, store::StoreError>(())).is_ok()
    });
    bench.alone("  token and user lookup", Target::None, || {
        ctx.store.read(|db| store::tokens::personal_token_user(db, &digest)).is_ok()
    });
    bench.alone("member_roles list query, 10 rows", Target::None, || {
        ctx.store.read(|db| store::member_roles::list(db, None)).is_ok()
    });
    bench.alone("serialize 10 role entities", Target::None, || {
        serde_json::to_vec(&roles.iter().map(entity).collect::<Vec<_>>()).map(|v| v.len())
    });
    Ok(())
}
