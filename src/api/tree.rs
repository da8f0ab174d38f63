//! B1: `GET /projects/:id/repository/tree`.

use super::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;

pub fn list(_call: &Call, _project: &str, _params: &Params) -> ApiResult<Response> {
    Err(ApiError::NotFound("Tree"))
}
