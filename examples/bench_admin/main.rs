//! `cargo run --release --example bench_admin` (part of `make bench`): the administration rows
//! of issue 38 on 10,000 users, 100,000 projects and 1,000,000 memberships in five-level group
//! trees (`dataset.rs`), built straight in the store, on SQLite and, when `FC_BENCH_POSTGRES`
//! names an empty database, on PostgreSQL; every request through `fc_request` as one
//! signed-in member (user 0 of the data set, a Developer of its tree's root group):
//!
//! - `GET /projects/:id` of a project five levels down that the caller reaches through its
//!   ancestor groups: the token's identification, the permission walk up the tree and the
//!   entity (goal on SQLite: under 1 ms);
//! - `GET /projects?membership=true` by keyset (`order_by=id`), page 1 and page 500 (the last:
//!   the caller sees 10,000 projects), and by offset for comparison (not held to a goal);
//! - `GET /groups/:id/members/all` of a leaf group, page 1 and the last page, when the route
//!   is there (a 404 of an unknown route skips the two rows and says so).
//!
//! The run prints the table of `make bench` (`harness.rs`) and one `ratio` line per pair of
//! pages, and exits non-zero when a ratio exceeds 2 or the SQLite permission row exceeds 1 ms.
//! `FC_BENCH_ADMIN_SCALE` divides the data set (e.g. 10 for a quick try; the goals still apply).

#[path = "../bench/harness.rs"]
mod harness;

#[path = "../bench/fixture.rs"]
#[allow(dead_code)]
mod fixture;

mod dataset;

use fixture::Fixture;
use forgecore::ffi::{fc_ctx, fc_request, fc_response_body, fc_response_free, fc_response_headers, fc_response_status};
use harness::{human, Bench, Settings, Target};
use serde_json::{json, Value};
use std::ffi::{CStr, CString};
use std::hint::black_box;
use std::time::{Duration, Instant};

const PER_PAGE: i64 = 20;
const PAGE_RATIO_LIMIT: f64 = 2.0;
const PERMISSION_LIMIT: Duration = Duration::from_millis(1);

fn main() {
    match run() {
        Ok(failures) if failures.is_empty() => {}
        Ok(failures) => {
            for failure in &failures {
                eprintln!("bench_admin: FAILED: {failure}");
            }
            std::process::exit(1);
        }
        Err(message) => {
            eprintln!("bench_admin: setup failed: {message}");
            std::process::exit(2);
        }
    }
}

/// One request as `headers` (JSON) names the caller: status, headers (a JSON object), body.
fn request(ctx: *const fc_ctx, target: &str, headers: &CString) -> (u16, String, Vec<u8>) {
    let target = CString::new(target).expect("no NUL in targets");
    let response = fc_request(ctx, c"GET".as_ptr(), target.as_ptr(), headers.as_ptr(), std::ptr::null(), 0);
    let status = fc_response_status(response);
    let head = fc_response_headers(response);
    let head = if head.is_null() {
        String::new()
    } else {
        // SAFETY: a NUL-terminated string owned by the response, copied before it is freed.
        unsafe { CStr::from_ptr(head) }.to_string_lossy().into_owned()
    };
    let mut len = 0usize;
    let ptr = fc_response_body(response, &mut len);
    let body = if ptr.is_null() || len == 0 {
        Vec::new()
    } else {
        // SAFETY: a borrowed body of `len` bytes, copied before the response is freed.
        unsafe { std::slice::from_raw_parts(ptr, len) }.to_vec()
    };
    fc_response_free(response);
    (status, head, body)
}

/// A header of `head`, `fc_response_headers`' JSON object.
fn header(head: &str, name: &str) -> Option<String> {
    let headers: serde_json::Map<String, Value> = serde_json::from_str(head).ok()?;
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).and_then(|(_, v)| v.as_str().map(str::to_string))
}

/// A request that must answer 200 with a JSON array of `len` items (when given); the array.
fn expect_page(ctx: *const fc_ctx, target: &str, headers: &CString, len: Option<usize>) -> Result<Vec<Value>, String> {
    let (status, _, body) = request(ctx, target, headers);
    if status != 200 {
        return Err(format!("GET {target}: {status} {}", String::from_utf8_lossy(&body)));
    }
    let items: Vec<Value> =
        serde_json::from_slice(&body).map_err(|e| format!("GET {target}: not a JSON array: {e}"))?;
    if let Some(len) = len.filter(|len| *len != items.len()) {
        return Err(format!("GET {target}: {} items, expected {len}", items.len()));
    }
    Ok(items)
}

