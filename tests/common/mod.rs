//! Shared helpers for the integration tests: a [`TestInstance`] is a forgecore context opened
//! through the C ABI (`fc_open`) on a fresh data directory under `std::env::temp_dir()`, with
//! helpers to run administrative commands, HTTP requests and typed exports through the FFI.
//!
//! Every test binary compiles this module with `mod common;` and uses only part of it.
//! Set `FORGECORE_KEEP_TEST_DIRS=1` to keep the data directories for inspection.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing
#![allow(dead_code)]
#![allow(unsafe_code)]

pub mod serve;

use forgecore::ffi::{self, fc_ctx, fc_response};
use serde_json::{json, Value};
use std::ffi::{c_char, CString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// A typed export: `fc_member_roles_list`, `_create`, `_update` or `_delete`.
pub type TypedExport = extern "C" fn(*const fc_ctx, *const c_char, *const c_char) -> *mut fc_response;

/// A C string from text; panics on an interior NUL (a bug in the test).
pub fn cstr(text: &str) -> CString {
    CString::new(text).expect("no NUL in test strings")
}

/// A C string from raw bytes (for non-UTF-8 inputs); panics on an interior NUL.
pub fn cbytes(bytes: &[u8]) -> CString {
    CString::new(bytes.to_vec()).expect("no NUL in test bytes")
}

/// A temporary directory, removed when dropped (unless `FORGECORE_KEEP_TEST_DIRS` is set).
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// A new, empty, uniquely named directory under `std::env::temp_dir()`. The name carries the
    /// test's name (libtest names each test's thread after it), the process id and a counter.
    pub fn new() -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let test: String = std::thread::current()
            .name()
            .unwrap_or("test")
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
            .take(60)
            .collect();
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = std::env::temp_dir().join(format!("forgecore-{test}-{}-{n}-{nanos}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => return TempDir { path },
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => panic!("cannot create {}: {e}", path.display()),
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if std::env::var_os("FORGECORE_KEEP_TEST_DIRS").is_none() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// An owned `fc_response`, freed with `fc_response_free` on drop.
pub struct FfiResponse(*mut fc_response);

impl FfiResponse {
    /// Takes ownership of a response returned by an export. Panics on NULL (every export but a
    /// successful `fc_open` returns a response).
    pub fn new(raw: *mut fc_response) -> FfiResponse {
        assert!(!raw.is_null(), "the export returned a NULL response");
        FfiResponse(raw)
    }

    pub fn as_ptr(&self) -> *mut fc_response {
        self.0
    }

    pub fn status(&self) -> u16 {
        ffi::fc_response_status(self.0)
    }

    pub fn streamed(&self) -> bool {
        ffi::fc_response_streamed(self.0) == 1
    }

    /// The headers JSON object as text.
    pub fn headers_text(&self) -> String {
        let ptr = ffi::fc_response_headers(self.0);
        assert!(!ptr.is_null(), "fc_response_headers gave NULL for a live response");
        // SAFETY: a NUL-terminated string borrowed from a live response.
        unsafe { std::ffi::CStr::from_ptr(ptr) }.to_str().expect("headers are UTF-8").to_string()
    }

    /// The headers as (name, value) pairs, in the object's order.
    pub fn headers(&self) -> Vec<(String, String)> {
        match serde_json::from_str::<Value>(&self.headers_text()).expect("headers are JSON") {
            Value::Object(map) => map
                .into_iter()
                .map(|(name, value)| (name, value.as_str().expect("header values are strings").to_string()))
                .collect(),
            other => panic!("headers are not a JSON object: {other}"),
        }
    }

    /// The in-memory body (`fc_response_body`); empty for a streamed body.
    pub fn body_in_memory(&self) -> Vec<u8> {
        let mut len = 0usize;
        let ptr = ffi::fc_response_body(self.0, &mut len);
        if ptr.is_null() {
            assert_eq!(len, 0, "NULL body with a non-zero length");
            return Vec::new();
        }
        // SAFETY: `len` bytes borrowed from a live response.
        unsafe { std::slice::from_raw_parts(ptr, len) }.to_vec()
    }

    /// The rest of the body through `fc_response_read` in chunks of `chunk` bytes.
    pub fn read_all(&mut self, chunk: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let mut buf = vec![0u8; chunk];
        loop {
            let n = ffi::fc_response_read(self.0, buf.as_mut_ptr(), buf.len());
            assert!(n >= 0, "fc_response_read failed");
            if n == 0 {
                return out;
            }
            assert!(n as usize <= chunk, "fc_response_read returned more than asked");
            out.extend_from_slice(&buf[..n as usize]);
        }
    }

    /// The whole body, whether in memory or streamed.
    pub fn body(&mut self) -> Vec<u8> {
        if self.streamed() {
            self.read_all(64 * 1024)
        } else {
            self.body_in_memory()
        }
    }

    /// The body parsed as JSON; `Value::Null` for an empty body. Panics on invalid JSON.
    pub fn json(&mut self) -> Value {
        let body = self.body();
        if body.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&body)
                .unwrap_or_else(|e| panic!("body is not JSON ({e}): {}", String::from_utf8_lossy(&body)))
        }
    }

    /// Status and JSON body.
    pub fn status_json(mut self) -> (u16, Value) {
        let status = self.status();
        (status, self.json())
    }
}

impl Drop for FfiResponse {
    fn drop(&mut self) {
        ffi::fc_response_free(self.0);
    }
}

/// An opened context on its own data directory, closed (and the directory removed, once no
/// instance uses it) on drop. `Send + Sync`: an `fc_ctx` may be used from any thread.
pub struct TestInstance {
    // Fields drop in this order after `Drop::drop` closed `ctx`: the Rust context, then the
    // directory guard last.
    rust: OnceLock<forgecore::Context>,
    ctx: *mut fc_ctx,
    config: Value,
    dir: Arc<TempDir>,
}

// SAFETY: the C ABI documents `fc_ctx` as usable by any number of threads at once; it is closed
// only in `drop`, when no borrow of the instance (hence no call) can be in flight.
unsafe impl Send for TestInstance {}
// SAFETY: as for `Send`: every call on `fc_ctx` may run on any thread at the same time.
unsafe impl Sync for TestInstance {}

/// The PostgreSQL server the tests run against instead of SQLite: a libpq URL of a role that
/// may create databases, from `FORGECORE_TEST_POSTGRES` (`make test` sets it for the store's
/// tests, with a server of its own). Set and unreachable is a failure, never a skip.
pub fn postgres_server() -> Option<String> {
    std::env::var("FORGECORE_TEST_POSTGRES").ok().filter(|url| !url.is_empty())
}

/// A new, empty database on the test server; its URL. Databases are left for the server's
/// own end (`make test` drops the whole cluster).
pub fn new_postgres_database(server: &str) -> String {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let name = format!("fc_{}_{}_{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed), now_nanos());
    let mut client = postgres::Client::connect(server, postgres::NoTls)
        .unwrap_or_else(|e| panic!("FORGECORE_TEST_POSTGRES={server} cannot be reached: {e}"));
    client.batch_execute(&format!("CREATE DATABASE {name}")).expect("CREATE DATABASE");
    let (base, query) = match server.split_once('?') {
        Some((base, query)) => (base, format!("?{query}")),
        None => (server, String::new()),
    };
    let base = base.rsplit_once('/').map_or(base, |(start, _)| start);
    format!("{base}/{name}{query}")
}

fn now_nanos() -> u32 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0)
}

