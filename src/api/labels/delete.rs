//! `DELETE /projects/:id/labels/:label_id`, `DELETE /groups/:id/labels/:label_id`: removes
//! one of the parent's own labels, from every issue and merge request carrying it too (their
//! label events stay, without the label); 204.

use super::{find_own, named_in, Need, Parent, Scope};
use crate::api::Call;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::labels;

pub fn delete(call: &Call, scope: Scope, id_or_title: &str) -> ApiResult<Response> {
    let parent = Parent::of(call, scope, Need::Admin)?;
    call.ctx.store.write(|db| -> ApiResult<_> {
        let label = find_own(db, &parent, id_or_title)?;
        labels::delete(db, label.id)?;
        Ok(())
    })?;
    Ok(Response::no_content())
}

/// `DELETE /projects/:id/labels`, `DELETE /groups/:id/labels` (deprecated): the label named
/// by `label_id` or `name`.
pub fn delete_named(call: &Call, scope: Scope, params: &Params) -> ApiResult<Response> {
    let name = named_in(params)?;
    delete(call, scope, &name)
}
