//! A JSON object that keeps its keys in the order they were put: GitLab's entities list their
//! keys in a fixed order, which `serde_json`'s own map (sorted) does not keep. Built as the
//! entity's fields are exposed, nested where the entity nests.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

/// One value of an [`Obj`].
#[derive(Debug, Clone, PartialEq)]
pub enum Field {
    Value(Value),
    Obj(Obj),
    List(Vec<Obj>),
}

/// Keys and values in the order they serialize.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Obj(pub Vec<(&'static str, Field)>);

impl Obj {
    pub fn new() -> Obj {
        Obj(Vec::new())
    }

    /// Adds `key` with a plain JSON value.
    pub fn put(&mut self, key: &'static str, value: impl Into<Value>) -> &mut Obj {
        self.0.push((key, Field::Value(value.into())));
        self
    }

    /// Adds `key` with a nested ordered object.
    pub fn obj(&mut self, key: &'static str, value: Obj) -> &mut Obj {
        self.0.push((key, Field::Obj(value)));
        self
    }

    /// Adds `key` with a list of ordered objects.
    pub fn list(&mut self, key: &'static str, values: Vec<Obj>) -> &mut Obj {
        self.0.push((key, Field::List(values)));
        self
    }

    /// The value of `key`, when it is a plain one.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| *k == key).and_then(|(_, f)| match f {
            Field::Value(v) => Some(v),
            _ => None,
        })
    }
}

impl Serialize for Field {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Value(v) => v.serialize(serializer),
            Field::Obj(o) => o.serialize(serializer),
            Field::List(l) => l.serialize(serializer),
        }
    }
}

impl Serialize for Obj {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// Milliseconds since the epoch as GitLab shows a time: ISO 8601 in UTC with milliseconds
/// (`2025-01-09T19:47:00.000Z`).
pub fn iso_millis(millis: i64) -> String {
    let (seconds, ms) = (millis.div_euclid(1000), millis.rem_euclid(1000));
    let (days, secs) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (year, month, day) = forgecore_date::civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{ms:03}Z", secs / 3600, secs % 3600 / 60, secs % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_their_order_and_times_their_milliseconds() {
        let mut inner = Obj::new();
        inner.put("short", "#1").put("full", "a/b#1");
        let mut o = Obj::new();
        o.put("z", 1).obj("references", inner).put("a", Value::Null);
        assert_eq!(
            serde_json::to_string(&o).unwrap(),
            r##"{"z":1,"references":{"short":"#1","full":"a/b#1"},"a":null}"##
        );
        assert_eq!(iso_millis(1_736_452_020_042), "2025-01-09T19:47:00.042Z");
    }
}
