//! The C ABI called directly (`forgecore::ffi`): argument checking (NULL, non-UTF-8, malformed
//! JSON) always answers a 400 JSON response and never crashes; the response accessors; the
//! panic guard; one context under many threads; the typed member-role exports; and the admin
//! command a host starts with.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

// `common::abi` is `forgecore::ffi::*` plus the response accessors that module does not
// re-export (see its comment).
use common::{cbytes, cstr, git, open_instance, FfiResponse, TempDir, TestInstance};
use forgecore::ffi::{self, fc_ctx};
use serde_json::{json, Value};
use std::ffi::c_char;
use std::ptr::{null, null_mut};

/// Invalid UTF-8 sequences: a lone lead byte (C3 28), an encoded surrogate (ED A0 80) and an
/// overlong encoding of '/' (C0 AF).
const BAD_UTF8: [&[u8]; 3] = [b"\xC3\x28", b"\xED\xA0\x80", b"\xC0\xAF"];

/// `text` with `{}` replaced by each invalid sequence, as C strings.
fn with_bad_utf8(text: &str) -> Vec<CStringCase> {
    let (before, after) = text.split_once("{}").expect("a {} placeholder");
    BAD_UTF8
        .iter()
        .map(|bad| {
            let mut bytes = before.as_bytes().to_vec();
            bytes.extend_from_slice(bad);
            bytes.extend_from_slice(after.as_bytes());
            CStringCase { label: format!("{before}{bad:02X?}{after}"), text: cbytes(&bytes) }
        })
        .collect()
}

struct CStringCase {
    label: String,
    text: std::ffi::CString,
}

/// Asserts a 400 whose JSON body has a `message` naming `argument`.
fn assert_bad_argument(response: *mut ffi::fc_response, argument: &str, case: &str) {
    let (status, body) = FfiResponse::new(response).status_json();
    assert_eq!(status, 400, "{case}: {body}");
    let message = body["message"].as_str().unwrap_or_else(|| panic!("{case}: no message in {body}"));
    assert!(message.contains(argument), "{case}: message {message:?} does not name {argument}");
}

/// A non-NULL pointer that is not a context, to check that `fc_open` clears `*out`.
fn sentinel() -> *mut fc_ctx {
    std::ptr::NonNull::<fc_ctx>::dangling().as_ptr()
}

/// Calls `fc_open` with `config`, expecting a failure: the response's status and JSON body.
/// `*out` must be NULL afterwards even though it held a non-NULL value before.
fn open_fails(config: *const c_char) -> (u16, Value) {
    let mut out = sentinel();
    let response = ffi::fc_open(config, &mut out);
    assert!(out.is_null(), "fc_open left *out non-NULL on failure");
    assert!(!response.is_null(), "fc_open failed without a response");
    FfiResponse::new(response).status_json()
}

fn data_dir_config(dir: &TempDir) -> String {
    json!({ "data_dir": dir.path().join("data") }).to_string()
}

// ---------------------------------------------------------------------------------------------
// Version, opening, closing.

#[test]
fn abi_version_matches_the_header_constant() {
    assert_eq!(ffi::fc_abi_version(), forgecore::FC_ABI_VERSION);
    let header = include_str!("../include/forgecore.h");
    let line = format!("#define FC_ABI_VERSION {}", forgecore::FC_ABI_VERSION);
    assert!(header.contains(&line), "include/forgecore.h lacks {line:?}");
}

#[test]
fn open_succeeds_returns_null_and_sets_out() {
    let dir = TempDir::new();
    let config = cstr(&data_dir_config(&dir));
    let mut out = sentinel();
    let response = ffi::fc_open(config.as_ptr(), &mut out);
    assert!(response.is_null(), "fc_open answered a response on success");
    assert!(!out.is_null() && out != sentinel());
    ffi::fc_close(out);
    assert!(dir.path().join("data").is_dir(), "data_dir was not created");
}

#[test]
fn open_with_null_config_is_a_400() {
    let (status, body) = open_fails(null());
    assert_eq!(status, 400, "{body}");
    assert!(body["message"].as_str().unwrap().contains("config_json"), "{body}");
}

#[test]
fn open_with_non_utf8_config_is_a_400() {
    let dir = TempDir::new();
    let path = dir.path().join("data");
    for case in with_bad_utf8(&format!("{{\"data_dir\": \"{}/{{}}\"}}", path.display())) {
        let (status, body) = open_fails(case.text.as_ptr());
        assert_eq!(status, 400, "{}: {body}", case.label);
        assert!(body["message"].as_str().unwrap().contains("config_json"), "{}: {body}", case.label);
    }
    assert!(!path.exists(), "a refused configuration created its data_dir");
}

#[test]
fn open_with_malformed_json_is_a_400() {
    let dir = TempDir::new();
    let valid = data_dir_config(&dir);
    let truncated = &valid[..valid.len() - 1];
    for text in ["", "{", "not json", "[]", "null", "{\"data_dir\": 5}", "{}", "{\"data_dir\": \"\"}", truncated] {
        let config = cstr(text);
        let (status, body) = open_fails(config.as_ptr());
        assert_eq!(status, 400, "{text:?}: {body}");
        assert!(body["message"].is_string(), "{text:?}: {body}");
    }
}

#[test]
fn open_with_an_unknown_key_is_a_400() {
    let dir = TempDir::new();
    let data = dir.path().join("data");
    for config in [
        json!({"data_dir": data, "data_dri": "typo"}),
        json!({"data_dir": data, "features": {"no_such_feature": true}}),
        json!({"data_dir": data, "limits": {"per_page_maximum": 5}}),
        json!({"data_dir": data, "rate_limits": {"archive": {"limit": 1, "period_seconds": 1, "burst": 2}}}),
    ] {
        let text = cstr(&config.to_string());
        let (status, body) = open_fails(text.as_ptr());
        assert_eq!(status, 400, "{config}: {body}");
        let message = body["message"].as_str().unwrap();
        assert!(message.contains("unknown field"), "{config}: {message}");
    }
}

