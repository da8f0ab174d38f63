//! What an operator sees (issue #29): one record per request through the log callback
//! (`fc_log_set`), the `/-/` routes and who may reach them, `/-/metrics` and its series, the
//! client's address behind trusted proxies, the correlation id, and the anonymous rate limit
//! per client address (shared by hosts on one store: run with PostgreSQL too).
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::{cstr, open_instance, FfiResponse, TestInstance};
use forgecore::ffi;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void};
use std::sync::{Mutex, Once};

/// Every record handed to the callback, as (level, text).
static RECORDS: Mutex<Vec<(c_int, String)>> = Mutex::new(Vec::new());

extern "C" fn collect(_user_data: *mut c_void, level: c_int, json: *const c_char, len: usize) {
    // SAFETY: `len` bytes borrowed for the call, by fc_log_set's contract.
    let bytes = unsafe { std::slice::from_raw_parts(json.cast::<u8>(), len) };
    // The text is NUL-terminated too.
    // SAFETY: as above, and the byte after the `len` is the NUL.
    assert_eq!(unsafe { *json.add(len) }, 0, "the record is not NUL-terminated");
    RECORDS.lock().unwrap().push((level, String::from_utf8(bytes.to_vec()).expect("records are UTF-8")));
}

/// Registers [`collect`] at the info level, once for the process (tests share it).
fn capture() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| assert_eq!(ffi::fc_log_set(3, Some(collect), std::ptr::null_mut()), 0));
}

/// The records whose user agent starts with `prefix`, parsed.
fn records_of(prefix: &str) -> Vec<Value> {
    RECORDS
        .lock()
        .unwrap()
        .iter()
        .filter_map(|(_, text)| serde_json::from_str::<Value>(text).ok())
        .filter(|r| r["ua"].as_str().is_some_and(|ua| ua.starts_with(prefix)))
        .collect()
}

/// A request from `peer` (the connection's address, as a host passes it to `fc_call_open`):
/// status, headers (lower-cased names), whole body.
fn from(
    inst: &TestInstance,
    peer: &str,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
) -> (u16, HashMap<String, String>, Vec<u8>) {
    let meta = cstr(&json!({"peer_addr": peer, "scheme": "http"}).to_string());
    let pairs: Vec<Value> = headers.iter().map(|(n, v)| json!([n, v])).collect();
    let (method, target, headers) = (cstr(method), cstr(target), cstr(&Value::Array(pairs).to_string()));
    let mut call = std::ptr::null_mut();
    let answer =
        ffi::fc_call_open(inst.ffi_ctx(), meta.as_ptr(), method.as_ptr(), target.as_ptr(), headers.as_ptr(), &mut call);
    let mut response = FfiResponse::new(if answer.is_null() { ffi::fc_call_finish(call) } else { answer });
    let status = response.status();
    let headers = response.headers().into_iter().map(|(n, v)| (n.to_ascii_lowercase(), v)).collect();
    (status, headers, response.body())
}

fn header_of(response: &FfiResponse, name: &str) -> Option<String> {
    response.headers().into_iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v)
}

