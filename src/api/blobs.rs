//! B2 and B3: `GET /projects/:id/repository/blobs/:sha[/raw]`.

use super::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;

pub fn get(_call: &Call, _project: &str, _sha: &str) -> ApiResult<Response> {
    Err(ApiError::NotFound("Blob"))
}

pub fn raw(_call: &Call, _project: &str, _sha: &str) -> ApiResult<Response> {
    Err(ApiError::NotFound("Blob"))
}
