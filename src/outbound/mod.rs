//! The one door for outbound requests (decisions D11): everything the core sends to another
//! server (webhook deliveries, their tests and resends) goes through [`Door::post`], and
//! nothing else in the core opens a socket to the outside.
//!
//! What the door does, in order: the URL is parsed ([`url`], every spelling of an address read
//! as the address it is); the host is resolved once; every address it resolves to is checked
//! ([`address`]: loopback, private, link-local, shared, multicast, unspecified and this host's
//! own addresses are refused unless `hooks.allow_local_requests` is on or the allowlist names
//! the host or address); the connection is made to the checked address and nowhere else (no
//! second lookup that DNS rebinding could answer differently); redirects are answers, never
//! followed; connecting and the whole exchange are bounded by timeouts. A refusal sends no
//! packet.
//!
//! The client is ours, HTTP/1.1 over std's `TcpStream`: a request with a fixed body, one
//! answer read up to a size limit, the connection closed. `https` runs TLS ([`tls`], rustls)
//! over the connection to the checked address, the certificate verified unless the hook turns
//! `enable_ssl_verification` off.

pub mod address;
pub mod tls;
pub mod url;

use crate::observe::client::Cidr;
use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};
use url::{Host, Url};

/// What the door allows, from the configuration's `hooks` section.
#[derive(Debug, Clone)]
pub struct Rules {
    pub allow_local_requests: bool,
    /// Host names (`hooks.example.internal`, `*.example.internal`) and address blocks
    /// (`10.0.0.0/8`, `192.168.1.7`) reachable even when local.
    pub allowlist: Vec<String>,
    pub connect_timeout: Duration,
    /// The whole exchange after connecting: sending, and reading the answer (GitLab's
    /// `webhook_timeout`, 10 s).
    pub timeout: Duration,
    /// DER certificates trusted for https deliveries besides Mozilla's roots (a private CA).
    pub extra_roots: Vec<Vec<u8>>,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            allow_local_requests: false,
            allowlist: Vec::new(),
            connect_timeout: Duration::from_secs(5),
            timeout: Duration::from_secs(10),
            extra_roots: Vec::new(),
        }
    }
}

/// Why a request did not get an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The URL may not be reached, with GitLab's reason (`Requests to loopback addresses are
    /// not allowed`).
    Blocked(String),
    /// The request went wrong on the way: connection refused, timeout, TLS, a broken answer.
    Failed(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Blocked(reason) => write!(f, "URL is blocked: {reason}"),
            Failure::Failed(reason) => f.write_str(reason),
        }
    }
}

/// An answer: status, headers as sent, the body up to [`BODY_MAX`] bytes.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// The most of an answer's body kept (GitLab logs 8 KB of it).
pub const BODY_MAX: usize = 8 * 1024;
/// The most of an answer's head read.
const HEAD_MAX: usize = 64 * 1024;

/// A URL checked and its address chosen: where the request goes.
#[derive(Debug, Clone)]
pub struct Checked {
    pub url: Url,
    pub address: SocketAddr,
}

impl Rules {
    fn allowlisted_name(&self, name: &str) -> bool {
        self.allowlist.iter().any(|entry| {
            let entry = entry.trim().to_ascii_lowercase();
            match entry.strip_prefix("*.") {
                Some(suffix) => name.ends_with(&format!(".{suffix}")),
                None => entry == name,
            }
        })
    }

    fn allowlisted_ip(&self, ip: IpAddr) -> bool {
        self.allowlist.iter().filter_map(|entry| Cidr::parse(entry.trim()).ok()).any(|c| c.contains(ip))
    }

    /// Whether `url` may be saved on a hook: parsed, and, when its host resolves, no address it
    /// resolves to refused (a name that does not resolve now is accepted, as GitLab accepts
    /// it; delivery checks again).
    pub fn validate(&self, text: &str) -> Result<Url, Failure> {
        let url = url::parse(text).map_err(|r| Failure::Blocked(r.into()))?;
        match self.resolve(&url) {
            Ok(_) => Ok(url),
            Err(Failure::Failed(_)) => Ok(url),
            Err(blocked) => Err(blocked),
        }
    }

