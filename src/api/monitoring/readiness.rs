//! `GET /-/readiness`: whether this instance should be sent traffic, in GitLab's shape:
//! `{"status":"ok"|"failed","<check>":[{"status":..., "message":..., "labels":...}]}`, 200 when
//! every check passes, 503 otherwise.
//!
//! Without `all`, the instance check only (the context is open and serving: `master_check`, as
//! GitLab names its own). With `all=1` (any non-empty value but `0`/`false`, as Rails reads
//! `params[:all]` truthy), also the store (`db_check`: a statement through the pool within a
//! second and, for PostgreSQL, the cluster listener) and every configured repository storage
//! (`storage_check`, one entry per storage labelled by its `shard`, as Gitaly's check is).
//! Unlike GitLab, where one answering Gitaly shard is enough, every storage must answer: a
//! project on a storage that is gone would fail.

use crate::context::Context;
use crate::params::parse_form;
use crate::response::Response;
use serde_json::{json, Map, Value};
use std::time::Duration;

/// The longest the store check waits for a pooled connection.
const STORE_TIMEOUT: Duration = Duration::from_secs(1);

fn result(outcome: Result<(), String>, labels: Option<Value>) -> (bool, Value) {
    let mut entry = Map::new();
    let ok = outcome.is_ok();
    entry.insert("status".into(), json!(if ok { "ok" } else { "failed" }));
    if let Err(message) = outcome {
        entry.insert("message".into(), json!(message));
    }
    if let Some(labels) = labels {
        entry.insert("labels".into(), labels);
    }
    (ok, Value::Object(entry))
}

/// A storage answers when its root is a directory this process can list.
fn storage(root: &std::path::Path) -> Result<(), String> {
    std::fs::read_dir(root).map(|_| ()).map_err(|e| format!("cannot read {}: {e}", root.display()))
}

pub fn get(ctx: &Context, query: &str) -> Response {
    let all = parse_form(query)
        .unwrap_or_default()
        .into_iter()
        .any(|(name, value)| name == "all" && !matches!(value.as_str(), "" | "0" | "false"));
    let mut checks: Vec<(&str, Vec<(bool, Value)>)> = vec![("master_check", vec![result(Ok(()), None)])];
    if all {
        checks.push(("db_check", vec![result(ctx.store.check(STORE_TIMEOUT), None)]));
        let storages = ctx
            .config
            .storages
            .iter()
            .map(|(name, root)| result(storage(root), Some(json!({"shard": name}))))
            .collect::<Vec<_>>();
        if !storages.is_empty() {
            checks.push(("storage_check", storages));
        }
    }
    let ok = checks.iter().all(|(_, results)| results.iter().all(|(ok, _)| *ok));
    let mut body = Map::new();
    body.insert("status".into(), json!(if ok { "ok" } else { "failed" }));
    for (name, results) in checks {
        body.insert(name.into(), Value::Array(results.into_iter().map(|(_, v)| v).collect()));
    }
    Response::json(if ok { 200 } else { 503 }, &Value::Object(body))
}
