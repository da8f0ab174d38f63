//! Bench rows for repository health (B10): generating a report (walking the git directory,
//! reading a few headers, storing the JSON) against what git needs for the same counts,
//! `git count-objects -v` plus `git rev-list --count --all`; and reading the stored report.

use crate::fixture::Fixture;
use crate::harness::{Bench, Target};
use serde_json::json;
use std::path::Path;

pub fn rows(bench: &mut Bench, fx: &Fixture, repo: &Path) -> Result<(), String> {
    // Generating is limited to 5 an hour per project, so the rows use a second context on the
    // fixture's data directory (same store, same project `bench`) with that limit off, and call
    // the core's HTTP entry point, which is `fc_request` without the C strings.
    let config = json!({
        "data_dir": fx.data_dir(),
        "rate_limits": {"health_generate": {"limit": 0, "period_seconds": 3600}},
        "maintenance": {"enabled": false},
    });
    let ctx = forgecore::Context::from_json(&config.to_string())?;
    let headers = vec![("PRIVATE-TOKEN".to_string(), fx.token.clone())];
    let request = |target: &str| forgecore::http::handle(&ctx, "GET", target, headers.clone(), b"");
    let generate = "/api/v4/projects/bench/repository/health?generate=true";
    let stored = "/api/v4/projects/bench/repository/health";
    let first = request(generate);
    if first.status != 200 {
        return Err(format!("GET {generate}: {first:?}"));
    }
    let dir = repo.to_str().ok_or("the repository path is not UTF-8")?;
    let script = r#"git -C "$1" count-objects -v && git -C "$1" rev-list --count --all"#;
    bench
        .compare("health report, generate=true", || request(generate).status, &["sh", "-c", script, "sh", dir])
        .target(Target::RatioUnder(1.0))
        .note("git: count-objects -v + rev-list --count --all in one sh");
    bench.alone("health report, stored", Target::under_us(200), || request(stored).status);
    Ok(())
}
