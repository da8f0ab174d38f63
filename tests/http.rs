//! The HTTP door: raw-path routing, body parsing, error shapes, limits and the rate limiter.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use serde_json::{json, Value};

fn parse(body: &[u8]) -> Value {
    serde_json::from_slice(body).unwrap_or(Value::Null)
}

#[test]
fn version_answers_json() {
    let instance = common::open_instance(json!({}));
    let (status, headers, body) = instance.request("GET", "/api/v4/version", &[], b"");
    assert_eq!(status, 200);
    assert!(headers.iter().any(|(n, v)| n == "Content-Type" && v == "application/json"));
    let body = parse(&body);
    assert!(body["version"].as_str().unwrap().starts_with(|c: char| c.is_ascii_digit()));
    assert!(body["revision"].is_string());
}

#[test]
fn ids_are_split_before_decoding_so_encoded_slashes_and_dots_survive() {
    let instance = common::open_instance(json!({}));
    let admin = instance.user_with_token("root", true);
    instance.admin(json!({"command": "group_add", "path": "a.b", "visibility": "public"}));
    instance.admin(json!({"command": "group_add", "path": "a.b/c-d", "visibility": "public"}));
    for target in
        ["/api/v4/groups/a.b%2Fc-d", "/api/v4/groups/a%2Eb%2Fc-d", "/api/v4/groups/a%2eb%2fc-d", "/api/v4/groups/2"]
    {
        let (status, _, body) = instance.request("GET", target, &[], b"");
        assert_eq!((status, parse(&body)["full_path"].clone()), (200, json!("a.b/c-d")), "{target}");
    }
    // Unencoded slashes are other routes; double encoding is not decoded twice.
    for target in ["/api/v4/groups/a.b/c-d", "/api/v4/groups/a.b%252Fc-d", "/api/v4/groups/..%2F..%2Fetc"] {
        let (status, _, body) = instance.request("GET", target, &[("PRIVATE-TOKEN", &admin)], b"");
        assert_eq!(status, 404, "{target}: {}", String::from_utf8_lossy(&body));
    }
    // An overlong or invalid UTF-8 encoding is a 400, not a panic.
    let (status, _, _) = instance.request("GET", "/api/v4/groups/%c0%af", &[], b"");
    assert_eq!(status, 400);
}

#[test]
fn unknown_routes_are_404_and_other_methods_405() {
    let instance = common::open_instance(json!({}));
    let (status, _, body) = instance.request("GET", "/api/v4/nothing/here", &[], b"");
    assert_eq!((status, parse(&body)), (404, json!({"message": "404 Not Found"})));
    let (status, _, _) = instance.request("GET", "/not-api", &[], b"");
    assert_eq!(status, 404);
    let (status, _, _) = instance.request("PATCH", "/api/v4/member_roles", &[], b"");
    assert_eq!(status, 405);
    let (status, _, body) = instance.request("HEAD", "/api/v4/version", &[], b"");
    assert_eq!((status, body.len()), (200, 0));
}

