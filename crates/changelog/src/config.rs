//! The changelog configuration (`.gitlab/changelog_config.yml` unless `config_file` says
//! otherwise), read as `Gitlab::Changelog::Config.from_git` reads it.
//!
//! Keys: `date_format` (strftime, default `%Y-%m-%d`), `template` (parsed here, default
//! [`DEFAULT_TEMPLATE`]), `categories` (a hash from trailer value to section title; must be a
//! hash), `tag_regex` (compiled only when a previous tag is looked for) and `include_groups`
//! (group paths whose direct members are always credited). Other keys are ignored; a key whose
//! value is `nil` or `false` keeps its default. A missing or blank file is the defaults.
//!
//! Reading YAML and the template together is bounded: by [`ConfigLimits`] (bytes, nesting,
//! nodes) and by one deadline (the instance's `changelog_parse_millis`, 2 s by default).

use super::template::{Template, TemplateError, DEFAULT_TEMPLATE};
use super::value::Value;
use super::version::DEFAULT_TAG_REGEX;
use super::yaml::{self, YamlError, YamlLimits};
use super::ChangelogError;
use std::collections::HashMap;
use std::time::Instant;

pub const DEFAULT_PATH: &str = ".gitlab/changelog_config.yml";
pub const DEFAULT_DATE_FORMAT: &str = "%Y-%m-%d";

#[derive(Debug, Clone, Copy)]
pub struct ConfigLimits {
    /// Largest configuration file read at all.
    pub max_bytes: u64,
    pub max_depth: usize,
    pub max_nodes: usize,
    pub deadline: Instant,
}

impl ConfigLimits {
    pub fn with_deadline(deadline: Instant) -> ConfigLimits {
        ConfigLimits { max_bytes: 1 << 20, max_depth: 64, max_nodes: 100_000, deadline }
    }
}

#[derive(Debug, Clone)]
pub struct Config {
    pub date_format: String,
    pub template: Template,
    /// The `categories` hash in file order (values are section titles).
    pub categories: Vec<(Value, Value)>,
    /// String keys of `categories` to their titles, for lookups.
    by_name: HashMap<String, Value>,
    pub tag_regex: String,
    pub include_groups: Vec<String>,
}

fn timeout() -> ChangelogError {
    ChangelogError("The changelog configuration could not be parsed within the time limit".into())
}

fn template_error(e: TemplateError) -> ChangelogError {
    match e {
        TemplateError::Invalid(message) => ChangelogError(message),
        TemplateError::Timeout => timeout(),
        TemplateError::TooLarge => ChangelogError("The changelog template output is too large".into()),
    }
}

impl Config {
    /// The defaults (GitLab parses its default template too).
    pub fn defaults(deadline: Instant) -> Result<Config, ChangelogError> {
        Ok(Config {
            date_format: DEFAULT_DATE_FORMAT.into(),
            template: Template::parse(DEFAULT_TEMPLATE, deadline).map_err(template_error)?,
            categories: Vec::new(),
            by_name: HashMap::new(),
            tag_regex: DEFAULT_TAG_REGEX.into(),
            include_groups: Vec::new(),
        })
    }

    /// The configuration from the file at `path`, whose bytes are `text` (`None`: no such file).
    pub fn load(path: &str, text: Option<&[u8]>, limits: ConfigLimits) -> Result<Config, ChangelogError> {
        let mut config = Config::defaults(limits.deadline)?;
        let Some(bytes) = text else { return Ok(config) };
        if bytes.len() as u64 > limits.max_bytes {
            return Err(ChangelogError(format!(
                "{path} is larger than {} bytes, the limit for a changelog configuration",
                limits.max_bytes
            )));
        }
        let invalid = || ChangelogError(format!("{path} does not contain valid YAML"));
        let text = std::str::from_utf8(bytes).map_err(|_| invalid())?;
        if text.trim().is_empty() {
            return Ok(config);
        }
        let yaml_limits =
            YamlLimits { max_depth: limits.max_depth, max_nodes: limits.max_nodes, deadline: limits.deadline };
        let root = match yaml::load(text, yaml_limits) {
            Ok(root) => root,
            Err(YamlError::Invalid) => return Err(invalid()),
            Err(YamlError::Timeout) => return Err(timeout()),
            Err(YamlError::TooComplex) => {
                return Err(ChangelogError(format!(
                    "{path} is nested deeper than {} levels or has more than {} values",
                    limits.max_depth, limits.max_nodes
                )))
            }
        };
        let root = match root {
            Value::Nil => return Ok(config),
            root @ Value::Hash(_) => root,
            _ => return Err(ChangelogError("The changelog configuration must be a Hash".into())),
        };
        let set = |name: &str| root.get(name).filter(|v| v.ruby_truthy());
        if let Some(value) = set("date_format") {
            config.date_format = value
                .as_str()
                .ok_or_else(|| ChangelogError("The \"date_format\" configuration key must be a String".into()))?
                .to_string();
        }
        if let Some(value) = set("template") {
            let source = value
                .as_str()
                .ok_or_else(|| ChangelogError("The \"template\" configuration key must be a String".into()))?;
            config.template = Template::parse(source, limits.deadline).map_err(template_error)?;
        }
        if let Some(value) = set("categories") {
            let Value::Hash(pairs) = value else {
                return Err(ChangelogError("The \"categories\" configuration key must be a Hash".into()));
            };
            for (key, title) in pairs {
                if let Value::Str(name) = key {
                    config.by_name.insert(name.clone(), title.clone());
                }
            }
            config.categories = pairs.clone();
        }
        if let Some(value) = set("tag_regex") {
            config.tag_regex = value
                .as_str()
                .ok_or_else(|| ChangelogError("The \"tag_regex\" configuration key must be a String".into()))?
                .to_string();
        }
        config.include_groups = match root.get("include_groups") {
            None | Some(Value::Nil) => Vec::new(),
            Some(Value::Array(items)) => items.iter().filter_map(|v| v.as_str().map(str::to_string)).collect(),
            Some(Value::Str(one)) => vec![one.clone()],
            Some(_) => Vec::new(),
        };
        if Instant::now() > limits.deadline {
            return Err(timeout());
        }
        Ok(config)
    }

    /// The section title for a trailer value: `categories[name] || name`.
    pub fn category(&self, name: &str) -> Value {
        match self.by_name.get(name) {
            Some(title) if title.ruby_truthy() => title.clone(),
            _ => Value::str(name),
        }
    }
}
