//! The forgecore side: an instance on a fresh data directory under the system's temporary
//! directory, an administrator `root` with a personal access token, and the repository
//! registered in place as the public project [`PROJECT`] (admin `project_add` with `repo`;
//! nothing is written to the repository). The directory is removed when the instance drops.
//!
//! Requests go through `forgecore::http::handle`, the core's HTTP entry point (`fc_request`
//! is it plus the C strings), as the administrator, so that no cap for anonymous callers
//! applies. Three contexts share the data directory:
//! - [`Instance::get`] and [`Instance::drain`] use one whose compare and diff limits are
//!   raised past any real history (see [`raised_limits`]), so that a compare lists every commit
//!   and computes every patch and can be checked against git in full;
//! - [`Instance::get_default`] uses GitLab's default limits, for the rows that check what an
//!   instance answers out of the box (the newest commits, collapsed patches, a cut list);
//! - [`Instance::cached_differs`] asks one with raised limits and the caches on (answers in
//!   memory, archives on disk) twice, to check that a computed and a cached answer are the
//!   bytes of the uncached one.
//!
//! The first two have their caches off: a row measures computing an answer, as git computes
//! it, not finding it again. All three switch the archive and large-blob rate limits off: the
//! rows download the same things many times.

use forgecore::response::Body;
use forgecore::Context;
use serde_json::{json, Value};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The project's full path, which archives use as the first part of their top directory.
pub const PROJECT: &str = "real";

/// What forgecore answered: status, headers and the whole body (a stream read to its end).
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The body as JSON, or an error naming the request, when the status is 200.
    pub fn json(&self, target: &str) -> Result<Value, String> {
        if self.status != 200 {
            return Err(format!("GET {target}: status {} {}", self.status, self.text_start()));
        }
        serde_json::from_slice(&self.body).map_err(|e| format!("GET {target}: the body is not JSON: {e}"))
    }

    /// The body, when the status is 200.
    pub fn ok(self, target: &str) -> Result<Vec<u8>, String> {
        if self.status != 200 {
            return Err(format!("GET {target}: status {} {}", self.status, self.text_start()));
        }
        Ok(self.body)
    }

    fn text_start(&self) -> String {
        String::from_utf8_lossy(&self.body[..self.body.len().min(300)]).into_owned()
    }
}

pub struct Instance {
    dir: PathBuf,
    raised: Context,
    defaults: Context,
    cached: Context,
    headers: Vec<(String, String)>,
}

/// Compare and diff limits no real history reaches: every commit listed, every patch computed
/// (none collapsed, none too large), no time budget in the way.
fn raised_limits() -> Value {
    json!({
        "compare_max_commits": u32::MAX,
        "compare_timeout_millis": 3_600_000,
        "diff_max_files": u32::MAX,
        "diff_max_lines": u32::MAX,
        "diff_max_bytes": 1u64 << 50,
        "diff_max_patch_bytes": 1u64 << 50,
    })
}

/// A context's configuration: `limits`, the caches on or off, no rate limits on downloads.
fn config(data_dir: &Path, limits: Value, caches: bool) -> String {
    let off = json!({"limit": 0, "period_seconds": 60});
    let cache = if caches { json!({}) } else { json!({"answers_bytes": 0, "archives": false}) };
    json!({
        "data_dir": data_dir,
        "rate_limits": {"archive": off, "large_blob": off},
        "limits": limits,
        "cache": cache,
        // The repository measured is left untouched: no housekeeping writes to it.
        "maintenance": {"enabled": false},
    })
    .to_string()
}

fn admin(ctx: &Context, command: Value) -> Result<Value, String> {
    let params = forgecore::params::Params::from_json_object(command.clone()).map_err(|e| format!("{e:?}"))?;
    let response = forgecore::api::admin::run(ctx, &params).unwrap_or_else(|e| e.into_response());
    let status = response.status;
    let body = response.into_bytes().map_err(|e| e.to_string())?;
    if !(200..300).contains(&status) {
        return Err(format!("admin {command}: {status} {}", String::from_utf8_lossy(&body)));
    }
    serde_json::from_slice(&body).or(Ok(Value::Null))
}