#[test]
fn bad_bodies_are_4xx_and_store_nothing() {
    let instance = common::open_instance(json!({}));
    let admin = instance.user_with_token("root", true);
    let post = |content_type: &str, body: &[u8]| {
        let (status, _, body) = instance.request(
            "POST",
            "/api/v4/member_roles",
            &[("PRIVATE-TOKEN", &admin), ("Content-Type", content_type)],
            body,
        );
        (status, parse(&body))
    };
    let json_type = "application/json";
    assert_eq!(post(json_type, b"{\"name\": ").0, 400);
    assert_eq!(post(json_type, b"[1, 2]").0, 400);
    assert_eq!(post(json_type, b"\"text\"").0, 400);
    assert_eq!(post(json_type, b"{\"name\": \"\\udc80\", \"base_access_level\": 10}").0, 400, "lone surrogate");
    assert_eq!(post(json_type, &[0xff, 0xfe, b'{', b'}']).0, 400);
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert_eq!(post(json_type, deep.as_bytes()).0, 400);
    assert_eq!(post("text/plain", b"name=x").0, 415);
    assert_eq!(post("application/x-www-form-urlencoded", &[b'n', b'=', 0xff]).0, 400);
    let big = vec![b' '; (1 << 20) + 1];
    let (status, body) = post(json_type, &big);
    assert_eq!((status, body), (413, json!({"message": "413 Request Entity Too Large"})));
    let (_, list) = {
        let (s, _, b) = instance.request("GET", "/api/v4/member_roles", &[("PRIVATE-TOKEN", &admin)], b"");
        (s, parse(&b))
    };
    assert_eq!(list, json!([]));
    // GET and DELETE with a JSON content type and an empty body (python-gitlab sends that).
    let (status, _, _) =
        instance.request("GET", "/api/v4/member_roles", &[("PRIVATE-TOKEN", &admin), ("Content-Type", json_type)], b"");
    assert_eq!(status, 200);
    // A form body with query parameters merged under it.
    let (status, _, body) = instance.request(
        "POST",
        "/api/v4/member_roles?base_access_level=20&name=query",
        &[("PRIVATE-TOKEN", &admin), ("Content-Type", "application/x-www-form-urlencoded")],
        b"name=body+name&read_code=TRUE",
    );
    let body = parse(&body);
    assert_eq!(
        (status, body["name"].clone(), body["read_code"].clone(), body["base_access_level"].clone()),
        (201, json!("body name"), json!(true), json!(20))
    );
}

#[test]
fn the_rate_limiter_answers_429_with_integer_retry_after_shared_across_contexts() {
    let instance = common::open_instance(json!({"rate_limits": {"api_requests": {"limit": 3, "period_seconds": 60}}}));
    let other = instance.reopen();
    let mut statuses = Vec::new();
    for i in 0..3 {
        let target = if i % 2 == 0 { &instance } else { &other };
        statuses.push(target.request("GET", "/api/v4/version", &[], b"").0);
    }
    assert_eq!(statuses, [200, 200, 200]);
    let (status, headers, body) = other.request("GET", "/api/v4/version", &[], b"");
    assert_eq!(status, 429);
    assert!(parse(&body)["message"]["error"].is_string());
    let retry_after: u64 = headers.iter().find(|(n, _)| n == "Retry-After").unwrap().1.parse().unwrap();
    assert!((1..=60).contains(&retry_after));
    assert!(!headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("RateLimit-Limit")));
}

/// The API rate limit counts every call by either door: typed exports and HTTP requests of one
/// caller share a bucket.
#[test]
fn the_rate_limiter_counts_calls_through_both_doors() {
    let instance = common::open_instance(json!({"rate_limits": {"api_requests": {"limit": 3, "period_seconds": 60}}}));
    let token = instance.user_with_token("root", true);
    let auth = common::TestInstance::auth(&token);
    let typed = || instance.typed(forgecore::ffi::fc_member_roles_list, auth.clone(), json!({})).0;
    let http = || instance.request("GET", "/api/v4/member_roles", &[("PRIVATE-TOKEN", &token)], b"").0;
    assert_eq!([typed(), http(), typed()], [200, 200, 200]);
    assert_eq!(typed(), 429);
    assert_eq!(http(), 429);
    // Another caller has a bucket of its own.
    assert_eq!(instance.request("GET", "/api/v4/version", &[], b"").0, 200);
}

#[test]
fn bad_configurations_are_refused_with_a_reason() {
    for (config, fragment) in [
        (json!({}), "data_dir"),
        (json!({"data_dir": "/tmp/x", "colour": "blue"}), "colour"),
        (json!({"data_dir": "/tmp/x", "external_url": "ftp://x"}), "external_url"),
        (json!({"data_dir": "/tmp/x", "limits": {"per_page_default": 0}}), "per_page_default"),
        (json!({"data_dir": "/tmp/x", "limits": {"compare_timeout_millis": 0}}), "compare_timeout_millis"),
        (json!({"data_dir": "/tmp/x", "limits": {"compare_max_commits": 0}}), "compare_max_commits"),
        (json!({"data_dir": "/tmp/x", "rate_limits": {"archive": {"limit": -1, "period_seconds": 60}}}), "invalid"),
    ] {
        let error = forgecore::Context::from_json(&config.to_string()).err().expect("refused");
        assert!(error.contains(fragment), "{config}: {error}");
    }
}