fn run() -> Result<Vec<String>, String> {
    let settings = Settings::from_env();
    let scale = std::env::var("FC_BENCH_ADMIN_SCALE").ok().and_then(|s| s.parse::<i64>().ok()).unwrap_or(1).max(1);
    let size =
        dataset::Size { users: dataset::FULL.users / scale, projects: dataset::FULL.projects / scale, ..dataset::FULL };
    println!(
        "forgecore administration bench ({} build)",
        if cfg!(debug_assertions) { "DEBUG: numbers are meaningless" } else { "release" }
    );
    println!("machine: {}", harness::machine());
    println!(
        "data set: {} users, {} projects, {} memberships, {} trees of depth {} (fanout {})",
        size.users,
        size.projects,
        size.users * size.per_user,
        size.roots,
        dataset::DEPTH,
        size.fanout
    );
    println!();
    let mut bench = Bench::new(settings);
    let mut failures = Vec::new();
    let mut ratios = Vec::new();
    {
        let fx = Fixture::new()?;
        store_rows(&mut bench, &fx, size, "SQLite", true, &mut failures, &mut ratios)?;
    }
    match std::env::var("FC_BENCH_POSTGRES").ok().filter(|url| !url.is_empty()) {
        Some(url) => {
            let fx = Fixture::on_postgres(&url)?;
            store_rows(&mut bench, &fx, size, "PostgreSQL", false, &mut failures, &mut ratios)?;
        }
        None => println!("PostgreSQL rows skipped: FC_BENCH_POSTGRES names no database (make bench sets it)\n"),
    }
    println!("{}", bench.table());
    for (name, ratio) in &ratios {
        println!("ratio {name}: {ratio:.2}");
    }
    Ok(failures)
}

