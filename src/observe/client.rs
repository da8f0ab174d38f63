//! The client's address, computed once per request and used everywhere the core needs it
//! (request records, the monitoring allowlist, the anonymous rate limit).
//!
//! The peer address comes from the host (the connection's, which a client cannot forge).
//! `X-Forwarded-For` counts only when that peer is one of the configured trusted proxies; it is
//! then read from the right, as Rails' `RemoteIp` does: each trusted proxy appended the address
//! it saw, so the rightmost address that is not a trusted proxy is the client. Anything to the
//! left of it was written by the client and may be forged.

use serde::Deserialize;
use std::net::IpAddr;

/// An address block (`10.0.0.0/8`, `::1/128`, or one address). IPv4 addresses mapped into IPv6
/// (`::ffff:10.1.2.3`) are compared as the IPv4 addresses they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub struct Cidr {
    network: IpAddr,
    prefix: u8,
}

impl TryFrom<String> for Cidr {
    type Error = String;

    fn try_from(text: String) -> Result<Cidr, String> {
        Cidr::parse(&text)
    }
}

/// `addr` with IPv4-mapped IPv6 addresses as the IPv4 address.
fn canonical(addr: IpAddr) -> IpAddr {
    match addr {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(addr, IpAddr::V4),
        v4 => v4,
    }
}

impl Cidr {
    pub fn parse(text: &str) -> Result<Cidr, String> {
        let invalid = || format!("{text:?} is not an address or an address block (10.0.0.0/8, ::1/128)");
        let (addr, prefix) = match text.split_once('/') {
            Some((addr, prefix)) => (addr, Some(prefix)),
            None => (text, None),
        };
        let network: IpAddr = addr.trim().parse().map_err(|_| invalid())?;
        let network = canonical(network);
        let max = if network.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => max,
            Some(p) => p.trim().parse::<u8>().ok().filter(|p| *p <= max).ok_or_else(invalid)?,
        };
        Ok(Cidr { network, prefix })
    }

    pub fn contains(&self, addr: IpAddr) -> bool {
        match (self.network, canonical(addr)) {
            (IpAddr::V4(net), IpAddr::V4(a)) => {
                prefix_eq(u128::from(u32::from(net)) << 96, u128::from(u32::from(a)) << 96, self.prefix)
            }
            (IpAddr::V6(net), IpAddr::V6(a)) => prefix_eq(u128::from(net), u128::from(a), self.prefix),
            _ => false,
        }
    }
}

/// Whether the top `prefix` bits of `a` and `b` agree.
fn prefix_eq(a: u128, b: u128, prefix: u8) -> bool {
    prefix == 0 || (a ^ b) >> (128 - u32::from(prefix)) == 0
}

/// Whether any block of `list` holds `addr`.
pub fn listed(list: &[Cidr], addr: IpAddr) -> bool {
    list.iter().any(|c| c.contains(addr))
}

/// One `X-Forwarded-For` element: an address, perhaps with a port (`1.2.3.4:5`, `[::1]:5`).
fn forwarded_address(text: &str) -> Option<IpAddr> {
    let text = text.trim();
    if let Ok(addr) = text.parse::<IpAddr>() {
        return Some(addr);
    }
    if let Some(rest) = text.strip_prefix('[') {
        return rest.split_once(']').and_then(|(addr, _)| addr.parse().ok());
    }
    text.rsplit_once(':').and_then(|(addr, _)| addr.parse().ok())
}

/// The client's address: the peer's, unless the peer is a trusted proxy, in which case the
/// rightmost `X-Forwarded-For` address that is not a trusted proxy (or the leftmost one, when
/// all are). `forwarded` holds every `X-Forwarded-For` header value in order. An element that
/// is not an address ends the walk there: what is left of it cannot be trusted.
pub fn client_address<'h>(
    peer: Option<IpAddr>,
    forwarded: impl Iterator<Item = &'h str>,
    trusted: &[Cidr],
) -> Option<IpAddr> {
    let peer = canonical(peer?);
    if !listed(trusted, peer) {
        return Some(peer);
    }
    let hops: Vec<&str> = forwarded.flat_map(|value| value.split(',')).collect();
    let mut client = peer;
    for hop in hops.iter().rev() {
        let Some(addr) = forwarded_address(hop) else { break };
        client = canonical(addr);
        if !listed(trusted, client) {
            break;
        }
    }
    Some(client)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn blocks_hold_what_they_should() {
        let v4 = Cidr::parse("10.0.0.0/8").unwrap();
        assert!(v4.contains(ip("10.200.1.2")) && v4.contains(ip("::ffff:10.1.1.1")));
        assert!(!v4.contains(ip("11.0.0.1")) && !v4.contains(ip("::1")));
        let one = Cidr::parse("::1").unwrap();
        assert!(one.contains(ip("::1")) && !one.contains(ip("::2")));
        assert!(Cidr::parse("0.0.0.0/0").unwrap().contains(ip("203.0.113.9")));
        for bad in ["10.0.0.0/33", "::/129", "example.com", "10.0.0.0/x", ""] {
            assert!(Cidr::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn forwarded_for_counts_only_from_trusted_proxies() {
        let trusted = [Cidr::parse("10.0.0.0/8").unwrap()];
        let xff = ["198.51.100.1, 203.0.113.9, 10.0.0.2"];
        // An untrusted peer: its header is ignored.
        assert_eq!(client_address(Some(ip("192.0.2.7")), xff.into_iter(), &trusted), Some(ip("192.0.2.7")));
        // A trusted one: the rightmost untrusted hop; the forged 198.51.100.1 is not taken.
        assert_eq!(client_address(Some(ip("10.0.0.1")), xff.into_iter(), &trusted), Some(ip("203.0.113.9")));
        // No trusted proxies configured (the default): the peer, whatever the header says.
        assert_eq!(client_address(Some(ip("10.0.0.1")), xff.into_iter(), &[]), Some(ip("10.0.0.1")));
        // Every hop trusted: the leftmost. Ports and brackets are read; garbage ends the walk.
        assert_eq!(client_address(Some(ip("10.0.0.1")), ["10.9.9.9:80"].into_iter(), &trusted), Some(ip("10.9.9.9")));
        assert_eq!(
            client_address(Some(ip("10.0.0.1")), ["[2001:db8::1]:443"].into_iter(), &trusted),
            Some(ip("2001:db8::1"))
        );
        assert_eq!(client_address(Some(ip("10.0.0.1")), ["1.2.3.4, junk"].into_iter(), &trusted), Some(ip("10.0.0.1")));
        assert_eq!(client_address(None, xff.into_iter(), &trusted), None);
    }
}
