//! B4: `GET /projects/:id/repository/archive[.format]`.

use super::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;

/// `format` is the suffix after `archive.` in the path, if any.
pub fn get(_call: &Call, _project: &str, _format: Option<&str>, _params: &Params) -> ApiResult<Response> {
    Err(ApiError::NotFound("File"))
}