#[test]
fn a_database_from_a_newer_library_is_refused() {
    let instance = common::open_instance(json!({}));
    instance.set_schema_version(999);
    let error = forgecore::Context::from_json(&instance.config().to_string()).err().unwrap();
    assert!(error.contains("newer"), "{error}");
}

/// Issue #25: API answers carry GitLab's `Cache-Control: max-age=0, private, must-revalidate`
/// and `X-Content-Type-Options: nosniff` (tokens travel in `PRIVATE-TOKEN`, which does not stop
/// a shared cache from storing an answer), errors too; a route's own `Cache-Control` (raw
/// blobs') is kept as it is, once.
#[test]
fn answers_carry_cache_control_private_and_nosniff() {
    let instance = common::open_instance(json!({}));
    let fixtures = instance.fixture_repos();
    let blob = common::git_text(&fixtures.join("work"), &["rev-parse", "main:README.md"]);
    let count = |headers: &[(String, String)], name: &str| {
        headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone()).collect::<Vec<_>>()
    };
    for (method, target) in [
        ("GET", "/api/v4/version".to_string()),
        ("GET", "/api/v4/projects/fx%2Fwork".to_string()),
        ("GET", "/api/v4/projects/fx%2Fwork/repository/tree".to_string()),
        ("GET", format!("/api/v4/projects/fx%2Fwork/repository/blobs/{blob}")),
        ("GET", "/api/v4/projects/fx%2Fwork/repository/archive.zip".to_string()),
        ("GET", "/api/v4/projects/nope".to_string()),
        ("GET", "/api/v4/member_roles".to_string()),
        ("DELETE", "/api/v4/version".to_string()),
        ("HEAD", "/api/v4/version".to_string()),
    ] {
        let (status, headers, _) = instance.request(method, &target, &[], b"");
        assert!(status < 500, "{method} {target}: {status}");
        assert_eq!(count(&headers, "Cache-Control"), ["max-age=0, private, must-revalidate"], "{method} {target}");
        assert_eq!(count(&headers, "X-Content-Type-Options"), ["nosniff"], "{method} {target}");
    }
    let (status, headers, _) =
        instance.request("GET", &format!("/api/v4/projects/fx%2Fwork/repository/blobs/{blob}/raw"), &[], b"");
    assert_eq!(status, 200);
    assert_eq!(count(&headers, "Cache-Control"), ["max-age=0, private, must-revalidate, no-store, no-cache"]);
    assert_eq!(count(&headers, "X-Content-Type-Options"), ["nosniff"]);
}

/// Issue #25: methods are case-sensitive (RFC 9110): a lowercase `get`, `head` or `post` runs
/// nothing as its uppercase namesake would; on a known path it is 405, as Rails answers a
/// method it does not know.
#[test]
fn lowercase_methods_are_not_their_uppercase_namesakes() {
    let instance = common::open_instance(json!({}));
    let admin = instance.user_with_token("root2", true);
    let auth = [("PRIVATE-TOKEN", admin.as_str())];
    for method in ["get", "head", "Get"] {
        let (status, _, body) = instance.request(method, "/api/v4/version", &[], b"");
        assert_eq!((status, parse(&body)), (405, json!({"message": "405 Method Not Allowed"})), "{method}");
    }
    let role = br#"{"name": "lower", "base_access_level": 10, "read_code": true}"#;
    let (status, _, _) = instance.request("post", "/api/v4/member_roles", &auth, role);
    assert_eq!(status, 405);
    let (status, _, body) = instance.request("GET", "/api/v4/member_roles", &auth, b"");
    assert_eq!((status, parse(&body)), (200, json!([])), "nothing was created");
    let (status, _, _) = instance.request("get", "/api/v4/nothing/here", &[], b"");
    assert_eq!(status, 404);
}

