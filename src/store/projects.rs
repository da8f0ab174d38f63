//! Projects: a full path, the git directory served in place, visibility and fork parent.
//!
//! A project's repository is either on a named storage (`storage`, with `repo_dir` relative to
//! that storage's root, as Gitaly keeps a repository's relative path) or, without a storage, at
//! the absolute `repo_dir` it was registered with.

use super::db::{Db, Dialect, Row};
use super::error::StoreResult;
use super::users::equal_ignoring_case;
use super::Visibility;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    pub id: i64,
    pub group_id: Option<i64>,
    pub path: String,
    pub full_path: String,
    pub name: String,
    /// Relative to the storage's root when `storage` is set; absolute otherwise.
    pub repo_dir: String,
    pub visibility: Visibility,
    pub forked_from_id: Option<i64>,
    pub storage: Option<String>,
    /// Seconds since the Unix epoch.
    pub created_at: i64,
    pub description: Option<String>,
    /// Whether the project's protected branches are the rows of `protected_branches`; when not
    /// (a project made before they were stored), its default branch is protected implicitly.
    pub protections_stored: bool,
    /// Archived: read-only on every write path (decisions D9).
    pub archived: bool,
    /// When it was marked for deletion (seconds since the epoch), and by whom.
    pub marked_for_deletion_at: Option<i64>,
    pub marked_for_deletion_by: Option<i64>,
    /// Whether forgecore created its repository (`POST /projects`): a purge deletes only those;
    /// a repository registered in place is unregistered, never deleted.
    pub created_repository: bool,
    pub settings: Settings,
    pub creator_id: Option<i64>,
    /// The user whose personal namespace holds the project (`<username>/<path>`); `None` for a
    /// project in a group or one registered outside any namespace.
    pub namespace_user_id: Option<i64>,
    pub topics: Vec<String>,
    /// The fork network the project belongs to: the id of the project it grew from (GitLab's
    /// `fork_networks.root_project_id`); `None` for a project never forked nor a fork.
    pub fork_network_root_id: Option<i64>,
    /// A fork's merge requests target the fork itself by default.
    pub mr_default_target_self: bool,
}

/// The merge settings a project keeps and answers (`PUT /projects/:id`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// `merge`, `rebase_merge` or `ff`.
    pub merge_method: String,
    /// `never`, `always`, `default_on` or `default_off`.
    pub squash_option: String,
    pub remove_source_branch_after_merge: bool,
    pub only_allow_merge_if_pipeline_succeeds: bool,
    pub allow_merge_on_skipped_pipeline: bool,
    pub only_allow_merge_if_all_discussions_are_resolved: bool,
}

impl Default for Settings {
    /// GitLab's defaults for a new project.
    fn default() -> Settings {
        Settings {
            merge_method: "merge".into(),
            squash_option: "default_off".into(),
            remove_source_branch_after_merge: true,
            only_allow_merge_if_pipeline_succeeds: false,
            allow_merge_on_skipped_pipeline: false,
            only_allow_merge_if_all_discussions_are_resolved: false,
        }
    }
}

impl Project {
    /// The project's git directory on a host with these named `storages`: its `repo_dir`
    /// itself when it has no storage, else under the storage's root; `None` when its storage
    /// is not on this host.
    pub fn git_dir(
        &self,
        storages: &std::collections::BTreeMap<String, std::path::PathBuf>,
    ) -> Option<std::path::PathBuf> {
        match &self.storage {
            None => Some(std::path::PathBuf::from(&self.repo_dir)),
            Some(name) => storages.get(name).map(|root| root.join(&self.repo_dir)),
        }
    }
}

const COLUMNS: &str = "id, group_id, path, full_path, name, repo_dir, visibility, forked_from_id, storage, \
                       created_at, description, protections_stored, archived, marked_for_deletion_at, \
                       marked_for_deletion_by, created_repository, merge_method, squash_option, \
                       remove_source_branch_after_merge, only_allow_merge_if_pipeline_succeeds, \
                       allow_merge_on_skipped_pipeline, only_allow_merge_if_all_discussions_are_resolved, \
                       creator_id, namespace_user_id, topics, fork_network_root_id, mr_default_target_self";

