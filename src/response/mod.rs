//! `Response`: what every operation answers, whichever door it came through.
//! A body is either bytes in memory or a stream that is produced while the caller reads it
//! ([`stream`]).

pub mod ordered;
pub mod stream;

use serde::Serialize;
use std::io::Read;

pub enum Body {
    Bytes(Vec<u8>),
    Stream(Box<dyn Read + Send>),
}

pub struct Response {
    pub status: u16,
    /// Header names in their canonical spelling, in the order they were set.
    pub headers: Vec<(String, String)>,
    pub body: Body,
}

impl Response {
    /// A JSON response with GitLab's content type.
    pub fn json<T: Serialize + ?Sized>(status: u16, value: &T) -> Response {
        let body = serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec());
        Response { status, headers: vec![("Content-Type".into(), "application/json".into())], body: Body::Bytes(body) }
    }

    /// 204 with an empty body and no content type.
    pub fn no_content() -> Response {
        Response::empty(204)
    }

    /// `status` with an empty body and no headers.
    pub fn empty(status: u16) -> Response {
        Response { status, headers: Vec::new(), body: Body::Bytes(Vec::new()) }
    }

    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Response {
        self.headers.push((name.to_string(), value.into()));
        self
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The whole body, reading a stream to its end; for tests and small bodies only.
    pub fn into_bytes(self) -> std::io::Result<Vec<u8>> {
        match self.body {
            Body::Bytes(bytes) => Ok(bytes),
            Body::Stream(mut reader) => {
                let mut out = Vec::new();
                reader.read_to_end(&mut out)?;
                Ok(out)
            }
        }
    }
}

impl std::fmt::Debug for Response {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let body = match &self.body {
            Body::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
            Body::Stream(_) => "<stream>".into(),
        };
        f.debug_struct("Response")
            .field("status", &self.status)
            .field("headers", &self.headers)
            .field("body", &body)
            .finish()
    }
}
