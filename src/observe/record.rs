//! One request's record: a [`Trace`] starts with the request, learns its route, caller and
//! parameters as the request is served, and ends exactly once, when the answer's body has
//! been handed over whole (at once for a body in memory; at the end of a stream, or when a
//! stream is abandoned and dropped). Ending counts the request in the context's metrics and
//! hands one JSON object to the log sink, with the field names of GitLab's `api_json.log`.
//! Parameters are filtered on the way in ([`Trace::set_params`]) as GitLab filters that log:
//! by name (`FILTERS`, GitLab's `filter_parameters`), nested values by their own keys, and
//! any value, path or user agent carrying a token.
//!
//! A trace dropped without an answer (a panic, a call abandoned before its body was complete)
//! still ends, with 500 for a panic and 499 (nginx's "client closed request") otherwise, so
//! no request goes unrecorded.

use super::client::Cidr;
use super::metrics::{method_label, Metrics};
use super::{client, correlation, log, stats};
use crate::params::Params;
use crate::response::{Body, Response};
use serde::Serialize;
use serde_json::Value;
use std::io::{self, Read};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Instant;

/// The route label of requests no route matched.
pub const UNMATCHED: &str = "unmatched";

/// What a filtered value is replaced with, as GitLab writes it.
const FILTERED: &str = "[FILTERED]";

