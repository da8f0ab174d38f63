//! The values a changelog template reads and a configuration file is made of, with Ruby's rules
//! for them, since GitLab evaluates templates over Ruby objects: how a value prints (`to_s`, and
//! `inspect` for arrays and hashes), which values are true in an `if`, and hashes that keep
//! insertion order.

use std::fmt::Write;

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Array(Vec<Value>),
    /// Ordered like a Ruby Hash: by first insertion; keys are unique.
    Hash(Vec<(Value, Value)>),
}

impl Value {
    pub fn str(text: impl Into<String>) -> Value {
        Value::Str(text.into())
    }

    /// A hash from string keys, in the order given.
    pub fn hash<const N: usize>(pairs: [(&str, Value); N]) -> Value {
        Value::Hash(pairs.into_iter().map(|(k, v)| (Value::str(k), v)).collect())
    }

    /// `hash[name]` for a string key; `None` when absent or when `self` is not a hash.
    pub fn get(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Hash(pairs) => pairs.iter().find(|(k, _)| matches!(k, Value::Str(s) if s == name)).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Ruby truthiness as GitLab's `if` applies it: anything with `empty?` (strings, arrays,
    /// hashes) is true when not empty; otherwise only `nil` and `false` are false (`0` is true).
    pub fn truthy(&self) -> bool {
        match self {
            Value::Nil | Value::Bool(false) => false,
            Value::Str(s) => !s.is_empty(),
            Value::Array(items) => !items.is_empty(),
            Value::Hash(pairs) => !pairs.is_empty(),
            _ => true,
        }
    }

    /// Plain Ruby truthiness (`nil` and `false` are false), as `x || default` uses it.
    pub fn ruby_truthy(&self) -> bool {
        !matches!(self, Value::Nil | Value::Bool(false))
    }

    /// Ruby's `to_s`, which `{{ ... }}` prints.
    pub fn write_to_s(&self, out: &mut String) {
        match self {
            Value::Nil => {}
            Value::Str(s) => out.push_str(s),
            Value::Array(_) | Value::Hash(_) => self.write_inspect(out),
            other => other.write_inspect(out),
        }
    }

    pub fn to_s(&self) -> String {
        let mut out = String::new();
        self.write_to_s(&mut out);
        out
    }

    /// Ruby's `inspect` (the form before Ruby 3.4: `{"a"=>1}`).
    pub fn write_inspect(&self, out: &mut String) {
        match self {
            Value::Nil => out.push_str("nil"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(n) => {
                let _ = write!(out, "{n}");
            }
            Value::Float(f) => write_float(*f, out),
            Value::Str(s) => inspect_str(s, out),
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write_inspect(out);
                }
                out.push(']');
            }
            Value::Hash(pairs) => {
                out.push('{');
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    k.write_inspect(out);
                    out.push_str("=>");
                    v.write_inspect(out);
                }
                out.push('}');
            }
        }
    }

    /// Ruby's `eql?` for hash keys: same kind and same value (`1` and `1.0` differ).
    pub fn same_key(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            _ => self == other,
        }
    }
}

/// Inserts or replaces `key` in an ordered hash, keeping the first position (Ruby's `h[k] = v`).
pub fn hash_insert(pairs: &mut Vec<(Value, Value)>, key: Value, value: Value) {
    match pairs.iter_mut().find(|(k, _)| k.same_key(&key)) {
        Some(slot) => slot.1 = value,
        None => pairs.push((key, value)),
    }
}

fn write_float(f: f64, out: &mut String) {
    if f.is_nan() {
        out.push_str("NaN");
    } else if f.is_infinite() {
        out.push_str(if f > 0.0 { "Infinity" } else { "-Infinity" });
    } else if f == 0.0 || (1e-4..1e16).contains(&f.abs()) {
        let text = format!("{f}");
        out.push_str(&text);
        if !text.contains('.') {
            out.push_str(".0");
        }
    } else {
        let text = format!("{f:e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        out.push_str(mantissa);
        if !mantissa.contains('.') {
            out.push_str(".0");
        }
        let (sign, digits) = exponent.strip_prefix('-').map_or(("+", exponent), |d| ("-", d));
        let _ = write!(out, "e{sign}{digits:0>2}");
    }
}

fn inspect_str(s: &str, out: &mut String) {
    out.push('"');
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            '\u{8}' => out.push_str("\\b"),
            '\u{7}' => out.push_str("\\a"),
            '\u{1b}' => out.push_str("\\e"),
            '#' if matches!(chars.peek(), Some('{' | '$' | '@')) => out.push_str("\\#"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::Value;

    #[test]
    fn prints_like_ruby() {
        assert_eq!(Value::Nil.to_s(), "");
        assert_eq!(Value::Bool(true).to_s(), "true");
        assert_eq!(Value::Int(0).to_s(), "0");
        assert_eq!(Value::Float(1.0).to_s(), "1.0");
        assert_eq!(Value::Float(2.5).to_s(), "2.5");
        assert_eq!(Value::Float(1e20).to_s(), "1.0e+20");
        let pair = Value::Array(vec![Value::str("Changelog"), Value::str("a\"b\n")]);
        assert_eq!(pair.to_s(), r#"["Changelog", "a\"b\n"]"#);
        let hash = Value::Hash(vec![(Value::str("k"), Value::Nil), (Value::Int(1), Value::Bool(false))]);
        assert_eq!(hash.to_s(), r#"{"k"=>nil, 1=>false}"#);
        assert_eq!(Value::str("#{x}").to_s(), "#{x}");
        assert_eq!(Value::Array(vec![Value::str("#{x}\u{1}")]).to_s(), r#"["\#{x}\u0001"]"#);
    }

    #[test]
    fn truthiness_of_gitlab_if() {
        assert!(!Value::str("").truthy());
        assert!(!Value::Array(vec![]).truthy());
        assert!(!Value::Hash(vec![]).truthy());
        assert!(!Value::Nil.truthy());
        assert!(!Value::Bool(false).truthy());
        assert!(Value::Int(0).truthy());
        assert!(Value::str(" ").truthy());
    }
}
