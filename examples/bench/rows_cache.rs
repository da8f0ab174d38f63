//! Bench rows for repeated reads: the same work with the caches off (every other row's
//! setting) and on, on the benchmark repository. Paging through every contributor walks the
//! history once per page without the answers cache and once in all with it; an archive asked
//! twice is built once and then streamed from its file (goal: at least 20 times faster); and a
//! conditional request for a blob the client holds is a 304 that reads no object.

use crate::fixture::Fixture;
use crate::harness::{Bench, Target};
use crate::rows_archive::download;
use forgecore::ffi::{fc_request, fc_response_free, fc_response_status};
use serde_json::json;
use std::ffi::CString;
use std::path::Path;
use std::time::Duration;

pub fn rows(bench: &mut Bench, repo: &Path) -> Result<(), String> {
    let off = Fixture::new()?;
    let on = Fixture::with_cache(json!({}))?;
    for fx in [&off, &on] {
        fx.project("bench", repo)?;
    }
    let project = "/api/v4/projects/bench/repository";

    let contributors = crate::git_out(repo, &["shortlog", "-se", "--no-merges", "HEAD"])?.lines().count();
    // Pages of 100 as a client pages a large history; a small one is cut into at least five.
    let per_page = (contributors / 5).clamp(1, 100);
    let pages = contributors.div_ceil(per_page).max(1);
    let all_pages = |fx: &Fixture| {
        (1..=pages)
            .map(|page| fx.request("GET", &format!("{project}/contributors?per_page={per_page}&page={page}"), None).0)
            .sum::<u16>()
    };
    let name = format!("contributors, all {pages} pages of {per_page}");
    let cold = bench.alone(&format!("{name}, no cache"), Target::None, || all_pages(&off)).median();
    let warm = bench.alone(&format!("{name}, cached"), Target::None, || all_pages(&on));
    let faster = speedup(cold, warm.median());
    warm.note(format!("{faster:.0}x faster than without the cache"));

    let saved = bench.settings.clone();
    bench.settings.min_warmup_calls = 1;
    bench.settings.warmup = Duration::ZERO;
    bench.settings.budget = Duration::ZERO;
    bench.settings.min_iters = 3;
    let target = CString::new(format!("{project}/archive.tar.gz")).map_err(|e| e.to_string())?;
    let built = bench.alone("archive tar.gz, built (cache off)", Target::None, || download(&off, &target)).median();
    let cached = bench.alone("archive tar.gz, asked again (cached)", Target::None, || download(&on, &target));
    let faster = speedup(built, cached.median());
    cached.note(format!("{faster:.0}x faster than building it (goal: 20x)"));
    bench.settings = saved;

    let readme = crate::git_out(repo, &["rev-parse", "HEAD:README.md"])?;
    let (get, blob) = (c"GET", CString::new(format!("{project}/blobs/{readme}")).map_err(|e| e.to_string())?);
    let (status, _) = on.request("GET", &format!("{project}/blobs/{readme}"), None);
    if status != 200 {
        return Err(format!("blob: status {status}"));
    }
    let headers =
        CString::new(json!([["PRIVATE-TOKEN", on.token], ["If-None-Match", format!("\"{readme}\"")]]).to_string())
            .map_err(|e| e.to_string())?;
    bench.alone("304: blob held by the client, via fc_request", Target::under_us(100), || {
        let response = fc_request(on.ctx(), get.as_ptr(), blob.as_ptr(), headers.as_ptr(), std::ptr::null(), 0);
        let status = fc_response_status(response);
        fc_response_free(response);
        assert_eq!(status, 304, "If-None-Match with the blob's id");
        status
    });
    Ok(())
}

fn speedup(slow: Duration, fast: Duration) -> f64 {
    slow.as_secs_f64() / fast.as_secs_f64().max(1e-9)
}
