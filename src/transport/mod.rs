//! Git over HTTP (smart protocol, v0/v1 and v2), served by the core on GitLab's routes, outside
//! `/api/v4`:
//! - `GET /<namespace>/<project>.git/info/refs?service=git-upload-pack|git-receive-pack`
//!   ([`info_refs`]);
//! - `POST /<namespace>/<project>.git/git-upload-pack` ([`upload_pack`]);
//! - `POST /<namespace>/<project>.git/git-receive-pack` ([`receive_pack`], with the push policy
//!   of [`policy`]).
//!
//! [`open`] is asked first by `http::call::open`: it answers the requests it owns (at once, or
//! with a [`BodySink`] of its own that takes the body whole, in memory and then an unlinked file
//! ([`spool`]), before git starts on it, so that a slow client holds none of the repository's
//! places; git's stdout goes back through a streamed response), with the user it allowed, whom
//! the request's record names; it leaves every other target to the API. Git's own programs run
//! through `git::command` (the one module that starts them). Who may fetch and push is
//! [`auth`]'s one function, asked once per request; errors are `text/plain`, which git prints as
//! `remote:` lines. No dumb protocol: any other `service` is a 404, as GitLab's Workhorse
//! answers it.

pub mod auth;
pub mod info_refs;
pub mod policy;
pub mod receive_pack;
mod spool;
pub mod upload_pack;

use crate::context::Context;
use crate::git::command::{Running, Spec};
use crate::git::places::Slot;
use crate::incoming::Meta;
use crate::incoming::{BodySink, Opened, Opening};
use crate::response::{stream, Response};
use percent_encoding::percent_decode_str;
use std::io::{Read, Write};
use std::path::PathBuf;

/// Negotiation bodies (upload-pack requests, a push's command list) larger than this after
/// inflation are refused, as git-http-backend's `GIT_HTTP_MAX_REQUEST_BUFFER` default refuses them.
pub const MAX_NEGOTIATION_BYTES: u64 = 10 << 20;

/// The two services of the smart protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Service {
    UploadPack,
    ReceivePack,
}

impl Service {
    pub fn name(self) -> &'static str {
        match self {
            Service::UploadPack => "git-upload-pack",
            Service::ReceivePack => "git-receive-pack",
        }
    }

    /// The git subcommand.
    pub fn subcommand(self) -> &'static str {
        match self {
            Service::UploadPack => "upload-pack",
            Service::ReceivePack => "receive-pack",
        }
    }

    fn from_name(name: &str) -> Option<Service> {
        match name {
            "git-upload-pack" => Some(Service::UploadPack),
            "git-receive-pack" => Some(Service::ReceivePack),
            _ => None,
        }
    }
}

/// One of the routes, with the project's full path (decoded, without `.git`).
#[derive(Debug, PartialEq, Eq)]
enum Route {
    InfoRefs { project: String, service: Option<String> },
    Rpc { project: String, service: Service },
}

/// The route `target` names, if it is one of git's.
fn route(target: &str) -> Option<Route> {
    let target = target.split('#').next().unwrap_or("");
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let (project, rest) = path.strip_prefix('/')?.rsplit_once(".git/")?;
    if project.is_empty() || project.starts_with("api/v4/") {
        return None;
    }
    let project = percent_decode_str(project).decode_utf8().ok()?.into_owned();
    match rest {
        "info/refs" => {
            let service = query
                .split('&')
                .filter_map(|pair| pair.split_once('='))
                .find(|(name, _)| *name == "service")
                .map(|(_, value)| percent_decode_str(value).decode_utf8_lossy().into_owned());
            Some(Route::InfoRefs { project, service })
        }
        "git-upload-pack" => Some(Route::Rpc { project, service: Service::UploadPack }),
        "git-receive-pack" => Some(Route::Rpc { project, service: Service::ReceivePack }),
        _ => None,
    }
}

