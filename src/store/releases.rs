//! Releases (issue #42, D12): per project, one release per tag name, with its asset links.
//! Times are seconds since the epoch. What the rows mean for the API is `api::releases`'s to
//! say.

use super::db::{Db, Row};
use super::error::StoreResult;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    pub id: i64,
    pub project_id: i64,
    pub tag_name: String,
    pub name: String,
    pub description: String,
    pub author_id: Option<i64>,
    /// The commit the tag named when the release was made.
    pub sha: Option<String>,
    pub created_at: i64,
    pub released_at: i64,
    pub updated_at: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub id: i64,
    pub release_id: i64,
    pub name: String,
    pub url: String,
    pub filepath: Option<String>,
    pub link_type: String,
    pub created_at: i64,
}

const COLUMNS: &str =
    "id, project_id, tag_name, name, description, author_id, sha, created_at, released_at, updated_at";
const LINK_COLUMNS: &str = "id, release_id, name, url, filepath, link_type, created_at";

fn from_row(row: &Row) -> StoreResult<Release> {
    Ok(Release {
        id: row.i64(0)?,
        project_id: row.i64(1)?,
        tag_name: row.string(2)?,
        name: row.string(3)?,
        description: row.string(4)?,
        author_id: row.opt_i64(5)?,
        sha: row.opt_string(6)?,
        created_at: row.i64(7)?,
        released_at: row.i64(8)?,
        updated_at: row.i64(9)?,
    })
}

fn link_from_row(row: &Row) -> StoreResult<Link> {
    Ok(Link {
        id: row.i64(0)?,
        release_id: row.i64(1)?,
        name: row.string(2)?,
        url: row.string(3)?,
        filepath: row.opt_string(4)?,
        link_type: row.string(5)?,
        created_at: row.i64(6)?,
    })
}

/// Which order a list is in: by `released_at` or `created_at`, newest first unless `ascending`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    ReleasedAt,
    CreatedAt,
}

/// The releases of a project (or of several), in `order`, the id breaking ties.
pub fn list(db: &mut Db, project_ids: &[i64], order: Order, ascending: bool) -> StoreResult<Vec<Release>> {
    let column = match order {
        Order::ReleasedAt => "released_at",
        Order::CreatedAt => "created_at",
    };
    let direction = if ascending { "ASC" } else { "DESC" };
    let mut out = Vec::new();
    for id in project_ids {
        out.extend(db.rows(
            &format!(
                "SELECT {COLUMNS} FROM releases WHERE project_id = $1 ORDER BY {column} {direction}, id {direction}"
            ),
            &[id],
            from_row,
        )?);
    }
    if project_ids.len() > 1 {
        out.sort_by_key(|r| (if order == Order::ReleasedAt { r.released_at } else { r.created_at }, r.id));
        if !ascending {
            out.reverse();
        }
    }
    Ok(out)
}

/// The release of `tag_name` in the project.
pub fn find(db: &mut Db, project_id: i64, tag_name: &str) -> StoreResult<Option<Release>> {
    db.row(
        &format!("SELECT {COLUMNS} FROM releases WHERE project_id = $1 AND tag_name = $2"),
        &[&project_id, &tag_name],
        from_row,
    )
}

/// What a new release holds.
pub struct NewRelease<'a> {
    pub project_id: i64,
    pub tag_name: &'a str,
    pub name: &'a str,
    pub description: &'a str,
    pub author_id: Option<i64>,
    pub sha: Option<&'a str>,
    pub released_at: i64,
    pub now: i64,
}

/// Adds a release; a tag that has one already is the store's `Conflict`.
pub fn insert(db: &mut Db, new: &NewRelease) -> StoreResult<Release> {
    let id = db.one(
        "INSERT INTO releases (project_id, tag_name, name, description, author_id, sha, created_at, released_at,
                               updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $7) RETURNING id",
        &[
            &new.project_id,
            &new.tag_name,
            &new.name,
            &new.description,
            &new.author_id,
            &new.sha,
            &new.now,
            &new.released_at,
        ],
        |r| r.i64(0),
    )?;
    Ok(Release {
        id,
        project_id: new.project_id,
        tag_name: new.tag_name.to_string(),
        name: new.name.to_string(),
        description: new.description.to_string(),
        author_id: new.author_id,
        sha: new.sha.map(str::to_string),
        created_at: new.now,
        released_at: new.released_at,
        updated_at: new.now,
    })
}

/// Writes a release's name, description and release time back.
pub fn update(db: &mut Db, release: &Release) -> StoreResult<()> {
    db.execute(
        "UPDATE releases SET name = $1, description = $2, released_at = $3, updated_at = $4 WHERE id = $5",
        &[&release.name, &release.description, &release.released_at, &release.updated_at, &release.id],
    )?;
    Ok(())
}

/// Removes a release and its links; whether there was one.
pub fn delete(db: &mut Db, id: i64) -> StoreResult<bool> {
    db.execute("DELETE FROM release_links WHERE release_id = $1", &[&id])?;
    Ok(db.execute("DELETE FROM releases WHERE id = $1", &[&id])? > 0)
}

/// A release's links, newest first (GitLab's `sorted`).
pub fn links(db: &mut Db, release_id: i64) -> StoreResult<Vec<Link>> {
    db.rows(
        &format!("SELECT {LINK_COLUMNS} FROM release_links WHERE release_id = $1 ORDER BY created_at DESC, id DESC"),
        &[&release_id],
        link_from_row,
    )
}

/// Adds a link to a release.
pub fn insert_link(
    db: &mut Db,
    release_id: i64,
    name: &str,
    url: &str,
    filepath: Option<&str>,
    link_type: &str,
    now: i64,
) -> StoreResult<Link> {
    let id = db.one(
        "INSERT INTO release_links (release_id, name, url, filepath, link_type, created_at)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        &[&release_id, &name, &url, &filepath, &link_type, &now],
        |r| r.i64(0),
    )?;
    Ok(Link {
        id,
        release_id,
        name: name.into(),
        url: url.into(),
        filepath: filepath.map(str::to_string),
        link_type: link_type.into(),
        created_at: now,
    })
}

/// Writes a link back.
pub fn update_link(db: &mut Db, link: &Link) -> StoreResult<()> {
    db.execute(
        "UPDATE release_links SET name = $1, url = $2, filepath = $3, link_type = $4 WHERE id = $5",
        &[&link.name, &link.url, &link.filepath, &link.link_type, &link.id],
    )?;
    Ok(())
}

/// Removes a link.
pub fn delete_link(db: &mut Db, id: i64) -> StoreResult<()> {
    db.execute("DELETE FROM release_links WHERE id = $1", &[&id])?;
    Ok(())
}

/// Removes the releases of the tags `tag_names` of a project (the tags were deleted); the
/// releases removed.
pub fn delete_for_tags(db: &mut Db, project_id: i64, tag_names: &[String]) -> StoreResult<Vec<Release>> {
    let mut removed = Vec::new();
    for tag in tag_names {
        if let Some(release) = find(db, project_id, tag)? {
            delete(db, release.id)?;
            removed.push(release);
        }
    }
    Ok(removed)
}

/// The project's newest release by `created_at`, for a hook test's sample.
pub fn newest(db: &mut Db, project_id: i64) -> StoreResult<Option<Release>> {
    db.row(
        &format!("SELECT {COLUMNS} FROM releases WHERE project_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1"),
        &[&project_id],
        from_row,
    )
}
