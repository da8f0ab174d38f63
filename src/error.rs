//! `ApiError`: every way an operation can fail, and the GitLab status and body each one becomes;
//! the one mapping of git's errors ([`ApiError::from_git`]) and of the store's.
//!
//! GitLab has two error body shapes: `{"message": ...}` from its helpers (not_found!, forbidden!,
//! model validation) and `{"error": ...}` from parameter validation. The variants keep that split.

use crate::git::{Classify, Missing};
use crate::response::Response;
use serde_json::{json, Value};
use std::sync::Arc;

/// Why a request failed inside (a 500): the error itself with its chain of causes, kept for
/// whoever debugs it and never sent. Equal when their messages are.
#[derive(Clone)]
pub struct Cause(Arc<dyn std::error::Error + Send + Sync + 'static>);

impl Cause {
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Cause {
        Cause(Arc::new(error))
    }

    /// A cause that is only a message (a broken invariant, a failed system call described).
    pub fn message(text: impl Into<String>) -> Cause {
        Cause(Arc::new(Message(text.into())))
    }

    pub fn error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.0
    }
}

#[derive(Debug)]
struct Message(String);

impl std::fmt::Display for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Message {}

/// The message and every cause, `: `-separated.
impl std::fmt::Debug for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(cause) = source {
            write!(f, ": {cause}")?;
            source = cause.source();
        }
        Ok(())
    }
}

