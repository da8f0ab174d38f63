//! One release section (`Gitlab::Changelog::Release`): entries grouped by category, the data a
//! template sees, and the Markdown of the section.
//!
//! Categories come first in the order of the configuration's `categories` values, then in order
//! of first appearance; empty ones are dropped. Each entry carries `title`, `commit` (`reference`,
//! `trailers`, `web_url`), `author` when the commit's email belongs to a user (`reference`,
//! `contributor`, `credit`) and `merge_request` when one is known (`reference`, `web_url`).

use super::config::Config;
use super::strftime::{strftime_within, DateTime};
use super::template::TemplateError;
use super::value::Value;
use super::ChangelogError;
use std::collections::HashMap;
use std::time::Instant;

/// Largest section accepted: the template's output, the header's date and version together.
pub const MAX_OUTPUT_BYTES: usize = 16 << 20;
/// The bytes of a section around its version, date and body: `## ` ` (` `)\n\n` `\n\n`.
const SECTION_FRAME: usize = 10;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Author {
    pub reference: String,
    pub contributor: bool,
    pub credit: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeRequest {
    pub reference: String,
    pub web_url: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub title: String,
    pub commit_reference: String,
    pub commit_web_url: String,
    /// Each trailer key once, with its last value, in order of first appearance.
    pub trailers: Vec<(String, String)>,
    pub author: Option<Author>,
    pub merge_request: Option<MergeRequest>,
}

impl Entry {
    fn to_value(&self) -> Value {
        let trailers =
            Value::Hash(self.trailers.iter().map(|(k, v)| (Value::str(k.as_str()), Value::str(v.as_str()))).collect());
        let mut pairs = vec![
            (Value::str("title"), Value::str(self.title.as_str())),
            (
                Value::str("commit"),
                Value::hash([
                    ("reference", Value::str(self.commit_reference.as_str())),
                    ("trailers", trailers),
                    ("web_url", Value::str(self.commit_web_url.as_str())),
                ]),
            ),
        ];
        if let Some(author) = &self.author {
            pairs.push((
                Value::str("author"),
                Value::hash([
                    ("reference", Value::str(author.reference.as_str())),
                    ("contributor", Value::Bool(author.contributor)),
                    ("credit", Value::Bool(author.credit)),
                ]),
            ));
        }
        if let Some(mr) = &self.merge_request {
            pairs.push((
                Value::str("merge_request"),
                Value::hash([
                    ("reference", Value::str(mr.reference.as_str())),
                    ("web_url", Value::str(mr.web_url.as_str())),
                ]),
            ));
        }
        Value::Hash(pairs)
    }
}

pub struct Release {
    /// The version as it appears in the header (without a leading `v`).
    pub version: String,
    pub date: DateTime,
    categories: Vec<(Value, Vec<Entry>)>,
    /// Positions in `categories` of string titles, so that adding an entry stays cheap.
    by_title: HashMap<String, usize>,
}

impl Release {
    pub fn new(version: &str, date: DateTime, config: &Config) -> Release {
        let mut release =
            Release { version: version.to_string(), date, categories: Vec::new(), by_title: HashMap::new() };
        for (_, title) in &config.categories {
            release.slot(title);
        }
        release
    }

    fn slot(&mut self, title: &Value) -> usize {
        let found = match title {
            Value::Str(s) => self.by_title.get(s).copied(),
            _ => self.categories.iter().position(|(t, _)| t.same_key(title)),
        };
        if let Some(i) = found {
            return i;
        }
        self.categories.push((title.clone(), Vec::new()));
        let i = self.categories.len() - 1;
        if let Value::Str(s) = title {
            self.by_title.insert(s.clone(), i);
        }
        i
    }

    /// Adds an entry under `category` (a trailer value), mapped through the configuration.
    pub fn add_entry(&mut self, config: &Config, category: &str, entry: Entry) {
        let title = config.category(category);
        let i = self.slot(&title);
        self.categories[i].1.push(entry);
    }

    /// `{"categories": [{title, count, single_change, entries}, ...]}`, empty categories dropped.
    pub fn data(&self) -> Value {
        let rows = self
            .categories
            .iter()
            .filter(|(_, entries)| !entries.is_empty())
            .map(|(title, entries)| {
                Value::hash([
                    ("title", title.clone()),
                    ("count", Value::Int(entries.len() as i64)),
                    ("single_change", Value::Bool(entries.len() == 1)),
                    ("entries", Value::Array(entries.iter().map(Entry::to_value).collect())),
                ])
            })
            .collect();
        Value::hash([("categories", Value::Array(rows))])
    }

    /// The section as it goes into a file: `## <version> (<date>)\n\n<template output, stripped>\n\n`.
    pub fn to_markdown(&self, config: &Config, deadline: Instant) -> Result<String, ChangelogError> {
        let body = config.template.render(&self.data(), MAX_OUTPUT_BYTES, deadline).map_err(|e| match e {
            TemplateError::Invalid(message) => ChangelogError(message),
            TemplateError::Timeout => ChangelogError("The changelog template took too long to render".into()),
            TemplateError::TooLarge => {
                ChangelogError(format!("The changelog template output exceeds {MAX_OUTPUT_BYTES} bytes"))
            }
        })?;
        // The bound is the whole section's: the date is formatted from the configuration too,
        // and `date_format` alone can ask for hundreds of megabytes.
        let body = ruby_strip(&body);
        let too_large = || ChangelogError(format!("The changelog section exceeds {MAX_OUTPUT_BYTES} bytes"));
        let room =
            MAX_OUTPUT_BYTES.checked_sub(body.len() + self.version.len() + SECTION_FRAME).ok_or_else(too_large)?;
        let date = strftime_within(&self.date, &config.date_format, room).ok_or_else(too_large)?;
        Ok(format!("## {} ({date})\n\n{body}\n\n", self.version))
    }
}

fn ruby_space(c: char) -> bool {
    matches!(c, '\0' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ')
}

/// Ruby's `String#strip`.
pub fn ruby_strip(text: &str) -> &str {
    text.trim_matches(ruby_space)
}

/// Ruby's `String#rstrip`.
pub fn ruby_rstrip(text: &str) -> &str {
    text.trim_end_matches(ruby_space)
}