    /// Parses `text`, resolves its host once and checks every address: the address to connect
    /// to, or why not.
    pub fn check(&self, text: &str) -> Result<Checked, Failure> {
        let url = url::parse(text).map_err(|r| Failure::Blocked(r.into()))?;
        let address = self.resolve(&url)?;
        Ok(Checked { url, address })
    }

    fn resolve(&self, url: &Url) -> Result<SocketAddr, Failure> {
        let addresses: Vec<SocketAddr> = match &url.host {
            Host::Ip(ip) => vec![SocketAddr::new(*ip, url.port)],
            Host::Name(name) => (name.as_str(), url.port)
                .to_socket_addrs()
                .map_err(|_| Failure::Failed("Host cannot be resolved or invalid".into()))?
                .collect(),
        };
        let first = *addresses.first().ok_or_else(|| Failure::Failed("Host cannot be resolved or invalid".into()))?;
        let name_allowed = matches!(&url.host, Host::Name(n) if self.allowlisted_name(n))
            || matches!(&url.host, Host::Ip(ip) if self.allowlisted_name(&ip.to_string()));
        if !(self.allow_local_requests || name_allowed) {
            for address in &addresses {
                if self.allowlisted_ip(address.ip()) {
                    continue;
                }
                if let Some(reason) = address::refused(address.ip()) {
                    return Err(Failure::Blocked(reason.into()));
                }
            }
        }
        Ok(first)
    }

    /// Sends `POST` with `headers` and `body` to `text`, checked as [`Rules::check`] says, and
    /// reads the answer. `verify_tls` is the hook's `enable_ssl_verification`.
    pub fn post(
        &self,
        text: &str,
        headers: &[(String, String)],
        body: &[u8],
        verify_tls: bool,
    ) -> Result<Answer, Failure> {
        let checked = self.check(text)?;
        self.send(&checked, headers, body, verify_tls)
    }