#[test]
fn exactly_one_record_per_request_from_eight_threads_with_no_token_in_any() {
    capture();
    let inst = open_instance(json!({}));
    inst.fixture_repos();
    let token = inst.user_with_token("obs", false);
    let kinds = 7;
    let per_thread = 3 * kinds;
    let outcomes: Vec<(String, u16, Option<String>)> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let (inst, token) = (&inst, &token);
                scope.spawn(move || {
                    let mut seen = Vec::new();
                    for i in 0..per_thread {
                        let ua = format!("obs-ua/{t}/{i}");
                        let auth = [("User-Agent", ua.as_str()), ("PRIVATE-TOKEN", token.as_str())];
                        let anonymous = [("User-Agent", ua.as_str())];
                        let tree =
                            format!("/api/v4/projects/fx%2Fwork/repository/tree?recursive=true&private_token={token}");
                        let secret = br#"{"name": "r", "base_access_level": 10, "password": "hunter2-secret"}"#;
                        if i % kinds == 6 {
                            // A call abandoned while its body arrives (the client went away):
                            // no answer, still one record (499).
                            let (meta, method, target) =
                                (cstr("{\"peer_addr\": \"192.0.2.1:9\"}"), cstr("POST"), cstr("/api/v4/member_roles"));
                            let headers = cstr(&json!([["User-Agent", ua]]).to_string());
                            let mut call = std::ptr::null_mut();
                            let ctx = inst.ffi_ctx();
                            let answer = ffi::fc_call_open(
                                ctx,
                                meta.as_ptr(),
                                method.as_ptr(),
                                target.as_ptr(),
                                headers.as_ptr(),
                                &mut call,
                            );
                            assert!(answer.is_null() && !call.is_null());
                            assert!(ffi::fc_call_write(call, b"{\"na".as_ptr(), 4).is_null());
                            ffi::fc_call_free(call);
                            seen.push((ua, 499, None));
                            continue;
                        }
                        let mut response = match i % kinds {
                            0 => inst.request_response("GET", "/api/v4/version", &auth, b""),
                            1 => inst.request_response("GET", &tree, &anonymous, b""),
                            2 => inst.request_response(
                                "GET",
                                "/api/v4/projects/fx%2Fwork/repository/archive.tar",
                                &anonymous,
                                b"",
                            ),
                            3 => inst.request_response(
                                "GET",
                                "/api/v4/projects/fx%2Fwork/repository/archive.zip",
                                &anonymous,
                                b"",
                            ),
                            4 => inst.request_response("GET", "/api/v4/nowhere", &anonymous, b""),
                            _ => inst.request_response("POST", "/api/v4/member_roles", &auth, secret),
                        };
                        let status = response.status();
                        let id = Some(header_of(&response, "X-Request-Id").expect("every answer has X-Request-Id"));
                        if i % kinds == 2 {
                            assert!(response.streamed(), "archives stream");
                            assert!(!response.read_all(64 * 1024).is_empty());
                        } else if i % kinds == 3 {
                            // Abandoned after a few bytes: recorded when freed.
                            let mut buf = [0u8; 16];
                            assert!(ffi::fc_response_read(response.as_ptr(), buf.as_mut_ptr(), buf.len()) > 0);
                        } else {
                            response.body();
                        }
                        drop(response);
                        seen.push((ua, status, id));
                    }
                    seen
                })
            })
            .collect();
        threads.into_iter().flat_map(|t| t.join().unwrap()).collect()
    });
    assert_eq!(outcomes.len(), 8 * per_thread);
    let records = records_of("obs-ua/");
    let mut by_ua: HashMap<String, Vec<&Value>> = HashMap::new();
    for record in &records {
        by_ua.entry(record["ua"].as_str().unwrap().to_string()).or_default().push(record);
    }
    for (ua, status, id) in &outcomes {
        let found = by_ua.get(ua).map_or(0, Vec::len);
        assert_eq!(found, 1, "{ua}: {found} records");
        let record = by_ua[ua][0];
        assert_eq!(record["status"], json!(status), "{record}");
        if let Some(id) = id {
            assert_eq!(record["correlation_id"], json!(id), "{record}");
        }
        for field in [
            "time",
            "severity",
            "correlation_id",
            "method",
            "path",
            "route",
            "status",
            "duration_s",
            "db_duration_s",
            "db_count",
            "git_duration_s",
            "cache_hits",
            "response_bytes",
            "user_id",
            "username",
            "remote_ip",
            "ua",
            "params",
        ] {
            assert!(record.get(field).is_some(), "{field} missing in {record}");
        }
        assert_eq!(record["severity"], "INFO");
        assert!(record["time"].as_str().unwrap().ends_with('Z'));
    }
    assert_eq!(records.len(), outcomes.len(), "records of requests nobody made");
    for record in &records {
        let text = record.to_string();
        assert!(!text.contains(&token) && !text.contains("hunter2"), "a secret in {text}");
        let route = record["route"].as_str().unwrap();
        assert!(!route.contains("fx"), "a raw path as the route: {text}");
        match record["path"].as_str().unwrap() {
            "/api/v4/version" => {
                assert_eq!(route, "/api/v4/version");
                assert_eq!(record["username"], "obs");
                assert!(record["user_id"].is_i64());
            }
            "/api/v4/projects/fx%2Fwork/repository/tree" => {
                assert_eq!(route, "/api/v4/projects/:id/repository/tree");
                let params = record["params"].as_array().unwrap();
                assert!(params.contains(&json!({"key": "private_token", "value": "[FILTERED]"})), "{text}");
                assert!(params.contains(&json!({"key": "recursive", "value": "true"})), "{text}");
                assert!(record["git_duration_s"].as_f64().unwrap() > 0.0, "{text}");
                assert!(record["db_count"].as_u64().unwrap() > 0, "{text}");
            }
            "/api/v4/projects/fx%2Fwork/repository/archive.tar" => {
                assert_eq!(route, "/api/v4/projects/:id/repository/archive.:format");
                assert!(record["response_bytes"].as_u64().unwrap() >= 10240, "the whole tar: {text}");
            }
            "/api/v4/projects/fx%2Fwork/repository/archive.zip" => {
                assert!(record["response_bytes"].as_u64().unwrap() < 64 * 1024 * 4 + 16, "{text}");
            }
            "/api/v4/nowhere" => assert_eq!(route, "unmatched"),
            "/api/v4/member_roles" if record["status"] == 499 => {
                assert_eq!(record["remote_ip"], "192.0.2.1");
                assert_eq!(route, "/api/v4/member_roles", "the route of an abandoned call: {text}");
            }
            "/api/v4/member_roles" => {
                assert_eq!(route, "/api/v4/member_roles");
                let params = record["params"].as_array().unwrap();
                assert!(params.contains(&json!({"key": "password", "value": "[FILTERED]"})), "{text}");
            }
            other => panic!("unexpected path {other}"),
        }
    }
}

