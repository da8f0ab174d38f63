//! Bench rows for the commits list (issue 27): the first page of the default list, of
//! `all=true`, and of `path=<the deepest file>`, each against the `git log -20` that prints the
//! same fields (`--all`, `-- PATH`). Goal: at most half of git's time.

use crate::fixture::Fixture;
use crate::harness::{Bench, Target};
use std::path::Path;

/// What GitLab's commit entity shows, as `git log --format` prints it.
const FORMAT: &str = "--format=%H%n%P%n%an%n%ae%n%aI%n%cn%n%ce%n%cI%n%B";

pub fn rows(bench: &mut Bench, fx: &Fixture, repo: &Path) -> Result<(), String> {
    let dir = repo.to_str().ok_or("the repository path is not UTF-8")?;
    let files = crate::git_out(repo, &["ls-tree", "-r", "--name-only", "HEAD"])?;
    let deep = files.lines().max_by_key(|path| path.matches('/').count()).ok_or("the repository has no file")?;
    let encoded: String = deep.replace('/', "%2F");
    let project = "/api/v4/projects/bench/repository/commits";
    let cases: [(String, String, Vec<&str>); 3] = [
        ("commits, first page".into(), project.to_string(), vec!["git", "-C", dir, "log", "-20", FORMAT]),
        (
            "commits, first page, all=true".into(),
            format!("{project}?all=true"),
            vec!["git", "-C", dir, "log", "--all", "-20", FORMAT],
        ),
        (
            format!("commits, first page, path={deep}"),
            format!("{project}?path={encoded}"),
            vec!["git", "-C", dir, "log", "-20", FORMAT, "--", deep],
        ),
    ];
    for (name, target, command) in cases {
        let answer = fx.request("GET", &target, None);
        let row = bench.compare(&name, || fx.request("GET", &target, None), &command);
        row.target(Target::RatioUnder(0.5));
        if answer.0 != 200 {
            row.note("the forgecore request failed");
        }
    }
    Ok(())
}
