//! The project entity as GitLab writes it: `BasicProjectDetails` (`simple=true`, fork
//! parents), `ProjectDetails` and `ProjectWithAccess`, keys in GitLab's order. Serialized
//! straight from the listed row, without building a JSON tree first: a page of projects is
//! twenty of these.

use super::View;
use crate::api::ordered;
use crate::store::groups::Group;
use crate::store::projects::Listed;
use forgecore_date::rfc3339;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

/// The branch a project without one shows, as GitLab's `default_branch_or_main`.
const INSTANCE_DEFAULT_BRANCH: &str = "main";
/// GitLab's `NotificationSetting` level `global`, what a membership shows without settings.
const NOTIFICATION_GLOBAL: i64 = 3;
const FEATURES_ENABLED: [&str; 6] = [
    "issues_enabled",
    "merge_requests_enabled",
    "wiki_enabled",
    "jobs_enabled",
    "snippets_enabled",
    "container_registry_enabled",
];
const FEATURE_ACCESS_LEVELS: [&str; 8] = [
    "issues_access_level",
    "repository_access_level",
    "merge_requests_access_level",
    "forking_access_level",
    "wiki_access_level",
    "builds_access_level",
    "snippets_access_level",
    "pages_access_level",
];
const LINKS: [&str; 7] =
    ["issues", "merge_requests", "repository/branches", "labels", "events", "members", "cluster_agents"];
const LINK_KEYS: [&str; 7] =
    ["issues", "merge_requests", "repo_branches", "labels", "events", "members", "cluster_agents"];

/// What the repository on this host says about the project: its `HEAD` branch (`None`
/// detached) and whether it has no branch; `None` when this host cannot read it.
pub(super) type Facts = Option<(Option<String>, bool)>;

/// One project's entity for the caller `view` describes.
pub struct Entity<'a> {
    pub(super) base_url: &'a str,
    pub(super) listed: Listed,
    pub(super) view: View,
    pub(super) facts: Facts,
    /// The fork parent's entity, when the project is a fork whose parent the caller can see.
    pub(super) parent: Option<Value>,
    /// `shared_with_groups`: the project's live links to groups the caller may see.
    pub(super) shared: Option<Value>,
}

impl Serialize for Entity<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let project = &self.listed.project;
        let base_url = self.base_url;
        let view = self.view;
        let web_url = format!("{base_url}/{}", project.full_path);
        let created_at = rfc3339(project.created_at, 0);
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("id", &project.id)?;
        map.serialize_entry("description", &project.description)?;
        map.serialize_entry("name", &project.name)?;
        // GitLab's `name_with_namespace`: the namespace's `human_name` (a group's full name,
        // a personal namespace's owner's name), then the project's name.
        let human_name = match (&self.listed.namespace_full_name, &self.listed.owner) {
            (Some(full_name), _) => Some(full_name.as_str()),
            (None, Some((_, _, owner_name))) => Some(owner_name.as_str()),
            (None, None) => None,
        };
        match human_name {
            Some(human) => map.serialize_entry("name_with_namespace", &format_args!("{human} / {}", project.name))?,
            None => map.serialize_entry("name_with_namespace", &project.name)?,
        }
        map.serialize_entry("path", &project.path)?;
        map.serialize_entry("path_with_namespace", &project.full_path)?;
        map.serialize_entry("created_at", &created_at)?;
        if view.read_code {
            // A repository this host cannot open (its storage is elsewhere) has no default
            // branch to show; one without a HEAD branch shows the instance's.
            let branch = self.facts.as_ref().map(|(head, _)| head.as_deref().unwrap_or(INSTANCE_DEFAULT_BRANCH));
            map.serialize_entry("default_branch", &branch)?;
        }
        map.serialize_entry("tag_list", &project.topics)?;
        map.serialize_entry("topics", &project.topics)?;
        map.serialize_entry("ssh_url_to_repo", &())?;
        map.serialize_entry("http_url_to_repo", &format_args!("{web_url}.git"))?;
        map.serialize_entry("web_url", &web_url)?;
        if view.read_code {
            map.serialize_entry("readme_url", &())?;
            map.serialize_entry("forks_count", &self.listed.forks_count)?;
        }
        map.serialize_entry("avatar_url", &())?;
        map.serialize_entry("star_count", &0)?;
        map.serialize_entry("last_activity_at", &created_at)?;
        let owner = self.listed.owner.as_ref();
        map.serialize_entry("namespace", &Namespace { base_url, group: self.listed.namespace.as_ref(), owner })?;
        if view.simple {
            return map.end();
        }
        map.serialize_entry("_links", &Links { api: &format!("{base_url}/api/v4/projects/{}", project.id) })?;
        let empty_repo = self.facts.as_ref().is_none_or(|(_, empty)| *empty);
        map.serialize_entry("empty_repo", &empty_repo)?;
        map.serialize_entry("archived", &project.archived)?;
        map.serialize_entry("visibility", project.visibility.as_str())?;
        if let Some((id, username, name)) = owner {
            map.serialize_entry("owner", &ordered::user_basic(base_url, *id, username, name, "active"))?;
        }
        for key in FEATURES_ENABLED {
            map.serialize_entry(key, &true)?;
        }
        for key in FEATURE_ACCESS_LEVELS {
            map.serialize_entry(key, "enabled")?;
        }
        map.serialize_entry("mirror", &false)?;
        map.serialize_entry("creator_id", &project.creator_id)?;
        // Forks only (`Entities::Project`: `expose :mr_default_target_self, if: ->(p) { p.forked? }`).
        if project.forked_from_id.is_some() {
            map.serialize_entry("mr_default_target_self", &project.mr_default_target_self)?;
        }
        let settings = &project.settings;
        map.serialize_entry("merge_method", &settings.merge_method)?;
        map.serialize_entry("squash_option", &settings.squash_option)?;
        if let Some(shared) = &self.shared {
            map.serialize_entry("shared_with_groups", shared)?;
        }
        map.serialize_entry("only_allow_merge_if_pipeline_succeeds", &settings.only_allow_merge_if_pipeline_succeeds)?;
        map.serialize_entry("allow_merge_on_skipped_pipeline", &settings.allow_merge_on_skipped_pipeline)?;
        map.serialize_entry(
            "only_allow_merge_if_all_discussions_are_resolved",
            &settings.only_allow_merge_if_all_discussions_are_resolved,
        )?;
        map.serialize_entry("remove_source_branch_after_merge", &settings.remove_source_branch_after_merge)?;
        map.serialize_entry("request_access_enabled", &true)?;
        map.serialize_entry("open_issues_count", &0)?;
        // EE's delayed deletion: the day it was marked (`marked_for_deletion_on`, and the
        // older `marked_for_deletion_at`, both dates), null when it is not.
        let marked_on = project.marked_for_deletion_at.map(|at| rfc3339(at, 0)[..10].to_string());
        map.serialize_entry("marked_for_deletion_at", &marked_on)?;
        map.serialize_entry("marked_for_deletion_on", &marked_on)?;
        if let Some(parent) = &self.parent {
            map.serialize_entry("forked_from_project", parent)?;
        }
        if view.with_access {
            map.serialize_entry(
                "permissions",
                &Permissions { project: self.listed.project_level, group: self.listed.group_level },
            )?;
        }
        map.end()
    }
}