/// How many columns [`COLUMNS`] names.
const COLUMN_COUNT: usize = 27;

fn from_row(row: &Row) -> StoreResult<Project> {
    Ok(Project {
        id: row.i64(0)?,
        group_id: row.opt_i64(1)?,
        path: row.string(2)?,
        full_path: row.string(3)?,
        name: row.string(4)?,
        repo_dir: row.string(5)?,
        visibility: Visibility::read(&row.string(6)?)?,
        forked_from_id: row.opt_i64(7)?,
        storage: row.opt_string(8)?,
        created_at: row.i64(9)?,
        description: row.opt_string(10)?,
        protections_stored: row.bool(11)?,
        archived: row.bool(12)?,
        marked_for_deletion_at: row.opt_i64(13)?,
        marked_for_deletion_by: row.opt_i64(14)?,
        created_repository: row.bool(15)?,
        settings: Settings {
            merge_method: row.string(16)?,
            squash_option: row.string(17)?,
            remove_source_branch_after_merge: row.bool(18)?,
            only_allow_merge_if_pipeline_succeeds: row.bool(19)?,
            allow_merge_on_skipped_pipeline: row.bool(20)?,
            only_allow_merge_if_all_discussions_are_resolved: row.bool(21)?,
        },
        creator_id: row.opt_i64(22)?,
        namespace_user_id: row.opt_i64(23)?,
        topics: serde_json::from_str(&row.string(24)?).unwrap_or_default(),
        fork_network_root_id: row.opt_i64(25)?,
        mr_default_target_self: row.bool(26)?,
    })
}

pub struct NewProject<'a> {
    pub group_id: Option<i64>,
    pub path: &'a str,
    pub full_path: &'a str,
    pub repo_dir: &'a str,
    pub visibility: Visibility,
    pub forked_from_id: Option<i64>,
    pub storage: Option<&'a str>,
}

/// What a project made through the API (`POST /projects`) has beyond a registered one.
#[derive(Debug, Clone, Default)]
pub struct Created {
    pub name: String,
    pub description: Option<String>,
    pub settings: Settings,
    pub creator_id: Option<i64>,
    pub namespace_user_id: Option<i64>,
    pub topics: Vec<String>,
}

/// Inserts a project. Its protections are stored from the start (`protections_stored`): the
/// caller protects its default branch in the same transaction.
pub fn insert(db: &mut Db, new: &NewProject) -> StoreResult<Project> {
    let created_at = super::now_seconds();
    let id = db.one(
        "INSERT INTO projects (group_id, path, full_path, name, repo_dir, visibility, forked_from_id, storage,
                               created_at, protections_stored)
         VALUES ($1, $2, $3, $2, $4, $5, $6, $7, $8, TRUE) RETURNING id",
        &[
            &new.group_id,
            &new.path,
            &new.full_path,
            &new.repo_dir,
            &new.visibility.as_str(),
            &new.forked_from_id,
            &new.storage,
            &created_at,
        ],
        |r| r.i64(0),
    )?;
    Ok(Project {
        id,
        group_id: new.group_id,
        path: new.path.into(),
        full_path: new.full_path.into(),
        name: new.path.into(),
        repo_dir: new.repo_dir.into(),
        visibility: new.visibility,
        forked_from_id: new.forked_from_id,
        storage: new.storage.map(Into::into),
        created_at,
        description: None,
        protections_stored: true,
        archived: false,
        marked_for_deletion_at: None,
        marked_for_deletion_by: None,
        created_repository: false,
        settings: Settings::default(),
        creator_id: None,
        namespace_user_id: None,
        topics: Vec::new(),
        fork_network_root_id: None,
        mr_default_target_self: false,
    })
}