/// Opens an instance on a fresh temporary data directory; `extra_config` (an object) is merged
/// into `{"data_dir": ...}`, e.g. `json!({"features": {"test_panic_route": true}})`. With a
/// PostgreSQL test server ([`postgres_server`]) and no `store` of its own, the instance keeps
/// its data in a new database there.
pub fn open_instance(extra_config: Value) -> TestInstance {
    let dir = Arc::new(TempDir::new());
    // Maintenance would rewrite the fixtures under the tests that compare them with git, so the
    // tests turn it off unless they ask for it (tests/maintenance.rs does).
    let mut config = json!({ "data_dir": dir.path().join("data"), "maintenance": {"enabled": false} });
    if let Some(server) = postgres_server().filter(|_| extra_config.get("store").is_none()) {
        config["store"] = json!({ "postgres": new_postgres_database(&server) });
    }
    match extra_config {
        Value::Object(extra) => config.as_object_mut().unwrap().extend(extra),
        Value::Null => {}
        other => panic!("extra_config must be a JSON object, not {other}"),
    }
    TestInstance::open(dir, config)
}

impl TestInstance {
    fn open(dir: Arc<TempDir>, config: Value) -> TestInstance {
        let text = cstr(&config.to_string());
        let mut ctx: *mut fc_ctx = std::ptr::null_mut();
        let error = ffi::fc_open(text.as_ptr(), &mut ctx);
        if !error.is_null() {
            let (status, body) = FfiResponse::new(error).status_json();
            panic!("fc_open failed with {status}: {body}");
        }
        assert!(!ctx.is_null(), "fc_open returned NULL without a context");
        TestInstance { rust: OnceLock::new(), ctx, config, dir }
    }