#[allow(clippy::too_many_arguments)]
fn store_rows(
    bench: &mut Bench,
    fx: &Fixture,
    size: dataset::Size,
    store: &str,
    hold_permission: bool,
    failures: &mut Vec<String>,
    ratios: &mut Vec<(String, f64)>,
) -> Result<(), String> {
    // The data set, through a context of its own on the same store, in one transaction.
    let started = Instant::now();
    let repo_dir = fx.data_dir().join("no-such-repository.git");
    let built = {
        let ctx = forgecore::Context::from_json(&fx.config.to_string())?;
        let repo_dir = repo_dir.to_string_lossy().into_owned();
        ctx.store
            .write(|db| dataset::build(db, size, &repo_dir))
            .map_err(|e| format!("building the data set: {e:?}"))?
    };
    eprintln!("{store}: data set built in {:.1} s: {built:?}", started.elapsed().as_secs_f64());
    let token = fx.admin(&json!({"command": "token_add", "username": built.caller_username}))?;
    let token = token["token"].as_str().ok_or("token_add gave no token")?;
    let headers = CString::new(json!({ "PRIVATE-TOKEN": token }).to_string()).expect("no NUL");
    let ctx = fx.ctx();

    // One project through the ancestors.
    let one = format!("/api/v4/projects/{}", built.probe_project_id);
    let (status, _, body) = request(ctx, &one, &headers);
    let level = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|v| v["permissions"]["group_access"]["access_level"].as_i64());
    if status != 200 || level != Some(built.caller_level) {
        return Err(format!(
            "GET {one}: {status}, group access {level:?} (expected {}): {}",
            built.caller_level,
            String::from_utf8_lossy(&body)
        ));
    }
    let name = format!("projects/:id through 4 ancestor groups, {store}");
    let target = if hold_permission { Target::Under(PERMISSION_LIMIT) } else { Target::None };
    let row = bench.alone(&name, target, || black_box(request(ctx, &one, &headers)));
    row.note("token identification, permission up the tree, entity");
    if row.missed() {
        failures.push(format!("{name}: {} is over {}", human(row.median()), human(PERMISSION_LIMIT)));
    }

    // Keyset pages of the caller's projects: its root's, every `roots`-th id, newest first.
    let visible = size.projects / size.roots;
    let pages = visible / PER_PAGE;
    let list = format!(
        "/api/v4/projects?membership=true&simple=true&per_page={PER_PAGE}&pagination=keyset&order_by=id&sort=desc"
    );
    let project_at = |index: i64| built.first_project_id + (visible - 1 - index) * size.roots;
    let first = expect_page(ctx, &list, &headers, Some(PER_PAGE as usize))?;
    if first[0]["id"].as_i64() != Some(project_at(0)) {
        return Err(format!("GET {list}: first id {}, expected {}", first[0]["id"], project_at(0)));
    }
    let last_page = format!("{list}&id_before={}", project_at((pages - 1) * PER_PAGE - 1));
    let last = expect_page(ctx, &last_page, &headers, Some(PER_PAGE as usize))?;
    if last[0]["id"].as_i64() != Some(project_at((pages - 1) * PER_PAGE)) {
        return Err(format!(
            "GET {last_page}: first id {}, expected {}",
            last[0]["id"],
            project_at((pages - 1) * PER_PAGE)
        ));
    }
    let (_, head, _) = request(ctx, &last_page, &headers);
    if header(&head, "X-Total").is_some() {
        return Err(format!("GET {last_page}: X-Total on a keyset page"));
    }
    pair(
        bench,
        (&format!("projects?membership=true, keyset page 1 of {pages}, {store}"), &list),
        (&format!("projects?membership=true, keyset page {pages} of {pages}, {store}"), &last_page),
        ctx,
        &headers,
        true,
        failures,
        ratios,
    );
    // Offset pages of the same list, for comparison: not held to the ratio.
    let offset = format!("/api/v4/projects?membership=true&simple=true&per_page={PER_PAGE}");
    let offset_last = format!("{offset}&page={pages}");
    expect_page(ctx, &offset_last, &headers, Some(PER_PAGE as usize))?;
    pair(
        bench,
        (&format!("projects?membership=true, offset page 1 of {pages}, {store}"), &offset),
        (&format!("projects?membership=true, offset page {pages} of {pages}, {store}"), &offset_last),
        ctx,
        &headers,
        false,
        failures,
        ratios,
    );

    // Members of a leaf group and its ancestors, page 1 and the last page.
    let members = format!("/api/v4/groups/{}/members/all?per_page={PER_PAGE}", built.leaf_group_id);
    let (status, head, body) = request(ctx, &members, &headers);
    if status == 404 && String::from_utf8_lossy(&body).contains("404 Not Found") && header(&head, "X-Total").is_none() {
        let (check, _, _) = request(ctx, &format!("/api/v4/groups/{}", built.leaf_group_id), &headers);
        if check == 200 {
            println!("{store}: GET /groups/:id/members/all is not routed in this build: its two rows are skipped\n");
            return Ok(());
        }
    }
    if status != 200 {
        return Err(format!("GET {members}: {status} {}", String::from_utf8_lossy(&body)));
    }
    let total: i64 = header(&head, "X-Total").and_then(|t| t.parse().ok()).ok_or("members/all sent no X-Total")?;
    if total != built.leaf_members {
        return Err(format!("GET {members}: X-Total {total}, expected {} members", built.leaf_members));
    }
    let member_pages = (total + PER_PAGE - 1) / PER_PAGE;
    let members_last = format!("{members}&page={member_pages}");
    expect_page(ctx, &members_last, &headers, Some((total - (member_pages - 1) * PER_PAGE) as usize))?;
    pair(
        bench,
        (&format!("groups/:id/members/all, page 1 of {member_pages}, {store}"), &members),
        (&format!("groups/:id/members/all, page {member_pages} of {member_pages}, {store}"), &members_last),
        ctx,
        &headers,
        true,
        failures,
        ratios,
    );
    Ok(())
}

/// Two rows, the first and a later page of one list, and the ratio later/first (held to
/// [`PAGE_RATIO_LIMIT`] when `hold`).
#[allow(clippy::too_many_arguments)]
fn pair(
    bench: &mut Bench,
    first: (&str, &str),
    later: (&str, &str),
    ctx: *const fc_ctx,
    headers: &CString,
    hold: bool,
    failures: &mut Vec<String>,
    ratios: &mut Vec<(String, f64)>,
) {
    let a = bench.alone(first.0, Target::None, || black_box(request(ctx, first.1, headers))).median();
    let b = bench.alone(later.0, Target::None, || black_box(request(ctx, later.1, headers))).median();
    if !bench.selected(first.0) || !bench.selected(later.0) {
        return;
    }
    let ratio = b.as_secs_f64() / a.as_secs_f64().max(1e-12);
    let verdict = if !hold {
        "not held to a goal".to_string()
    } else if ratio <= PAGE_RATIO_LIMIT {
        format!("PASS (<= {PAGE_RATIO_LIMIT})")
    } else {
        failures.push(format!("{}: {ratio:.2} times {} (over {PAGE_RATIO_LIMIT})", later.0, first.0));
        format!("MISS (> {PAGE_RATIO_LIMIT})")
    };
    ratios.push((format!("{} / page 1", later.0), ratio));
    eprintln!("{}: {} against {}: ratio {ratio:.2} {verdict}", later.0, human(b), human(a));
}