/// Inserts a project made through the API, its repository to be created by forgecore at
/// `new.repo_dir` (`created_repository`), and answers it as stored.
pub fn insert_created(db: &mut Db, new: &NewProject, created: &Created) -> StoreResult<Project> {
    let project = insert(db, new)?;
    let topics = super::topics::assign(db, project.id, &created.topics)?;
    let topics = serde_json::to_string(&topics).unwrap_or_else(|_| "[]".into());
    let s = &created.settings;
    db.execute(
        "UPDATE projects SET name = $2, description = $3, created_repository = TRUE, merge_method = $4,
                squash_option = $5, remove_source_branch_after_merge = $6,
                only_allow_merge_if_pipeline_succeeds = $7, allow_merge_on_skipped_pipeline = $8,
                only_allow_merge_if_all_discussions_are_resolved = $9, creator_id = $10,
                namespace_user_id = $11, topics = $12
         WHERE id = $1",
        &[
            &project.id,
            &created.name,
            &created.description,
            &s.merge_method,
            &s.squash_option,
            &s.remove_source_branch_after_merge,
            &s.only_allow_merge_if_pipeline_succeeds,
            &s.allow_merge_on_skipped_pipeline,
            &s.only_allow_merge_if_all_discussions_are_resolved,
            &created.creator_id,
            &created.namespace_user_id,
            &topics,
        ],
    )?;
    Ok(find_by_id(db, project.id)?.unwrap_or(project))
}

/// Sets where a project's repository is (a project made through the API learns its id, which
/// names its directory, only once inserted).
pub fn set_repo_dir(db: &mut Db, id: i64, repo_dir: &str) -> StoreResult<()> {
    db.execute("UPDATE projects SET repo_dir = $2 WHERE id = $1", &[&id, &repo_dir])?;
    Ok(())
}

/// Writes what `PUT /projects/:id` may change.
pub fn update(db: &mut Db, project: &Project) -> StoreResult<()> {
    let topics = super::topics::assign(db, project.id, &project.topics)?;
    let topics = serde_json::to_string(&topics).unwrap_or_else(|_| "[]".into());
    let s = &project.settings;
    db.execute(
        "UPDATE projects SET name = $2, path = $3, full_path = $4, description = $5, visibility = $6,
                merge_method = $7, squash_option = $8, remove_source_branch_after_merge = $9,
                only_allow_merge_if_pipeline_succeeds = $10, allow_merge_on_skipped_pipeline = $11,
                only_allow_merge_if_all_discussions_are_resolved = $12, topics = $13
         WHERE id = $1",
        &[
            &project.id,
            &project.name,
            &project.path,
            &project.full_path,
            &project.description,
            &project.visibility.as_str(),
            &s.merge_method,
            &s.squash_option,
            &s.remove_source_branch_after_merge,
            &s.only_allow_merge_if_pipeline_succeeds,
            &s.allow_merge_on_skipped_pipeline,
            &s.only_allow_merge_if_all_discussions_are_resolved,
            &topics,
        ],
    )?;
    Ok(())
}

/// Archives or unarchives a project.
pub fn set_archived(db: &mut Db, id: i64, archived: bool) -> StoreResult<()> {
    db.execute("UPDATE projects SET archived = $2 WHERE id = $1", &[&id, &archived])?;
    Ok(())
}

/// Marks a project for deletion at `at` by `by`, archiving it, or (`None`) restores it,
/// unarchiving it (GitLab's `Projects::MarkForDeletionService` and `RestoreService`). Whether a
/// row changed: a second mark, or a restore of an unmarked project, changes none.
pub fn set_marked_for_deletion(db: &mut Db, id: i64, mark: Option<(i64, Option<i64>)>) -> StoreResult<bool> {
    let changed = match mark {
        Some((at, by)) => db.execute(
            "UPDATE projects SET marked_for_deletion_at = $2, marked_for_deletion_by = $3, archived = TRUE
             WHERE id = $1 AND marked_for_deletion_at IS NULL",
            &[&id, &at, &by],
        )?,
        None => db.execute(
            "UPDATE projects SET marked_for_deletion_at = NULL, marked_for_deletion_by = NULL, archived = FALSE
             WHERE id = $1 AND marked_for_deletion_at IS NOT NULL",
            &[&id],
        )?,
    };
    Ok(changed > 0)
}