impl PartialEq for Cause {
    fn eq(&self, other: &Cause) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum ApiError {
    /// 404 `{"message":"404 <what> Not Found"}`; `what` empty gives `"404 Not Found"`.
    NotFound(&'static str),
    /// 404 `{"message":"404 Not found"}`: a record looked up with `find_by!` is missing (Grape's
    /// `ActiveRecord::RecordNotFound` rescue, lower-case `found`).
    RecordNotFound,
    /// 401 `{"message":"401 Unauthorized"}`.
    Unauthorized,
    /// 401 for an expired or revoked token, as rack-oauth2 answers it for GitLab:
    /// `{"error":"invalid_token","error_description": text}` with a `Bearer` challenge.
    InvalidToken(&'static str),
    /// 403 `{"error":"insufficient_scope",...,"scope": scopes}` (no challenge): the token's scopes
    /// do not cover the route (`scopes`: the route's, space-separated).
    InsufficientScope(String),
    /// 404 `{"message":"404 <what> Not Found"}` for a `what` made at run time.
    NotFoundNamed(String),
    /// 403 `{"message":"403 Forbidden[ - reason]"}`.
    Forbidden(Option<String>),
    /// 403 `{"message": text}`: a service's refusal (`render_api_error!(message, :forbidden)`).
    Denied(String),
    /// 400 `{"error":"<param> is missing"}`.
    MissingParam(String),
    /// 400 `{"error":"<param> is invalid"}`: wrong type or shape.
    InvalidParam(String),
    /// 400 `{"error":"<param> does not have a valid value"}`: outside the allowed values.
    InvalidValue(String),
    /// 400 `{"error": text}` for other parameter rules.
    ParamError(String),
    /// 400 `{"message": text}`: a model validation or service error.
    Validation(Value),
    /// 400 `{"message":"400 Bad request - reason"}`.
    BadRequest(String),
    /// 405 for a known path with another method.
    MethodNotAllowed,
    /// 405 `{"message": text}`: a way of asking GitLab refuses (`error!(text, 405)`), such as
    /// keyset pagination of a list or order it does not page by keyset.
    NotAllowed(String),
    /// 413 body over the configured limit.
    PayloadTooLarge,
    /// 415 body of a media type we do not read.
    UnsupportedMediaType,
    /// 409 `{"message": text}`: what the request would create exists (GitLab's `conflict!`).
    Conflict(String),
    /// 422 `{"message": text}`.
    Unprocessable(String),
    /// `{"message": message}` with `status`: a service's errors as GitLab renders a list of
    /// them (`{"message":["..."]}`, merge requests' 409 and 422).
    Messages { status: u16, message: Value },
    /// 429 `{"message":{"error": text}}` with `Retry-After` seconds.
    TooManyRequests { message: String, retry_after: u64 },
    /// 503: the store cannot serve the request now; the reason says why (the data directory is
    /// full, read-only, unreadable, or the database stayed locked past the busy timeout).
    Unavailable(&'static str),
    /// 500 with a generic body; the cause is for debugging and never sent.
    Internal(Cause),
}

impl ApiError {
    pub fn validation(message: impl Into<String>) -> ApiError {
        ApiError::Validation(Value::String(message.into()))
    }

    /// A 500 for `error`, its causes kept.
    pub fn internal(error: impl std::error::Error + Send + Sync + 'static) -> ApiError {
        ApiError::Internal(Cause::new(error))
    }

    /// The one mapping of a failed git operation: what `not_found` answers when the request
    /// named something the repository does not have, else a 500 keeping the error.
    pub fn from_git<E: Classify>(error: E, not_found: impl FnOnce(Missing) -> ApiError) -> ApiError {
        match error.missing() {
            Some(missing) => not_found(missing),
            None => ApiError::internal(error),
        }
    }

    pub fn status(&self) -> u16 {
        match self {
            ApiError::NotFound(_) | ApiError::RecordNotFound | ApiError::NotFoundNamed(_) => 404,
            ApiError::Unauthorized | ApiError::InvalidToken(_) => 401,
            ApiError::Forbidden(_) | ApiError::Denied(_) | ApiError::InsufficientScope(_) => 403,
            ApiError::MissingParam(_)
            | ApiError::InvalidParam(_)
            | ApiError::InvalidValue(_)
            | ApiError::ParamError(_)
            | ApiError::Validation(_)
            | ApiError::BadRequest(_) => 400,
            ApiError::MethodNotAllowed | ApiError::NotAllowed(_) => 405,
            ApiError::PayloadTooLarge => 413,
            ApiError::UnsupportedMediaType => 415,
            ApiError::Conflict(_) => 409,
            ApiError::Unprocessable(_) => 422,
            ApiError::Messages { status, .. } => *status,
            ApiError::TooManyRequests { .. } => 429,
            ApiError::Unavailable(_) => 503,
            ApiError::Internal(_) => 500,
        }
    }

    pub fn body(&self) -> Value {
        match self {
            ApiError::NotFound("") => json!({"message": "404 Not Found"}),
            ApiError::NotFound(what) => json!({"message": format!("404 {what} Not Found")}),
            ApiError::NotFoundNamed(what) => json!({"message": format!("404 {what} Not Found")}),
            ApiError::RecordNotFound => json!({"message": "404 Not found"}),
            ApiError::Unauthorized => json!({"message": "401 Unauthorized"}),
            ApiError::InvalidToken(text) => json!({"error": "invalid_token", "error_description": text}),
            ApiError::InsufficientScope(scope) => json!({
                "error": "insufficient_scope",
                "error_description": "The request requires higher privileges than provided by the access token.",
                "scope": scope,
            }),
            ApiError::Forbidden(None) => json!({"message": "403 Forbidden"}),
            ApiError::Forbidden(Some(reason)) => json!({"message": format!("403 Forbidden - {reason}")}),
            ApiError::MissingParam(p) => json!({"error": format!("{p} is missing")}),
            ApiError::InvalidParam(p) => json!({"error": format!("{p} is invalid")}),
            ApiError::InvalidValue(p) => json!({"error": format!("{p} does not have a valid value")}),
            ApiError::ParamError(text) => json!({"error": text}),
            ApiError::Validation(message) | ApiError::Messages { message, .. } => json!({"message": message}),
            ApiError::BadRequest(reason) => json!({"message": format!("400 Bad request - {reason}")}),
            ApiError::MethodNotAllowed => json!({"message": "405 Method Not Allowed"}),
            ApiError::PayloadTooLarge => json!({"message": "413 Request Entity Too Large"}),
            ApiError::UnsupportedMediaType => json!({"message": "415 Unsupported Media Type"}),
            ApiError::Conflict(text)
            | ApiError::Unprocessable(text)
            | ApiError::Denied(text)
            | ApiError::NotAllowed(text) => {
                json!({"message": text})
            }
            ApiError::TooManyRequests { message, .. } => json!({"message": {"error": message}}),
            ApiError::Unavailable(reason) => json!({"message": format!("503 Service Unavailable - {reason}")}),
            ApiError::Internal(_) => json!({"message": "500 Internal Server Error"}),
        }
    }

    pub fn into_response(self) -> Response {
        let mut response = Response::json(self.status(), &self.body());
        match self {
            ApiError::TooManyRequests { retry_after, .. } => {
                response.headers.push(("Retry-After".into(), retry_after.max(1).to_string()));
            }
            ApiError::InvalidToken(text) => {
                let challenge = format!(
                    "Bearer realm=\"Protected by OAuth 2.0\", error=\"invalid_token\", error_description=\"{text}\""
                );
                response.headers.push(("WWW-Authenticate".into(), challenge));
            }
            _ => {}
        }
        response
    }
}

pub type ApiResult<T> = Result<T, ApiError>;

/// [`ApiError::from_git`] on results.
pub trait GitResultExt<T> {
    /// `not_found` when the request named something missing; a 500 otherwise.
    fn or_not_found(self, not_found: ApiError) -> ApiResult<T>;
    /// A 500 for any failure: nothing the request named can be missing here.
    fn or_broken(self) -> ApiResult<T>;
}

impl<T, E: Classify> GitResultExt<T> for Result<T, E> {
    fn or_not_found(self, not_found: ApiError) -> ApiResult<T> {
        self.map_err(|e| ApiError::from_git(e, |_| not_found))
    }

    fn or_broken(self) -> ApiResult<T> {
        self.map_err(ApiError::internal)
    }
}