#[test]
fn diagnostics_of_the_log_crate_reach_the_callback_at_warn_and_above() {
    capture();
    log::warn!(target: "obs-diag", "the disk is nearly full: {}%", 97);
    log::error!(target: "obs-diag", "gone");
    log::info!(target: "obs-diag", "chatter");
    let mine: Vec<(c_int, Value)> = RECORDS
        .lock()
        .unwrap()
        .iter()
        .filter_map(|(level, text)| Some((*level, serde_json::from_str::<Value>(text).ok()?)))
        .filter(|(_, r)| r["target"] == "obs-diag")
        .collect();
    assert_eq!(mine.len(), 2, "{mine:?}");
    assert_eq!(mine[0].0, 2);
    assert_eq!(mine[0].1["severity"], "WARN");
    assert_eq!(mine[0].1["message"], "the disk is nearly full: 97%");
    assert_eq!((mine[1].0, &mine[1].1["severity"]), (1, &json!("ERROR")));
}

#[test]
fn monitoring_routes_answer_the_allowlist_only_and_forwarded_for_counts_from_trusted_proxies() {
    capture();
    let inst = open_instance(json!({"requests": {"trusted_proxies": ["10.0.0.0/8"]}}));
    let (status, headers, body) = from(&inst, "127.0.0.1", "GET", "/-/health", &[]);
    assert_eq!((status, body.as_slice()), (200, b"forgecore OK".as_slice()));
    assert!(headers["content-type"].starts_with("text/plain"));
    assert_eq!(from(&inst, "::1", "GET", "/-/liveness", &[]).2, br#"{"status":"ok"}"#);
    // Others: GitLab's empty 404, on every route, whatever they claim to be.
    for route in ["/-/health", "/-/liveness", "/-/readiness", "/-/metrics"] {
        let (status, headers, body) = from(&inst, "203.0.113.9", "GET", route, &[("X-Forwarded-For", "127.0.0.1")]);
        assert_eq!((status, body.len()), (404, 0), "{route}");
        assert!(headers.contains_key("x-request-id"));
    }
    // Behind a trusted proxy, the client is the forwarded address: allowed or not by it.
    let ua = [("User-Agent", "xff-ua/1"), ("X-Forwarded-For", "203.0.113.9, 127.0.0.1")];
    assert_eq!(from(&inst, "10.0.0.1", "GET", "/-/health", &ua).0, 200);
    let ua = [("User-Agent", "xff-ua/2"), ("X-Forwarded-For", "127.0.0.1, 203.0.113.9")];
    assert_eq!(from(&inst, "10.0.0.1", "GET", "/-/health", &ua).0, 404);
    let ua = [("User-Agent", "xff-ua/3"), ("X-Forwarded-For", "127.0.0.1")];
    assert_eq!(from(&inst, "198.51.100.7", "GET", "/api/v4/version", &ua).0, 200);
    let remote: HashMap<String, Value> = records_of("xff-ua/")
        .into_iter()
        .map(|r| (r["ua"].as_str().unwrap().to_string(), r["remote_ip"].clone()))
        .collect();
    assert_eq!(remote["xff-ua/1"], "127.0.0.1");
    assert_eq!(remote["xff-ua/2"], "203.0.113.9");
    // An untrusted peer's header is ignored: the record names the peer.
    assert_eq!(remote["xff-ua/3"], "198.51.100.7");
    // Through fc_request (no peer given) nobody is on the allowlist, nor with a peer of "".
    assert_eq!(inst.request("GET", "/-/health", &[], b"").0, 404);
    assert_eq!(from(&inst, "", "GET", "/-/health", &[]).0, 404);
}

#[test]
fn request_ids_are_taken_only_when_trusted_and_well_formed() {
    let plain = open_instance(json!({}));
    let (_, headers, _) = from(&plain, "127.0.0.1", "GET", "/api/v4/version", &[("X-Request-Id", "client-chosen.1")]);
    assert_ne!(headers["x-request-id"], "client-chosen.1");
    assert_eq!(headers["x-request-id"].len(), 26);
    let trusting = open_instance(json!({"requests": {"trust_request_id": true}}));
    let (_, headers, _) =
        from(&trusting, "127.0.0.1", "GET", "/api/v4/version", &[("X-Request-Id", "client-chosen.1")]);
    assert_eq!(headers["x-request-id"], "client-chosen.1");
    let (_, headers, _) = from(&trusting, "127.0.0.1", "GET", "/-/health", &[("X-Request-Id", "bad id\"")]);
    assert_eq!(headers["x-request-id"].len(), 26);
    // Streamed answers carry it too.
    trusting.fixture_repos();
    let mut response = trusting.request_response(
        "GET",
        "/api/v4/projects/fx%2Fwork/repository/archive.tar",
        &[("X-Request-Id", "tar-1")],
        b"",
    );
    assert!(response.streamed());
    assert_eq!(header_of(&response, "X-Request-Id").as_deref(), Some("tar-1"));
    response.body();
}

#[test]
fn one_route_leaves_one_series_per_status_whatever_the_paths() {
    let inst = open_instance(json!({}));
    for i in 0..1000 {
        assert_eq!(from(&inst, "203.0.113.9", "GET", &format!("/api/v4/projects/nope%2Fp{i}"), &[]).0, 404);
    }
    assert_eq!(from(&inst, "203.0.113.9", "GET", "/api/v4/version", &[]).0, 200);
    let (status, headers, page) = from(&inst, "127.0.0.1", "GET", "/-/metrics", &[]);
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "text/plain; version=0.0.4; charset=utf-8");
    let page = String::from_utf8(page).unwrap();
    let series: Vec<&str> = page.lines().filter(|l| l.starts_with("forgecore_http_requests_total{")).collect();
    assert_eq!(
        series,
        [
            "forgecore_http_requests_total{method=\"GET\",route=\"/api/v4/projects/:id\",code=\"404\"} 1000",
            "forgecore_http_requests_total{method=\"GET\",route=\"/api/v4/version\",code=\"200\"} 1",
        ]
    );
    assert!(!page.contains("nope"), "a raw path in the page");
    let buckets = page.lines().filter(|l| l.starts_with("forgecore_http_request_duration_seconds_bucket{")).count();
    assert_eq!(buckets, 2 * 10, "two series of nine buckets and +Inf");
    for name in [
        "forgecore_http_in_flight_requests 1",
        "# TYPE forgecore_store_operation_duration_seconds histogram",
        "forgecore_cache_requests_total{cache=\"answers\",result=\"miss\"}",
        "forgecore_archive_cache_bytes ",
    ] {
        assert!(page.contains(name), "{name} missing from\n{page}");
    }
}