/// The ids of the projects marked for deletion at or before `cutoff`.
pub fn due_for_purge(db: &mut Db, cutoff: i64) -> StoreResult<Vec<i64>> {
    db.rows(
        "SELECT id FROM projects WHERE marked_for_deletion_at IS NOT NULL AND marked_for_deletion_at <= $1 ORDER BY id",
        &[&cutoff],
        |r| r.i64(0),
    )
}

/// The ids of the projects of these groups.
pub fn ids_in_groups(db: &mut Db, group_ids: &[i64]) -> StoreResult<Vec<i64>> {
    if group_ids.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<String> = group_ids.iter().map(i64::to_string).collect();
    db.rows(&format!("SELECT id FROM projects WHERE group_id IN ({}) ORDER BY id", ids.join(", ")), &[], |r| r.i64(0))
}

/// The ids of the projects in the personal namespace of `user_id`.
pub fn ids_of_personal(db: &mut Db, user_id: i64) -> StoreResult<Vec<i64>> {
    db.rows("SELECT id FROM projects WHERE namespace_user_id = $1 ORDER BY id", &[&user_id], |r| r.i64(0))
}

/// Removes the project's row (its memberships, tokens, protections, CI/CD variables and health
/// report go with it; forks of it stay, no longer forks). The project as it was, when this call removed it;
/// `None` when it was already gone (another host purged it first).
pub fn remove(db: &mut Db, id: i64) -> StoreResult<Option<Project>> {
    let Some(project) = find_by_id(db, id)? else { return Ok(None) };
    db.execute("UPDATE projects SET forked_from_id = NULL WHERE forked_from_id = $1", &[&id])?;
    let removed = db.execute("DELETE FROM projects WHERE id = $1", &[&id])?;
    // Its forks stay in the network, as GitLab keeps a fork network whose root is deleted.
    if let Some(network) = project.fork_network_root_id {
        rekey_network(db, network)?;
    }
    Ok((removed > 0).then_some(project))
}

/// Makes `project_id` a fork of `parent` (GitLab's `fork_network_member`): its parent is
/// `parent`, its network `parent`'s (or a new one rooted at `parent`, which joins it).
pub fn link_fork(db: &mut Db, project_id: i64, parent: &Project, mr_default_target_self: bool) -> StoreResult<()> {
    let root = parent.fork_network_root_id.unwrap_or(parent.id);
    db.execute(
        "UPDATE projects SET fork_network_root_id = $2 WHERE id = $1 AND fork_network_root_id IS NULL",
        &[&parent.id, &root],
    )?;
    db.execute(
        "UPDATE projects SET forked_from_id = $2, fork_network_root_id = $3, mr_default_target_self = $4 WHERE id = $1",
        &[&project_id, &parent.id, &root, &mr_default_target_self],
    )?;
    Ok(())
}

/// Removes `project` from its fork network (GitLab's `Projects::UnlinkForkService`): it is
/// no longer a fork, and its own forks become forks of its parent (of none when it was the
/// root); they stay in the network. Whether it was in one.
pub fn unlink_fork(db: &mut Db, project: &Project) -> StoreResult<bool> {
    let Some(network) = project.fork_network_root_id else { return Ok(false) };
    db.execute(
        "UPDATE projects SET forked_from_id = $2 WHERE forked_from_id = $1",
        &[&project.id, &project.forked_from_id],
    )?;
    db.execute(
        "UPDATE projects SET forked_from_id = NULL, fork_network_root_id = NULL, mr_default_target_self = FALSE
         WHERE id = $1",
        &[&project.id],
    )?;
    rekey_network(db, network)?;
    Ok(true)
}

/// Keeps a network's id one of its members' ids after a member left (so a project outside
/// any network never names one by its own id): a network that lost the member it was named
/// after takes its oldest member's id; a network of one project is no network.
fn rekey_network(db: &mut Db, network: i64) -> StoreResult<()> {
    let members =
        db.rows("SELECT id FROM projects WHERE fork_network_root_id = $1 ORDER BY id", &[&network], |r| r.i64(0))?;
    if members.len() < 2 {
        db.execute("UPDATE projects SET fork_network_root_id = NULL WHERE fork_network_root_id = $1", &[&network])?;
    } else if !members.contains(&network) {
        db.execute(
            "UPDATE projects SET fork_network_root_id = $2 WHERE fork_network_root_id = $1",
            &[&network, &members[0]],
        )?;
    }
    Ok(())
}

