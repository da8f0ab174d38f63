//! Parsing of one raw request: the path split on `/` before each segment is percent-decoded
//! (so `%2F` and `%2E` inside an id survive), the query string and body as `Params`
//! (JSON, a urlencoded form or a `multipart/form-data` form), and lower-cased headers.
//!
//! A multipart body (curl's `-F`, python-gitlab's `files=`) is read as Rack reads one for
//! Rails and Grape (RFC 7578 and RFC 2046, lines ended by CRLF): each part's
//! `Content-Disposition: form-data; name=...` names a parameter, and its content is the value,
//! as a form field's would be. A file part (one with a `filename`) gives its content as the
//! value too: Rack would hand Grape a hash (`filename`, `type`, `tempfile`) that our routes,
//! whose parameters are all text, would refuse as invalid, so the file's text is taken instead
//! (`-F content=@notes.md` commits the file's text); its file name and type are not kept. A
//! value that is not UTF-8 is a 400 naming its field, and so is any malformed body. The body is
//! already whole in memory (`limits.max_body_bytes`); parsing copies each value once and keeps
//! at most [`MAX_PARTS`] parts, as Rack bounds its part count.

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

/// Reads a JSON object, a form or a multipart body, by `Content-Type` (JSON when absent).
fn parse_body(headers: &[(String, String)], body: &[u8]) -> ApiResult<Params> {
    let header_value = headers.iter().find(|(n, _)| n == "content-type").map_or("", |(_, v)| v.as_str());
    let content_type = header_value.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
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
        "multipart/form-data" => Ok(params_of(&parse_multipart(header_value, body)?)),
        _ => Err(ApiError::UnsupportedMediaType),
    }
}

/// The most parts one multipart body may have (Rack's `multipart_total_part_limit`).
pub const MAX_PARTS: usize = 4096;

/// A 400 for a malformed multipart body, saying how.
fn malformed(how: &str) -> ApiError {
    ApiError::BadRequest(format!("the multipart body {how}"))
}

/// The fields of a `multipart/form-data` body, in order, as `(name, value)` pairs; see the
/// module's note. `content_type` is the whole `Content-Type` value (its `boundary` is needed).
fn parse_multipart(content_type: &str, body: &[u8]) -> ApiResult<Vec<(String, String)>> {
    let params = header_params(content_type).ok_or_else(|| malformed("has a malformed Content-Type"))?;
    let boundary = params
        .iter()
        .find(|(name, _)| name == "boundary")
        .map(|(_, value)| value.as_str())
        .ok_or_else(|| malformed("has no boundary in its Content-Type"))?;
    // RFC 2046: 1 to 70 characters, none of them a control character (so never CR or LF).
    if boundary.is_empty() || boundary.len() > 70 || boundary.bytes().any(|b| b.is_ascii_control() || b >= 0x80) {
        return Err(malformed("has an invalid boundary"));
    }
    let delimiter = format!("\r\n--{boundary}").into_bytes();
    // The first delimiter may open the body (no CRLF before it), or follow a preamble.
    let mut at = if body.starts_with(&delimiter[2..]) {
        delimiter.len() - 2
    } else {
        find(body, 0, &delimiter).ok_or_else(|| malformed("has no boundary line"))? + delimiter.len()
    };
    let mut fields = Vec::new();
    loop {
        let rest = body.get(at..).unwrap_or_default();
        if rest.starts_with(b"--") {
            return Ok(fields); // the close delimiter; the epilogue is ignored
        }
        // Transport padding (RFC 2046), then the CRLF that ends the boundary line.
        let padding = rest.iter().take_while(|b| matches!(b, b' ' | b'\t')).count();
        if !rest[padding..].starts_with(b"\r\n") {
            return Err(malformed("has a boundary line not ended by CRLF"));
        }
        let start = at + padding + 2;
        let end = find(body, start, &delimiter).ok_or_else(|| malformed("ends before its closing boundary"))?;
        if fields.len() == MAX_PARTS {
            return Err(malformed(&format!("has more than {MAX_PARTS} parts")));
        }
        fields.push(part_field(&body[start..end])?);
        at = end + delimiter.len();
    }
}

/// The `(name, value)` of one part: its headers, an empty line, its content.
fn part_field(part: &[u8]) -> ApiResult<(String, String)> {
    let (head, content) = if part.starts_with(b"\r\n") {
        (&part[..0], &part[2..])
    } else {
        let split = find(part, 0, b"\r\n\r\n").ok_or_else(|| malformed("has a part whose headers do not end"))?;
        (&part[..split], &part[split + 4..])
    };
    let head = std::str::from_utf8(head).map_err(|_| malformed("has part headers that are not UTF-8"))?;
    let disposition = head
        .split("\r\n")
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-disposition"))
        .map(|(_, value)| value)
        .ok_or_else(|| malformed("has a part without Content-Disposition"))?;
    let kind = disposition.split(';').next().unwrap_or("").trim();
    let params = header_params(disposition).filter(|_| kind.eq_ignore_ascii_case("form-data"));
    let name = params
        .and_then(|params| params.into_iter().find(|(key, _)| key == "name"))
        .map(|(_, name)| name)
        .ok_or_else(|| malformed("has a part that is not form-data with a name"))?;
    match String::from_utf8(content.to_vec()) {
        Ok(value) => Ok((name, value)),
        Err(_) => Err(ApiError::BadRequest(format!("the multipart field {name:?} is not valid UTF-8"))),
    }
}

/// The parameters of a header value after its first `;` (`form-data; name="a"; filename=b`),
/// names lower-cased, quoted values unquoted (`\"` and `\\` as curl and browsers escape them);
/// `None` for an unterminated quote or a parameter without `=`.
fn header_params(value: &str) -> Option<Vec<(String, String)>> {
    let mut params = Vec::new();
    let mut rest = value.split_once(';').map_or("", |(_, rest)| rest);
    loop {
        rest = rest.trim_start_matches(|c: char| c == ';' || c.is_ascii_whitespace());
        if rest.is_empty() {
            return Some(params);
        }
        let (name, after) = rest.split_once('=')?;
        let name = name.trim();
        if name.is_empty() || name.contains(';') {
            return None;
        }
        let after = after.trim_start();
        let (text, remainder) = match after.strip_prefix('"') {
            Some(quoted) => unquote(quoted)?,
            None => {
                let end = after.find(';').unwrap_or(after.len());
                (after[..end].trim_end().to_string(), &after[end..])
            }
        };
        params.push((name.to_ascii_lowercase(), text));
        rest = remainder;
    }
}

/// A quoted string's text up to its closing quote (the opening one already taken), and what
/// follows it; `None` when it never closes.
fn unquote(quoted: &str) -> Option<(String, &str)> {
    let mut text = String::new();
    let mut chars = quoted.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((text, &quoted[i + 1..])),
            '\\' => text.push(chars.next()?.1),
            other => text.push(other),
        }
    }
    None
}

/// Where `needle` next starts in `hay` at or after `from`. Every candidate is a position of the
/// needle's first byte, so this is linear for the needles searched here: a delimiter's CR
/// appears in it only first (a boundary has no control characters), so a candidate that fails
/// leaves none between it and where it failed; the end of a part's headers is four bytes.
fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let first = *needle.first()?;
    let mut i = from;
    while let Some(offset) = hay.get(i..)?.iter().position(|b| *b == first) {
        let at = i + offset;
        if hay[at..].starts_with(needle) {
            return Some(at);
        }
        i = at + 1;
    }
    None
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
