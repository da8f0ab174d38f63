//! `GET /<project>.git/info/refs?service=git-upload-pack|git-receive-pack`: the reference
//! advertisement, `<service> --stateless-rpc --advertise-refs` streamed out, after the
//! `# service=` prelude for protocol v0/v1 (v2 has none, as git-http-backend writes it).

use super::{auth, pkt_line, Service};
use crate::context::Context;
use crate::response::{Body, Response};

/// The advertisement of `service` to the caller `access` allows (`super::open` asked).
pub fn get(ctx: &Context, access: &auth::Access, service: Service, headers: &[(String, String)]) -> Response {
    let protocol = super::git_protocol(headers);
    let mut prelude = Vec::new();
    if !super::is_v2(protocol.as_deref()) {
        prelude.extend(pkt_line(format!("# service={}\n", service.name()).as_bytes()));
        prelude.extend_from_slice(b"0000");
    }
    let env = protocol.map(|p| ("GIT_PROTOCOL".to_string(), p.into())).into_iter().collect();
    let body = super::start(ctx, access, service, &["--advertise-refs"], env).and_then(|(mut running, slot)| {
        drop(running.stdin.take());
        super::stream_out(running, slot, prelude)
    });
    match body {
        Ok(body) => super::no_cache(Response {
            status: 200,
            headers: vec![("Content-Type".into(), format!("application/x-{}-advertisement", service.name()))],
            body: Body::Stream(Box::new(body)),
        }),
        Err(answer) => answer,
    }
}