/// The project's group, its owner's personal namespace, or an empty namespace for a project
/// registered outside any: clients that read `namespace.full_path` keep working.
struct Namespace<'a> {
    base_url: &'a str,
    group: Option<&'a Group>,
    /// The user whose personal namespace holds the project: id, username, name.
    owner: Option<&'a (i64, String, String)>,
}

impl Serialize for Namespace<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(8))?;
        match (self.group, self.owner) {
            (None, Some((id, username, name))) => {
                map.serialize_entry("id", &crate::store::namespaces::user_namespace_id(*id))?;
                map.serialize_entry("name", name)?;
                map.serialize_entry("path", username)?;
                map.serialize_entry("kind", "user")?;
                map.serialize_entry("full_path", username)?;
                map.serialize_entry("parent_id", &())?;
                map.serialize_entry("avatar_url", &())?;
                map.serialize_entry("web_url", &format_args!("{}/{username}", self.base_url))?;
            }
            (Some(group), _) => {
                map.serialize_entry("id", &group.id)?;
                map.serialize_entry("name", &group.name)?;
                map.serialize_entry("path", &group.path)?;
                map.serialize_entry("kind", "group")?;
                map.serialize_entry("full_path", &group.full_path)?;
                map.serialize_entry("parent_id", &group.parent_id)?;
                map.serialize_entry("avatar_url", &())?;
                map.serialize_entry("web_url", &format_args!("{}/groups/{}", self.base_url, group.full_path))?;
            }
            (None, None) => {
                map.serialize_entry("id", &())?;
                map.serialize_entry("name", "")?;
                map.serialize_entry("path", "")?;
                map.serialize_entry("kind", "user")?;
                map.serialize_entry("full_path", "")?;
                map.serialize_entry("parent_id", &())?;
                map.serialize_entry("avatar_url", &())?;
                map.serialize_entry("web_url", self.base_url)?;
            }
        }
        map.end()
    }
}

/// `_links`, under the project's API address.
struct Links<'a> {
    api: &'a str,
}

impl Serialize for Links<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(LINKS.len() + 1))?;
        map.serialize_entry("self", self.api)?;
        for (key, path) in LINK_KEYS.iter().zip(LINKS) {
            map.serialize_entry(key, &format_args!("{}/{path}", self.api))?;
        }
        map.end()
    }
}

/// `permissions`: the caller's membership on the project and through its groups.
struct Permissions {
    project: Option<i64>,
    group: Option<i64>,
}

impl Serialize for Permissions {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("project_access", &Access(self.project))?;
        map.serialize_entry("group_access", &Access(self.group))?;
        map.end()
    }
}

struct Access(Option<i64>);

impl Serialize for Access {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            None => serializer.serialize_none(),
            Some(level) => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("access_level", &level)?;
                map.serialize_entry("notification_level", &NOTIFICATION_GLOBAL)?;
                map.end()
            }
        }
    }
}
