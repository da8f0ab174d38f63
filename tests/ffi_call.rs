//! `fc_call_open`, `fc_call_write`, `fc_call_finish`, `fc_call_free`: a request whose body
//! arrives in pieces, as both hosts send every request. The body in any number of pieces is
//! the same request as in one; the limit is enforced as the pieces arrive (or at once, from
//! Content-Length); arguments are checked as every export's are; a context closed while a
//! body is arriving answers 400, never a crash.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::{cstr, open_instance, FfiResponse, TempDir};
use forgecore::ffi::{self, fc_call, fc_ctx};
use serde_json::{json, Value};
use std::ptr::{null, null_mut};

/// Opens a call, expecting one: the call.
fn open_call(ctx: *const fc_ctx, meta: &str, method: &str, target: &str, headers: &Value) -> *mut fc_call {
    let (meta, method, target, headers) = (cstr(meta), cstr(method), cstr(target), cstr(&headers.to_string()));
    let mut call: *mut fc_call = null_mut();
    let answer = ffi::fc_call_open(ctx, meta.as_ptr(), method.as_ptr(), target.as_ptr(), headers.as_ptr(), &mut call);
    assert!(answer.is_null(), "expected a call, got {:?}", FfiResponse::new(answer).status_json());
    assert!(!call.is_null());
    call
}

/// Opens a call, expecting an answer at once (and no call).
fn open_answer(ctx: *const fc_ctx, meta: &str, method: &str, target: &str, headers: &Value) -> (u16, Value) {
    let (meta, method, target, headers) = (cstr(meta), cstr(method), cstr(target), cstr(&headers.to_string()));
    let mut call: *mut fc_call = std::ptr::NonNull::dangling().as_ptr();
    let answer = ffi::fc_call_open(ctx, meta.as_ptr(), method.as_ptr(), target.as_ptr(), headers.as_ptr(), &mut call);
    assert!(call.is_null(), "an answer at once leaves *out NULL");
    assert!(!answer.is_null());
    FfiResponse::new(answer).status_json()
}

#[test]
fn a_body_in_one_byte_pieces_is_the_same_request_as_in_one() {
    let instance = open_instance(json!({}));
    let token = instance.user_with_token("root", true);
    let headers = json!([["PRIVATE-TOKEN", token], ["Content-Type", "application/json"]]);
    let body = json!({"name": "Piecewise", "base_access_level": 10, "read_code": true}).to_string();
    let call = open_call(
        instance.ffi_ctx(),
        r#"{"peer_addr": "198.51.100.7:40000", "scheme": "https"}"#,
        "POST",
        "/api/v4/member_roles",
        &headers,
    );
    for byte in body.as_bytes() {
        assert!(ffi::fc_call_write(call, byte, 1).is_null(), "a piece under the limit goes on");
    }
    assert!(ffi::fc_call_write(call, null(), 0).is_null(), "an empty piece is nothing");
    let (status, created) = FfiResponse::new(ffi::fc_call_finish(call)).status_json();
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["name"], "Piecewise");
    assert_eq!(created["read_code"], true);

    // The same list through fc_request shows it: one store, one path.
    let (status, list) = instance.request_json("GET", "/api/v4/member_roles", &[("PRIVATE-TOKEN", &token)], b"");
    assert_eq!(status, 200);
    assert_eq!(list.as_array().unwrap().iter().filter(|role| role["name"] == "Piecewise").count(), 1, "{list}");
}

#[test]
fn a_get_without_a_body_is_opened_and_finished() {
    let instance = open_instance(json!({}));
    let call = open_call(instance.ffi_ctx(), "{}", "GET", "/api/v4/version", &json!({}));
    let (status, body) = FfiResponse::new(ffi::fc_call_finish(call)).status_json();
    assert_eq!(status, 200);
    assert!(body["version"].is_string(), "{body}");
    let head = open_call(instance.ffi_ctx(), "{}", "HEAD", "/api/v4/version", &json!({}));
    let mut response = FfiResponse::new(ffi::fc_call_finish(head));
    assert_eq!(response.status(), 200);
    assert!(response.body().is_empty(), "HEAD has no body");
}

