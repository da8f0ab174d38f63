//! Bench rows for archives (B4): every format of the benchmark repository and of a larger one,
//! through `fc_request` with the body read to its end in 64 KiB pieces (and dropped, as a host
//! sending it to a socket does), against `git archive` of the same commit with the same prefix
//! (`--format=tar | bzip2` for tar.bz2, as git has no bzip2 of its own).
//!
//! The larger repository is `FC_BENCH_ARCHIVE_REPO`, or `.bench/repo-300k.git` built once with
//! `make-repo.sh --files 300000 --commits 2000` (a few minutes); the one with a large file is
//! `FC_BENCH_BIG_BLOB_REPO`, or `.bench/bigblob-256m.git` (`--files 2000 --commits 50
//! --big-blob-mib 256`). Each side runs once to warm up
//! and twice measured: one call takes seconds.

use crate::fixture::Fixture;
use crate::harness::Bench;
use crate::harness::Target;
use forgecore::ffi::{fc_request, fc_response_free, fc_response_read, fc_response_status};
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::time::Duration;

const FORMATS: [&str; 4] = ["tar", "tar.gz", "tar.bz2", "zip"];

fn large_repository() -> Result<PathBuf, String> {
    crate::built_repository("FC_BENCH_ARCHIVE_REPO", "repo-300k.git", 300_000, 2_000, &[])
}

/// A small repository with one 256 MiB file, which an archive streams rather than holds.
fn big_blob_repository() -> Result<PathBuf, String> {
    crate::built_repository("FC_BENCH_BIG_BLOB_REPO", "bigblob-256m.git", 2_000, 50, &["--big-blob-mib", "256"])
}

/// One download through `fc_request`: status and body length, the body read and dropped.
pub fn download(fx: &Fixture, target: &CString) -> (u16, u64) {
    let response =
        fc_request(fx.ctx(), c"GET".as_ptr(), target.as_ptr(), fx.auth_headers.as_ptr(), std::ptr::null(), 0);
    let status = fc_response_status(response);
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let n = fc_response_read(response, buf.as_mut_ptr(), buf.len());
        if n <= 0 {
            break;
        }
        total += n as u64;
    }
    fc_response_free(response);
    (status, total)
}

fn repository_rows(bench: &mut Bench, fx: &Fixture, project: &str, repo: &Path, label: &str) -> Result<(), String> {
    let dir = repo.to_str().ok_or("the repository path is not UTF-8")?;
    let branch = crate::git_out(repo, &["symbolic-ref", "--short", "HEAD"])?;
    let sha = crate::git_out(repo, &["rev-parse", "HEAD"])?;
    let prefix =
        format!("--prefix={}-{}-{sha}/", project.rsplit('/').next().unwrap_or(project), branch.replace('/', "-"));
    for format in FORMATS {
        let name = format!("archive {format}, {label}");
        if !bench.selected(&name) {
            continue;
        }
        let target = CString::new(format!("/api/v4/projects/{project}/repository/archive.{format}"))
            .map_err(|e| e.to_string())?;
        let (status, bytes) = download(fx, &target);
        if status != 200 {
            return Err(format!("{name}: status {status}"));
        }
        let git_format = if format == "tar.bz2" { "tar" } else { format };
        let mut command = format!("git -C '{dir}' archive --format={git_format} '{prefix}' HEAD");
        if format == "tar.bz2" {
            command.push_str(" | bzip2");
        }
        bench
            .compare(&name, || download(fx, &target), &["bash", "-c", &format!("set -o pipefail; {command}")])
            .target(Target::RatioUnder(1.0))
            .note(format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64));
    }
    Ok(())
}

pub fn rows(bench: &mut Bench, fx: &Fixture, repo: &Path) -> Result<(), String> {
    let saved = bench.settings.clone();
    bench.settings.min_warmup_calls = 1;
    bench.settings.warmup = Duration::ZERO;
    bench.settings.budget = Duration::ZERO;
    bench.settings.min_iters = 2;
    let files = crate::git_out(repo, &["ls-tree", "-r", "HEAD"])?.lines().count();
    let result = repository_rows(bench, fx, "bench", repo, &format!("{}k files", files / 1000)).and_then(|()| {
        let large = large_repository()?;
        fx.project("archive-large", &large)?;
        let files = crate::git_out(&large, &["ls-tree", "-r", "HEAD"])?.lines().count();
        repository_rows(bench, fx, "archive-large", &large, &format!("{}k files", files / 1000))?;
        let big = big_blob_repository()?;
        fx.project("archive-big-blob", &big)?;
        repository_rows(bench, fx, "archive-big-blob", &big, "one 256 MiB file")
    });
    bench.settings = saved;
    result
}