#[test]
fn readiness_checks_the_instance_and_with_all_the_store_and_every_storage() {
    let inst = open_instance(json!({}));
    let (status, _, body) = from(&inst, "127.0.0.1", "GET", "/-/readiness", &[]);
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!((status, body), (200, json!({"status": "ok", "master_check": [{"status": "ok"}]})));
    // On PostgreSQL the cluster listener connects a moment after the context opens: until it
    // has, the instance is not ready, rightly.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let (status, body) = loop {
        let (status, _, body) = from(&inst, "127.0.0.1", "GET", "/-/readiness?all=1", &[]);
        let body: Value = serde_json::from_slice(&body).unwrap();
        if status == 200 || std::time::Instant::now() > deadline {
            break (status, body);
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["db_check"], json!([{"status": "ok"}]));
    let present = inst.root_dir().join("storage-a");
    std::fs::create_dir_all(&present).unwrap();
    let mut config = inst.config().clone();
    config["storages"] = json!({"a": present, "gone": inst.root_dir().join("no-such-dir")});
    let other = inst.reopen_with(config);
    let (status, _, body) = from(&other, "127.0.0.1", "GET", "/-/readiness?all=1", &[]);
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["status"], "failed");
    let storages = body["storage_check"].as_array().unwrap();
    assert_eq!(storages[0], json!({"status": "ok", "labels": {"shard": "a"}}));
    assert_eq!(storages[1]["status"], "failed");
    assert_eq!(storages[1]["labels"], json!({"shard": "gone"}));
    // Without `all`, the instance alone: still ready.
    assert_eq!(from(&other, "127.0.0.1", "GET", "/-/readiness?all=0", &[]).0, 200);
}