/// Whether `a` and `b` are two projects of one fork network (GitLab's `forked_from?` and
/// `in_fork_network_of?`: what a merge request between them needs).
pub fn same_fork_network(db: &mut Db, a: i64, b: i64) -> StoreResult<bool> {
    db.one(
        "SELECT EXISTS (SELECT 1 FROM projects x JOIN projects y ON x.fork_network_root_id = y.fork_network_root_id
             WHERE x.id = $1 AND y.id = $2)",
        &[&a, &b],
        |r| r.bool(0),
    )
}

/// Whether `fork` descends from `ancestor` through fork parents (a fork of a fork counts).
pub fn is_fork_of(db: &mut Db, fork: i64, ancestor: i64) -> StoreResult<bool> {
    db.one(
        "WITH RECURSIVE up(id, parent, depth) AS (
             SELECT id, forked_from_id, 0 FROM projects WHERE id = $1
             UNION ALL
             SELECT p.id, p.forked_from_id, up.depth + 1 FROM projects p JOIN up ON p.id = up.parent WHERE up.depth < 100
         )
         SELECT EXISTS (SELECT 1 FROM up WHERE parent = $2)",
        &[&fork, &ancestor],
        |r| r.bool(0),
    )
}

/// The names and ids of the projects in a namespace: group `group_id`, or the personal one of
/// `user_id` (a project's name is unique in its namespace, as GitLab validates it).
pub fn names_in_namespace(db: &mut Db, group_id: Option<i64>, user_id: Option<i64>) -> StoreResult<Vec<(String, i64)>> {
    match (group_id, user_id) {
        (Some(group), _) => {
            db.rows("SELECT name, id FROM projects WHERE group_id = $1", &[&group], |r| Ok((r.string(0)?, r.i64(1)?)))
        }
        (None, Some(user)) => {
            db.rows("SELECT name, id FROM projects WHERE group_id IS NULL AND namespace_user_id = $1", &[&user], |r| {
                Ok((r.string(0)?, r.i64(1)?))
            })
        }
        (None, None) => Ok(Vec::new()),
    }
}

/// The ids of the direct forks of `project_id`, oldest first.
pub fn fork_ids(db: &mut Db, project_id: i64) -> StoreResult<Vec<i64>> {
    db.rows("SELECT id FROM projects WHERE forked_from_id = $1 ORDER BY id", &[&project_id], |r| r.i64(0))
}

/// Moves a project to another namespace (GitLab's `Projects::TransferService`): its group or
/// personal owner, path and full path change; its repository stays where it is.
pub fn transfer(
    db: &mut Db,
    id: i64,
    group_id: Option<i64>,
    namespace_user_id: Option<i64>,
    full_path: &str,
) -> StoreResult<()> {
    db.execute(
        "UPDATE projects SET group_id = $2, namespace_user_id = $3, full_path = $4 WHERE id = $1",
        &[&id, &group_id, &namespace_user_id, &full_path],
    )?;
    Ok(())
}

/// Marks the project's protections as the rows of `protected_branches` from now on.
pub fn mark_protections_stored(db: &mut Db, id: i64) -> StoreResult<()> {
    db.execute("UPDATE projects SET protections_stored = TRUE WHERE id = $1 AND NOT protections_stored", &[&id])?;
    Ok(())
}

pub fn find_by_id(db: &mut Db, id: i64) -> StoreResult<Option<Project>> {
    db.row(&format!("SELECT {COLUMNS} FROM projects WHERE id = $1"), &[&id], from_row)
}

/// How a request names a project: by id, or by full path as given (matched ignoring case).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Name {
    Id(i64),
    FullPath(String),
}

pub fn find(db: &mut Db, name: &Name) -> StoreResult<Option<Project>> {
    match name {
        Name::Id(id) => find_by_id(db, *id),
        Name::FullPath(path) => find_by_full_path(db, path),
    }
}

