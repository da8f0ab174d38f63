//! B8 and B9: `POST` and `GET /projects/:id/repository/changelog`.

use super::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;

/// B9: the changelog section as `{"notes": ...}`, committing nothing.
pub fn generate(_call: &Call, _project: &str, _params: &Params) -> ApiResult<Response> {
    Err(ApiError::NotFound(""))
}

/// B8: the section committed to the changelog file; `{"commit": ..., "notes": ...}`.
pub fn commit(_call: &Call, _project: &str, _params: &Params) -> ApiResult<Response> {
    Err(ApiError::NotFound(""))
}
