//! B10: `GET /projects/:id/repository/health[?generate=true]`.

use super::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;

pub fn get(_call: &Call, _project: &str, _params: &Params) -> ApiResult<Response> {
    Err(ApiError::NotFound(""))
}
