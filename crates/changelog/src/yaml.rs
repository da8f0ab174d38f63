//! The changelog configuration's YAML, loaded the way GitLab's `YAML.safe_load` (Psych) loads
//! it, within bounds.
//!
//! Events come from `saphyr-parser` one at a time and we build the value ourselves, so every
//! limit holds before memory is spent: nesting depth, node count, and a deadline checked as we
//! go. Aliases are refused outright (safe_load does not enable them), which also makes alias
//! bombs impossible; tags other than the YAML core ones (`!ruby/object`, `!foo`) are refused too.
//! Plain scalars are typed as Psych (YAML 1.1) types them: `~`/`null`, `true`/`yes`/`on`, integers,
//! floats; everything else is a string. Only the first document counts.

use super::value::{hash_insert, Value};
use saphyr_parser::{Event, Parser, ScalarStyle, Tag};
use std::borrow::Cow;
use std::collections::HashMap;
use std::time::Instant;

/// Why a YAML text was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum YamlError {
    /// Not YAML, or YAML that safe_load refuses (aliases, foreign tags).
    Invalid,
    /// Deeper than the nesting limit or more nodes than the node limit.
    TooComplex,
    /// The deadline passed.
    Timeout,
}

#[derive(Debug, Clone, Copy)]
pub struct YamlLimits {
    pub max_depth: usize,
    pub max_nodes: usize,
    pub deadline: Instant,
}

enum Frame {
    Seq(Vec<Value>),
    /// Pairs, the key waiting for its value, and the positions of string keys.
    Map(Vec<(Value, Value)>, Option<Value>, HashMap<String, usize>),
}

/// How often (in events) the deadline is looked at.
const CLOCK_EVERY: usize = 256;

/// The first document of `text` as a value; an empty stream is `Nil`.
pub fn load(text: &str, limits: YamlLimits) -> Result<Value, YamlError> {
    let mut parser = Parser::new_from_str(text);
    let mut stack: Vec<Frame> = Vec::new();
    let mut nodes = 0usize;
    let mut events = 0usize;
    loop {
        events += 1;
        if events % CLOCK_EVERY == 0 && Instant::now() > limits.deadline {
            return Err(YamlError::Timeout);
        }
        let Some(next) = parser.next_event() else { return Ok(Value::Nil) };
        let (event, _) = next.map_err(|_| YamlError::Invalid)?;
        let value = match event {
            Event::StreamEnd => return Ok(Value::Nil),
            Event::Nothing | Event::StreamStart | Event::DocumentStart(_) | Event::DocumentEnd => continue,
            Event::Alias(_) => return Err(YamlError::Invalid),
            Event::Scalar(text, style, _, tag) => scalar(text, style, tag.as_deref())?,
            Event::SequenceStart(_, tag) | Event::MappingStart(_, tag) if !collection_tag_ok(tag.as_deref()) => {
                return Err(YamlError::Invalid)
            }
            Event::SequenceStart(..) => {
                if stack.len() >= limits.max_depth {
                    return Err(YamlError::TooComplex);
                }
                stack.push(Frame::Seq(Vec::new()));
                continue;
            }
            Event::MappingStart(..) => {
                if stack.len() >= limits.max_depth {
                    return Err(YamlError::TooComplex);
                }
                stack.push(Frame::Map(Vec::new(), None, HashMap::new()));
                continue;
            }
            Event::SequenceEnd => match stack.pop() {
                Some(Frame::Seq(items)) => Value::Array(items),
                _ => return Err(YamlError::Invalid),
            },
            Event::MappingEnd => match stack.pop() {
                Some(Frame::Map(pairs, None, _)) => Value::Hash(pairs),
                _ => return Err(YamlError::Invalid),
            },
        };
        nodes += 1;
        if nodes > limits.max_nodes {
            return Err(YamlError::TooComplex);
        }
        match stack.last_mut() {
            None => return Ok(value),
            Some(Frame::Seq(items)) => items.push(value),
            Some(Frame::Map(pairs, pending, positions)) => match pending.take() {
                None => *pending = Some(value),
                Some(Value::Str(key)) => match positions.get(&key) {
                    Some(&i) => pairs[i].1 = value,
                    None => {
                        positions.insert(key.clone(), pairs.len());
                        pairs.push((Value::Str(key), value));
                    }
                },
                Some(key) => hash_insert(pairs, key, value),
            },
        }
    }
}

const CORE: &str = "tag:yaml.org,2002:";

fn collection_tag_ok(tag: Option<&Tag>) -> bool {
    match tag {
        None => true,
        Some(tag) => tag.handle == CORE && matches!(tag.suffix.as_str(), "map" | "seq" | "omap"),
    }
}

fn scalar(text: Cow<'_, str>, style: ScalarStyle, tag: Option<&Tag>) -> Result<Value, YamlError> {
    match tag {
        None if style == ScalarStyle::Plain => Ok(plain(&text)),
        None => Ok(Value::Str(text.into_owned())),
        Some(tag) if tag.handle == CORE => match tag.suffix.as_str() {
            "str" => Ok(Value::Str(text.into_owned())),
            "null" => Ok(Value::Nil),
            "bool" | "int" | "float" => match plain(&text) {
                v @ Value::Bool(_) if tag.suffix == "bool" => Ok(v),
                v @ Value::Int(_) if tag.suffix == "int" => Ok(v),
                Value::Int(n) if tag.suffix == "float" => Ok(Value::Float(n as f64)),
                v @ Value::Float(_) if tag.suffix == "float" => Ok(v),
                _ => Err(YamlError::Invalid),
            },
            _ => Err(YamlError::Invalid),
        },
        Some(_) => Err(YamlError::Invalid),
    }
}