/// The request's header `name` (lower-case), if present.
fn header<'h>(headers: &'h [(String, String)], name: &str) -> Option<&'h str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// Starts a request if it is one of git's; `None` leaves it to the API. Who calls and what
/// they may do is asked once for every route ([`auth::authorize`]), after what needs no
/// caller; the user it finds goes back with the answer, for the request's record.
pub fn open(ctx: &Context, _meta: &Meta, method: &str, target: &str, headers: &[(String, String)]) -> Option<Opening> {
    let route = route(target)?;
    let at_once = |answer: Response| Some(Opening { opened: Opened::Answer(answer), user: None });
    let (project, service) = match (&route, method) {
        // GitLab denies HEAD on info/refs (`deny_head_requests`).
        (Route::InfoRefs { .. }, "HEAD") => return at_once(text(403, "Forbidden")),
        (Route::InfoRefs { project, service }, "GET") => match service.as_deref().and_then(Service::from_name) {
            Some(service) => (project, service),
            None => return at_once(text(404, "The 'dumb' Git HTTP protocol is not supported")),
        },
        (Route::Rpc { project, service }, "POST") => {
            let expected = format!("application/x-{}-request", service.name());
            if header(headers, "content-type").map(str::trim) != Some(expected.as_str()) {
                return at_once(text(415, &format!("Content-Type must be {expected}")));
            }
            (project, *service)
        }
        _ => return at_once(text(405, "Method Not Allowed")),
    };
    let access = match auth::authorize(ctx, project, service, headers) {
        Ok(access) => access,
        Err(refused) => return Some(Opening { opened: Opened::Answer(refused.answer), user: refused.user }),
    };
    let user = access.caller.user().map(|u| (u.id, u.username.clone()));
    let opened = match (route, service) {
        (Route::InfoRefs { .. }, _) => Opened::Answer(info_refs::get(ctx, &access, service, headers)),
        (Route::Rpc { .. }, Service::UploadPack) => upload_pack::open(ctx, access, headers),
        (Route::Rpc { .. }, Service::ReceivePack) => receive_pack::open(ctx, access, headers),
    };
    Some(Opening { opened, user })
}

/// A `text/plain` answer (git prints each line of it as `remote: ...`).
pub fn text(status: u16, message: &str) -> Response {
    let mut body = message.as_bytes().to_vec();
    if !body.ends_with(b"\n") {
        body.push(b'\n');
    }
    Response {
        status,
        headers: vec![("Content-Type".into(), "text/plain; charset=utf-8".into())],
        body: crate::response::Body::Bytes(body),
    }
    .with_header("Cache-Control", "no-cache")
}

/// The headers of a successful answer: git's content type, never cached (as GitLab sends them).
fn no_cache(response: Response) -> Response {
    response
        .with_header("Cache-Control", "no-cache, max-age=0, must-revalidate")
        .with_header("Expires", "Fri, 01 Jan 1980 00:00:00 GMT")
        .with_header("Pragma", "no-cache")
}

/// `data` as one pkt-line.
pub fn pkt_line(data: &[u8]) -> Vec<u8> {
    let mut out = format!("{:04x}", data.len() + 4).into_bytes();
    out.extend_from_slice(data);
    out
}

/// The `Git-Protocol` header as `GIT_PROTOCOL`, only when well formed (`key=value` pairs of
/// letters and digits joined by `:`, as Gitea checks it); anything else is dropped, which is
/// protocol v0.
fn git_protocol(headers: &[(String, String)]) -> Option<String> {
    let value = header(headers, "git-protocol")?.trim();
    let word = |w: &str| !w.is_empty() && w.len() <= 64 && w.bytes().all(|b| b.is_ascii_alphanumeric());
    let well_formed = value.len() <= 256
        && value.split(':').all(|pair| pair.split_once('=').is_some_and(|(k, v)| word(k) && word(v)));
    well_formed.then(|| value.to_string())
}

/// Whether `GIT_PROTOCOL` asks for protocol v2.
fn is_v2(protocol: Option<&str>) -> bool {
    protocol.is_some_and(|p| p.split(':').any(|pair| pair == "version=2"))
}