    /// A second context on the same data directory and configuration, standing in for another
    /// process (or another embedding) sharing the store.
    pub fn reopen(&self) -> TestInstance {
        TestInstance::open(Arc::clone(&self.dir), self.config.clone())
    }

    /// Another host on the same store with a configuration of its own (its storages, say).
    pub fn reopen_with(&self, config: Value) -> TestInstance {
        TestInstance::open(Arc::clone(&self.dir), config)
    }

    /// The directory this test owns (the data directory is its `data` child); put repositories
    /// and other fixtures here.
    pub fn root_dir(&self) -> &Path {
        self.dir.path()
    }

    /// The configured data directory (the SQLite file lives here).
    pub fn data_dir(&self) -> PathBuf {
        PathBuf::from(self.config["data_dir"].as_str().expect("data_dir is a string"))
    }

    /// The PostgreSQL database this instance keeps its data in, if it is not SQLite.
    pub fn postgres_url(&self) -> Option<&str> {
        self.config["store"]["postgres"].as_str()
    }

    /// Every byte the store holds, as the backend keeps it: SQLite's file and write-ahead log,
    /// or every row of every PostgreSQL table as text.
    pub fn stored_bytes(&self) -> Vec<u8> {
        match self.postgres_url() {
            None => {
                let mut bytes = std::fs::read(self.data_dir().join("forgecore.sqlite3")).expect("the SQLite file");
                bytes.extend(std::fs::read(self.data_dir().join("forgecore.sqlite3-wal")).unwrap_or_default());
                bytes
            }
            Some(url) => {
                let mut client = postgres::Client::connect(url, postgres::NoTls).expect("the test database");
                let tables: Vec<String> = client
                    .query("SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public'", &[])
                    .expect("tables")
                    .iter()
                    .map(|row| row.get(0))
                    .collect();
                let mut bytes = Vec::new();
                for table in tables {
                    for row in client.query(&format!("SELECT t::text FROM {table} t"), &[]).expect("rows") {
                        bytes.extend(row.get::<_, String>(0).into_bytes());
                    }
                }
                bytes
            }
        }
    }

    /// Sets the stored schema version, as a newer library would have left it.
    pub fn set_schema_version(&self, version: i64) {
        match self.postgres_url() {
            None => {
                let conn =
                    rusqlite::Connection::open(self.data_dir().join("forgecore.sqlite3")).expect("the SQLite file");
                conn.pragma_update(None, "user_version", version).expect("user_version");
            }
            Some(url) => {
                let mut client = postgres::Client::connect(url, postgres::NoTls).expect("the test database");
                client.execute("UPDATE schema_version SET version = $1", &[&version]).expect("schema_version");
            }
        }
    }

    pub fn config(&self) -> &Value {
        &self.config
    }

    /// The `fc_ctx` opened with `fc_open`, for calling exports directly. Valid while `self` lives.
    pub fn ffi_ctx(&self) -> *const fc_ctx {
        self.ctx
    }

    /// A Rust `Context` on the same data directory and configuration (opened once, lazily), for
    /// calling `forgecore::http::handle`, `forgecore::auth` or the store without the FFI. It is
    /// not the context behind [`Self::ffi_ctx`] (`fc_ctx` keeps it private) but shares its store
    /// through SQLite, so both see the same data at once.
    pub fn ctx(&self) -> &forgecore::Context {
        self.rust.get_or_init(|| forgecore::Context::from_json(&self.config.to_string()).expect("Context::from_json"))
    }