/// Issue #25: credential query parameters (`private_token`, `access_token`) are not repeated
/// in pagination `Link`s; every other parameter still is. (`job_token` reaches no paginated
/// route: `api::call`'s unit test covers it.)
#[test]
fn pagination_links_never_repeat_credentials() {
    let instance = common::open_instance(json!({}));
    instance.fixture_repos();
    let token = instance.user_with_token("alice", false);
    for credential in ["private_token", "access_token"] {
        for route in ["tree?per_page=1&recursive=true", "tree?per_page=1&pagination=keyset"] {
            let target = format!("/api/v4/projects/fx%2Fwork/repository/{route}&{credential}={token}");
            let (status, headers, _) = instance.request("GET", &target, &[], b"");
            assert_eq!(status, 200, "{target}");
            let link = headers.iter().find(|(n, _)| n == "Link").map(|(_, v)| v.clone()).unwrap_or_default();
            assert!(link.contains("per_page=1"), "{target}: {link}");
            assert!(!link.contains(credential) && !link.contains(&token), "{target}: {link}");
        }
    }
}

/// A `multipart/form-data` body as curl's `-F` writes one: each part a `Content-Disposition`
/// line (`disposition`, after `form-data; `), any further header lines, an empty line and its
/// content, CRLF throughout.
fn multipart(boundary: &str, parts: &[(&str, &[&str], &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    for (disposition, headers, content) in parts {
        body.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; {disposition}\r\n").as_bytes());
        for header in *headers {
            body.extend_from_slice(format!("{header}\r\n").as_bytes());
        }
        body.extend_from_slice(b"\r\n");
        body.extend_from_slice(content);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    body
}

/// On the bare fixture: the work tree's checked-out `main` is not the API's to write.
#[test]
fn multipart_bodies_are_read_as_forms_and_malformed_ones_are_400() {
    let instance = common::open_instance(json!({}));
    instance.fixture_repos();
    let token = instance.writers("fx/bare").maintainer;
    let post = |path: &str, content_type: &str, body: &[u8]| {
        let target = format!("/api/v4/projects/fx%2Fbare/repository/files/{path}");
        let (status, _, body) =
            instance.request("POST", &target, &[("PRIVATE-TOKEN", &token), ("Content-Type", content_type)], body);
        (status, parse(&body))
    };
    let raw = |path: &str| {
        let target = format!("/api/v4/projects/fx%2Fbare/repository/files/{path}/raw?ref=main");
        let (status, _, body) = instance.request("GET", &target, &[("PRIVATE-TOKEN", &token)], b"");
        (status, String::from_utf8(body).unwrap())
    };
    // curl -F branch=main -F 'content=two\r\nlines' -F commit_message=... : quoted names, and a
    // value holding CRLF and a boundary-like line that is not the boundary.
    let boundary = "------------------------d74496d66958873e";
    let content_type = format!("multipart/form-data; boundary={boundary}");
    let text = "two\r\nlines\r\n--------------------------d74496d66958873\r\n";
    let body = multipart(
        boundary,
        &[
            ("name=\"branch\"", &[], b"main"),
            ("name=\"content\"", &[], text.as_bytes()),
            ("name=\"commit_message\"", &[], "Add by -F \u{e9}".as_bytes()),
        ],
    );
    let (status, answer) = post("curl.txt", &content_type, &body);
    assert_eq!((status, answer), (201, json!({"file_path": "curl.txt", "branch": "main"})));
    assert_eq!(raw("curl.txt"), (200, text.to_string()));
    // Unquoted names, a quoted boundary with a parameter after it, a preamble, transport
    // padding after a boundary, an epilogue, and `name[]` collecting into an array.
    let mut body = b"a preamble\r\n".to_vec();
    body.extend(multipart(
        "b",
        &[("name=branch", &[], b"main"), ("name=content", &[], b"plain\n"), ("name=commit_message", &[], b"Unquoted")],
    ));
    let body = String::from_utf8(body).unwrap().replacen("--b\r\n", "--b \t\r\n", 2) + "an epilogue";
    let (status, _) = post("unquoted.txt", "Multipart/Form-Data; boundary=\"b\"; charset=utf-8", body.as_bytes());
    assert_eq!(status, 201);
    assert_eq!(raw("unquoted.txt"), (200, "plain\n".to_string()));
    // A file part (curl -F content=@notes.md): its text is the value; its name and type go.
    let body = multipart(
        boundary,
        &[
            ("name=\"branch\"", &[], b"main"),
            ("name=\"content\"; filename=\"notes; \\\"draft\\\".md\"", &["Content-Type: text/markdown"], b"# Notes\n"),
            ("name=\"commit_message\"", &[], b"Add a file part"),
        ],
    );
    assert_eq!(post("notes.md", &content_type, &body).0, 201);
    assert_eq!(raw("notes.md"), (200, "# Notes\n".to_string()));
    // Malformed bodies: a 400 saying what is wrong, and nothing committed.
    let tip = |instance: &common::TestInstance| {
        instance.request_json("GET", "/api/v4/projects/fx%2Fbare/repository/branches/main", &[], b"").1["commit"]["id"]
            .clone()
    };
    let before = tip(&instance);
    let good = multipart(boundary, &[("name=\"branch\"", &[], b"main"), ("name=\"content\"", &[], b"x")]);
    let unclosed = &good[..good.len() - boundary.len() - 6];
    let lf_only = String::from_utf8(good.clone()).unwrap().replace("\r\n", "\n");
    let cases: Vec<(String, Vec<u8>, &str)> = vec![
        ("multipart/form-data".into(), good.clone(), "has no boundary in its Content-Type"),
        (format!("multipart/form-data; boundary={}", "x".repeat(71)), good.clone(), "has an invalid boundary"),
        ("multipart/form-data; boundary=\"unterminated".into(), good.clone(), "has a malformed Content-Type"),
        (content_type.clone(), b"no boundary here".to_vec(), "has no boundary line"),
        (content_type.clone(), unclosed.to_vec(), "ends before its closing boundary"),
        (content_type.clone(), lf_only.into_bytes(), "has a boundary line not ended by CRLF"),
        (
            content_type.clone(),
            multipart(boundary, &[("filename=\"a\"", &[], b"x")]),
            "has a part that is not form-data with a name",
        ),
        (
            content_type.clone(),
            format!("--{boundary}\r\nContent-Type: text/plain\r\n\r\nx\r\n--{boundary}--").into_bytes(),
            "has a part without Content-Disposition",
        ),
        (
            content_type.clone(),
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"a\"\r\nx\r\n--{boundary}--").into_bytes(),
            "has a part whose headers do not end",
        ),
        (content_type.clone(), format!("--{boundary}junk\r\n").into_bytes(), "has a boundary line not ended by CRLF"),
    ];
    for (content_type, body, reason) in cases {
        let (status, answer) = post("bad.txt", &content_type, &body);
        assert_eq!(
            (status, answer),
            (400, json!({"message": format!("400 Bad request - the multipart body {reason}")})),
            "{content_type}: {}",
            String::from_utf8_lossy(&body)
        );
    }
    let binary = multipart(boundary, &[("name=\"content\"", &[], &[0xff, 0xfe])]);
    let (status, answer) = post("bad.txt", &content_type, &binary);
    assert_eq!(
        (status, answer),
        (400, json!({"message": "400 Bad request - the multipart field \"content\" is not valid UTF-8"}))
    );
    let many: Vec<(&str, &[&str], &[u8])> = vec![("name=\"n[]\"", &[], b"v"); forgecore::http::request::MAX_PARTS + 1];
    let (status, answer) = post("bad.txt", &content_type, &multipart(boundary, &many));
    assert_eq!(
        (status, answer["message"].clone()),
        (400, json!("400 Bad request - the multipart body has more than 4096 parts"))
    );
    assert_eq!(tip(&instance), before, "a refused body commits nothing");
    assert_eq!(raw("bad.txt").0, 404);
}