#[test]
fn anonymous_callers_are_limited_per_address_across_hosts() {
    let inst = open_instance(json!({"rate_limits": {"unauthenticated_api": {"limit": 5, "period_seconds": 600}}}));
    let other = inst.reopen();
    let token = inst.user_with_token("named", false);
    let statuses: Vec<u16> = (0..12)
        .map(|i| from(if i % 2 == 0 { &inst } else { &other }, "203.0.113.9", "GET", "/api/v4/projects", &[]).0)
        .collect();
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 5, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 7, "{statuses:?}");
    let (status, headers, _) = from(&other, "203.0.113.9", "GET", "/api/v4/projects", &[]);
    assert_eq!(status, 429);
    assert!(headers.contains_key("retry-after"));
    // Another address, and a signed-in caller from the same one, are not limited by it.
    assert_eq!(from(&other, "203.0.113.10", "GET", "/api/v4/projects", &[]).0, 200);
    assert_eq!(from(&inst, "203.0.113.9", "GET", "/api/v4/projects", &[("PRIVATE-TOKEN", &token)]).0, 200);
    // Nor are the probes.
    assert_eq!(from(&inst, "127.0.0.1", "GET", "/-/health", &[]).0, 200);
}

#[test]
fn git_over_http_requests_have_one_record_each_with_their_route() {
    capture();
    let inst = open_instance(json!({}));
    inst.fixture_repos();
    let refs = "/fx/work.git/info/refs?service=git-upload-pack";
    let (status, headers, _) = from(&inst, "127.0.0.1", "GET", refs, &[("User-Agent", "git-ua/1")]);
    assert_eq!(status, 200);
    assert!(headers.contains_key("x-request-id"));
    let rpc = [("User-Agent", "git-ua/2"), ("Content-Type", "application/x-git-upload-pack-request")];
    let (status, _, _) = from(&inst, "127.0.0.1", "POST", "/fx/work.git/git-upload-pack", &rpc);
    let records = records_of("git-ua/");
    assert_eq!(records.len(), 2, "{records:?}");
    let by_ua: HashMap<&str, &Value> = records.iter().map(|r| (r["ua"].as_str().unwrap(), r)).collect();
    assert_eq!(by_ua["git-ua/1"]["route"], "/:project.git/info/refs");
    assert_eq!(by_ua["git-ua/1"]["status"], 200);
    assert_eq!(by_ua["git-ua/2"]["route"], "/:project.git/git-upload-pack");
    assert_eq!(by_ua["git-ua/2"]["status"], status);
}