pub fn find_by_full_path(db: &mut Db, full_path: &str) -> StoreResult<Option<Project>> {
    let sql = format!("SELECT {COLUMNS} FROM projects WHERE {}", equal_ignoring_case(db, "full_path"));
    db.row(&sql, &[&full_path], from_row)
}

/// The columns a project list may be ordered by (GitLab's `order_by`; the times this store
/// does not keep apart, `updated_at` and `last_activity_at`, are the creation time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Id,
    Name,
    Path,
    CreatedAt,
}

impl Order {
    fn column(self) -> &'static str {
        match self {
            Order::Id => "p.id",
            Order::Name => "p.name",
            Order::Path => "p.path",
            Order::CreatedAt => "p.created_at",
        }
    }
}

/// Which projects a list holds, for whom, and which page of them.
#[derive(Debug, Clone)]
pub struct ListQuery {
    /// The signed-in caller (`None`: anonymous); their memberships give `level`.
    pub user_id: Option<i64>,
    /// Administrators see every project.
    pub admin: bool,
    /// Only projects the caller is a member of (directly or through a group).
    pub membership: bool,
    pub min_access_level: Option<i64>,
    /// Matched against name and path, ignoring case.
    pub search: Option<String>,
    pub visibility: Option<Visibility>,
    /// Only archived (`Some(true)`) or only unarchived (`Some(false)`) projects.
    pub archived: Option<bool>,
    /// Only projects in these groups (`GET /groups/:id/projects`).
    pub group_ids: Option<Vec<i64>>,
    pub id_after: Option<i64>,
    pub id_before: Option<i64>,
    /// Only this project (a single project's entity, already authorized).
    pub only_id: Option<i64>,
    /// Only the direct forks of this project (`GET /projects/:id/forks`).
    pub forked_from_id: Option<i64>,
    /// Only projects with every one of these topics (`topic`, `topic_id`).
    pub topic_ids: Option<Vec<i64>>,
    pub order: Order,
    pub ascending: bool,
    pub limit: i64,
    pub offset: i64,
}

/// One project of a list, with what its entity shows beyond the project itself.
#[derive(Debug, Clone)]
pub struct Listed {
    pub project: Project,
    /// The caller's highest membership level reaching it, if any.
    pub level: Option<i64>,
    /// The caller's membership on the project itself.
    pub project_level: Option<i64>,
    /// The caller's highest membership on its group or the group's ancestors.
    pub group_level: Option<i64>,
    pub forks_count: i64,
    /// Its group (`None` for a project outside any group).
    pub namespace: Option<super::groups::Group>,
    /// The group's `full_name` (`Root / Group`), when it has one.
    pub namespace_full_name: Option<String>,
    /// The user whose personal namespace holds it: id, username, name.
    pub owner: Option<(i64, String, String)>,
}

/// The caller's level on the project itself ($1: the user, NULL for nobody).
const PROJECT_LEVEL: &str = "(SELECT max(m.access_level) FROM members m WHERE m.user_id = $1 AND m.project_id = p.id)";
/// The caller's highest level on the project's group or its ancestors (`mg`, below).
const GROUP_LEVEL: &str = "(SELECT max(mg.level) FROM mg WHERE mg.id = p.group_id)";
/// Whether the caller is a member of the project, directly or through a group.
/// On SQLite the group test reads `+p.group_id`, which keeps SQLite from answering it through
/// `projects_group`: with that index it would fetch every project of the caller's groups and
/// sort them for each page (19 ms for the first keyset page of 10,000 projects in the
/// administration bench, against 1.6 ms scanning in the list's order).
/// Shares count too (`project_group_links` with one of the caller's groups, and `sg`: the
/// groups shared with one of them, and everything below those), while they live (`{today}`).
const MEMBER: &str = "(p.id IN (SELECT m.project_id FROM members m WHERE m.user_id = $1 AND m.project_id IS NOT NULL)
                      OR {group_id} IN (SELECT mg.id FROM mg)
                      OR p.id IN (SELECT l.project_id FROM project_group_links l WHERE l.group_id IN (SELECT mg.id FROM mg)
                                  AND (l.expires_at IS NULL OR l.expires_at > '{today}'))
                      OR {group_id} IN (SELECT sg.id FROM sg))";

