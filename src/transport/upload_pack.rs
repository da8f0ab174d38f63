//! `POST /<project>.git/git-upload-pack`: a fetch's negotiation (inflated when gzip, at most
//! [`MAX_NEGOTIATION_BYTES`](super::MAX_NEGOTIATION_BYTES) after inflation) taken whole first
//! ([`Spool`]), as GitLab's Workhorse buffered it before it streamed to Gitaly, so that a slow
//! client holds none of the repository's places; then `upload-pack --stateless-rpc` starts on it,
//! and the pack it answers streams out while the client reads it: memory stays flat whatever the
//! repository's size.

use super::spool::{bodies_dir, Spool};
use super::{auth, text, Inflater, Service, MAX_NEGOTIATION_BYTES};
use crate::context::Context;
use crate::incoming::{BodySink, Opened};
use crate::response::{Body, Response};

fn too_large() -> Response {
    text(413, "Request Entity Too Large: a fetch's negotiation is limited to 10 MiB.")
}

/// A fetch by the caller `access` allows (`super::open` asked).
pub fn open(ctx: &Context, access: auth::Access, headers: &[(String, String)]) -> Opened {
    let inflater = match super::prepare(headers, MAX_NEGOTIATION_BYTES, too_large) {
        Ok(inflater) => inflater,
        Err(answer) => return Opened::Answer(answer),
    };
    let protocol = super::git_protocol(headers);
    let body = Spool::new(bodies_dir(&ctx.config.data_dir));
    super::sink(UploadPack { access, protocol, inflater, body, received: 0 })
}

/// The negotiation on its way in.
struct UploadPack {
    access: auth::Access,
    protocol: Option<String>,
    inflater: Inflater,
    body: Spool,
    received: u64,
}

impl UploadPack {
    fn take(body: &mut Spool, received: &mut u64, data: &[u8]) -> Result<(), Response> {
        *received += data.len() as u64;
        if *received > MAX_NEGOTIATION_BYTES {
            return Err(too_large());
        }
        body.write(data).map_err(|_| super::unbuffered())
    }
}

impl BodySink for UploadPack {
    fn write(&mut self, _ctx: &Context, piece: &[u8]) -> Option<Response> {
        let (body, received) = (&mut self.body, &mut self.received);
        self.inflater.feed(piece, |data| UploadPack::take(body, received, data)).err()
    }

    fn finish(mut self: Box<Self>, ctx: &Context) -> Response {
        let (body, received) = (&mut self.body, &mut self.received);
        if let Err(answer) = self.inflater.finish(|data| UploadPack::take(body, received, data)) {
            return answer;
        }
        // The negotiation is whole: only now does upload-pack start, holding a place.
        let UploadPack { access, protocol, body, .. } = *self;
        let env = protocol.map(|p| ("GIT_PROTOCOL".to_string(), p.into())).into_iter().collect();
        let (mut running, slot) = match super::start(ctx, &access, Service::UploadPack, &[], env) {
            Ok(started) => started,
            Err(answer) => return answer,
        };
        let mut stdin = running.stdin.take();
        let out = match super::stream_out(running, slot, Vec::new()) {
            Ok(out) => out,
            Err(answer) => return answer,
        };
        // Dropping `out` unread ends upload-pack: a negotiation that cannot be read back whole
        // is never fetched from.
        if body.feed(&mut stdin).is_err() {
            return super::unbuffered();
        }
        drop(stdin);
        super::no_cache(Response {
            status: 200,
            headers: vec![("Content-Type".into(), "application/x-git-upload-pack-result".into())],
            body: Body::Stream(Box::new(out)),
        })
    }
}