/// The project's git directory on this host, canonical (the store names it, never the URL).
fn repository_dir(ctx: &Context, project: &crate::store::projects::Project) -> Result<PathBuf, Response> {
    let missing = || text(404, "A repository for this project does not exist yet.");
    let dir = ctx.git_dir(project).map_err(|_| text(503, "The repository is not on this host."))?;
    let git_dir = crate::git::git_dir_of(&dir).ok_or_else(missing)?;
    crate::git::command::canonical_dir(&git_dir).map_err(|_| missing())
}

/// Starts `service` on the project of `access` with `args` (after the subcommand) and the
/// environment `env`, holding one of the repository's places (taken here, so only once a
/// request's body is whole); the configuration each service is forced to run with is set here.
fn start(
    ctx: &Context,
    access: &auth::Access,
    service: Service,
    args: &[&str],
    env: Vec<(String, std::ffi::OsString)>,
) -> Result<(Running, Slot), Response> {
    let limits = &ctx.config.limits;
    let slot = ctx.git_places.take(&access.git_dir, limits.git_per_repository).ok_or_else(|| {
        text(503, "Too many git operations are running on this repository; try again later.")
            .with_header("Retry-After", "5")
    })?;
    let mut spec =
        Spec::new(&access.git_dir, &[service.subcommand()], std::time::Duration::from_secs(limits.git_timeout_seconds));
    spec = match service {
        Service::UploadPack => spec
            .config("uploadpack.allowFilter", "true")
            .config("pack.windowMemory", "100m")
            .config("core.alternateRefsCommand", "exit 0 #"),
        Service::ReceivePack => spec
            .config("receive.fsckObjects", "true")
            .config("receive.maxInputSize", limits.git_push_max_bytes.to_string())
            // As Gitaly does: clients send GitLab's push options (`-o ci.skip`), which nothing
            // here acts on, and a server without them fails such pushes.
            .config("receive.advertisePushOptions", "true")
            .config("core.alternateRefsCommand", "exit 0 #"),
    };
    if service == Service::ReceivePack {
        // Hidden as Gitaly hides them: neither advertised nor written, each refused by git.
        for prefix in policy::RESERVED_NAMESPACES {
            spec = spec.config("receive.hideRefs", prefix);
        }
    }
    for arg in args {
        spec = spec.arg(*arg);
    }
    spec = spec.arg("--stateless-rpc");
    if service == Service::UploadPack {
        // Only upload-pack has it: the directory is the repository, never `<dir>/.git`.
        spec = spec.arg("--strict");
    }
    spec = spec.arg(&access.git_dir);
    for (name, value) in env {
        spec = spec.env(&name, value);
    }
    let running = ctx.git.spawn(&spec).map_err(|_| text(500, "The git service could not be started."))?;
    Ok((running, slot))
}

/// A body that could not be held ([`spool`]: the data directory is full or not writable).
fn unbuffered() -> Response {
    text(503, "The request body could not be buffered on this host; try again later.").with_header("Retry-After", "5")
}

/// A streamed answer from a running program: what it writes to stdout after `prelude`, read
/// as the client reads. Dropping it (the client went away, the response was freed) ends the
/// program's whole process group and gives back its place.
struct Streamed {
    reader: stream::Reader,
    _running: Running,
    _slot: Slot,
}

impl Read for Streamed {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        self.reader.read(out)
    }
}

/// Starts copying `running`'s stdout (after `prelude`) into a bounded stream; the body to
/// answer with once the request is complete.
fn stream_out(mut running: Running, slot: Slot, prelude: Vec<u8>) -> Result<Streamed, Response> {
    let stdout = running.stdout.take();
    let reader = stream::spawn("git-stdout", move |out| {
        out.write_all(&prelude)?;
        if let Some(mut stdout) = stdout {
            std::io::copy(&mut stdout, out)?;
        }
        Ok(())
    })
    .map_err(|_| text(500, "The git service could not be started."))?;
    Ok(Streamed { reader, _running: running, _slot: slot })
}

/// A request body as it arrives, inflated when it is gzip (`Content-Encoding: gzip`), handed on
/// in pieces of bounded size: compressed input is fed 1 KiB at a time, so even a deflate bomb
/// never makes more than about a megabyte at once.
pub(crate) struct Inflater {
    gzip: Option<flate2::write::GzDecoder<Vec<u8>>>,
}

