//! `Params`: the parameters of one call, from a query string, a JSON or form body, or a typed
//! export's JSON, with GitLab's (Grape's) coercion rules in one place.
//!
//! Query and form values arrive as strings; JSON values keep their type. Every accessor accepts
//! both the way Grape does: `"30"` is an integer, `"True"` a boolean; anything else is a 400
//! naming the parameter. `key[]` keys are arrays. Query strings and form bodies are split and
//! percent-decoded here too ([`parse_form`]), for every route that reads one.

use crate::error::{ApiError, ApiResult};
use percent_encoding::percent_decode;
use serde_json::{Map, Value};

/// `text` percent-decoded; 400 naming `what` when the result is not UTF-8.
pub fn decode(text: &str, what: &str) -> ApiResult<String> {
    percent_decode(text.as_bytes())
        .decode_utf8()
        .map(|s| s.into_owned())
        .map_err(|_| ApiError::BadRequest(format!("{what} is not valid UTF-8")))
}

/// The decoded `name=value` pairs of a query string or form body, in order.
pub fn parse_form(text: &str) -> ApiResult<Vec<(String, String)>> {
    text.split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            Ok((
                decode(&name.replace('+', " "), "a parameter name")?,
                decode(&value.replace('+', " "), "a parameter value")?,
            ))
        })
        .collect()
}

#[derive(Debug, Clone, Default)]
pub struct Params {
    values: Map<String, Value>,
}

/// Grape's (dry-types') accepted spellings of booleans.
const TRUE_WORDS: &[&str] = &["1", "on", "t", "true", "y", "yes"];
const FALSE_WORDS: &[&str] = &["0", "off", "f", "false", "n", "no"];

pub fn parse_bool_word(word: &str) -> Option<bool> {
    let lower = word.to_ascii_lowercase();
    if TRUE_WORDS.contains(&lower.as_str()) {
        Some(true)
    } else if FALSE_WORDS.contains(&lower.as_str()) {
        Some(false)
    } else {
        None
    }
}

impl Params {
    pub fn new() -> Params {
        Params::default()
    }

    /// From a JSON object; anything else is a 400.
    pub fn from_json_object(value: Value) -> ApiResult<Params> {
        match value {
            Value::Object(values) => Ok(Params { values }),
            Value::Null => Ok(Params::default()),
            _ => Err(ApiError::BadRequest("the body must be a JSON object".into())),
        }
    }

    /// Adds a string pair from a query string or form body. `name[]` and repeated names collect
    /// into arrays; otherwise a later value replaces an earlier one.
    pub fn push_pair(&mut self, name: &str, value: String) {
        if let Some(base) = name.strip_suffix("[]") {
            match self.values.get_mut(base) {
                Some(Value::Array(items)) => items.push(Value::String(value)),
                _ => {
                    self.values.insert(base.to_string(), Value::Array(vec![Value::String(value)]));
                }
            }
        } else {
            self.values.insert(name.to_string(), Value::String(value));
        }
    }

    /// Merges `other` into `self`; `other` wins where both have a key.
    pub fn merge(&mut self, other: Params) {
        self.values.extend(other.values);
    }

    pub fn set(&mut self, name: &str, value: Value) {
        self.values.insert(name.to_string(), value);
    }

    pub fn remove(&mut self, name: &str) -> Option<Value> {
        self.values.remove(name)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    pub fn raw(&self, name: &str) -> Option<&Value> {
        self.values.get(name)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.values.iter()
    }

    /// A string parameter; numbers are taken as their decimal text, as Grape does.
    /// Like every typed accessor, a JSON `null` counts as absent (Grape's optional `nil`).
    pub fn string(&self, name: &str) -> ApiResult<Option<String>> {
        match self.values.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(_) => Err(ApiError::InvalidParam(name.to_string())),
        }
    }

    /// A revision parameter (a branch, tag or commit: `ref`, `sha`, `from`, `to`, ...): a string
    /// that could name one, else 400 `<name> is invalid`. Refused before any lookup: a NUL or
    /// other control character (GitLab refuses null bytes in any parameter), a leading `-` (an
    /// option to git), `..` (revision-range syntax; no ref name holds it), whitespace inside,
    /// reflog (`@{...}`) and search (`:/...`) forms. Invalid UTF-8
    /// never gets this far: the request's parser answers it 400.
    pub fn revision(&self, name: &str) -> ApiResult<Option<String>> {
        let value = self.string(name)?;
        match &value {
            Some(text) if !plausible_revision(text) => Err(ApiError::InvalidParam(name.to_string())),
            _ => Ok(value),
        }
    }

    pub fn required_string(&self, name: &str) -> ApiResult<String> {
        self.string(name)?.ok_or_else(|| ApiError::MissingParam(name.to_string()))
    }

    /// A required text parameter that may not be blank: Grape's `<name> is missing` and
    /// `<name> is empty`.
    pub fn required_text(&self, name: &str) -> ApiResult<String> {
        let value = self.required_string(name)?;
        if value.trim().is_empty() {
            return Err(ApiError::ParamError(format!("{name} is empty")));
        }
        Ok(value)
    }

    /// An integer parameter: a JSON integer or a string of decimal digits (optionally signed).
    pub fn int(&self, name: &str) -> ApiResult<Option<i64>> {
        match self.values.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => parse_int(value).map(Some).ok_or_else(|| ApiError::InvalidParam(name.to_string())),
        }
    }

    /// A boolean parameter: a JSON boolean or one of Grape's words (`true`, `True`, `1`, `yes`, ...).
    pub fn bool(&self, name: &str) -> ApiResult<Option<bool>> {
        match self.values.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(Value::String(s)) => {
                parse_bool_word(s).map(Some).ok_or_else(|| ApiError::InvalidParam(name.to_string()))
            }
            Some(Value::Number(n)) if n.as_i64() == Some(1) => Ok(Some(true)),
            Some(Value::Number(n)) if n.as_i64() == Some(0) => Ok(Some(false)),
            Some(_) => Err(ApiError::InvalidParam(name.to_string())),
        }
    }

    /// An array of strings: `name[]=a&name[]=b`, a JSON array, or `a,b` comma-separated.
    pub fn string_list(&self, name: &str) -> ApiResult<Option<Vec<String>>> {
        match self.values.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.split(',').map(str::to_string).collect())),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(s) => Ok(s.clone()),
                    Value::Number(n) => Ok(n.to_string()),
                    _ => Err(ApiError::InvalidParam(name.to_string())),
                })
                .collect::<ApiResult<Vec<_>>>()
                .map(Some),
            Some(_) => Err(ApiError::InvalidParam(name.to_string())),
        }
    }
}

/// An integer from a JSON number without fraction or a decimal string that fits in `i64`.
pub fn parse_int(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => parse_int_text(s),
        _ => None,
    }
}

pub fn parse_int_text(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Whether `text` could name a revision: see [`Params::revision`]. Whitespace around it is not
/// judged (GitLab strips compare's refs, and an unknown name is the lookup's 404); a NUL is, as
/// anywhere. Whitespace inside, a reflog form (`@{...}`) and a search or index form (a leading
/// `:`) are refused too (decisions D8): no ref name holds them.
pub fn plausible_revision(text: &str) -> bool {
    let trimmed = text.trim_matches(|c: char| c.is_ascii_whitespace());
    !text.contains('\0')
        && !trimmed.starts_with(['-', ':'])
        && !trimmed.contains("..")
        && !trimmed.contains("@{")
        && !trimmed.chars().any(|c| c.is_control() || c.is_whitespace())
}