fn member(dialect: Dialect) -> String {
    MEMBER
        .replace("{group_id}", if dialect == Dialect::Sqlite { "+p.group_id" } else { "p.group_id" })
        .replace("{today}", &super::today())
}

/// The projects `query` selects, with `select` as the columns. `mg` holds the groups the caller
/// is a member of and every group below them, with the level that reaches each; a project's
/// levels are asked of it and of `members` row by row, so a page ordered by an indexed column
/// reads the projects of that page, however many there are.
fn list_sql(query: &ListQuery, select: &str, dialect: Dialect) -> (String, Vec<Box<dyn super::db::Param>>) {
    let member = member(dialect);
    let mut params: Vec<Box<dyn super::db::Param>> = vec![Box::new(query.user_id)];
    let mut conditions: Vec<String> = Vec::new();
    let bind = |value: Box<dyn super::db::Param>, params: &mut Vec<Box<dyn super::db::Param>>| {
        params.push(value);
        format!("${}", params.len())
    };
    if let Some(id) = query.only_id {
        let at = bind(Box::new(id), &mut params);
        conditions.push(format!("p.id = {at}"));
    }
    if let Some(id) = query.forked_from_id {
        let at = bind(Box::new(id), &mut params);
        conditions.push(format!("p.forked_from_id = {at}"));
    }
    if let Some(topics) = &query.topic_ids {
        for id in topics {
            let at = bind(Box::new(*id), &mut params);
            conditions.push(format!("p.id IN (SELECT pt.project_id FROM project_topics pt WHERE pt.topic_id = {at})"));
        }
    }
    if !query.admin {
        let internal = if query.user_id.is_some() { " OR p.visibility = 'internal'" } else { "" };
        conditions.push(format!("(p.visibility = 'public'{internal} OR {member})"));
    }
    if query.membership {
        conditions.push(member.clone());
    }
    if let Some(level) = query.min_access_level {
        let at = bind(Box::new(level), &mut params);
        conditions.push(format!("({PROJECT_LEVEL} >= {at} OR {GROUP_LEVEL} >= {at})"));
    }
    if let Some(search) = &query.search {
        let at = bind(Box::new(super::db::like_pattern(search)), &mut params);
        conditions.push(format!("(lower(p.name) LIKE {at} ESCAPE '\\' OR lower(p.path) LIKE {at} ESCAPE '\\')"));
    }
    if let Some(visibility) = query.visibility {
        let at = bind(Box::new(visibility.as_str()), &mut params);
        conditions.push(format!("p.visibility = {at}"));
    }
    if let Some(archived) = query.archived {
        let at = bind(Box::new(archived), &mut params);
        conditions.push(format!("p.archived = {at}"));
    }
    if let Some(groups) = &query.group_ids {
        let ids: Vec<String> = groups.iter().map(i64::to_string).collect();
        conditions.push(if ids.is_empty() { "1 = 0".into() } else { format!("p.group_id IN ({})", ids.join(", ")) });
    }
    if let Some(id) = query.id_after {
        let at = bind(Box::new(id), &mut params);
        conditions.push(format!("p.id > {at}"));
    }
    if let Some(id) = query.id_before {
        let at = bind(Box::new(id), &mut params);
        conditions.push(format!("p.id < {at}"));
    }
    let filter = if conditions.is_empty() { String::new() } else { format!("WHERE {}", conditions.join(" AND ")) };
    let today = super::today();
    let sql = format!(
        "WITH RECURSIVE mg(id, level, depth) AS (
             SELECT group_id, access_level, 0 FROM members WHERE user_id = $1 AND group_id IS NOT NULL
             UNION ALL
             SELECT g.id, mg.level, mg.depth + 1 FROM groups g JOIN mg ON g.parent_id = mg.id WHERE mg.depth < 100
         ),
         sg(id, depth) AS (
             SELECT gl.shared_group_id, 0 FROM group_group_links gl WHERE gl.shared_with_group_id IN (SELECT mg.id FROM mg)
             AND (gl.expires_at IS NULL OR gl.expires_at > '{today}')
             UNION ALL
             SELECT g.id, sg.depth + 1 FROM groups g JOIN sg ON g.parent_id = sg.id WHERE sg.depth < 100
         )
         SELECT {select} FROM projects p LEFT JOIN groups g ON g.id = p.group_id
         LEFT JOIN users u ON u.id = p.namespace_user_id {filter}"
    );
    (sql, params)
}