impl Inflater {
    /// For a request's headers: `Err` for a content encoding other than gzip or identity.
    fn new(headers: &[(String, String)]) -> Result<Inflater, Response> {
        match header(headers, "content-encoding").map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            None | Some("") | Some("identity") => Ok(Inflater { gzip: None }),
            Some("gzip") | Some("x-gzip") => Ok(Inflater { gzip: Some(flate2::write::GzDecoder::new(Vec::new())) }),
            Some(other) => Err(text(415, &format!("Content-Encoding {other} is not supported"))),
        }
    }

    /// Hands `piece`, inflated, to `each`; stops at the first answer `each` gives.
    fn feed(&mut self, piece: &[u8], mut each: impl FnMut(&[u8]) -> Result<(), Response>) -> Result<(), Response> {
        let Some(decoder) = self.gzip.as_mut() else { return each(piece) };
        for input in piece.chunks(1024) {
            decoder.write_all(input).map_err(|_| text(400, "The request body is not valid gzip."))?;
            let inflated = std::mem::take(decoder.get_mut());
            if !inflated.is_empty() {
                each(&inflated)?;
            }
        }
        Ok(())
    }

    /// The end of the body: whatever the decoder still holds.
    fn finish(&mut self, mut each: impl FnMut(&[u8]) -> Result<(), Response>) -> Result<(), Response> {
        let Some(decoder) = self.gzip.as_mut() else { return Ok(()) };
        decoder.try_finish().map_err(|_| text(400, "The request body is not valid gzip."))?;
        let inflated = std::mem::take(decoder.get_mut());
        if inflated.is_empty() {
            Ok(())
        } else {
            each(&inflated)
        }
    }
}

/// What both POSTs of the protocol do, once their caller is allowed, before a byte of the body
/// is read: how the body is encoded, and a plain body that announces more than `limit` bytes
/// refused with `too_large`.
fn prepare(
    headers: &[(String, String)],
    limit: u64,
    too_large: impl FnOnce() -> Response,
) -> Result<Inflater, Response> {
    let inflater = Inflater::new(headers)?;
    let announced = header(headers, "content-length").and_then(|v| v.trim().parse::<u64>().ok());
    if inflater.gzip.is_none() && announced.is_some_and(|n| n > limit) {
        return Err(too_large());
    }
    Ok(inflater)
}

/// Keeps a sink's type in the one shape `http::call` takes.
fn sink(sink: impl BodySink + 'static) -> Opened {
    Opened::Body(Box::new(sink))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_of_git_and_nothing_else() {
        assert_eq!(
            route("/a/b.git/info/refs?service=git-upload-pack"),
            Some(Route::InfoRefs { project: "a/b".into(), service: Some("git-upload-pack".into()) })
        );
        assert_eq!(
            route("/a/b/c.git/git-receive-pack"),
            Some(Route::Rpc { project: "a/b/c".into(), service: Service::ReceivePack })
        );
        assert_eq!(route("/a/b.git/info/refs"), Some(Route::InfoRefs { project: "a/b".into(), service: None }));
        assert_eq!(route("/api/v4/projects/a%2Fb.git/info/refs"), None);
        assert_eq!(route("/a/b.git/objects/info/packs"), None);
        assert_eq!(route("/.git/info/refs"), None);
        assert_eq!(route("/api/v4/version"), None);
    }

    #[test]
    fn git_protocol_only_when_well_formed() {
        let h = |v: &str| vec![("Git-Protocol".to_string(), v.to_string())];
        assert_eq!(git_protocol(&h("version=2")), Some("version=2".into()));
        assert_eq!(git_protocol(&h("version=2:object-format=sha1")), None, "dashes are not letters or digits");
        assert_eq!(git_protocol(&h("version=1:foo=bar")), Some("version=1:foo=bar".into()));
        assert_eq!(git_protocol(&h("version=3;x")), None);
        assert_eq!(git_protocol(&h("version=2\nGIT_DIR=/")), None);
        assert!(is_v2(Some("version=2")) && !is_v2(Some("version=1")) && !is_v2(None));
    }
}