#[test]
fn the_body_limit_is_enforced_as_pieces_arrive_and_from_content_length() {
    let instance = open_instance(json!({"limits": {"max_body_bytes": 100}}));
    // Announced too long: 413 before any of it is read.
    let (status, body) =
        open_answer(instance.ffi_ctx(), "{}", "POST", "/api/v4/member_roles", &json!({"Content-Length": "101"}));
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["message"], "413 Request Entity Too Large");

    // Not announced (chunked): 413 from the piece that goes past the limit, not before.
    let call = open_call(instance.ffi_ctx(), "{}", "POST", "/api/v4/member_roles", &json!({}));
    let piece = [b' '; 60];
    assert!(ffi::fc_call_write(call, piece.as_ptr(), piece.len()).is_null(), "60 of 100 bytes");
    let answer = ffi::fc_call_write(call, piece.as_ptr(), piece.len());
    assert!(!answer.is_null(), "120 of 100 bytes is answered at once");
    let (status, _) = FfiResponse::new(answer).status_json();
    assert_eq!(status, 413);
    ffi::fc_call_free(call);

    // Exactly the limit is taken.
    let call = open_call(instance.ffi_ctx(), "{}", "POST", "/api/v4/member_roles", &json!({"Content-Length": "100"}));
    let full = [b' '; 100];
    assert!(ffi::fc_call_write(call, full.as_ptr(), full.len()).is_null());
    assert_eq!(FfiResponse::new(ffi::fc_call_finish(call)).status(), 401, "anonymous, not too large");
}

#[test]
fn arguments_are_checked_as_every_exports_are() {
    let instance = open_instance(json!({}));
    let ctx = instance.ffi_ctx();
    for meta in ["", "[]", "not json", r#"{"peer_addr": "example.com"}"#, r#"{"scheme": "gopher"}"#, r#"{"port": 1}"#] {
        let (status, body) = open_answer(ctx, meta, "GET", "/api/v4/version", &json!({}));
        assert_eq!(status, 400, "{meta}: {body}");
        assert!(body["message"].as_str().unwrap().contains("meta_json"), "{meta}: {body}");
    }
    let (status, body) = open_answer(null(), "{}", "GET", "/api/v4/version", &json!({}));
    assert_eq!((status, body["message"].clone()), (400, json!("400 Bad request - ctx is NULL")));

    let (meta, method, target, headers) = (cstr("{}"), cstr("GET"), cstr("/api/v4/version"), cstr("{}"));
    let answer = ffi::fc_call_open(ctx, meta.as_ptr(), method.as_ptr(), target.as_ptr(), headers.as_ptr(), null_mut());
    let (status, body) = FfiResponse::new(answer).status_json();
    assert_eq!((status, body["message"].clone()), (400, json!("400 Bad request - out is NULL")));

    let (status, body) = FfiResponse::new(ffi::fc_call_write(null_mut(), null(), 0)).status_json();
    assert_eq!((status, body["message"].clone()), (400, json!("400 Bad request - call is NULL")));
    let (status, _) = FfiResponse::new(ffi::fc_call_finish(null_mut())).status_json();
    assert_eq!(status, 400);
    ffi::fc_call_free(null_mut());

    let call = open_call(ctx, "{}", "POST", "/api/v4/member_roles", &json!({}));
    let (status, body) = FfiResponse::new(ffi::fc_call_write(call, null(), 3)).status_json();
    assert_eq!(status, 400, "(NULL, 3) piece: {body}");
    assert!(body["message"].as_str().unwrap().contains("piece"), "{body}");
    ffi::fc_call_free(call);
}

#[test]
fn a_context_closed_while_a_body_arrives_answers_400() {
    let dir = TempDir::new();
    let config = cstr(&json!({ "data_dir": dir.path().join("data") }).to_string());
    let mut ctx: *mut fc_ctx = null_mut();
    assert!(ffi::fc_open(config.as_ptr(), &mut ctx).is_null());
    let written = open_call(ctx, "{}", "POST", "/api/v4/member_roles", &json!({}));
    let finished = open_call(ctx, "{}", "POST", "/api/v4/member_roles", &json!({}));
    let abandoned = open_call(ctx, "{}", "POST", "/api/v4/member_roles", &json!({}));
    ffi::fc_close(ctx);
    let closed = json!("400 Bad request - ctx is closed");
    let (status, body) = FfiResponse::new(ffi::fc_call_write(written, b"{}".as_ptr(), 2)).status_json();
    assert_eq!((status, body["message"].clone()), (400, closed.clone()));
    ffi::fc_call_free(written);
    let (status, body) = FfiResponse::new(ffi::fc_call_finish(finished)).status_json();
    assert_eq!((status, body["message"].clone()), (400, closed));
    ffi::fc_call_free(abandoned);
}
