//! What the host knows about a request's connection and a client cannot forge: the peer's
//! address and the scheme it was served over. It reaches the core beside the request
//! (`fc_call_open`'s `meta_json`), never in a header a client could set.

use serde_json::Value;
use std::net::{IpAddr, SocketAddr};

/// The scheme the host served the request over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    Http,
    Https,
}

/// The connection's facts as the host saw them; each unknown when the host did not say.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    /// The address of the peer that sent the request (a proxy's, behind one).
    pub peer: Option<IpAddr>,
    pub scheme: Option<Scheme>,
}

impl Meta {
    /// Parses `{"peer_addr": "203.0.113.9" | "203.0.113.9:5123" | "[::1]:8080", "scheme":
    /// "http" | "https"}`; both keys are optional, an empty `peer_addr` is unknown (a Unix
    /// socket's peer). Anything else is refused with a message naming it.
    pub fn from_json(text: &str) -> Result<Meta, String> {
        let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(text) else {
            return Err("meta_json must be a JSON object".into());
        };
        let mut meta = Meta::default();
        for (key, value) in fields {
            match (key.as_str(), value) {
                (_, Value::Null) => {}
                ("peer_addr", Value::String(addr)) => meta.peer = peer_address(&addr)?,
                ("scheme", Value::String(scheme)) => {
                    meta.scheme = Some(match scheme.as_str() {
                        "http" => Scheme::Http,
                        "https" => Scheme::Https,
                        _ => return Err(format!("meta_json scheme {scheme:?} is neither http nor https")),
                    })
                }
                (key, _) => return Err(format!("meta_json has an unknown or mistyped key {key:?}")),
            }
        }
        Ok(meta)
    }
}

/// An address with or without a port (`[v6]:port` bracketed), IPv4-mapped IPv6 as IPv4; an
/// IPv6 zone (`%eth0`, which hosts may add to link-local peers) is dropped.
fn peer_address(text: &str) -> Result<Option<IpAddr>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    let unzoned = match text.find('%') {
        Some(start) => {
            let end = text[start..].find(']').map_or(text.len(), |i| start + i);
            format!("{}{}", &text[..start], &text[end..])
        }
        None => text.to_string(),
    };
    let unbracketed = unzoned.strip_prefix('[').and_then(|t| t.strip_suffix(']')).unwrap_or(&unzoned);
    let ip = unbracketed
        .parse::<IpAddr>()
        .or_else(|_| unzoned.parse::<SocketAddr>().map(|s| s.ip()))
        .map_err(|_| format!("meta_json peer_addr {text:?} is not an IP address"))?;
    Ok(Some(ip.to_canonical()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_with_and_without_ports() {
        let peer = |t: &str| Meta::from_json(&format!(r#"{{"peer_addr": "{t}"}}"#)).map(|m| m.peer);
        assert_eq!(peer("203.0.113.9"), Ok(Some("203.0.113.9".parse().unwrap())));
        assert_eq!(peer("203.0.113.9:5123"), Ok(Some("203.0.113.9".parse().unwrap())));
        assert_eq!(peer("[::1]:8080"), Ok(Some("::1".parse().unwrap())));
        assert_eq!(peer("[::1]"), Ok(Some("::1".parse().unwrap())));
        assert_eq!(peer("::ffff:10.0.0.1"), Ok(Some("10.0.0.1".parse().unwrap())));
        assert_eq!(peer(""), Ok(None));
        assert_eq!(peer("[fe80::1%eth0]:80"), Ok(Some("fe80::1".parse().unwrap())));
        assert_eq!(peer("fe80::1%2"), Ok(Some("fe80::1".parse().unwrap())));
        assert!(peer("example.com").is_err());
    }

    #[test]
    fn schemes_and_unknown_keys() {
        assert_eq!(Meta::from_json("{}"), Ok(Meta::default()));
        assert_eq!(Meta::from_json(r#"{"scheme": "https"}"#).map(|m| m.scheme), Ok(Some(Scheme::Https)));
        assert!(Meta::from_json(r#"{"scheme": "ftp"}"#).is_err());
        assert!(Meta::from_json(r#"{"peer": "1.2.3.4"}"#).is_err());
        assert!(Meta::from_json(r#"{"peer_addr": 5}"#).is_err());
        assert!(Meta::from_json("[]").is_err());
    }
}
