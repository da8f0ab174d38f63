//! `POST /<project>.git/git-upload-pack`: a fetch's negotiation (inflated when gzip, at most
//! [`MAX_NEGOTIATION_BYTES`](super::MAX_NEGOTIATION_BYTES) after inflation) streamed into
//! `upload-pack --stateless-rpc` as it arrives, and the pack it answers streamed out while the
//! client reads it: memory stays flat whatever the repository's size.

use super::{auth, text, Inflater, Service, Streamed, MAX_NEGOTIATION_BYTES};
use crate::context::Context;
use crate::incoming::{BodySink, Opened};
use crate::response::{Body, Response};
use std::io::Write;
use std::process::ChildStdin;

fn too_large() -> Response {
    text(413, "Request Entity Too Large: a fetch's negotiation is limited to 10 MiB.")
}

/// A fetch by the caller `access` allows (`super::open` asked).
pub fn open(ctx: &Context, access: auth::Access, headers: &[(String, String)]) -> Opened {
    let inflater = match super::prepare(headers, MAX_NEGOTIATION_BYTES, too_large) {
        Ok(inflater) => inflater,
        Err(answer) => return Opened::Answer(answer),
    };
    let env = super::git_protocol(headers).map(|p| ("GIT_PROTOCOL".to_string(), p.into())).into_iter().collect();
    let started = super::start(ctx, &access, Service::UploadPack, &[], env).and_then(|(mut running, slot)| {
        let stdin = running.stdin.take();
        super::stream_out(running, slot, Vec::new()).map(|body| (stdin, body))
    });
    match started {
        Ok((stdin, body)) => super::sink(UploadPack { inflater, stdin, received: 0, body }),
        Err(answer) => Opened::Answer(answer),
    }
}

/// The body on its way into upload-pack.
struct UploadPack {
    inflater: Inflater,
    /// `None` once upload-pack stopped reading (it failed; its answer says why).
    stdin: Option<ChildStdin>,
    received: u64,
    body: Streamed,
}

impl UploadPack {
    fn take(stdin: &mut Option<ChildStdin>, received: &mut u64, data: &[u8]) -> Result<(), Response> {
        *received += data.len() as u64;
        if *received > MAX_NEGOTIATION_BYTES {
            return Err(too_large());
        }
        if let Some(pipe) = stdin.as_mut() {
            if pipe.write_all(data).is_err() {
                *stdin = None;
            }
        }
        Ok(())
    }
}

impl BodySink for UploadPack {
    fn write(&mut self, _ctx: &Context, piece: &[u8]) -> Option<Response> {
        let (stdin, received) = (&mut self.stdin, &mut self.received);
        self.inflater.feed(piece, |data| UploadPack::take(stdin, received, data)).err()
    }

    fn finish(mut self: Box<Self>, _ctx: &Context) -> Response {
        let (stdin, received) = (&mut self.stdin, &mut self.received);
        if let Err(answer) = self.inflater.finish(|data| UploadPack::take(stdin, received, data)) {
            return answer;
        }
        drop(self.stdin.take());
        super::no_cache(Response {
            status: 200,
            headers: vec![("Content-Type".into(), "application/x-git-upload-pack-result".into())],
            body: Body::Stream(Box::new(self.body)),
        })
    }
}
