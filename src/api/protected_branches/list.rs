//! `GET /projects/:id/protected_branches` (`search`: a substring of the name): every
//! protection of the project, by name, in offset pages.

use super::{administered, default_branch, entity};
use crate::api::{pagination, Call};
use crate::auth::protection;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::protected_branches;
use serde_json::Value;

pub fn list(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    let project = administered(call, project)?;
    let search = params.string("search")?.filter(|s| !s.is_empty());
    let page = pagination::page(call, params)?;
    let default = default_branch(call, &project)?;
    let mut all: Vec<Value> = call.ctx.store.read(|db| -> ApiResult<_> {
        Ok(if project.protections_stored {
            protected_branches::list(db, project.id)?
                .into_iter()
                .map(|row| {
                    let id = row.id;
                    entity(Some(id), &row.into())
                })
                .collect()
        } else {
            protection::rules(db, &project, default.as_deref())?.iter().map(|rule| entity(None, rule)).collect()
        })
    })?;
    if let Some(term) = &search {
        all.retain(|p| p["name"].as_str().is_some_and(|name| name.contains(term.as_str())));
    }
    let total = all.len();
    let shown: Vec<Value> = all.into_iter().skip(page.offset()).take(page.per_page).collect();
    let mut response = Response::json(200, &Value::Array(shown));
    response.headers.extend(pagination::offset_headers(call, page, total, &[]));
    Ok(response)
}
