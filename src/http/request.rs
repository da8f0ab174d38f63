//! Parsing of one raw request: the path split on `/` before each segment is percent-decoded
//! (so `%2F` and `%2E` inside an id survive), the query string and body as `Params`
//! (JSON or form), and lower-cased headers.

use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::incoming::Meta;
use crate::params::{decode, parse_form, Params};

pub struct Request {
    /// The method as sent (case-sensitive); `HEAD` is served as `GET`.
    pub method: String,
    /// Whether the request is a `HEAD` (its answer's body is dropped; a route may skip making it).
    pub head: bool,
    /// Decoded path segments after `/api/v4`.
    pub segments: Vec<String>,
    /// Query parameters only.
    pub query: Params,
    /// Query parameters with the body's merged over them.
    pub params: Params,
    /// The decoded query pairs in order, for links that repeat the request's parameters.
    pub query_pairs: Vec<(String, String)>,
    /// The raw path after `/api/v4`, for links back to the same resource.
    pub raw_path: String,
    /// What the host knows about the connection (peer address, scheme).
    pub meta: Meta,
    headers: Vec<(String, String)>,
}

const API_PREFIX: &str = "/api/v4";

fn params_of(pairs: &[(String, String)]) -> Params {
    let mut params = Params::new();
    for (name, value) in pairs {
        params.push_pair(name, value.clone());
    }
    params
}

/// A request as the host handed it over, before its body: the connection's facts, the method
/// and raw target as sent, and the headers.
#[derive(Debug, Default)]
pub struct Incoming {
    pub meta: Meta,
    pub method: String,
    pub target: String,
    pub headers: Vec<(String, String)>,
}

impl Request {
    pub fn parse(ctx: &Context, incoming: Incoming, body: &[u8]) -> ApiResult<Request> {
        let Incoming { meta, method, target, headers } = incoming;
        let (method, target) = (method.as_str(), target.as_str());
        if body.len() > ctx.config.limits.max_body_bytes {
            return Err(ApiError::PayloadTooLarge);
        }
        // Methods are case-sensitive (RFC 9110 9.1): `get` is not GET, and matches no route
        // (405 on a known path, as Rails refuses an unknown method; 404 elsewhere).
        let head = method == "HEAD";
        let method = match method {
            "HEAD" => "GET".to_string(),
            other => other.to_string(),
        };
        let target = target.split('#').next().unwrap_or("");
        let (path, raw_query) = target.split_once('?').unwrap_or((target, ""));
        let raw_path = path.strip_prefix(API_PREFIX).filter(|rest| rest.is_empty() || rest.starts_with('/'));
        let Some(raw_path) = raw_path else { return Err(ApiError::NotFound("")) };
        let segments =
            raw_path.split('/').skip(1).map(|segment| decode(segment, "the path")).collect::<ApiResult<Vec<_>>>()?;
        let headers: Vec<(String, String)> =
            headers.into_iter().map(|(name, value)| (name.to_ascii_lowercase(), value)).collect();
        let query_pairs = parse_form(raw_query)?;
        let query = params_of(&query_pairs);
        let mut params = query.clone();
        if matches!(method.as_str(), "POST" | "PUT" | "PATCH" | "DELETE") && !body.iter().all(u8::is_ascii_whitespace) {
            params.merge(parse_body(&headers, body)?);
        }
        Ok(Request {
            method,
            head,
            segments,
            query,
            params,
            query_pairs,
            raw_path: raw_path.to_string(),
            meta,
            headers,
        })
    }

    pub fn headers(&self) -> impl Iterator<Item = (&str, &str)> {
        self.headers.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers().find(|(n, _)| *n == name).map(|(_, v)| v)
    }
}

/// Reads a JSON object or a form body, by `Content-Type` (JSON when absent).
fn parse_body(headers: &[(String, String)], body: &[u8]) -> ApiResult<Params> {
    let content_type = headers
        .iter()
        .find(|(n, _)| n == "content-type")
        .map(|(_, v)| v.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
        .unwrap_or_default();
    match content_type.as_str() {
        "" | "application/json" | "text/json" => {
            let value: serde_json::Value = serde_json::from_slice(body)
                .map_err(|e| ApiError::BadRequest(format!("the body is not valid JSON ({})", e.classify_text())))?;
            Params::from_json_object(value)
        }
        "application/x-www-form-urlencoded" => {
            let text =
                std::str::from_utf8(body).map_err(|_| ApiError::BadRequest("the body is not valid UTF-8".into()))?;
            Ok(params_of(&parse_form(text)?))
        }
        _ => Err(ApiError::UnsupportedMediaType),
    }
}

trait ClassifyText {
    fn classify_text(&self) -> &'static str;
}

impl ClassifyText for serde_json::Error {
    fn classify_text(&self) -> &'static str {
        match self.classify() {
            serde_json::error::Category::Eof => "unexpected end",
            serde_json::error::Category::Syntax => "syntax error",
            serde_json::error::Category::Data => "invalid data",
            serde_json::error::Category::Io => "read error",
        }
    }
}