#[test]
fn open_with_an_unusable_data_dir_fails_cleanly() {
    let dir = TempDir::new();
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"not a directory").unwrap();
    let config = cstr(&json!({ "data_dir": file.join("data") }).to_string());
    let (status, body) = open_fails(config.as_ptr());
    assert!(status == 400 || status == 500, "{status}: {body}");
    assert!(body["message"].is_string(), "{body}");
}

#[test]
fn open_with_null_out_is_a_400_and_opens_nothing() {
    let dir = TempDir::new();
    let config = cstr(&data_dir_config(&dir));
    let (status, body) = FfiResponse::new(ffi::fc_open(config.as_ptr(), null_mut())).status_json();
    assert_eq!(status, 400, "{body}");
    assert!(body["message"].as_str().unwrap().contains("out"), "{body}");
    // NULL config and NULL out together: still a 400, not a crash.
    let (status, _) = FfiResponse::new(ffi::fc_open(null(), null_mut())).status_json();
    assert_eq!(status, 400);
}

#[test]
fn close_null_is_a_no_op() {
    ffi::fc_close(null_mut());
}

#[test]
fn many_contexts_open_and_close_on_one_data_dir() {
    let instance = open_instance(json!({}));
    let token = instance.user_with_token("root", true);
    for _ in 0..20 {
        let other = instance.reopen();
        let (status, body) = other.request_json("GET", "/api/v4/member_roles", &[("PRIVATE-TOKEN", &token)], b"");
        assert_eq!(status, 200, "{body}");
    }
}

// ---------------------------------------------------------------------------------------------
// fc_request argument checking.

#[test]
fn request_with_null_ctx_is_a_400() {
    let (method, target, headers) = (cstr("GET"), cstr("/api/v4/version"), cstr("{}"));
    let response = ffi::fc_request(null(), method.as_ptr(), target.as_ptr(), headers.as_ptr(), null(), 0);
    assert_bad_argument(response, "ctx", "NULL ctx");
    // Every argument NULL at once.
    assert_bad_argument(ffi::fc_request(null(), null(), null(), null(), null(), 7), "ctx", "all NULL");
}

#[test]
fn request_with_null_strings_is_a_400_naming_the_argument() {
    let instance = open_instance(json!({}));
    let (method, target, headers) = (cstr("GET"), cstr("/api/v4/version"), cstr("{}"));
    let ctx = instance.ffi_ctx();
    let r = ffi::fc_request(ctx, null(), target.as_ptr(), headers.as_ptr(), null(), 0);
    assert_bad_argument(r, "method", "NULL method");
    let r = ffi::fc_request(ctx, method.as_ptr(), null(), headers.as_ptr(), null(), 0);
    assert_bad_argument(r, "target", "NULL target");
    let r = ffi::fc_request(ctx, method.as_ptr(), target.as_ptr(), null(), null(), 0);
    assert_bad_argument(r, "headers_json", "NULL headers_json");
}

#[test]
fn request_with_non_utf8_strings_is_a_400_naming_the_argument() {
    let instance = open_instance(json!({}));
    let (method, target, headers) = (cstr("GET"), cstr("/api/v4/version"), cstr("{}"));
    let ctx = instance.ffi_ctx();
    for case in with_bad_utf8("G{}T") {
        let r = ffi::fc_request(ctx, case.text.as_ptr(), target.as_ptr(), headers.as_ptr(), null(), 0);
        assert_bad_argument(r, "method", &format!("method {}", case.label));
    }
    for case in with_bad_utf8("/api/v4/{}version") {
        let r = ffi::fc_request(ctx, method.as_ptr(), case.text.as_ptr(), headers.as_ptr(), null(), 0);
        assert_bad_argument(r, "target", &format!("target {}", case.label));
    }
    for template in ["{\"X-Note\": \"{}\"}", "{\"X-{}\": \"v\"}", "[[\"X-Note\", \"{}\"]]"] {
        for case in with_bad_utf8(template) {
            let r = ffi::fc_request(ctx, method.as_ptr(), target.as_ptr(), case.text.as_ptr(), null(), 0);
            assert_bad_argument(r, "headers_json", &format!("headers {}", case.label));
        }
    }
}

#[test]
fn request_body_null_with_a_length_is_a_400_and_null_empty_is_fine() {
    let instance = open_instance(json!({}));
    let (method, target, headers) = (cstr("GET"), cstr("/api/v4/version"), cstr("{}"));
    let ctx = instance.ffi_ctx();
    let r = ffi::fc_request(ctx, method.as_ptr(), target.as_ptr(), headers.as_ptr(), null(), 5);
    assert_bad_argument(r, "body", "(NULL, 5) body");

    let r = ffi::fc_request(ctx, method.as_ptr(), target.as_ptr(), headers.as_ptr(), null(), 0);
    let (status, body) = FfiResponse::new(r).status_json();
    assert_eq!(status, 200, "{body}");
    assert!(body["version"].is_string(), "{body}");

    // A length no buffer can have is refused before the pointer is used.
    let bytes = [0u8; 4];
    let r = ffi::fc_request(ctx, method.as_ptr(), target.as_ptr(), headers.as_ptr(), bytes.as_ptr(), usize::MAX);
    assert_bad_argument(r, "body", "(ptr, usize::MAX) body");

    // A non-NULL pointer with a length of 0 is an empty body too.
    let byte = 0u8;
    let r = ffi::fc_request(ctx, method.as_ptr(), target.as_ptr(), headers.as_ptr(), &byte, 0);
    assert_eq!(FfiResponse::new(r).status(), 200);
}