    /// Sends to an address already checked.
    pub fn send(
        &self,
        checked: &Checked,
        headers: &[(String, String)],
        body: &[u8],
        verify_tls: bool,
    ) -> Result<Answer, Failure> {
        let url = &checked.url;
        for (name, value) in headers {
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_graphic() && b != b':') {
                return Err(Failure::Failed(format!("invalid header name {name:?}")));
            }
            if value.bytes().any(|b| matches!(b, b'\r' | b'\n' | 0)) {
                return Err(Failure::Failed(format!("header {name} contains a line break or NUL")));
            }
        }
        let mut head = format!("POST {} HTTP/1.1\r\nHost: {}\r\n", url.target, url.host_header());
        if let Some((user, password)) = &url.userinfo {
            use base64::Engine;
            let encoded = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
            head.push_str(&format!("Authorization: Basic {encoded}\r\n"));
        }
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str(&format!("Content-Length: {}\r\nConnection: close\r\n\r\n", body.len()));
        let failed = |what: &str, e: std::io::Error| Failure::Failed(format!("{what}: {e}"));
        let tcp = TcpStream::connect_timeout(&checked.address, self.connect_timeout)
            .map_err(|e| failed("Failed to open TCP connection", e))?;
        let deadline = Instant::now() + self.timeout;
        let mut stream = if url.https {
            let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
            tcp.set_read_timeout(Some(left)).map_err(|e| failed("socket", e))?;
            tcp.set_write_timeout(Some(left)).map_err(|e| failed("socket", e))?;
            tls::connect(tcp, &url.host, verify_tls, &self.extra_roots).map_err(Failure::Failed)?
        } else {
            tls::Stream::Plain(tcp)
        };
        let left = || {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                Err(Failure::Failed("Net::ReadTimeout: the receiver took too long".into()))
            } else {
                Ok(left)
            }
        };
        let _ = stream.tcp().set_nodelay(true);
        stream.tcp().set_write_timeout(Some(left()?)).map_err(|e| failed("socket", e))?;
        stream.write_all(head.as_bytes()).map_err(|e| failed("sending", e))?;
        stream.write_all(body).map_err(|e| failed("sending", e))?;
        let mut buffer = Vec::new();
        let mut chunk = [0u8; 8192];
        let head_end = loop {
            if let Some(at) = find(&buffer, b"\r\n\r\n") {
                break at;
            }
            if buffer.len() > HEAD_MAX {
                return Err(Failure::Failed("the answer's head is too large".into()));
            }
            stream.tcp().set_read_timeout(Some(left()?)).map_err(|e| failed("socket", e))?;
            let n = stream.read(&mut chunk).map_err(|e| timeout_or(e, "reading the answer"))?;
            if n == 0 {
                return Err(Failure::Failed("the receiver closed the connection without an answer".into()));
            }
            buffer.extend_from_slice(&chunk[..n]);
        };
        let head_text = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
        let mut lines = head_text.split("\r\n");
        let status_line = lines.next().unwrap_or("");
        let status = status_line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse::<u16>().ok())
            .filter(|s| (100..1000).contains(s) && status_line.starts_with("HTTP/1."))
            .ok_or_else(|| Failure::Failed(format!("not an HTTP answer: {status_line:?}")))?;
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
            .collect();
        let header = |name: &str| headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str());
        let length = header("content-length").and_then(|v| v.parse::<usize>().ok());
        let chunked = header("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
        let mut raw = buffer[head_end + 4..].to_vec();
        // Read what is needed for BODY_MAX bytes of body, no more: the rest is not kept.
        let wanted = |raw: &[u8]| -> bool {
            if chunked {
                raw.len() < BODY_MAX * 2 && find(raw, b"0\r\n\r\n").is_none()
            } else {
                length.map_or(raw.len() < BODY_MAX, |l| raw.len() < l.min(BODY_MAX))
            }
        };
        while wanted(&raw) && status != 204 && status != 304 {
            let Ok(left) = left() else { break };
            if stream.tcp().set_read_timeout(Some(left)).is_err() {
                break;
            }
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => raw.extend_from_slice(&chunk[..n]),
            }
        }
        let mut body = if chunked { dechunk(&raw) } else { raw };
        body.truncate(length.map_or(BODY_MAX, |l| l.min(BODY_MAX)));
        Ok(Answer { status, headers, body })
    }
}

fn timeout_or(e: std::io::Error, what: &str) -> Failure {
    match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            Failure::Failed("Net::ReadTimeout: the receiver took too long".into())
        }
        _ => Failure::Failed(format!("{what}: {e}")),
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The data of a chunked body, as far as it goes.
fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(line_end) = find(raw, b"\r\n") {
        let size_text = String::from_utf8_lossy(&raw[..line_end]);
        let Ok(size) = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16) else { break };
        if size == 0 {
            break;
        }
        let start = line_end + 2;
        let end = (start + size).min(raw.len());
        out.extend_from_slice(&raw[start..end]);
        if end + 2 > raw.len() {
            break;
        }
        raw = &raw[end + 2..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_joined() {
        assert_eq!(dechunk(b"3\r\nabc\r\n2;x\r\nde\r\n0\r\n\r\n"), b"abcde");
    }

    #[test]
    fn the_allowlist_lets_names_and_blocks_through() {
        let rules = Rules { allowlist: vec!["127.0.0.0/8".into(), "*.internal".into()], ..Rules::default() };
        assert!(rules.check("http://127.0.0.1:9/").is_ok());
        assert!(rules.check("http://[::ffff:127.0.0.2]:9/").is_ok());
        assert!(matches!(rules.check("http://10.0.0.1/"), Err(Failure::Blocked(_))));
        let strict = Rules::default();
        for url in ["http://127.0.0.1/", "http://2130706433/", "http://0x7f.1/", "http://[::ffff:127.0.0.1]/"] {
            assert_eq!(
                strict.check(url).map(|_| ()),
                Err(Failure::Blocked("Requests to loopback addresses are not allowed".into())),
                "{url}"
            );
        }
        assert!(matches!(strict.check("http://localhost/"), Err(Failure::Blocked(_))));
    }
}
