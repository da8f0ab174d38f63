//! Bench rows for branches, tags and projects (issue 28): the first page of the branch list
//! of a repository with 10,000 branches, and of its tag list ordered by update (5,000 tags),
//! against `git for-each-ref` with the same sort (goal: at most half of git's time); and
//! `GET /projects?membership=true` with 10,000 projects in the store, page 1 and page 100
//! (keyset), beside `GET /projects/:id` (goal: each within 2x of the others, so the cost of a
//! page does not grow with the number of projects), on SQLite, and on PostgreSQL too when
//! `FC_BENCH_POSTGRES` names an empty database.

use crate::fixture::Fixture;
use crate::harness::{Bench, Target};
use forgecore::store::{self, members::Source, projects::NewProject, Visibility};

const BRANCHES: u32 = 10_000;
const TAGS: u32 = 5_000;
const PROJECTS: usize = 10_000;

pub fn rows(bench: &mut Bench, fx: &Fixture) -> Result<(), String> {
    let repo = crate::built_repository(
        "FC_BENCH_REFS_REPO",
        "refs-10k.git",
        200,
        6_000,
        &["--tags", &TAGS.to_string(), "--branches", &BRANCHES.to_string(), "--big-blob-mib", "0"],
    )?;
    let dir = repo.to_str().ok_or("the repository path is not UTF-8")?;
    fx.project("refs", &repo)?;
    let branches = "/api/v4/projects/refs/repository/branches";
    let tags = "/api/v4/projects/refs/repository/tags?order_by=updated";
    fx.expect(200, "GET", branches, None)?;
    fx.expect(200, "GET", tags, None)?;
    bench
        .compare(
            &format!("branches, page 1 of {BRANCHES}+"),
            || fx.request("GET", branches, None),
            &["git", "-C", dir, "for-each-ref", "--sort=refname", "refs/heads"],
        )
        .target(Target::RatioUnder(0.5))
        .note("20 Branch entities (commit, merged) against git listing every branch");
    bench
        .compare(
            &format!("tags order_by=updated, page 1 of {TAGS}+"),
            || fx.request("GET", tags, None),
            &["git", "-C", dir, "for-each-ref", "--sort=-creatordate", "refs/tags"],
        )
        .target(Target::RatioUnder(0.5))
        .note("every tag's creator date read to order them");

    project_rows(bench, fx, dir, "")?;
    // The same on PostgreSQL when `FC_BENCH_POSTGRES` names an empty database: in the first
    // setting only (the database is not empty after it, and the projects rows do not depend on
    // how the repository is packed).
    static ON_POSTGRES: std::sync::Once = std::sync::Once::new();
    let mut first = false;
    ON_POSTGRES.call_once(|| first = true);
    if let Some(url) = std::env::var("FC_BENCH_POSTGRES").ok().filter(|url| first && !url.is_empty()) {
        let on_postgres = Fixture::on_postgres(&url)?;
        project_rows(bench, &on_postgres, dir, " on PostgreSQL")?;
    }
    Ok(())
}

/// `GET /projects?membership=true` with [`PROJECTS`] projects (all of repository `dir`) in one
/// group the administrator is a member of, inserted in one transaction; `store` names the
/// store in the rows' names.
fn project_rows(bench: &mut Bench, fx: &Fixture, dir: &str, store: &str) -> Result<(), String> {
    let ctx = forgecore::Context::from_json(&fx.config.to_string())?;
    let last = ctx
        .store
        .write(|db| -> Result<i64, store::StoreError> {
            let group = store::groups::insert(db, None, "many", Visibility::Private)?;
            let root = store::users::find_by_username(db, "root")?.ok_or(store::StoreError::NoRow)?;
            store::members::upsert(db, &Source::Group(group.id), root.id, 50, None)?;
            let mut last = 0;
            for i in 0..PROJECTS {
                let (path, full_path) = (format!("p{i:05}"), format!("many/p{i:05}"));
                let new = NewProject {
                    group_id: Some(group.id),
                    path: &path,
                    full_path: &full_path,
                    repo_dir: dir,
                    visibility: Visibility::Private,
                    forked_from_id: None,
                    storage: None,
                };
                last = store::projects::insert(db, &new)?.id;
            }
            Ok(last)
        })
        .map_err(|e| format!("inserting projects: {e:?}"))?;
    drop(ctx);
    let first = "/api/v4/projects?membership=true&simple=true&per_page=20";
    let keyset_1 = "/api/v4/projects?membership=true&simple=true&per_page=20&pagination=keyset&order_by=id&sort=desc";
    let keyset_100 = format!(
        "/api/v4/projects?membership=true&simple=true&per_page=20&pagination=keyset&order_by=id&sort=desc&id_before={}",
        last + 1 - 99 * 20
    );
    let one = format!("/api/v4/projects/{last}");
    for target in [first, keyset_1, keyset_100.as_str(), one.as_str()] {
        fx.expect(200, "GET", target, None)?;
    }
    bench
        .alone(&format!("projects?membership=true, page 1 of {PROJECTS}{store}"), Target::None, || {
            fx.request("GET", first, None)
        })
        .note("offset: X-Total counts every project");
    bench.alone(&format!("projects?membership=true, page 1 (keyset) of {PROJECTS}{store}"), Target::None, || {
        fx.request("GET", keyset_1, None)
    });
    bench.alone(&format!("projects?membership=true, page 100 (keyset) of {PROJECTS}{store}"), Target::None, || {
        fx.request("GET", &keyset_100, None)
    });
    bench.alone(&format!("projects/:id, one of {PROJECTS}{store}"), Target::None, || fx.request("GET", &one, None));
    Ok(())
}