/// One page of the projects `query` selects, in its order.
pub fn list(db: &mut Db, query: &ListQuery) -> StoreResult<Vec<Listed>> {
    let columns: Vec<String> = COLUMNS.split(',').map(|c| format!("p.{}", c.trim())).collect();
    let group_columns = "g.id, g.parent_id, g.path, g.full_path, g.name, g.visibility";
    let select = format!(
        "{}, {PROJECT_LEVEL}, {GROUP_LEVEL},
         (SELECT count(*) FROM projects f WHERE f.forked_from_id = p.id), {group_columns}, u.id, u.username, u.name",
        columns.join(", ")
    );
    let direction = if query.ascending { "ASC" } else { "DESC" };
    let order = format!("ORDER BY {} {direction}, p.id {direction}", query.order.column());
    let sql_and_params = if query.offset > 0 {
        // A later offset page picks its ids first, so that the levels and counts of the
        // columns are asked of the page's rows only, not of every row skipped (PostgreSQL
        // computed them for all 9,980 before page 500 of the administration bench: 1.1 s).
        let (inner, mut params) = list_sql(query, "p.id", db.dialect());
        params.push(Box::new(query.limit));
        params.push(Box::new(query.offset));
        // The same statement with the columns (its parameters are bound in the same order),
        // its rows those of the page's ids.
        let (full, _) = list_sql(query, &select, db.dialect());
        let (_, ids) = inner.split_once("SELECT p.id FROM projects p").ok_or(super::StoreError::NoRow)?;
        let sql = format!(
            "{full} {} p.id IN (SELECT p.id FROM projects p{ids} {order} LIMIT ${} OFFSET ${}) {order}",
            if ids.contains("WHERE") { "AND" } else { "WHERE" },
            params.len() - 1,
            params.len()
        );
        (sql, params)
    } else {
        let (mut sql, mut params) = list_sql(query, &select, db.dialect());
        params.push(Box::new(query.limit));
        sql.push_str(&format!(" {order} LIMIT ${}", params.len()));
        (sql, params)
    };
    let (sql, params) = sql_and_params;
    let refs: Vec<&dyn super::db::Param> = params.iter().map(|p| p.as_ref()).collect();
    let at = COLUMN_COUNT;
    let mut listed = db.rows(&sql, &refs, |row| {
        let namespace = match row.opt_i64(at + 3)? {
            Some(_) => Some(super::groups::from_row_at(row, at + 3)?),
            None => None,
        };
        let owner = match row.opt_i64(at + 9)? {
            Some(id) => Some((id, row.string(at + 10)?, row.string(at + 11)?)),
            None => None,
        };
        let (project_level, group_level) = (row.opt_i64(at)?, row.opt_i64(at + 1)?);
        Ok(Listed {
            project: from_row(row)?,
            level: project_level.max(group_level),
            project_level,
            group_level,
            forks_count: row.i64(at + 2)?,
            namespace,
            namespace_full_name: None,
            owner,
        })
    })?;
    let groups: Vec<i64> = listed.iter().filter_map(|l| l.namespace.as_ref().map(|g| g.id)).collect();
    let names = super::groups::full_names(db, &groups)?;
    for one in &mut listed {
        if let Some(group) = &one.namespace {
            one.namespace_full_name = names.get(&group.id).cloned();
        }
    }
    Ok(listed)
}

/// How many projects `query` selects in all pages.
pub fn count(db: &mut Db, query: &ListQuery) -> StoreResult<i64> {
    let (sql, params) = list_sql(query, "count(*)", db.dialect());
    let refs: Vec<&dyn super::db::Param> = params.iter().map(|p| p.as_ref()).collect();
    db.one(&sql, &refs, |row| row.i64(0))
}
