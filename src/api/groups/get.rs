//! `GET /groups/:id` (decisions D7): a minimal group object.

use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;
use serde_json::json;

pub fn get(call: &Call, id: &str) -> ApiResult<Response> {
    let group = call.group(id)?;
    Ok(Response::json(
        200,
        &json!({
            "id": group.id,
            "name": group.name,
            "path": group.path,
            "full_path": group.full_path,
            "parent_id": group.parent_id,
            "visibility": group.visibility.as_str(),
            "web_url": call.web_url(&format!("groups/{}", group.full_path)),
        }),
    ))
}