#[test]
fn request_headers_as_an_object_or_an_array_of_pairs() {
    let instance = open_instance(json!({}));
    let token = instance.user_with_token("root", true);
    let (method, target) = (cstr("GET"), cstr("/api/v4/member_roles"));
    let send = |headers: &str| {
        let headers = cstr(headers);
        FfiResponse::new(ffi::fc_request(
            instance.ffi_ctx(),
            method.as_ptr(),
            target.as_ptr(),
            headers.as_ptr(),
            null(),
            0,
        ))
        .status_json()
    };
    // The token is honoured in both shapes (anonymous would be a 401).
    let as_object = json!({ "PRIVATE-TOKEN": token, "Accept": "application/json" }).to_string();
    let as_pairs = json!([["PRIVATE-TOKEN", token], ["Accept", "application/json"]]).to_string();
    for headers in [&as_object, &as_pairs] {
        let (status, body) = send(headers);
        assert_eq!(status, 200, "{headers}: {body}");
        assert_eq!(body, json!([]));
    }
    // Header names are case-insensitive.
    let (status, _) = send(&json!({ "private-token": token }).to_string());
    assert_eq!(status, 200);
    // No headers at all, in either shape: anonymous.
    for headers in ["{}", "[]"] {
        assert_eq!(send(headers).0, 401, "{headers}");
    }
    // A wrong token in either shape: 401, not anonymous.
    for headers in [json!({"PRIVATE-TOKEN": "glpat-nope"}), json!([["PRIVATE-TOKEN", "glpat-nope"]])] {
        assert_eq!(send(&headers.to_string()).0, 401, "{headers}");
    }
}

#[test]
fn request_with_malformed_headers_json_is_a_400() {
    let instance = open_instance(json!({}));
    let (method, target) = (cstr("GET"), cstr("/api/v4/version"));
    for headers in [
        "",
        "not json",
        "{",
        "null",
        "\"PRIVATE-TOKEN\"",
        "42",
        "{\"X\": 1}",
        "{\"X\": null}",
        "{\"X\": [\"a\"]}",
        "[[\"X\"]]",
        "[[\"X\", \"a\", \"b\"]]",
        "[[\"X\", 1]]",
        "[[1, \"a\"]]",
        "[\"X\", \"a\"]",
        "[{\"X\": \"a\"}]",
    ] {
        let text = cstr(headers);
        let r = ffi::fc_request(instance.ffi_ctx(), method.as_ptr(), target.as_ptr(), text.as_ptr(), null(), 0);
        assert_bad_argument(r, "headers_json", &format!("headers {headers:?}"));
    }
}

// ---------------------------------------------------------------------------------------------
// Response accessors.

#[test]
fn accessors_on_a_null_response_are_harmless() {
    assert_eq!(ffi::fc_response_status(null()), 0);
    assert!(ffi::fc_response_headers(null()).is_null());
    assert_eq!(ffi::fc_response_streamed(null()), 0);
    let mut len = 12345usize;
    assert!(ffi::fc_response_body(null(), &mut len).is_null());
    assert_eq!(len, 0);
    assert!(ffi::fc_response_body(null(), null_mut()).is_null());
    let mut buf = [0u8; 8];
    assert_eq!(ffi::fc_response_read(null_mut(), buf.as_mut_ptr(), buf.len()), -1);
    assert_eq!(ffi::fc_response_read(null_mut(), null_mut(), 0), -1);
    ffi::fc_response_free(null_mut());
}

#[test]
fn accessors_on_a_live_response() {
    let instance = open_instance(json!({}));
    let response = instance.request_response("GET", "/api/v4/version", &[], b"");
    assert_eq!(response.status(), 200);
    assert!(!response.streamed());
    let headers: Value = serde_json::from_str(&response.headers_text()).unwrap();
    assert_eq!(headers["Content-Type"], "application/json");
    // `len` may be NULL.
    let ptr = ffi::fc_response_body(response.as_ptr(), null_mut());
    assert_eq!(ptr, ffi::fc_response_body(response.as_ptr(), &mut 0));
    assert!(!ptr.is_null());
    // A NULL buffer with a capacity is an error; a capacity of 0 reads nothing.
    assert_eq!(ffi::fc_response_read(response.as_ptr(), null_mut(), 4), -1);
    assert_eq!(ffi::fc_response_read(response.as_ptr(), null_mut(), 0), 0);
    let mut byte = [0u8; 1];
    assert_eq!(ffi::fc_response_read(response.as_ptr(), byte.as_mut_ptr(), 0), 0);
    // Nothing was consumed by the calls above.
    let mut response = response;
    assert_eq!(response.read_all(4096), response.body_in_memory());
}

#[test]
fn a_204_has_an_empty_body_and_headers_object() {
    let instance = open_instance(json!({}));
    let token = instance.user_with_token("root", true);
    let (status, role) = instance.typed(
        ffi::fc_member_roles_create,
        TestInstance::auth(&token),
        json!({"name": "r", "base_access_level": 10}),
    );
    assert_eq!(status, 201, "{role}");
    let auth = cstr(&TestInstance::auth(&token).to_string());
    let params = cstr(&json!({ "member_role_id": role["id"] }).to_string());
    let mut response =
        FfiResponse::new(ffi::fc_member_roles_delete(instance.ffi_ctx(), auth.as_ptr(), params.as_ptr()));
    assert_eq!(response.status(), 204);
    let mut len = 99usize;
    ffi::fc_response_body(response.as_ptr(), &mut len);
    assert_eq!(len, 0);
    assert_eq!(response.headers_text(), "{}");
    assert!(response.read_all(1).is_empty());
}