impl Instance {
    /// A new instance serving the repository at `repo` as [`PROJECT`].
    pub fn open(repo: &Path) -> Result<Instance, String> {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("forgecore-bench-real-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let data = dir.join("data");
        let opened = (|| {
            let raised = Context::from_json(&config(&data, raised_limits(), false))?;
            admin(&raised, json!({"command": "user_add", "username": "root", "admin": true}))?;
            let token = admin(&raised, json!({"command": "token_add", "username": "root"}))?["token"]
                .as_str()
                .ok_or("token_add gave no token")?
                .to_string();
            admin(&raised, json!({"command": "project_add", "path": PROJECT, "repo": repo, "visibility": "public"}))?;
            let defaults = Context::from_json(&config(&data, json!({}), false))?;
            let cached = Context::from_json(&config(&data, raised_limits(), true))?;
            Ok::<_, String>((raised, defaults, cached, token))
        })();
        match opened {
            Ok((raised, defaults, cached, token)) => {
                Ok(Instance { dir, raised, defaults, cached, headers: vec![("PRIVATE-TOKEN".into(), token)] })
            }
            Err(e) => {
                let _ = std::fs::remove_dir_all(&dir);
                Err(e)
            }
        }
    }

    /// `/api/v4/projects/<project>/repository/<route>`.
    pub fn url(&self, route: &str) -> String {
        format!("/api/v4/projects/{PROJECT}/repository/{route}")
    }

    /// One request on the context with raised limits, its body read whole.
    pub fn get(&self, target: &str) -> Answer {
        Self::whole(&self.raised, target, &self.headers)
    }

    /// One request on the context with GitLab's default limits, its body read whole.
    pub fn get_default(&self, target: &str) -> Answer {
        Self::whole(&self.defaults, target, &self.headers)
    }

    /// One request as a host serving it makes it: the body read to its end in 64 KiB pieces
    /// and dropped. Whether it was answered 200 and read to its end.
    pub fn drain(&self, target: &str) -> bool {
        Self::drain_on(&self.raised, target, &self.headers)
    }

    /// `drain` on the context with GitLab's default limits.
    pub fn drain_default(&self, target: &str) -> bool {
        Self::drain_on(&self.defaults, target, &self.headers)
    }

    /// Why the caching context's answers to `target` (the first computes and keeps it, the
    /// second finds it) are not `answer` (the uncached one), if they are not.
    pub fn cached_differs(&self, target: &str, answer: &Answer) -> Option<String> {
        for attempt in ["computed", "cached"] {
            let again = Self::whole(&self.cached, target, &self.headers);
            if again.status != answer.status || again.body != answer.body {
                let at = again.body.iter().zip(&answer.body).position(|(a, b)| a != b);
                return Some(format!(
                    "the {attempt} answer of a context with caches on differs: status {} vs {}, {} vs {} bytes, \
                     first difference at {at:?}\nforgecore: GET {target} (twice, caches on)",
                    again.status,
                    answer.status,
                    again.body.len(),
                    answer.body.len()
                ));
            }
        }
        None
    }

    fn whole(ctx: &Context, target: &str, headers: &[(String, String)]) -> Answer {
        let response = forgecore::http::handle(ctx, "GET", target, headers.to_vec(), b"");
        let (status, headers) = (response.status, response.headers.clone());
        let body = response.into_bytes().unwrap_or_else(|e| format!("<the body failed: {e}>").into_bytes());
        Answer { status, headers, body }
    }

    fn drain_on(ctx: &Context, target: &str, headers: &[(String, String)]) -> bool {
        let response = forgecore::http::handle(ctx, "GET", target, headers.to_vec(), b"");
        let whole = match response.body {
            Body::Bytes(bytes) => {
                std::hint::black_box(bytes);
                true
            }
            Body::Stream(mut reader) => {
                let mut buf = vec![0u8; 64 * 1024];
                loop {
                    match reader.read(&mut buf) {
                        Ok(0) => break true,
                        Ok(_) => {}
                        Err(_) => break false,
                    }
                }
            }
        };
        response.status == 200 && whole
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
