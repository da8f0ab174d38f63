//! `/-/readiness?all=1` follows the PostgreSQL store: 503 while the server is stopped, 200
//! again once it is back (the pool reconnects, the cluster listener reconnects). The test owns
//! the server's life: it stops and starts it with `FORGECORE_TEST_PG_CTL` (`make
//! test-rust-postgres` sets it, with `FORGECORE_TEST_POSTGRES`, for a throw-away cluster), so it
//! is its own test binary, and ignored without them.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::{cstr, new_postgres_database, open_instance, postgres_server, FfiResponse, TestInstance};
use forgecore::ffi;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// `GET /-/readiness?all=1` from loopback: status and body.
fn readiness(inst: &TestInstance) -> (u16, Value) {
    let (meta, method, target, headers) =
        (cstr(r#"{"peer_addr": "127.0.0.1"}"#), cstr("GET"), cstr("/-/readiness?all=1"), cstr("{}"));
    let mut call = std::ptr::null_mut();
    let answer =
        ffi::fc_call_open(inst.ffi_ctx(), meta.as_ptr(), method.as_ptr(), target.as_ptr(), headers.as_ptr(), &mut call);
    FfiResponse::new(if answer.is_null() { ffi::fc_call_finish(call) } else { answer }).status_json()
}

fn pg_ctl(action: &str) {
    let command =
        std::env::var("FORGECORE_TEST_PG_CTL").expect("FORGECORE_TEST_PG_CTL (e.g. `pg_ctlcluster 17 regress`)");
    let mut words = command.split_whitespace();
    let output = std::process::Command::new(words.next().unwrap()).args(words).arg(action).output().unwrap();
    assert!(output.status.success(), "{command} {action}: {}", String::from_utf8_lossy(&output.stderr));
}

/// Polls readiness until it answers `status`, for up to `within`; the last answer.
fn until(inst: &TestInstance, status: u16, within: Duration) -> (u16, Value) {
    let deadline = Instant::now() + within;
    loop {
        let answer = readiness(inst);
        if answer.0 == status || Instant::now() > deadline {
            return answer;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
#[ignore = "needs FORGECORE_TEST_POSTGRES and FORGECORE_TEST_PG_CTL (make test-rust-postgres)"]
fn readiness_is_503_while_postgres_is_stopped_and_200_once_it_is_back() {
    let server = postgres_server().expect("FORGECORE_TEST_POSTGRES");
    let url = new_postgres_database(&server);
    let inst = open_instance(json!({"store": {"postgres": url, "timeout_millis": 1000}}));
    let (status, body) = until(&inst, 200, Duration::from_secs(10));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["db_check"], json!([{"status": "ok"}]));
    pg_ctl("stop");
    let down = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let started = Instant::now();
        let (status, body) = until(&inst, 503, Duration::from_secs(15));
        assert_eq!(status, 503, "{body}");
        assert_eq!(body["status"], "failed");
        assert_eq!(body["db_check"][0]["status"], "failed");
        assert!(body["db_check"][0]["message"].as_str().unwrap().contains("PostgreSQL"), "{body}");
        assert_eq!(body["master_check"], json!([{"status": "ok"}]));
        // The probe answers quickly even with the server gone.
        let probe = Instant::now();
        readiness(&inst);
        assert!(probe.elapsed() < Duration::from_secs(3), "{:?}", probe.elapsed());
        started.elapsed()
    }));
    pg_ctl("start");
    let down = down.unwrap();
    let (status, body) = until(&inst, 200, Duration::from_secs(30));
    assert_eq!(status, 200, "not ready again 30 s after the server came back (503 after {down:?}): {body}");
}
