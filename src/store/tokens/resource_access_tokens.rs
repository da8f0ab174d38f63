//! The bot users of project and group access tokens (GitLab's `user_type: project_bot`). The
//! token itself is a personal access token of the bot, marked with its resource
//! (`set_resource`).

use crate::store::db::Db;
use crate::store::error::StoreResult;
use crate::store::users::{self, User};

/// Makes a bot user: `username`, `name`, `email`, external when its creator is.
pub fn insert_bot(db: &mut Db, username: &str, name: &str, email: &str, external: bool) -> StoreResult<User> {
    let mut user = users::insert(db, username, name, Some(email), false)?;
    db.execute("UPDATE users SET user_type = 'project_bot' WHERE id = $1", &[&user.id])?;
    if external {
        user.external = true;
        users::update(db, &user)?;
    }
    Ok(user)
}

/// Whether the user is a project or group access token's bot.
pub fn is_bot(db: &mut Db, user_id: i64) -> StoreResult<bool> {
    Ok(db
        .row("SELECT user_type FROM users WHERE id = $1", &[&user_id], |r| r.string(0))?
        .is_some_and(|t| t == "project_bot"))
}

/// Whether the user is a bot that already is a member somewhere: GitLab's `Member` validates
/// a bot's `user_id` as unique, so a bot stays the member of its own project or group only.
pub fn is_placed_bot(db: &mut Db, user_id: i64) -> StoreResult<bool> {
    Ok(is_bot(db, user_id)?
        && db.row("SELECT id FROM members WHERE user_id = $1 LIMIT 1", &[&user_id], |r| r.i64(0))?.is_some())
}
