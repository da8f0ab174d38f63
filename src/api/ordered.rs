//! What GitLab's entities share, in their order: the ordered JSON tree they are written in
//! ([`Node`], [`Obj`], from the response layer), `UserBasic`, and times with milliseconds.

pub use crate::response::ordered::{iso_millis, object, raw, v, Node, Obj};

use crate::api::Call;
use crate::store::users::User;
use serde_json::Value;

/// GitLab's `UserBasic` (`lib/api/entities/user_basic.rb` over `UserSafe`): `id`, `username`,
/// `name`, `state`, `locked`, `avatar_url`, `web_url`; the one writer of it, whatever entity
/// embeds a user.
pub fn user_basic(base_url: &str, id: i64, username: &str, name: &str, state: &str) -> Obj {
    let mut o = Obj::new();
    o.put("id", id)
        .put("username", username)
        .put("name", name)
        .put("state", state)
        .put("locked", false)
        .put("avatar_url", Value::Null)
        .put("web_url", format!("{base_url}/{username}"));
    o
}

/// [`user_basic`] of a user as read from the store.
pub fn user(call: &Call, user: &User) -> Obj {
    user_basic(&call.base_url, user.id, &user.username, &user.name, user.state.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_basic_in_gitlab_order_and_times_with_milliseconds() {
        assert_eq!(
            serde_json::to_string(&user_basic("http://h", 3, "ann", "Ann", "blocked")).unwrap(),
            r#"{"id":3,"username":"ann","name":"Ann","state":"blocked","locked":false,"avatar_url":null,"web_url":"http://h/ann"}"#
        );
        assert_eq!(iso_millis(1_736_452_020_042), "2025-01-09T19:47:00.042Z");
    }
}
