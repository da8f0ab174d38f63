//! A plain HTTP/1.1 server over the core's door for tests that drive real clients (git) at a
//! context: one request per connection, the body fed to the core as it arrives (chunked or by
//! `Content-Length`), the answer written as the core gives it (streamed bodies chunked).

use forgecore::http::call::{self, Opened};
use forgecore::http::meta::Meta;
use forgecore::response::Body;
use forgecore::Context;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;

/// Reads one request (head, then the body as the core takes it) and writes the answer.
pub fn serve_connection(ctx: &Context, stream: TcpStream) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else { return Ok(()) };
    let (method, target) = (method.to_string(), target.to_string());
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header)?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_string(), value.trim().to_string()));
        }
    }
    let find = |name: &str| headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone());
    let chunked = find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
    let length: u64 = find("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
    let response = match call::open(ctx, Meta::default(), &method, &target, headers) {
        Opened::Answer(response) => response,
        Opened::Body(mut sink) => {
            let mut early = None;
            let mut piece = vec![0u8; 64 * 1024];
            let mut feed = |data: &[u8], early: &mut Option<forgecore::Response>| -> bool {
                if early.is_none() {
                    *early = sink.write(ctx, data);
                }
                early.is_none()
            };
            if chunked {
                loop {
                    let mut size = String::new();
                    reader.read_line(&mut size)?;
                    let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or(""), 16).unwrap_or(0);
                    if size == 0 {
                        let mut end = String::new();
                        reader.read_line(&mut end)?;
                        break;
                    }
                    let mut left = size;
                    while left > 0 {
                        let n = reader.read(&mut piece[..left.min(64 * 1024)])?;
                        if n == 0 {
                            return Ok(());
                        }
                        left -= n;
                        if !feed(&piece[..n], &mut early) {
                            break;
                        }
                    }
                    if early.is_some() {
                        break;
                    }
                    let mut crlf = [0u8; 2];
                    reader.read_exact(&mut crlf)?;
                }
            } else {
                let mut left = length;
                while left > 0 {
                    let n = reader.read(&mut piece[..(left.min(64 * 1024)) as usize])?;
                    if n == 0 {
                        return Ok(());
                    }
                    left -= n as u64;
                    if !feed(&piece[..n], &mut early) {
                        break;
                    }
                }
            }
            match early {
                Some(response) => response,
                None => sink.finish(ctx),
            }
        }
    };
    let mut out = stream;
    let mut head = format!("HTTP/1.1 {} X\r\nConnection: close\r\n", response.status);
    for (name, value) in &response.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    match response.body {
        Body::Bytes(bytes) => {
            head.push_str(&format!("Content-Length: {}\r\n\r\n", bytes.len()));
            out.write_all(head.as_bytes())?;
            out.write_all(&bytes)?;
        }
        Body::Stream(mut reader) => {
            head.push_str("Transfer-Encoding: chunked\r\n\r\n");
            out.write_all(head.as_bytes())?;
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                let n = reader.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                out.write_all(format!("{n:x}\r\n").as_bytes())?;
                out.write_all(&buf[..n])?;
                out.write_all(b"\r\n")?;
            }
            out.write_all(b"0\r\n\r\n")?;
        }
    }
    out.flush()
}