/// How one of GitLab's filters matches a parameter name.
#[derive(Clone, Copy)]
enum Filter {
    /// A regexp `/^name$/`.
    Exact(&'static str),
    /// A regexp `/name$/`.
    Ends(&'static str),
    /// A regexp `/name/`, or a name (a symbol), which Rails' `ParameterFilter` matches as a
    /// part of the key.
    Contains(&'static str),
}

use Filter::{Contains, Ends, Exact};

/// GitLab's `config.filter_parameters` (config/application.rb), in its order: first its
/// regexps, then its names, then what its API adds for `api_json.log` (`LOG_FILTERS` in
/// lib/api/api.rb: `/^output$/`), then labkit's `^authorization$` (Workhorse's mask). GitLab's
/// regexps are case-sensitive but `/token$/i`; here every filter ignores case (a record
/// filters more than GitLab's, never less).
const FILTERS: &[Filter] = &[
    Ends("token"),
    Contains("password"),
    Contains("secret"),
    Ends("key"),
    Exact("body"),
    Exact("description"),
    Exact("query"),
    Exact("note"),
    Exact("text"),
    Exact("title"),
    Exact("hook"),
    Exact("message"),
    Contains("certificate"),
    Contains("encrypted_key"),
    Contains("import_url"),
    Contains("elasticsearch_url"),
    Contains("elasticsearch_password"),
    Contains("search"),
    Contains("jwt"),
    Contains("mailgun_signing_key"),
    Contains("otp_attempt"),
    Contains("sentry_dsn"),
    Contains("trace"),
    Contains("variables"),
    Contains("content"),
    Contains("sharedsecret"),
    Contains("redirect"),
    Contains("question"),
    Contains("samlresponse"),
    Contains("selectedtext"),
    Contains("login_challenge"),
    Contains("login_verifier"),
    Contains("consent_challenge"),
    Contains("consent_verifier"),
    Exact("output"),
    Exact("authorization"),
];

/// Whether a parameter's value never reaches a record (see [`FILTERS`]). A form name with
/// brackets (`actions[][content]`, `note[note]`) is filtered when any of its keys is, as Rack
/// would have nested it and Rails would have filtered the nested key.
fn filtered_name(name: &str) -> bool {
    name.split(['[', ']']).filter(|key| !key.is_empty()).any(|key| {
        let key = key.to_ascii_lowercase();
        FILTERS.iter().any(|filter| match *filter {
            Exact(word) => key == word,
            Ends(word) => key.ends_with(word),
            Contains(word) => key.contains(word),
        })
    })
}

/// `value` as a record keeps it, as Rails' `ParameterFilter` filters nested parameters: under a
/// filtered name the whole value (an object or an array too) is `[FILTERED]`; an object keeps
/// each key and filters its value by that key's name; an array filters each item under the
/// array's own name (so the objects of `actions[]` lose their `content`, not their `action`).
fn filtered_value(name: &str, value: &Value) -> Value {
    if filtered_name(name) {
        return Value::String(FILTERED.to_string());
    }
    match value {
        Value::Object(fields) => {
            Value::Object(fields.iter().map(|(key, inner)| (key.clone(), filtered_value(key, inner))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(|item| filtered_value(name, item)).collect()),
        other => other.clone(),
    }
}

/// Prefixes of GitLab's token texts: a value carrying one is a token, whatever its name.
const TOKEN_PREFIXES: &[&str] =
    &["glpat-", "glcbt-", "gldt-", "glrt-", "glptt-", "glft-", "glimt-", "glagent-", "gloas-", "glsoat-", "GR1348941"];

/// Whether `c` may continue a token after its prefix.
fn token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// `text` (a path or a user agent, which GitLab logs as sent) with every token in it replaced
/// by `[FILTERED]`: each of the `credentials` the request carried, and every text that starts
/// as GitLab's tokens do, to the end of its token characters.
fn scrubbed(text: &str, credentials: &[&str]) -> String {
    let mut out = text.to_string();
    for credential in credentials.iter().filter(|c| !c.is_empty()) {
        if out.contains(credential) {
            out = out.replace(credential, FILTERED);
        }
    }
    for prefix in TOKEN_PREFIXES {
        let mut from = 0;
        while let Some(found) = out.get(from..).and_then(|rest| rest.find(prefix)) {
            let start = from + found;
            let after = start + prefix.len();
            let end = out[after..].find(|c: char| !token_char(c)).map_or(out.len(), |n| after + n);
            out.replace_range(start..end, FILTERED);
            from = start + FILTERED.len();
        }
    }
    out
}

/// Longest parameter value kept in a record, in characters (GitLab limits logged params too).
const MAX_VALUE_CHARS: usize = 1000;

/// What a trace takes from the context it records for: the proxies whose `X-Forwarded-For` it
/// believes, whether it keeps a client's `X-Request-Id`, and the metrics it counts in (`None`
/// when they are off).
pub struct Setup<'a> {
    pub trusted_proxies: &'a [Cidr],
    pub trust_request_id: bool,
    pub metrics: Option<Arc<Metrics>>,
}

pub struct Trace {
    metrics: Option<Arc<Metrics>>,
    started: Instant,
    time: String,
    pub correlation_id: String,
    /// The client's address: see [`client::client_address`].
    pub client: Option<IpAddr>,
    method: String,
    path: String,
    route: &'static str,
    ua: Option<String>,
    params: Vec<(String, String)>,
    user: Option<(i64, String)>,
    stats: stats::Stats,
    status: u16,
    response_bytes: u64,
    ended: bool,
}

impl Trace {
    /// Starts the trace of a request from `peer` (what the host saw; `None` when it gave
    /// none) with these raw `headers`, as `setup` says (the context's `trace` hands it).
    pub fn begin(
        setup: Setup<'_>,
        peer: Option<IpAddr>,
        method: &str,
        target: &str,
        headers: &[(String, String)],
    ) -> Trace {
        stats::take();
        fn header<'h>(headers: &'h [(String, String)], name: &'static str) -> impl Iterator<Item = &'h str> {
            headers.iter().filter(move |(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
        }
        let client = client::client_address(peer, header(headers, "x-forwarded-for"), setup.trusted_proxies);
        let correlation_id = correlation::choose(header(headers, "x-request-id").next(), setup.trust_request_id);
        let metrics = setup.metrics;
        if let Some(m) = &metrics {
            m.request_started();
        }
        let path = target.split(['?', '#']).next().unwrap_or("");
        Trace {
            metrics,
            started: Instant::now(),
            time: if log::enabled(log::INFO) { log::now_text() } else { String::new() },
            correlation_id,
            client,
            method: method.to_string(),
            path: scrubbed(&path.chars().take(4096).collect::<String>(), &[]),
            route: UNMATCHED,
            ua: header(headers, "user-agent")
                .next()
                .map(|ua| scrubbed(&ua.chars().take(1024).collect::<String>(), &[])),
            params: Vec::new(),
            user: None,
            stats: stats::Stats::default(),
            status: 0,
            response_bytes: 0,
            ended: false,
        }
    }

    /// The route's template (`/api/v4/projects/:id`), never the raw path.
    pub fn set_route(&mut self, template: &'static str) {
        self.route = template;
    }

    /// Who called (after their credentials were checked): the user's id and username, `None`
    /// for an anonymous caller or a job token.
    pub fn set_user(&mut self, user: Option<(i64, &str)>) {
        self.user = user.map(|(id, username)| (id, username.to_string()));
    }

    /// The request's parameters, filtered (see [`filtered_value`]): `credentials` are the token
    /// texts the request carried, which never reach a record whatever the parameter holding them
    /// is called, nor in the path or the user agent.
    pub fn set_params(&mut self, params: &Params, credentials: &[&str]) {
        if !log::enabled(log::INFO) {
            return;
        }
        self.path = scrubbed(&self.path, credentials);
        self.ua = self.ua.as_deref().map(|ua| scrubbed(ua, credentials));
        self.params = params
            .iter()
            .map(|(name, value)| {
                let text = match filtered_value(name, value) {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                let secret = TOKEN_PREFIXES.iter().any(|p| text.contains(p))
                    || credentials.iter().any(|c| !c.is_empty() && text.contains(c));
                let text = if secret { FILTERED.to_string() } else { text.chars().take(MAX_VALUE_CHARS).collect() };
                (name.clone(), text)
            })
            .collect();
    }

    /// Ends the synchronous part: the answer is made. Adds `X-Request-Id`; a body in memory
    /// ends the trace now, a stream when it ends or is dropped.
    pub fn finish(mut self, mut response: Response) -> Response {
        self.stats = stats::take();
        self.status = response.status;
        response.headers.push(("X-Request-Id".into(), self.correlation_id.clone()));
        match response.body {
            Body::Bytes(ref bytes) => {
                self.response_bytes = bytes.len() as u64;
                self.end();
                response
            }
            Body::Stream(inner) => {
                response.body = Body::Stream(Box::new(Recorded { inner, trace: self }));
                response
            }
        }
    }

    fn end(&mut self) {
        if std::mem::replace(&mut self.ended, true) {
            return;
        }
        let spent = self.started.elapsed();
        if let Some(metrics) = &self.metrics {
            metrics.request_ended(method_label(&self.method), self.route, self.status, spent, self.response_bytes);
        }
        if !log::enabled(log::INFO) {
            return;
        }
        let record = Record {
            time: &self.time,
            severity: log::severity(log::INFO),
            correlation_id: &self.correlation_id,
            method: &self.method,
            path: &self.path,
            route: self.route,
            status: self.status,
            duration_s: seconds(spent),
            db_duration_s: seconds(self.stats.db),
            db_count: self.stats.db_count,
            git_duration_s: seconds(self.stats.git),
            git_calls: self.stats.git_calls,
            cache_hits: self.stats.cache_hits,
            response_bytes: self.response_bytes,
            user_id: self.user.as_ref().map(|u| u.0),
            username: self.user.as_ref().map(|u| u.1.as_str()),
            remote_ip: self.client.map(|ip| ip.to_string()),
            ua: self.ua.as_deref(),
            params: self.params.iter().map(|(key, value)| Param { key, value }).collect(),
        };
        if let Ok(json) = serde_json::to_string(&record) {
            log::emit(log::INFO, &json);
        }
    }
}

impl Drop for Trace {
    fn drop(&mut self) {
        if !self.ended {
            if self.status == 0 {
                self.status = if std::thread::panicking() { 500 } else { 499 };
            }
            self.end();
        }
    }
}

/// Seconds rounded to microseconds, as GitLab's `duration_s` fields are.
fn seconds(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e6
}

#[derive(Serialize)]
struct Record<'a> {
    time: &'a str,
    severity: &'static str,
    correlation_id: &'a str,
    method: &'a str,
    path: &'a str,
    route: &'a str,
    status: u16,
    duration_s: f64,
    db_duration_s: f64,
    db_count: u32,
    git_duration_s: f64,
    git_calls: u32,
    cache_hits: u32,
    response_bytes: u64,
    user_id: Option<i64>,
    username: Option<&'a str>,
    remote_ip: Option<String>,
    ua: Option<&'a str>,
    params: Vec<Param<'a>>,
}

#[derive(Serialize)]
struct Param<'a> {
    key: &'a str,
    value: &'a str,
}

/// A streamed body that ends its request's trace when it has been read to its end, fails, or
/// is dropped unfinished.
struct Recorded {
    inner: Box<dyn Read + Send>,
    trace: Trace,
}

impl Read for Recorded {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let result = self.inner.read(out);
        match &result {
            Ok(0) if !out.is_empty() => self.trace.end(),
            Ok(n) => self.trace.response_bytes += *n as u64,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => self.trace.end(),
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::{filtered_name, filtered_value, scrubbed};
    use serde_json::json;

    #[test]
    fn gitlabs_filtered_names_are_filtered() {
        for name in [
            "private_token",
            "PRIVATE_TOKEN",
            "job_token",
            "access_token",
            "password",
            "PASSWORD_confirmation",
            "client_secret",
            "secret_value",
            "deploy_key",
            "content",
            "body",
            "description",
            "query",
            "note",
            "text",
            "title",
            "hook",
            "message",
            "output",
            "search",
            "import_url",
            "sharedSecret",
            "SAMLResponse",
            "selectedText",
            "variables",
            "trace",
            "jwt",
            "redirect",
            "authorization",
            "note[note]",
            "safe[note]",
            "actions[][content]",
        ] {
            assert!(filtered_name(name), "{name}");
        }
        // GitLab's regexps anchor these: `noteable`, `prefix_note` (its own spec's examples).
        for name in ["ref", "path", "page", "tokens_list", "noteable", "prefix_note", "commit_message", "file_path"] {
            assert!(!filtered_name(name), "{name}");
        }
    }

    #[test]
    fn nested_values_are_filtered_by_their_own_names() {
        let actions = json!([{"action": "create", "file_path": "a", "content": "secret text"}, "plain"]);
        assert_eq!(
            filtered_value("actions", &actions),
            json!([{"action": "create", "file_path": "a", "content": "[FILTERED]"}, "plain"])
        );
        assert_eq!(filtered_value("note", &json!({"note": "x"})), json!("[FILTERED]"));
        assert_eq!(filtered_value("safe", &json!({"note": "x", "id": 1})), json!({"note": "[FILTERED]", "id": 1}));
    }

    #[test]
    fn tokens_are_scrubbed_from_texts() {
        assert_eq!(scrubbed("/api/v4/x/glpat-abc_DEF-1.2/y", &[]), "/api/v4/x/[FILTERED]/y");
        assert_eq!(scrubbed("tool/1 (tok s3cr3t)", &["s3cr3t"]), "tool/1 (tok [FILTERED])");
        assert_eq!(scrubbed("a glrt-1 b gldt-2", &[""]), "a [FILTERED] b [FILTERED]");
        assert_eq!(scrubbed("plain/1.0", &[]), "plain/1.0");
    }
}
