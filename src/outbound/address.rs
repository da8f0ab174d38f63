//! Which addresses an outbound request may reach (GitLab's `UrlBlocker`): every address a host
//! name resolves to is checked, and one refused address refuses the URL. IPv4 addresses mapped
//! into IPv6 are checked as the IPv4 addresses they are.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, UdpSocket};

/// Why `ip` may not be reached without `allow_local_requests`, in GitLab's words; `None`: it
/// is a public address.
pub fn refused(ip: IpAddr) -> Option<&'static str> {
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    let reason = match ip {
        IpAddr::V4(v4) => refused_v4(v4),
        IpAddr::V6(v6) => refused_v6(v6),
    };
    // Last, one of this host's own addresses (GitLab asks the interfaces): an address a socket
    // can be bound to is this host's. Binding sends nothing.
    reason.or_else(|| UdpSocket::bind((ip, 0)).is_ok().then_some(LOCALHOST))
}

const LOCALHOST: &str = "Requests to localhost are not allowed";

fn refused_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    Some(if ip.is_unspecified() || a == 0 {
        LOCALHOST
    } else if ip.is_loopback() {
        "Requests to loopback addresses are not allowed"
    } else if ip.is_private() {
        "Requests to the local network are not allowed"
    } else if ip.is_link_local() {
        "Requests to the link local network are not allowed"
    } else if a == 100 && (64..128).contains(&b) {
        "Requests to the shared address space are not allowed"
    } else if ip.is_broadcast() {
        "Requests to the limited broadcast address are not allowed"
    } else if ip.is_multicast() || a >= 240 {
        "Requests to multicast or reserved addresses are not allowed"
    } else {
        return None;
    })
}

fn refused_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let first = ip.segments()[0];
    Some(if ip.is_unspecified() {
        LOCALHOST
    } else if ip.is_loopback() {
        "Requests to loopback addresses are not allowed"
    } else if first & 0xffc0 == 0xfec0 || first & 0xfe00 == 0xfc00 {
        "Requests to the local network are not allowed"
    } else if first & 0xffc0 == 0xfe80 {
        "Requests to the link local network are not allowed"
    } else if first & 0xff00 == 0xff00 {
        "Requests to multicast or reserved addresses are not allowed"
    } else if let Some(v4) = embedded_v4(ip) {
        // IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`)
        // addresses carry an IPv4 address a gateway may reach: checked as it.
        return refused_v4(v4);
    } else {
        return None;
    })
}

fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let o = ip.octets();
    if s[..6] == [0; 6] || (s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0; 4]) {
        Some(Ipv4Addr::new(o[12], o[13], o[14], o[15]))
    } else if s[0] == 0x2002 {
        Some(Ipv4Addr::new(o[2], o[3], o[4], o[5]))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_local_form_is_refused_with_gitlabs_reason() {
        let cases = [
            ("127.0.0.1", "loopback"),
            ("127.9.9.9", "loopback"),
            ("::1", "loopback"),
            ("::ffff:127.0.0.1", "loopback"),
            ("0.0.0.0", "localhost"),
            ("::", "localhost"),
            ("10.1.2.3", "local network"),
            ("172.16.0.1", "local network"),
            ("192.168.1.1", "local network"),
            ("fd00::1", "local network"),
            ("fec0::1", "local network"),
            ("169.254.169.254", "link local"),
            ("::ffff:169.254.169.254", "link local"),
            ("fe80::1", "link local"),
            ("100.64.0.1", "shared address"),
            ("255.255.255.255", "broadcast"),
            ("224.0.0.1", "multicast"),
            ("ff02::1", "multicast"),
            ("64:ff9b::7f00:1", "loopback"),
            ("2002:7f00:1::", "loopback"),
        ];
        for (ip, reason) in cases {
            let got = refused(ip.parse().unwrap());
            assert!(got.is_some_and(|r| r.contains(reason)), "{ip}: {got:?}");
        }
        assert_eq!(refused("93.184.216.34".parse().unwrap()), None);
        assert_eq!(refused("2606:2800:220:1:248:1893:25c8:1946".parse().unwrap()), None);
    }
}