#[test]
fn read_in_small_chunks_equals_the_in_memory_body() {
    let instance = open_instance(json!({}));
    let token = instance.user_with_token("root", true);
    for i in 0..3 {
        let (status, body) = instance.typed(
            ffi::fc_member_roles_create,
            TestInstance::auth(&token),
            json!({"name": format!("Role {i} with a longer name"), "base_access_level": 10, "read_code": true}),
        );
        assert_eq!(status, 201, "{body}");
    }
    for chunk in [1usize, 7, 4096] {
        let response = instance.request_response("GET", "/api/v4/member_roles", &[("PRIVATE-TOKEN", &token)], b"");
        assert_eq!(response.status(), 200);
        let whole = response.body_in_memory();
        assert!(whole.len() > 1000, "body unexpectedly short: {}", whole.len());
        let mut reads = 0;
        let mut out = Vec::new();
        let mut buf = vec![0u8; chunk];
        loop {
            let n = ffi::fc_response_read(response.as_ptr(), buf.as_mut_ptr(), chunk);
            assert!(n >= 0 && n as usize <= chunk, "read returned {n}");
            if n == 0 {
                break;
            }
            reads += 1;
            out.extend_from_slice(&buf[..n as usize]);
        }
        assert_eq!(out, whole, "chunks of {chunk}");
        assert_eq!(reads, whole.len().div_ceil(chunk), "chunks of {chunk}: short reads of an in-memory body");
        // At the end it stays at the end; the in-memory body is still whole.
        assert_eq!(ffi::fc_response_read(response.as_ptr(), buf.as_mut_ptr(), chunk), 0);
        assert_eq!(response.body_in_memory(), whole);
        serde_json::from_slice::<Value>(&out).expect("the body read in chunks is JSON");
    }
}

// ---------------------------------------------------------------------------------------------
// The panic guard.

#[test]
fn a_panic_becomes_a_500_and_the_context_keeps_working() {
    let instance = open_instance(json!({"features": {"test_panic_route": true}}));
    let token = instance.user_with_token("root", true);
    let mut response = instance.request_response("GET", "/api/v4/__panic", &[], b"");
    assert_eq!(response.status(), 500);
    assert_eq!(response.headers()[0], ("Content-Type".to_string(), "application/json".to_string()));
    let body = response.body();
    assert_eq!(serde_json::from_slice::<Value>(&body).unwrap(), json!({"message": "500 Internal Server Error"}));
    assert_eq!(body, br#"{"message":"500 Internal Server Error"}"#);
    drop(response);

    // Authenticated too (the store's pool and locks survive), and again.
    for _ in 0..3 {
        let (status, body) = instance.request_json("GET", "/api/v4/__panic", &[("PRIVATE-TOKEN", &token)], b"");
        assert_eq!((status, body), (500, json!({"message": "500 Internal Server Error"})));
    }

    for i in 0..1000 {
        let (status, body) = if i % 2 == 0 {
            instance.request_json("GET", "/api/v4/version", &[], b"")
        } else {
            instance.request_json("GET", "/api/v4/member_roles", &[("PRIVATE-TOKEN", &token)], b"")
        };
        assert_eq!(status, 200, "request {i} after the panic: {body}");
    }
    let (status, body) = instance.typed(
        ffi::fc_member_roles_create,
        TestInstance::auth(&token),
        json!({"name": "after the panic", "base_access_level": 10}),
    );
    assert_eq!(status, 201, "{body}");
}

#[test]
fn the_panic_route_is_off_by_default() {
    let instance = open_instance(json!({}));
    let (status, body) = instance.request_json("GET", "/api/v4/__panic", &[], b"");
    assert_eq!((status, body), (404, json!({"message": "404 Not Found"})));
}

// ---------------------------------------------------------------------------------------------
// Concurrency.

#[test]
fn eight_threads_share_one_context_without_errors() {
    const THREADS: usize = 8;
    const REQUESTS: usize = 1000;
    let instance = open_instance(json!({}));
    let token = instance.user_with_token("root", true);
    let errors: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let (instance, token) = (&instance, token.as_str());
                scope.spawn(move || {
                    let auth = [("PRIVATE-TOKEN", token)];
                    let json_auth = [("PRIVATE-TOKEN", token), ("Content-Type", "application/json")];
                    let mut errors = Vec::new();
                    let mut created: Option<i64> = None;
                    for i in 0..REQUESTS {
                        // Per four requests: list, version, create a role, delete it.
                        let (what, expected, (status, body)) = match i % 4 {
                            0 => ("list", 200, instance.request_json("GET", "/api/v4/member_roles", &auth, b"")),
                            1 => ("version", 200, instance.request_json("GET", "/api/v4/version", &[], b"")),
                            2 => {
                                let role =
                                    json!({"name": format!("t{t}-r{i}"), "base_access_level": 10, "read_code": true});
                                let answer = instance.request_json(
                                    "POST",
                                    "/api/v4/member_roles",
                                    &json_auth,
                                    role.to_string().as_bytes(),
                                );
                                created = answer.1["id"].as_i64();
                                ("create", 201, answer)
                            }
                            _ => match created.take() {
                                Some(id) => {
                                    let target = format!("/api/v4/member_roles/{id}");
                                    ("delete", 204, instance.request_json("DELETE", &target, &auth, b""))
                                }
                                None => ("delete", 204, (0, json!("no role was created"))),
                            },
                        };
                        if status != expected {
                            errors.push(format!("thread {t} request {i} ({what}): {status} {body}"));
                        }
                    }
                    errors
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("a test thread panicked")).collect()
    });
    assert!(errors.is_empty(), "{} errors, first ones:\n{}", errors.len(), errors[..errors.len().min(10)].join("\n"));
    // Every role created was deleted.
    let (status, body) = instance.request_json("GET", "/api/v4/member_roles", &[("PRIVATE-TOKEN", &token)], b"");
    assert_eq!((status, body), (200, json!([])));
}

