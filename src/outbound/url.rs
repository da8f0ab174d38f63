//! Outbound URLs as GitLab's `UrlBlocker` reads them: `http` or `https`, a host (a name, an
//! IPv4 address in any spelling a resolver or browser accepts, or a bracketed IPv6 address), an
//! optional port, userinfo (sent as Basic authentication, never on the request line). Every
//! numeric spelling of an IPv4 address (`2130706433`, `0x7f.1`, `0177.0.0.1`) is read as the
//! address it means, so that it is checked as that address.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Host {
    Ip(IpAddr),
    Name(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    pub https: bool,
    pub host: Host,
    pub port: u16,
    /// Path and query, starting with `/`.
    pub target: String,
    /// `user:password`, percent-decoded.
    pub userinfo: Option<(String, String)>,
}

impl Url {
    /// The `Host` header: the host as written (IPv6 in brackets), with a port that is not the
    /// scheme's.
    pub fn host_header(&self) -> String {
        let host = match &self.host {
            Host::Ip(IpAddr::V6(v6)) => format!("[{v6}]"),
            Host::Ip(ip) => ip.to_string(),
            Host::Name(name) => name.clone(),
        };
        let default = if self.https { 443 } else { 80 };
        if self.port == default {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }

    /// The host's name for TLS and for the allowlist.
    pub fn host_name(&self) -> String {
        match &self.host {
            Host::Ip(ip) => ip.to_string(),
            Host::Name(name) => name.clone(),
        }
    }
}

fn percent_decode(text: &str) -> Option<String> {
    percent_encoding::percent_decode_str(text).decode_utf8().ok().map(|s| s.into_owned())
}

/// Parses `text`; the error is GitLab's reason.
pub fn parse(text: &str) -> Result<Url, &'static str> {
    const INVALID: &str = "URI is invalid";
    if text.is_empty() || text.chars().any(|c| c.is_control() || c == ' ') {
        return Err(INVALID);
    }
    let (scheme, rest) = text.split_once("://").ok_or(INVALID)?;
    let https = match scheme.to_ascii_lowercase().as_str() {
        "http" => false,
        "https" => true,
        s if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) => {
            return Err("Only allowed schemes are http, https")
        }
        _ => return Err(INVALID),
    };
    let end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    if tail.starts_with('\\') {
        return Err(INVALID);
    }
    let tail = tail.split('#').next().unwrap_or("");
    let target = if tail.is_empty() {
        "/".to_string()
    } else if tail.starts_with('?') {
        format!("/{tail}")
    } else {
        tail.to_string()
    };
    let (userinfo, hostport) = match authority.rsplit_once('@') {
        Some((info, hostport)) => {
            let (user, password) = info.split_once(':').unwrap_or((info, ""));
            (Some((percent_decode(user).ok_or(INVALID)?, percent_decode(password).ok_or(INVALID)?)), hostport)
        }
        None => (None, authority),
    };
    let (host, port) = if let Some(bracketed) = hostport.strip_prefix('[') {
        let (v6, after) = bracketed.split_once(']').ok_or(INVALID)?;
        let ip: Ipv6Addr = v6.parse().map_err(|_| "Hostname or IP address invalid")?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':').ok_or(INVALID)?),
        };
        (Host::Ip(IpAddr::V6(ip)), port)
    } else {
        let (host, port) = match hostport.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (hostport, None),
        };
        (host_of(host)?, port)
    };
    let default = if https { 443 } else { 80 };
    let port = match port {
        None | Some("") => default,
        Some(p) if p.bytes().all(|b| b.is_ascii_digit()) => p.parse::<u16>().map_err(|_| INVALID)?,
        Some(_) => return Err(INVALID),
    };
    Ok(Url { https, host, port, target, userinfo })
}

