//! TLS for `https` deliveries: rustls over the TCP connection the door already opened to the
//! checked address (the address is never looked up again; the URL's host name is only the SNI
//! name and the name the certificate must carry). Verification is on unless the hook's
//! `enable_ssl_verification` is false; it trusts Mozilla's roots (webpki-roots) and any
//! certificates the door's rules add ([`super::Rules::extra_roots`]).

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, ClientConnection, DigitallySignedStruct, RootCertStore, SignatureScheme, StreamOwned};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, OnceLock};

/// A connection to the receiver: plain or TLS, over one TCP stream.
pub enum Stream {
    Plain(TcpStream),
    Tls(Box<StreamOwned<ClientConnection, TcpStream>>),
}

impl Stream {
    /// The TCP stream under it, for timeouts.
    pub fn tcp(&self) -> &TcpStream {
        match self {
            Stream::Plain(s) => s,
            Stream::Tls(s) => &s.sock,
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Plain(s) => s.read(buf),
            Stream::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Stream::Plain(s) => s.write(buf),
            Stream::Tls(s) => s.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Stream::Plain(s) => s.flush(),
            Stream::Tls(s) => s.flush(),
        }
    }
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn config(verify: bool, extra_roots: &[Vec<u8>]) -> Result<Arc<ClientConfig>, String> {
    static VERIFIED: OnceLock<Arc<ClientConfig>> = OnceLock::new();
    static UNVERIFIED: OnceLock<Arc<ClientConfig>> = OnceLock::new();
    let build = |verify: bool, extra: &[Vec<u8>]| -> Result<Arc<ClientConfig>, String> {
        let builder = ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS setup: {e}"))?;
        let config = if verify {
            let mut roots = RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
            for der in extra {
                roots
                    .add(CertificateDer::from(der.clone()))
                    .map_err(|e| format!("TLS setup: a configured CA certificate is unusable: {e}"))?;
            }
            builder.with_root_certificates(roots).with_no_client_auth()
        } else {
            builder.dangerous().with_custom_certificate_verifier(Arc::new(Unverified(provider()))).with_no_client_auth()
        };
        Ok(Arc::new(config))
    };
    match (verify, extra_roots.is_empty()) {
        (false, _) => {
            if let Some(c) = UNVERIFIED.get() {
                return Ok(c.clone());
            }
            let c = build(false, &[])?;
            Ok(UNVERIFIED.get_or_init(|| c).clone())
        }
        (true, true) => {
            if let Some(c) = VERIFIED.get() {
                return Ok(c.clone());
            }
            let c = build(true, &[])?;
            Ok(VERIFIED.get_or_init(|| c).clone())
        }
        (true, false) => build(true, extra_roots),
    }
}

/// Runs the TLS handshake over `tcp` for `host` (SNI and the name checked): the stream, or
/// GitLab-like text for the hook's log (`SSL_connect ... certificate verify failed`).
pub fn connect(
    tcp: TcpStream,
    host: &super::url::Host,
    verify: bool,
    extra_roots: &[Vec<u8>],
) -> Result<Stream, String> {
    let name = match host {
        super::url::Host::Name(n) => {
            ServerName::try_from(n.clone()).map_err(|_| format!("SSL_connect: invalid server name {n:?}"))?
        }
        super::url::Host::Ip(ip) => ServerName::IpAddress((*ip).into()),
    };
    let mut conn =
        ClientConnection::new(config(verify, extra_roots)?, name).map_err(|e| format!("SSL_connect: {e}"))?;
    let mut tcp = tcp;
    while conn.is_handshaking() {
        if let Err(e) = conn.complete_io(&mut tcp) {
            let text = match e.get_ref().and_then(|inner| inner.downcast_ref::<rustls::Error>()) {
                Some(rustls::Error::InvalidCertificate(why)) => {
                    format!("SSL_connect returned=1 errno=0 state=error: certificate verify failed ({why:?})")
                }
                Some(other) => format!("SSL_connect returned=1 errno=0 state=error: {other}"),
                None => format!("SSL_connect: {e}"),
            };
            return Err(text);
        }
    }
    Ok(Stream::Tls(Box::new(StreamOwned::new(conn, tcp))))
}

/// `enable_ssl_verification: false`: any certificate is taken, signatures still checked.
#[derive(Debug)]
struct Unverified(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for Unverified {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Failure, Rules};
    use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
    use std::io::{Read, Write};
    use std::net::TcpListener;
    use std::sync::Arc;

    /// A TLS receiver on loopback with a fresh self-signed certificate for `localhost` and
    /// 127.0.0.1: answers each connection `200` and counts the requests it read.
    fn receiver() -> (u16, Vec<u8>, Arc<std::sync::atomic::AtomicUsize>) {
        let key = rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()]).unwrap();
        let cert_der = key.cert.der().to_vec();
        let pkcs8 = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.signing_key.serialize_der()));
        let config = rustls::ServerConfig::builder_with_provider(super::provider())
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![cert_der.clone().into()], pkcs8)
            .unwrap();
        let config = Arc::new(config);
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let served = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = served.clone();
        std::thread::spawn(move || {
            for tcp in listener.incoming() {
                let Ok(mut tcp) = tcp else { continue };
                let Ok(mut conn) = rustls::ServerConnection::new(config.clone()) else { continue };
                let mut tls = rustls::Stream::new(&mut conn, &mut tcp);
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match tls.read(&mut chunk) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                if buf.starts_with(b"POST /hook") {
                    counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let _ = tls.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
                    let _ = tls.flush();
                }
                tls.conn.send_close_notify();
                let _ = tls.flush();
            }
        });
        (port, cert_der, served)
    }

    #[test]
    fn https_verifies_unless_told_not_to() {
        let (port, cert, served) = receiver();
        let rules = Rules { allow_local_requests: true, ..Rules::default() };
        let url = format!("https://localhost:{port}/hook");
        // Verification on: a self-signed certificate is refused, nothing is sent.
        match rules.post(&url, &[], b"{}", true) {
            Err(Failure::Failed(text)) => assert!(text.contains("certificate verify failed"), "{text}"),
            other => panic!("expected a certificate failure, got {other:?}"),
        }
        assert_eq!(served.load(std::sync::atomic::Ordering::SeqCst), 0);
        // Off: delivered.
        let answer = rules.post(&url, &[("X-Gitlab-Event".into(), "Push Hook".into())], b"{}", false).unwrap();
        assert_eq!((answer.status, answer.body.as_slice()), (200, &b"ok"[..]));
        assert_eq!(served.load(std::sync::atomic::Ordering::SeqCst), 1);
        // On, with the certificate trusted by configuration: delivered, and the name checked.
        let trusting = Rules { extra_roots: vec![cert], ..rules.clone() };
        let answer = trusting.post(&url, &[], b"{}", true).unwrap();
        assert_eq!(answer.status, 200);
        assert_eq!(served.load(std::sync::atomic::Ordering::SeqCst), 2);
        let by_address = format!("https://127.0.0.1:{port}/hook");
        assert_eq!(trusting.post(&by_address, &[], b"{}", true).unwrap().status, 200);
        // A host name the certificate does not carry is refused even with the CA trusted.
        let other = trusting.check(&format!("https://localhost:{port}/hook")).unwrap();
        let renamed = super::super::Checked {
            url: super::super::url::parse(&format!("https://forge.invalid:{port}/hook")).unwrap(),
            address: other.address,
        };
        match trusting.send(&renamed, &[], b"{}", true) {
            Err(Failure::Failed(text)) => assert!(text.contains("certificate verify failed"), "{text}"),
            other => panic!("expected a name mismatch, got {other:?}"),
        }
    }
}