/// A plain scalar typed as Psych types it.
fn plain(text: &str) -> Value {
    match text {
        "" | "~" => return Value::Nil,
        _ => {}
    }
    let lower = text.to_ascii_lowercase();
    match lower.as_str() {
        "null" => return Value::Nil,
        "yes" | "true" | "on" => return Value::Bool(true),
        "no" | "false" | "off" => return Value::Bool(false),
        ".inf" | "+.inf" => return Value::Float(f64::INFINITY),
        "-.inf" => return Value::Float(f64::NEG_INFINITY),
        ".nan" => return Value::Float(f64::NAN),
        _ => {}
    }
    integer(text).or_else(|| float(text)).unwrap_or_else(|| Value::Str(text.to_string()))
}

fn integer(text: &str) -> Option<Value> {
    let (negative, body) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (radix, digits) = if let Some(rest) = body.strip_prefix("0x") {
        (16, rest)
    } else if let Some(rest) = body.strip_prefix("0b") {
        (2, rest)
    } else if let Some(rest) = body.strip_prefix("0o") {
        (8, rest)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    let cleaned: String = digits.chars().filter(|c| *c != '_' && (radix != 10 || *c != ',')).collect();
    if cleaned.is_empty() || !cleaned.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    if radix == 10 && digits.starts_with(['_', ',']) {
        return None;
    }
    let magnitude = i64::from_str_radix(&cleaned, radix).ok()?;
    Some(Value::Int(if negative { -magnitude } else { magnitude }))
}

fn float(text: &str) -> Option<Value> {
    let body = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    let (whole, fraction) = mantissa.split_once('.')?;
    let digits_ok = |s: &str| s.chars().all(|c| c.is_ascii_digit() || c == '_' || c == ',');
    if !digits_ok(whole) || !fraction.chars().all(|c| c.is_ascii_digit()) || whole.starts_with(['_', ',']) {
        return None;
    }
    if let Some(exponent) = exponent {
        let digits = exponent.strip_prefix(['-', '+'])?;
        if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
    }
    let cleaned: String = text.chars().filter(|c| *c != '_' && *c != ',').collect();
    cleaned.parse::<f64>().ok().map(Value::Float)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn limits() -> YamlLimits {
        YamlLimits { max_depth: 8, max_nodes: 100, deadline: Instant::now() + Duration::from_secs(5) }
    }

    #[test]
    fn types_scalars_as_psych_does() {
        let v = load("a: 1\nb: yes\nc: ~\nd: '1'\ne: 1.5\nf: text\ng:\nh: 0x1f\ni: !!str 12\n", limits()).unwrap();
        assert_eq!(v.get("a"), Some(&Value::Int(1)));
        assert_eq!(v.get("b"), Some(&Value::Bool(true)));
        assert_eq!(v.get("c"), Some(&Value::Nil));
        assert_eq!(v.get("d"), Some(&Value::str("1")));
        assert_eq!(v.get("e"), Some(&Value::Float(1.5)));
        assert_eq!(v.get("f"), Some(&Value::str("text")));
        assert_eq!(v.get("g"), Some(&Value::Nil));
        assert_eq!(v.get("h"), Some(&Value::Int(31)));
        assert_eq!(v.get("i"), Some(&Value::str("12")));
    }

    #[test]
    fn duplicate_keys_keep_the_first_position_and_the_last_value() {
        let v = load("a: 1\nb: 2\na: 3\n", limits()).unwrap();
        assert_eq!(v, Value::Hash(vec![(Value::str("a"), Value::Int(3)), (Value::str("b"), Value::Int(2))]));
    }

    #[test]
    fn large_mappings_load_in_linear_time() {
        let text: String = (0..50_000).map(|i| format!("k{i}: {i}\n")).collect();
        let limits = YamlLimits { max_depth: 8, max_nodes: 200_000, deadline: Instant::now() + Duration::from_secs(5) };
        let started = Instant::now();
        let Value::Hash(pairs) = load(&text, limits).unwrap() else { panic!("not a hash") };
        assert_eq!(pairs.len(), 50_000);
        assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    }

    #[test]
    fn refuses_aliases_foreign_tags_depth_and_size() {
        assert_eq!(load("a: &x [1]\nb: *x\n", limits()), Err(YamlError::Invalid));
        assert_eq!(load("a: !ruby/object:Foo {}\n", limits()), Err(YamlError::Invalid));
        assert_eq!(load("a: [[[[[[[[[[1]]]]]]]]]]\n", limits()), Err(YamlError::TooComplex));
        let many: String = (0..200).map(|i| format!("k{i}: {i}\n")).collect();
        assert_eq!(load(&many, limits()), Err(YamlError::TooComplex));
        assert_eq!(load("a: [1\n", limits()), Err(YamlError::Invalid));
        assert_eq!(load("", limits()), Ok(Value::Nil));
        assert_eq!(load("# only a comment\n", limits()), Ok(Value::Nil));
    }
}