fn host_of(raw: &str) -> Result<Host, &'static str> {
    const HOST_INVALID: &str = "Hostname or IP address invalid";
    if raw.len() > 1024 {
        return Err("Host is too long (maximum is 1024 characters)");
    }
    let host = percent_decode(raw).ok_or(HOST_INVALID)?.to_ascii_lowercase();
    let host = host.strip_suffix('.').unwrap_or(&host).to_string();
    if host.is_empty()
        || host.starts_with('.')
        || host.contains("..")
        || !host.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_')
    {
        return Err(HOST_INVALID);
    }
    // A host whose last label is a number is an IPv4 address (the URL standard's rule, and
    // what inet_aton makes of it): read it so, or refuse it.
    let last = host.rsplit('.').next().unwrap_or("");
    if numeric(last).is_some() || last.bytes().all(|b| b.is_ascii_digit()) {
        return ipv4(&host).map(|v4| Host::Ip(IpAddr::V4(v4))).ok_or(HOST_INVALID);
    }
    Ok(Host::Name(host))
}

/// A decimal, octal (`0` prefix) or hexadecimal (`0x` prefix) number.
fn numeric(part: &str) -> Option<u64> {
    if part.is_empty() || part.len() > 32 {
        return None;
    }
    if let Some(hex) = part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
        return if hex.is_empty() { Some(0) } else { u64::from_str_radix(hex, 16).ok() };
    }
    if part.len() > 1 && part.starts_with('0') {
        return u64::from_str_radix(&part[1..], 8).ok();
    }
    part.parse().ok()
}

/// An IPv4 address in inet_aton's spellings: `a.b.c.d`, `a.b.c` (c: 16 bits), `a.b` (b: 24
/// bits), `a` (32 bits), each part decimal, octal or hexadecimal.
fn ipv4(host: &str) -> Option<Ipv4Addr> {
    let parts: Vec<u64> = host.split('.').map(numeric).collect::<Option<_>>()?;
    let (last, first) = parts.split_last()?;
    if first.len() > 3 || first.iter().any(|&p| p > 255) {
        return None;
    }
    let room = 8 * (4 - first.len() as u32);
    if *last >= 1u64 << room {
        return None;
    }
    let mut value: u64 = 0;
    for (i, part) in first.iter().enumerate() {
        value |= part << (24 - 8 * i as u32);
    }
    Some(Ipv4Addr::from((value | last) as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        match parse(text).unwrap().host {
            Host::Ip(ip) => ip,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn odd_spellings_of_addresses_are_the_addresses() {
        let loopback: IpAddr = "127.0.0.1".parse().unwrap();
        for text in [
            "http://2130706433/",
            "http://0x7f.1/",
            "http://0177.0.0.1/",
            "http://0x7f000001/",
            "http://127.1/",
            "http://127.0.1/",
            "http://%31%32%37.0.0.1/",
            "http://127.0.0.1./",
        ] {
            assert_eq!(ip(text), loopback, "{text}");
        }
        assert_eq!(ip("http://[::ffff:127.0.0.1]:8080/x"), "::ffff:127.0.0.1".parse::<IpAddr>().unwrap());
        assert_eq!(parse("http://256.0.0.1/"), Err("Hostname or IP address invalid"));
        assert_eq!(parse("http://1.2.3.4.5/"), Err("Hostname or IP address invalid"));
    }

    #[test]
    fn parts_of_a_url() {
        let url = parse("https://u%40x:p@Example.COM:8443/a/b?c=d#frag").unwrap();
        assert!(url.https);
        assert_eq!(url.host, Host::Name("example.com".into()));
        assert_eq!(url.port, 8443);
        assert_eq!(url.target, "/a/b?c=d");
        assert_eq!(url.userinfo, Some(("u@x".into(), "p".into())));
        assert_eq!(url.host_header(), "example.com:8443");
        assert_eq!(parse("http://example.com").unwrap().target, "/");
        assert_eq!(parse("ftp://example.com/"), Err("Only allowed schemes are http, https"));
        assert_eq!(parse("http://exa mple.com/"), Err("URI is invalid"));
        assert_eq!(parse("http://example.com/\r\nX: y"), Err("URI is invalid"));
        assert_eq!(parse("example.com"), Err("URI is invalid"));
        assert_eq!(parse("http://:80/"), Err("Hostname or IP address invalid"));
    }
}