#[test]
fn typed_exports_and_admin_from_many_threads() {
    let instance = open_instance(json!({}));
    let token = instance.user_with_token("root", true);
    let auth = TestInstance::auth(&token);
    std::thread::scope(|scope| {
        for t in 0..4 {
            let (instance, auth) = (&instance, auth.clone());
            scope.spawn(move || {
                for i in 0..50 {
                    let (status, body) =
                        instance.admin(json!({"command": "user_add", "username": format!("u{t}-{i}")}));
                    assert_eq!(status, 201, "{body}");
                    let (status, role) = instance.typed(
                        ffi::fc_member_roles_create,
                        auth.clone(),
                        json!({"name": format!("typed {t}-{i}"), "base_access_level": 20}),
                    );
                    assert_eq!(status, 201, "{role}");
                    let (status, body) = instance.typed(ffi::fc_member_roles_list, auth.clone(), json!({}));
                    assert_eq!(status, 200, "{body}");
                    let (status, body) = instance.typed(
                        ffi::fc_member_roles_delete,
                        auth.clone(),
                        json!({"member_role_id": role["id"]}),
                    );
                    assert_eq!(status, 204, "{body}");
                }
            });
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Typed exports.

struct Typed {
    instance: TestInstance,
    admin: String,
    owner: String,
    outsider: String,
    group_id: i64,
}

/// An administrator; group `acme` with subgroup `acme/sub`, owned by `olivia`; an outsider.
fn typed_world() -> Typed {
    let instance = open_instance(json!({}));
    let admin = instance.user_with_token("root", true);
    let owner = instance.user_with_token("olivia", false);
    let outsider = instance.user_with_token("otto", false);
    let group = instance.admin_ok(json!({"command": "group_add", "path": "acme"}));
    instance.admin_ok(json!({"command": "group_add", "path": "acme/sub"}));
    instance.admin_ok(json!({"command": "member_add", "group": "acme", "username": "olivia", "access_level": 50}));
    Typed { instance, admin, owner, outsider, group_id: group["id"].as_i64().unwrap() }
}

fn names(list: &Value) -> Vec<&str> {
    list.as_array().expect("a list").iter().map(|r| r["name"].as_str().unwrap()).collect()
}

#[test]
fn typed_instance_roles_create_list_update_delete() {
    let w = typed_world();
    let i = &w.instance;
    let auth = || TestInstance::auth(&w.admin);

    let (status, role) = i.typed(
        ffi::fc_member_roles_create,
        auth(),
        json!({"name": "Code reader", "description": "reads", "base_access_level": 10, "read_code": true}),
    );
    assert_eq!(status, 201, "{role}");
    assert_eq!(role["name"], "Code reader");
    assert_eq!(role["description"], "reads");
    assert_eq!(role["base_access_level"], 10);
    assert_eq!(role["read_code"], true);
    assert_eq!(role["group_id"], Value::Null);
    let id = role["id"].as_i64().unwrap();

    let (status, list) = i.typed(ffi::fc_member_roles_list, auth(), json!({}));
    assert_eq!(status, 200, "{list}");
    assert_eq!(list, json!([role.clone()]));

    // The typed door and the HTTP door see the same roles.
    let (status, http_list) = i.request_json("GET", "/api/v4/member_roles", &[("PRIVATE-TOKEN", &w.admin)], b"");
    assert_eq!((status, &http_list), (200, &list));

    let (status, updated) =
        i.typed(ffi::fc_member_roles_update, auth(), json!({"member_role_id": id, "name": "Reader"}));
    assert_eq!(status, 200, "{updated}");
    assert_eq!(updated["name"], "Reader");
    assert_eq!(updated["description"], "reads");
    // The id may be given as a string too.
    let (status, updated) =
        i.typed(ffi::fc_member_roles_update, auth(), json!({"member_role_id": id.to_string(), "description": null}));
    assert_eq!(status, 200, "{updated}");
    assert_eq!(updated["description"], Value::Null);
    // Restating the same base access level is fine; changing it is a 400.
    let (status, body) = i.typed(
        ffi::fc_member_roles_update,
        auth(),
        json!({"member_role_id": id, "name": "Same", "base_access_level": 10}),
    );
    assert_eq!(status, 200, "{body}");
    let (status, body) = i.typed(
        ffi::fc_member_roles_update,
        auth(),
        json!({"member_role_id": id, "name": "X", "base_access_level": 30}),
    );
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["message"], "Base access level cannot be changed. Please create a new Member Role instead.");
    let (_, list) = i.typed(ffi::fc_member_roles_list, auth(), json!({}));
    assert_eq!(names(&list), ["Same"], "a refused update changed the role");
    // Nothing to update.
    let (status, body) = i.typed(ffi::fc_member_roles_update, auth(), json!({"member_role_id": id}));
    assert_eq!(status, 400, "{body}");

    let (status, body) = i.typed(ffi::fc_member_roles_delete, auth(), json!({"member_role_id": id}));
    assert_eq!((status, body), (204, Value::Null));
    let (status, body) = i.typed(ffi::fc_member_roles_delete, auth(), json!({"member_role_id": id}));
    assert_eq!((status, body), (404, json!({"message": "404 Member Role Not Found"})));
    let (status, body) = i.typed(ffi::fc_member_roles_update, auth(), json!({"member_role_id": id, "name": "gone"}));
    assert_eq!(status, 404, "{body}");
    let (_, list) = i.typed(ffi::fc_member_roles_list, auth(), json!({}));
    assert_eq!(list, json!([]));
}

#[test]
fn typed_group_roles_create_list_update_delete() {
    let w = typed_world();
    let i = &w.instance;
    for (caller, group) in
        [(&w.owner, json!("acme")), (&w.admin, json!(w.group_id)), (&w.owner, json!(w.group_id.to_string()))]
    {
        let auth = || TestInstance::auth(caller);
        let name = format!("Group role via {group}");
        let (status, role) = i.typed(
            ffi::fc_member_roles_create,
            auth(),
            json!({"group": group, "name": name, "base_access_level": 20}),
        );
        assert_eq!(status, 201, "{group}: {role}");
        assert_eq!(role["group_id"], w.group_id);
        let id = role["id"].as_i64().unwrap();

        let (status, list) = i.typed(ffi::fc_member_roles_list, auth(), json!({"group": group}));
        assert_eq!(status, 200, "{list}");
        assert_eq!(names(&list), [name.as_str()]);
        // A subgroup lists its root group's roles.
        let (status, sub) = i.typed(ffi::fc_member_roles_list, auth(), json!({"group": "acme/sub"}));
        assert_eq!((status, &sub), (200, &list));
        // Group roles are not instance roles, and the other scope does not find them.
        let (_, instance_list) = i.typed(ffi::fc_member_roles_list, TestInstance::auth(&w.admin), json!({}));
        assert_eq!(instance_list, json!([]));
        let (status, _) =
            i.typed(ffi::fc_member_roles_delete, TestInstance::auth(&w.admin), json!({"member_role_id": id}));
        assert_eq!(status, 404);

        let (status, updated) = i.typed(
            ffi::fc_member_roles_update,
            auth(),
            json!({"group": group, "member_role_id": id, "description": "d"}),
        );
        assert_eq!(status, 200, "{updated}");
        assert_eq!(updated["description"], "d");
        assert_eq!(updated["group_id"], w.group_id);
        let (status, body) = i.typed(
            ffi::fc_member_roles_update,
            auth(),
            json!({"group": group, "member_role_id": id, "base_access_level": 10}),
        );
        assert_eq!(status, 400, "{body}");

        let (status, body) =
            i.typed(ffi::fc_member_roles_delete, auth(), json!({"group": group, "member_role_id": id}));
        assert_eq!((status, body), (204, Value::Null));
        let (_, list) = i.typed(ffi::fc_member_roles_list, auth(), json!({"group": group}));
        assert_eq!(list, json!([]));
    }
    // Roles are created only on root groups.
    let (status, body) = i.typed(
        ffi::fc_member_roles_create,
        TestInstance::auth(&w.owner),
        json!({"group": "acme/sub", "name": "sub role", "base_access_level": 10}),
    );
    assert_eq!(status, 400, "{body}");
    // An unknown group is a 404.
    let (status, body) = i.typed(ffi::fc_member_roles_list, TestInstance::auth(&w.admin), json!({"group": "nope"}));
    assert_eq!(status, 404, "{body}");
}

#[test]
fn typed_exports_refuse_bad_or_missing_credentials() {
    let w = typed_world();
    let i = &w.instance;
    let (status, role) = i.typed(
        ffi::fc_member_roles_create,
        TestInstance::auth(&w.admin),
        json!({"name": "keep", "base_access_level": 10}),
    );
    assert_eq!(status, 201, "{role}");
    let id = role["id"].clone();
    let exports: [(&str, common::TypedExport, Value); 4] = [
        ("list", ffi::fc_member_roles_list, json!({})),
        ("create", ffi::fc_member_roles_create, json!({"name": "new", "base_access_level": 10})),
        ("update", ffi::fc_member_roles_update, json!({"member_role_id": id, "name": "renamed"})),
        ("delete", ffi::fc_member_roles_delete, json!({"member_role_id": id})),
    ];
    for (name, export, params) in &exports {
        for auth in [
            json!({"private_token": "glpat-notarealtoken000000000000000"}),
            json!({"private_token": "not a token"}),
            json!({"private_token": ""}),
            json!({"job_token": "glcbt-notarealtoken000000000000000"}),
            json!({"private_token": w.admin, "job_token": "glcbt-other"}),
            json!({}),
            json!({"private_token": null}),
        ] {
            let (status, body) = i.typed(*export, auth.clone(), params.clone());
            assert_eq!((status, &body), (401, &json!({"message": "401 Unauthorized"})), "{name} with {auth}");
        }
        // Group scope too.
        let mut params = params.clone();
        params["group"] = json!("acme");
        let (status, _) = i.typed(*export, json!({"private_token": "glpat-nope"}), params.clone());
        assert_eq!(status, 401, "{name} in a group");
        // Authenticated but not allowed.
        let (status, body) = i.typed(*export, TestInstance::auth(&w.outsider), params);
        assert!(status == 403 || status == 404, "{name} by an outsider: {status} {body}");
        let mut instance_params = exports.iter().find(|e| e.0 == *name).unwrap().2.clone();
        instance_params.as_object_mut().unwrap().remove("group");
        let (status, body) = i.typed(*export, TestInstance::auth(&w.owner), instance_params);
        assert_eq!(
            (status, body),
            (403, json!({"message": "403 Forbidden"})),
            "{name} on the instance by a group owner"
        );
    }
    // Nothing changed.
    let (_, list) = i.typed(ffi::fc_member_roles_list, TestInstance::auth(&w.admin), json!({}));
    assert_eq!(names(&list), ["keep"]);
}

#[test]
fn typed_exports_check_their_arguments() {
    let w = typed_world();
    let i = &w.instance;
    let auth = cstr(&TestInstance::auth(&w.admin).to_string());
    let empty = cstr("{}");
    let exports: [(&str, common::TypedExport); 4] = [
        ("list", ffi::fc_member_roles_list),
        ("create", ffi::fc_member_roles_create),
        ("update", ffi::fc_member_roles_update),
        ("delete", ffi::fc_member_roles_delete),
    ];
    for (name, export) in exports {
        assert_bad_argument(export(null(), auth.as_ptr(), empty.as_ptr()), "ctx", name);
        assert_bad_argument(export(i.ffi_ctx(), null(), empty.as_ptr()), "auth_json", name);
        assert_bad_argument(export(i.ffi_ctx(), auth.as_ptr(), null()), "params_json", name);
        for case in with_bad_utf8("{\"private_token\": \"{}\"}") {
            assert_bad_argument(
                export(i.ffi_ctx(), case.text.as_ptr(), empty.as_ptr()),
                "auth_json",
                &format!("{name} {}", case.label),
            );
        }
        for case in with_bad_utf8("{\"name\": \"{}\"}") {
            assert_bad_argument(
                export(i.ffi_ctx(), auth.as_ptr(), case.text.as_ptr()),
                "params_json",
                &format!("{name} {}", case.label),
            );
        }
        for bad in ["", "{", "nope"] {
            let text = cstr(bad);
            assert_bad_argument(export(i.ffi_ctx(), text.as_ptr(), empty.as_ptr()), "auth_json", name);
            assert_bad_argument(export(i.ffi_ctx(), auth.as_ptr(), text.as_ptr()), "params_json", name);
        }
        let token_number = cstr("{\"private_token\": 5}");
        assert_bad_argument(export(i.ffi_ctx(), token_number.as_ptr(), empty.as_ptr()), "private_token", name);
        // Parameters must be an object.
        let array = cstr("[]");
        let (status, body) = FfiResponse::new(export(i.ffi_ctx(), auth.as_ptr(), array.as_ptr())).status_json();
        assert_eq!(status, 400, "{name}: {body}");
    }
    for (name, export) in [("update", exports[2].1), ("delete", exports[3].1)] {
        let (status, body) = i.typed(export, TestInstance::auth(&w.admin), json!({"name": "x"}));
        assert_eq!((status, body), (400, json!({"error": "member_role_id is missing"})), "{name}");
        let (status, body) =
            i.typed(export, TestInstance::auth(&w.admin), json!({"member_role_id": "abc", "name": "x"}));
        assert_eq!(status, 400, "{name}: {body}");
    }
    let (status, body) =
        i.typed(ffi::fc_member_roles_create, TestInstance::auth(&w.admin), json!({"base_access_level": 10}));
    assert_eq!((status, body), (400, json!({"error": "name is missing"})));
    let (status, body) = i.typed(
        ffi::fc_member_roles_create,
        TestInstance::auth(&w.admin),
        json!({"name": "x", "base_access_level": 25}),
    );
    assert_eq!((status, body), (400, json!({"error": "base_access_level does not have a valid value"})));
}

#[test]
fn admin_export_checks_its_arguments() {
    let instance = open_instance(json!({}));
    assert_bad_argument(ffi::fc_admin(null(), cstr("{}").as_ptr()), "ctx", "NULL ctx");
    assert_bad_argument(ffi::fc_admin(instance.ffi_ctx(), null()), "command_json", "NULL command");
    for case in with_bad_utf8("{\"command\": \"user_add\", \"username\": \"{}\"}") {
        assert_bad_argument(ffi::fc_admin(instance.ffi_ctx(), case.text.as_ptr()), "command_json", &case.label);
    }
    for (command, expected) in [
        (json!({}), json!({"error": "command is missing"})),
        (json!({"command": "no_such_command"}), json!({"error": "command does not have a valid value"})),
    ] {
        assert_eq!(instance.admin(command.clone()), (400, expected), "{command}");
    }
    let (status, _) = FfiResponse::new(ffi::fc_admin(instance.ffi_ctx(), cstr("not json").as_ptr())).status_json();
    assert_eq!(status, 400);
    // A duplicate user is refused; the first one stays usable.
    let token = instance.user_with_token("root", true);
    let (status, body) = instance.admin(json!({"command": "user_add", "username": "root"}));
    assert_eq!((status, body), (409, json!({"message": "Username has already been taken"})));
    let (status, _, _) = instance.request("GET", "/api/v4/member_roles", &[("PRIVATE-TOKEN", &token)], b"");
    assert_eq!(status, 200);
}

// ---------------------------------------------------------------------------------------------
// The first start of a host (`start`): what both hosts print comes from here.

/// A directory of bare repositories, `demo/tool.git` and `forgecore.git`, for `repos`.
fn repos_dir(instance: &TestInstance) -> std::path::PathBuf {
    let repos = instance.root_dir().join("repos");
    for repo in ["demo/tool.git", "forgecore.git"] {
        std::fs::create_dir_all(repos.join(repo)).unwrap();
        git(&repos.join(repo), &["init", "-q", "--bare"]);
    }
    repos
}

#[test]
fn start_creates_the_administrator_registers_repos_and_says_what_to_print() {
    let instance = open_instance(json!({}));
    let repos = repos_dir(&instance);
    let url = "http://127.0.0.1:8080";
    let first = instance
        .admin_ok(json!({"command": "start", "issue_token": false, "repos": repos, "url": "http://127.0.0.1:8080/"}));
    let token = first["token"].as_str().expect("a token on the first start").to_string();
    assert!(token.starts_with("glpat-"), "{first}");
    assert_eq!((&first["created"], &first["username"]), (&json!(true), &json!("root")));
    assert_eq!(
        first["projects"],
        json!([{"path": "demo/tool", "created": true}, {"path": "forgecore", "created": true}])
    );
    assert_eq!(
        first["lines"],
        json!([
            "created the administrator root",
            format!("admin token: {token}"),
            "project: demo/tool (new)",
            "project: forgecore (new)",
            format!("try: curl -H \"PRIVATE-TOKEN: {token}\" {url}/api/v4/member_roles"),
            format!("     curl {url}/api/v4/projects/forgecore/repository/tree"),
            format!("listening on {url}"),
        ])
    );
    let (status, _, _) = instance.request("GET", "/api/v4/member_roles", &[("PRIVATE-TOKEN", &token)], b"");
    assert_eq!(status, 200);
    let (status, project) = instance.request_json("GET", "/api/v4/projects/demo%2Ftool", &[], b"");
    assert_eq!((status, &project["visibility"]), (200, &json!("public")));

    // Started again: nobody created, no token unless asked for, the projects kept.
    let again = instance.admin_ok(json!({"command": "start", "repos": repos, "url": url}));
    assert_eq!((&again["created"], again.get("token")), (&json!(false), None));
    assert_eq!(
        again["lines"],
        json!([
            "project: demo/tool",
            "project: forgecore",
            format!("try: curl -H \"PRIVATE-TOKEN: <token>\" {url}/api/v4/member_roles"),
            format!("     curl {url}/api/v4/projects/forgecore/repository/tree"),
            format!("listening on {url}"),
        ])
    );

    // issue_token: a fresh token for the administrator; without repos, no project lines.
    let fresh = instance.admin_ok(json!({"command": "start", "issue_token": true, "url": url}));
    let fresh_token = fresh["token"].as_str().unwrap();
    assert_ne!(fresh_token, token);
    assert_eq!(
        fresh["lines"],
        json!([
            format!("admin token: {fresh_token}"),
            format!("try: curl -H \"PRIVATE-TOKEN: {fresh_token}\" {url}/api/v4/member_roles"),
            format!("listening on {url}"),
        ])
    );
    assert_eq!(fresh["projects"], json!([]));
}

#[test]
fn start_prints_the_external_url_and_refuses_before_writing() {
    // The configured external_url is the URL links are built with: it wins over `url`.
    let instance = open_instance(json!({"external_url": "https://forge.example/"}));
    let started = instance.admin_ok(json!({"command": "start", "url": "http://127.0.0.1:1"}));
    let token = started["token"].as_str().unwrap();
    assert_eq!(
        started["lines"],
        json!([
            "created the administrator root",
            format!("admin token: {token}"),
            format!("try: curl -H \"PRIVATE-TOKEN: {token}\" https://forge.example/api/v4/member_roles"),
            "listening on https://forge.example",
        ])
    );

    // Without either, `url` is missing; a `repos` that does not exist is refused with the
    // step's name before the administrator is created, whose token would otherwise be lost.
    let instance = open_instance(json!({}));
    assert_eq!(instance.admin(json!({"command": "start"})), (400, json!({"error": "url is missing"})));
    let missing = instance.root_dir().join("no-such-dir");
    assert_eq!(
        instance.admin(json!({"command": "start", "repos": missing, "url": "http://h"})),
        (400, json!({"message": "register_repos: dir does not exist"}))
    );
    let started = instance.admin_ok(json!({"command": "start", "url": "http://h"}));
    assert_eq!(started["lines"][0], json!("created the administrator root"));
}

#[test]
fn the_http_door_and_the_rust_api_agree() {
    let instance = open_instance(json!({}));
    let token = instance.user_with_token("root", true);
    let headers = [("PRIVATE-TOKEN", token.as_str()), ("Content-Type", "application/json")];
    let body = json!({"name": "via rust", "base_access_level": 10}).to_string();
    let (status, _, created) = instance.handle("POST", "/api/v4/member_roles", &headers, body.as_bytes());
    assert_eq!(status, 201, "{}", String::from_utf8_lossy(&created));
    let (status, _, via_ffi) = instance.request("GET", "/api/v4/member_roles", &headers, b"");
    let (status2, _, via_rust) = instance.handle("GET", "/api/v4/member_roles", &headers, b"");
    assert_eq!((status, status2), (200, 200));
    assert_eq!(via_ffi, via_rust);
    let list: Value = serde_json::from_slice(&via_ffi).unwrap();
    assert_eq!(names(&list), ["via rust"]);
}

/// Issue #25: `fc_close` with calls in flight waits for them instead of freeing the instance
/// under them, and a call racing with the close, or coming after it, is a 400 `ctx is closed`
/// rather than a crash. Eight threads call in a loop while the main thread closes.
#[test]
fn close_waits_for_calls_in_flight_and_later_calls_are_refused() {
    let dir = TempDir::new();
    let config = cstr(&data_dir_config(&dir));
    let mut out: *mut fc_ctx = null_mut();
    assert!(ffi::fc_open(config.as_ptr(), &mut out).is_null());
    struct Shared(*mut fc_ctx);
    // SAFETY: fc_ctx may be used from any thread; the point of the test.
    unsafe impl Sync for Shared {}
    let shared = Shared(out);
    let closed = std::sync::atomic::AtomicBool::new(false);
    let (method, target, headers) = (cstr("GET"), cstr("/api/v4/projects/nope"), cstr("{}"));
    std::thread::scope(|s| {
        let callers: Vec<_> = (0..8)
            .map(|_| {
                s.spawn(|| {
                    let (mut answered, mut refused) = (0u32, 0u32);
                    // Until well after the close: every call is the route's 404 or the refusal.
                    while refused < 50 {
                        let after_close = closed.load(std::sync::atomic::Ordering::SeqCst);
                        let ctx = &shared;
                        let response = FfiResponse::new(ffi::fc_request(
                            ctx.0,
                            method.as_ptr(),
                            target.as_ptr(),
                            headers.as_ptr(),
                            null(),
                            0,
                        ));
                        let (status, body) = response.status_json();
                        match status {
                            404 if !after_close => answered += 1,
                            400 if body["message"] == json!("400 Bad request - ctx is closed") => refused += 1,
                            _ => panic!("{status} {body} (after close: {after_close})"),
                        }
                    }
                    answered
                })
            })
            .collect();
        std::thread::sleep(std::time::Duration::from_millis(300));
        ffi::fc_close(shared.0);
        closed.store(true, std::sync::atomic::Ordering::SeqCst);
        let answered: u32 = callers.into_iter().map(|c| c.join().unwrap()).sum();
        assert!(answered > 0, "calls were answered before the close");
    });
    // Closing again changes nothing; the context stays refused.
    ffi::fc_close(shared.0);
    let (status, _) =
        FfiResponse::new(ffi::fc_admin(shared.0, cstr(r#"{"command": "user_list"}"#).as_ptr())).status_json();
    assert_eq!(status, 400);
}