/// Every parameter name GitLab's `filter_parameters` (config/application.rb) and its API's
/// `LOG_FILTERS` filter, with a value that would be seen if it were not.
const GITLAB_FILTERED: &[&str] = &[
    "private_token",
    "client_secret",
    "deploy_key",
    "password_confirmation",
    "body",
    "description",
    "query",
    "note",
    "text",
    "title",
    "hook",
    "message",
    "certificate",
    "import_url",
    "search",
    "jwt",
    "otp_attempt",
    "sentry_dsn",
    "trace",
    "variables",
    "content",
    "sharedSecret",
    "redirect",
    "question",
    "SAMLResponse",
    "selectedText",
    "login_challenge",
    "consent_verifier",
    "output",
];

#[test]
fn committed_contents_and_gitlabs_filtered_names_never_reach_a_record() {
    capture();
    let inst = open_instance(json!({}));
    inst.fixture_repos();
    let writers = inst.writers("fx/bare");
    let token = writers.maintainer.as_str();
    // The commits API: `actions[]`, an array of objects, each with its `content`.
    let body = json!({
        "branch": "main",
        "commit_message": "two files",
        "actions": [
            {"action": "create", "file_path": "one.txt", "content": "leaked-content-one"},
            {"action": "create", "file_path": "two.txt", "content": "leaked-content-two", "encoding": "text"},
        ],
    });
    let mut response = inst.request_response(
        "POST",
        "/api/v4/projects/fx%2Fbare/repository/commits",
        &[("User-Agent", "filter-ua/commits"), ("PRIVATE-TOKEN", token), ("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    );
    assert_eq!(response.status(), 201, "{}", String::from_utf8_lossy(&response.body()));
    drop(response);
    // Every other filtered name, in a query string and in a JSON body (nested, too).
    let query: Vec<String> = GITLAB_FILTERED.iter().map(|name| format!("{name}=leaked-{name}")).collect();
    let target = format!("/api/v4/projects/fx%2Fbare/repository/branches?{}", query.join("&"));
    let (status, _) = inst.request_json("GET", &target, &[("User-Agent", "filter-ua/query")], b"");
    assert!(status < 500, "{status}");
    let mut nested = serde_json::Map::new();
    for name in GITLAB_FILTERED {
        nested.insert(name.to_string(), json!({"inner": format!("leaked-{name}")}));
    }
    nested.insert("safe".into(), json!({"note": "leaked-inner-note", "kept": "visible-inner"}));
    let (status, _) = inst.request_json(
        "POST",
        "/api/v4/member_roles",
        &[("User-Agent", "filter-ua/nested"), ("PRIVATE-TOKEN", token), ("Content-Type", "application/json")],
        Value::Object(nested).to_string().as_bytes(),
    );
    assert!(status < 500, "{status}");
    // A token in the path and in the user agent: the request's own, and one by its prefix.
    let ua = format!("filter-ua/agent {token} glpat-leakedagent0000");
    inst.request_json(
        "GET",
        "/api/v4/projects/glpat-leakedpath000",
        &[("User-Agent", &ua), ("PRIVATE-TOKEN", token)],
        b"",
    );
    let records = records_of("filter-ua/");
    assert_eq!(records.len(), 4, "{records:?}");
    for record in &records {
        let text = record.to_string();
        assert!(!text.contains("leaked") && !text.contains(token), "a filtered value in {text}");
    }
    let params = |ua: &str| -> Vec<Value> {
        let record = records.iter().find(|r| r["ua"].as_str().unwrap().starts_with(ua)).unwrap();
        record["params"].as_array().unwrap().clone()
    };
    let actions = params("filter-ua/commits").into_iter().find(|p| p["key"] == "actions").unwrap();
    let actions: Value = serde_json::from_str(actions["value"].as_str().unwrap()).unwrap();
    assert_eq!(actions[0], json!({"action": "create", "file_path": "one.txt", "content": "[FILTERED]"}));
    assert_eq!(actions[1]["encoding"], "text");
    for name in GITLAB_FILTERED {
        for ua in ["filter-ua/query", "filter-ua/nested"] {
            assert!(params(ua).contains(&json!({"key": name, "value": "[FILTERED]"})), "{name} in {ua}");
        }
    }
    let safe = params("filter-ua/nested").into_iter().find(|p| p["key"] == "safe").unwrap();
    assert!(safe["value"].as_str().unwrap().contains("visible-inner"), "{safe}");
    let agent = records.iter().find(|r| r["ua"].as_str().unwrap().starts_with("filter-ua/agent")).unwrap();
    assert_eq!(agent["ua"], "filter-ua/agent [FILTERED] [FILTERED]");
    assert_eq!(agent["path"], "/api/v4/projects/[FILTERED]");
}

#[test]
fn git_over_http_records_name_the_user_as_api_records_do() {
    use base64::Engine;
    capture();
    let inst = open_instance(json!({}));
    inst.fixture_repos();
    let token = inst.user_with_token("gitrec", true);
    let basic = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("oauth2:{token}")));
    let upload = "application/x-git-upload-pack-request";
    let receive = "application/x-git-receive-pack-request";
    for (ua, service, content_type) in
        [("gitrec-ua/1", "git-upload-pack", upload), ("gitrec-ua/2", "git-receive-pack", receive)]
    {
        let refs = format!("/fx/work.git/info/refs?service={service}");
        let (status, _, _) = from(&inst, "127.0.0.1", "GET", &refs, &[("User-Agent", ua), ("Authorization", &basic)]);
        assert_eq!(status, 200);
        let headers = [("User-Agent", ua), ("Authorization", basic.as_str()), ("Content-Type", content_type)];
        from(&inst, "127.0.0.1", "POST", &format!("/fx/work.git/{service}"), &headers);
    }
    // Anonymous, no one is named.
    from(&inst, "127.0.0.1", "GET", "/fx/work.git/info/refs?service=git-upload-pack", &[("User-Agent", "gitrec-ua/3")]);
    // A refused request names who was refused: a push with a token that may only read.
    let reader = inst.admin_ok(json!({"command": "token_add", "username": "gitrec", "scopes": ["read_api"]}));
    let reader = reader["token"].as_str().unwrap();
    let basic = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("oauth2:{reader}")));
    let headers = [("User-Agent", "gitrec-ua/4"), ("Authorization", basic.as_str())];
    let (status, _, _) = from(&inst, "127.0.0.1", "GET", "/fx/work.git/info/refs?service=git-receive-pack", &headers);
    assert_eq!(status, 403);
    let records = records_of("gitrec-ua/");
    assert_eq!(records.len(), 6, "{records:?}");
    for record in &records {
        if record["ua"] == "gitrec-ua/3" {
            assert!(record["username"].is_null() && record["user_id"].is_null(), "{record}");
        } else {
            assert_eq!(record["username"], "gitrec", "{record}");
            assert!(record["user_id"].is_i64(), "{record}");
        }
    }
}

#[test]
fn a_compare_times_its_walk_and_its_patches_apart() {
    let inst = open_instance(json!({}));
    inst.fixture_repos();
    let (status, _, body) =
        from(&inst, "127.0.0.1", "GET", "/api/v4/projects/fx%2Fwork/repository/compare?from=main&to=feature", &[]);
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let (_, _, page) = from(&inst, "127.0.0.1", "GET", "/-/metrics", &[]);
    let page = String::from_utf8(page).unwrap();
    for op in ["compare", "compare_patches"] {
        let count = format!("forgecore_git_operation_duration_seconds_count{{op=\"{op}\"}} 1");
        assert!(page.lines().any(|l| l == count), "{count} missing from\n{page}");
    }
}