    /// Runs one administrative command through `fc_admin`: status and JSON body.
    pub fn admin(&self, command: Value) -> (u16, Value) {
        let command = cstr(&command.to_string());
        FfiResponse::new(ffi::fc_admin(self.ctx, command.as_ptr())).status_json()
    }

    /// Runs an administrative command that must succeed (2xx); its JSON body.
    pub fn admin_ok(&self, command: Value) -> Value {
        let text = command.to_string();
        let (status, body) = self.admin(command);
        assert!((200..300).contains(&status), "admin {text} gave {status}: {body}");
        body
    }

    /// Creates a user (`admin` or not) and a personal access token for it; the token.
    pub fn user_with_token(&self, username: &str, admin: bool) -> String {
        self.admin_ok(json!({"command": "user_add", "username": username, "admin": admin}));
        let body = self.admin_ok(json!({"command": "token_add", "username": username}));
        body["token"].as_str().expect("token_add answers a token").to_string()
    }

    /// Serves one request through `fc_request`, headers passed as an array of pairs (order and
    /// repeats kept): status, response headers, whole body (a stream read to its end).
    pub fn request(
        &self,
        method: &str,
        target: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> (u16, Vec<(String, String)>, Vec<u8>) {
        let mut response = self.request_response(method, target, headers, body);
        let status = response.status();
        let headers = response.headers();
        (status, headers, response.body())
    }

    /// A JSON API call as a tool makes it: `token` as `PRIVATE-TOKEN`, `body` as JSON (none
    /// when `Value::Null`); the answer's status and JSON body.
    pub fn call(&self, method: &str, target: &str, token: Option<&str>, body: Value) -> (u16, Value) {
        let headers: Vec<(&str, &str)> = token.map(|t| ("PRIVATE-TOKEN", t)).into_iter().collect();
        let body = if body.is_null() { Vec::new() } else { body.to_string().into_bytes() };
        self.request_json(method, target, &headers, &body)
    }

    /// `request` with the body parsed as JSON (`Value::Null` when empty).
    pub fn request_json(&self, method: &str, target: &str, headers: &[(&str, &str)], body: &[u8]) -> (u16, Value) {
        self.request_response(method, target, headers, body).status_json()
    }

    /// `request`, keeping the response itself (for headers, streaming, `fc_response_read`).
    pub fn request_response(&self, method: &str, target: &str, headers: &[(&str, &str)], body: &[u8]) -> FfiResponse {
        let pairs: Vec<Value> = headers.iter().map(|(n, v)| json!([n, v])).collect();
        let (method, target, headers) = (cstr(method), cstr(target), cstr(&Value::Array(pairs).to_string()));
        FfiResponse::new(ffi::fc_request(
            self.ctx,
            method.as_ptr(),
            target.as_ptr(),
            headers.as_ptr(),
            if body.is_empty() { std::ptr::null() } else { body.as_ptr() },
            body.len(),
        ))
    }

    /// Serves one request through `forgecore::http::handle` on [`Self::ctx`], without the
    /// FFI: status, headers, whole body.
    pub fn handle(
        &self,
        method: &str,
        target: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> (u16, Vec<(String, String)>, Vec<u8>) {
        let headers = headers.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
        let response = forgecore::http::handle(self.ctx(), method, target, headers, body);
        let (status, headers) = (response.status, response.headers.clone());
        (status, headers, response.into_bytes().expect("body"))
    }

    /// Calls a typed export (`ffi::fc_member_roles_*`) with `auth` and `params` as JSON.
    pub fn typed(&self, export: TypedExport, auth: Value, params: Value) -> (u16, Value) {
        let (auth, params) = (cstr(&auth.to_string()), cstr(&params.to_string()));
        FfiResponse::new(export(self.ctx, auth.as_ptr(), params.as_ptr())).status_json()
    }

    /// `{"private_token": token}`, the `auth_json` of a typed export.
    pub fn auth(token: &str) -> Value {
        json!({ "private_token": token })
    }
}

impl Drop for TestInstance {
    fn drop(&mut self) {
        ffi::fc_close(self.ctx);
    }
}

/// The repositories `tests/fixtures/<name>.sh` builds, made once in this test process's own
/// directory under `CARGO_TARGET_TMPDIR` (deterministic, so every test of the binary may share
/// them read-only); earlier runs' directories whose process is gone are removed first (where
/// `/proc` says so). Call it from a `OnceLock` so that it runs once.
#[allow(dead_code)] // not every test binary builds a shared fixture
pub fn shared_fixture(name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let prefix = format!("{name}-fixture-");
    if Path::new("/proc/self").exists() {
        for entry in std::fs::read_dir(root).into_iter().flatten().flatten() {
            let entry_name = entry.file_name().to_string_lossy().into_owned();
            if let Some(pid) = entry_name.strip_prefix(&prefix) {
                if !Path::new("/proc").join(pid).exists() {
                    let _ = std::fs::remove_dir_all(entry.path());
                }
            }
        }
    }
    let dir = root.join(format!("{prefix}{}", std::process::id()));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/{name}.sh"));
    let status = std::process::Command::new("bash").arg(script).arg(&dir).status().expect("bash runs");
    assert!(status.success(), "tests/fixtures/{name}.sh failed");
    dir
}

/// Runs `git` in `dir` with `args` and answers its standard output; panics when it fails.
pub fn git(dir: &Path, args: &[&str]) -> Vec<u8> {
    let output = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    output.stdout
}

/// `git` output as trimmed text.
pub fn git_text(dir: &Path, args: &[&str]) -> String {
    String::from_utf8_lossy(&git(dir, args)).trim().to_string()
}

/// The `name` of every entity of a JSON list.
pub fn names(body: &Value) -> Vec<String> {
    body.as_array().unwrap().iter().map(|b| b["name"].as_str().unwrap().to_string()).collect()
}

/// `(commit, line)` for every line of `git blame --porcelain`.
pub fn porcelain_lines(repo: &Path, rev: &str, path: &str) -> Vec<(String, String)> {
    let out = git_text(repo, &["blame", "--porcelain", rev, "--", path]);
    let mut lines = Vec::new();
    let mut commit = String::new();
    for line in out.lines() {
        if let Some(text) = line.strip_prefix('\t') {
            lines.push((commit.clone(), text.to_string()));
        } else if line.len() > 41 && line.as_bytes()[40] == b' ' && line[..40].bytes().all(|b| b.is_ascii_hexdigit()) {
            commit = line[..40].to_string();
        }
    }
    lines
}

/// Feeds `script` to `git fast-import` in the repository `repo`, without this machine's
/// configuration.
pub fn fast_import(repo: &Path, script: &str) {
    use std::io::Write;
    let mut import = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["fast-import", "--quiet"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("git runs");
    import.stdin.take().expect("a pipe").write_all(script.as_bytes()).expect("git reads");
    assert!(import.wait().expect("git ends").success(), "git fast-import failed");
}

/// A bare repository at `dir/plain.git` made by `git fast-import` from `script`, and its clone
/// `dir/graph.git` with a commit-graph of every reachable commit: one history as a fresh
/// import leaves it and as maintenance keeps it.
pub fn imported_with_and_without_graph(dir: &Path, script: &str) -> (PathBuf, PathBuf) {
    std::fs::create_dir_all(dir).expect("the directory is made");
    let (plain, graph) = (dir.join("plain.git"), dir.join("graph.git"));
    git(dir, &["init", "-q", "--bare", "-b", "main", &plain.to_string_lossy()]);
    fast_import(&plain, script);
    git(dir, &["clone", "-q", "--bare", "--no-local", &plain.to_string_lossy(), &graph.to_string_lossy()]);
    git(&graph, &["commit-graph", "write", "--reachable"]);
    (plain, graph)
}

impl TestInstance {
    /// Builds the fixture repositories of `tests/fixtures/repo.sh` under this instance's
    /// directory and registers them as projects: `fx/work` and `fx/bare` (public) and
    /// `fx/empty` (public), in a public group `fx`. Answers the fixture directory
    /// (`work`, `bare.git`, `empty.git` inside).
    pub fn fixture_repos(&self) -> PathBuf {
        let dir = self.root_dir().join("fixtures");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/repo.sh");
        let status = std::process::Command::new("bash").arg(script).arg(&dir).status().expect("bash runs");
        assert!(status.success(), "tests/fixtures/repo.sh failed");
        self.admin_ok(json!({"command": "group_add", "path": "fx", "visibility": "public"}));
        for (path, repo) in [("fx/work", "work"), ("fx/bare", "bare.git"), ("fx/empty", "empty.git")] {
            self.admin_ok(
                json!({"command": "project_add", "path": path, "repo": dir.join(repo), "visibility": "public"}),
            );
        }
        dir
    }

    /// Builds `tests/fixtures/<script>` into `<root>/<script name>`; the directory.
    pub fn run_fixture(&self, script: &str) -> PathBuf {
        let dir = self.root_dir().join(script.trim_end_matches(".sh"));
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(script);
        let status = std::process::Command::new("bash")
            .arg(path)
            .arg(&dir)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("bash runs");
        assert!(status.success(), "tests/fixtures/{script} failed");
        dir
    }

    /// A Maintainer (`mona`), a Developer (`dev`) and a Reporter (`rita`) of `project`, named
    /// `<user> N` with the email `<user>@example.com`: their tokens, for the write tests.
    pub fn writers(&self, project: &str) -> Writers {
        let mut tokens = Vec::new();
        for (user, level) in [("mona", 40), ("dev", 30), ("rita", 20)] {
            let (name, email) = (format!("{user} N"), format!("{user}@example.com"));
            self.admin_ok(json!({"command": "user_add", "username": user, "name": name, "email": email}));
            self.admin_ok(
                json!({"command": "member_add", "username": user, "project": project, "access_level": level}),
            );
            let token = self.admin_ok(json!({"command": "token_add", "username": user}));
            tokens.push(token["token"].as_str().expect("token_add answers a token").to_string());
        }
        let reporter = tokens.pop().unwrap();
        let developer = tokens.pop().unwrap();
        Writers { maintainer: tokens.pop().unwrap(), developer, reporter }
    }
}

/// The tokens of [`TestInstance::writers`].
pub struct Writers {
    pub maintainer: String,
    pub developer: String,
    pub reporter: String,
}

/// The tokens of the callers [`TestInstance::visibility_matrix`] sets up.
pub struct Matrix {
    pub admin: String,
    pub guest: String,
    /// A guest whose custom member role grants `read_code`.
    pub reader: String,
    pub reporter: String,
    pub outsider: String,
}

impl TestInstance {
    /// The visibility and permission matrix of decisions D3-D4: a private group `corp` with the
    /// private project `corp/secret` serving `repo`; the administrator `admin_name`; members of
    /// `corp` `gus` (Guest), `grace` (Guest with a custom role granting `read_code`) and `rita`
    /// (Reporter); and the outsider `otto`.
    pub fn visibility_matrix(&self, admin_name: &str, repo: &Path) -> Matrix {
        let admin = self.user_with_token(admin_name, true);
        let (guest, reader, reporter, outsider) = (
            self.user_with_token("gus", false),
            self.user_with_token("grace", false),
            self.user_with_token("rita", false),
            self.user_with_token("otto", false),
        );
        self.admin_ok(json!({"command": "group_add", "path": "corp"}));
        self.admin_ok(json!({"command": "project_add", "path": "corp/secret", "repo": repo, "visibility": "private"}));
        let (status, role) = self.request_json(
            "POST",
            "/api/v4/groups/corp/member_roles",
            &[("PRIVATE-TOKEN", &admin)],
            json!({"name": "Code reader", "base_access_level": 10, "read_code": true}).to_string().as_bytes(),
        );
        assert_eq!(status, 201, "{role}");
        for (user, level, role_id) in
            [("gus", 10, Value::Null), ("grace", 10, role["id"].clone()), ("rita", 20, Value::Null)]
        {
            self.admin_ok(json!({"command": "member_add", "group": "corp", "username": user,
                                 "access_level": level, "member_role_id": role_id}));
        }
        Matrix { admin, guest, reader, reporter, outsider }
    }
}
