//! A forgecore instance for the rows, reached only through the C exports as a C program would:
//! a fresh data directory, an administrator `root` with a personal access token, and helpers to
//! run admin commands and requests. The directory is removed when the fixture is dropped.

use forgecore::ffi::{
    fc_admin, fc_close, fc_ctx, fc_open, fc_request, fc_response, fc_response_body, fc_response_free, fc_response_read,
    fc_response_status, fc_response_streamed,
};
use serde_json::{json, Value};
use std::ffi::CString;
use std::path::{Path, PathBuf};

pub struct Fixture {
    pub dir: PathBuf,
    /// The configuration the instance was opened with (JSON).
    pub config: Value,
    ctx: *mut fc_ctx,
    /// The administrator's personal access token.
    pub token: String,
    /// `{"PRIVATE-TOKEN": "<token>"}`, the `headers_json` of authenticated requests.
    pub auth_headers: CString,
}

/// Status and body of a response (a stream read to its end), which is freed.
fn take(response: *mut fc_response) -> (u16, Vec<u8>) {
    let status = fc_response_status(response);
    if fc_response_streamed(response) == 1 {
        let (mut body, mut buf) = (Vec::new(), vec![0u8; 64 * 1024]);
        loop {
            let n = fc_response_read(response, buf.as_mut_ptr(), buf.len());
            if n <= 0 {
                break;
            }
            body.extend_from_slice(&buf[..n as usize]);
        }
        fc_response_free(response);
        return (status, body);
    }
    let mut len = 0usize;
    let ptr = fc_response_body(response, &mut len);
    let body = if ptr.is_null() || len == 0 {
        Vec::new()
    } else {
        // SAFETY: a borrowed body of `len` bytes, copied before the response is freed.
        unsafe { std::slice::from_raw_parts(ptr, len) }.to_vec()
    };
    fc_response_free(response);
    (status, body)
}

fn c(text: &str) -> CString {
    CString::new(text).expect("no NUL in bench strings")
}

/// A new, empty directory under the system's temporary directory.
pub fn scratch_dir(label: &str) -> Result<PathBuf, String> {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("forgecore-bench-{label}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Ok(dir)
}

impl Fixture {
    /// Opens an instance on a fresh data directory and creates `root` (admin) and its token.
    /// Nothing is cached: every row against git measures the work itself.
    pub fn new() -> Result<Fixture, String> {
        Fixture::with_cache(json!({"answers_bytes": 0, "archives": false}))
    }

    /// As [`Fixture::new`], with its data in the PostgreSQL database `url`, which must be empty.
    pub fn on_postgres(url: &str) -> Result<Fixture, String> {
        Fixture::open(json!({"answers_bytes": 0, "archives": false}), Some(url))
    }

    /// As [`Fixture::new`], with the configuration's `cache` section `cache`.
    pub fn with_cache(cache: Value) -> Result<Fixture, String> {
        Fixture::open(cache, None)
    }

    fn open(cache: Value, postgres: Option<&str>) -> Result<Fixture, String> {
        let dir = scratch_dir("data")?;
        // The archive rows download far more than 5 archives a minute.
        let rate_limits = json!({"archive": {"limit": 0, "period_seconds": 60}});
        // No housekeeping: each setting measures the repositories as they are (the maintained
        // copies are what maintenance leaves), and a run in the background would take the
        // cores the rows are timed on.
        let maintenance = json!({"enabled": false});
        let mut config = json!({
            "data_dir": dir.join("data"), "rate_limits": rate_limits, "cache": cache, "maintenance": maintenance,
        });
        if let Some(url) = postgres {
            config["store"] = json!({ "postgres": url });
        }
        let config_text = c(&config.to_string());
        let mut ctx: *mut fc_ctx = std::ptr::null_mut();
        let failure = fc_open(config_text.as_ptr(), &mut ctx);
        if !failure.is_null() {
            let (status, body) = take(failure);
            let _ = std::fs::remove_dir_all(&dir);
            return Err(format!("fc_open: {status} {}", String::from_utf8_lossy(&body)));
        }
        let mut fixture = Fixture { dir, config, ctx, token: String::new(), auth_headers: c("{}") };
        fixture.admin(&json!({"command": "user_add", "username": "root", "admin": true}))?;
        let created = fixture.admin(&json!({"command": "token_add", "username": "root"}))?;
        fixture.token = created["token"].as_str().ok_or("token_add gave no token")?.to_string();
        fixture.auth_headers = c(&json!({ "PRIVATE-TOKEN": fixture.token }).to_string());
        Ok(fixture)
    }

    /// The context, for rows that call the exports themselves.
    pub fn ctx(&self) -> *const fc_ctx {
        self.ctx
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// Runs an admin command through `fc_admin`; its JSON answer, or the error for a non-2xx.
    pub fn admin(&self, command: &Value) -> Result<Value, String> {
        let text = c(&command.to_string());
        let (status, body) = take(fc_admin(self.ctx, text.as_ptr()));
        let body_text = String::from_utf8_lossy(&body);
        if !(200..300).contains(&status) {
            return Err(format!("fc_admin {command}: {status} {body_text}"));
        }
        serde_json::from_slice(&body).or(Ok(Value::Null))
    }

    /// One request as the administrator through `fc_request`, with an optional JSON body.
    pub fn request(&self, method: &str, target: &str, body: Option<&Value>) -> (u16, Vec<u8>) {
        let (method, target) = (c(method), c(target));
        let (headers, bytes) = match body {
            Some(value) => (
                c(&json!({ "PRIVATE-TOKEN": self.token, "Content-Type": "application/json" }).to_string()),
                value.to_string().into_bytes(),
            ),
            None => (self.auth_headers.clone(), Vec::new()),
        };
        take(fc_request(self.ctx, method.as_ptr(), target.as_ptr(), headers.as_ptr(), bytes.as_ptr(), bytes.len()))
    }

    /// Like `request`, but an error unless the status is `expected`; the body parsed as JSON.
    pub fn expect(&self, expected: u16, method: &str, target: &str, body: Option<&Value>) -> Result<Value, String> {
        let (status, bytes) = self.request(method, target, body);
        if status != expected {
            return Err(format!(
                "{method} {target}: expected {expected}, got {status}: {}",
                String::from_utf8_lossy(&bytes)
            ));
        }
        serde_json::from_slice(&bytes).or(Ok(Value::Null))
    }

    /// Registers the git repository at `repo` as project `path` (public), for rows that compare
    /// repository operations with the git CLI.
    pub fn project(&self, path: &str, repo: &Path) -> Result<Value, String> {
        self.admin(&json!({"command": "project_add", "path": path, "repo": repo, "visibility": "public"}))
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        fc_close(self.ctx);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
