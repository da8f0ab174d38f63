//! JSON whose objects keep their keys in the order they were put. GitLab's entities and hook
//! payloads list their keys in a fixed order, which `serde_json`'s own map (sorted) does not
//! keep; every entity and payload is written as a [`Node`] tree, objects built with [`Obj`].

use serde::ser::{Serialize, SerializeSeq, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;

/// A JSON value whose objects keep their key order.
#[derive(Debug, Clone)]
pub enum Node {
    V(Value),
    Obj(Obj),
    Arr(Vec<Node>),
    /// A value already serialized in its own order (an entity with a `Serialize` of its own).
    Raw(Box<RawValue>),
}

/// A plain value as a node.
pub fn v(value: impl Serialize) -> Node {
    Node::V(serde_json::to_value(value).unwrap_or(Value::Null))
}

/// A value serialized by its own `Serialize`, its key order kept.
pub fn raw(value: &impl Serialize) -> Node {
    serde_json::value::to_raw_value(value).map_or(Node::V(Value::Null), Node::Raw)
}

/// An object of the pairs given, in their order.
pub fn object(pairs: Vec<(&'static str, Node)>) -> Node {
    Node::Obj(Obj(pairs))
}

impl From<Value> for Node {
    fn from(value: Value) -> Node {
        Node::V(value)
    }
}

impl From<Obj> for Node {
    fn from(obj: Obj) -> Node {
        Node::Obj(obj)
    }
}

impl<T: Into<Node>> From<Option<T>> for Node {
    fn from(value: Option<T>) -> Node {
        value.map_or(Node::V(Value::Null), Into::into)
    }
}

impl Node {
    /// The JSON text.
    pub fn text(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".into())
    }
}

/// An object's keys and values in the order they serialize.
#[derive(Debug, Clone, Default)]
pub struct Obj(pub Vec<(&'static str, Node)>);

impl Obj {
    pub fn new() -> Obj {
        Obj(Vec::new())
    }

    /// Adds `key` with a plain JSON value.
    pub fn put(&mut self, key: &'static str, value: impl Into<Value>) -> &mut Obj {
        self.0.push((key, Node::V(value.into())));
        self
    }

    /// Adds `key` with any node: a nested object, a list, a value, or null for `None`.
    pub fn node(&mut self, key: &'static str, value: impl Into<Node>) -> &mut Obj {
        self.0.push((key, value.into()));
        self
    }

    /// Adds `key` with a nested ordered object.
    pub fn obj(&mut self, key: &'static str, value: Obj) -> &mut Obj {
        self.node(key, value)
    }

    /// Adds `key` with a list of ordered objects.
    pub fn list(&mut self, key: &'static str, values: Vec<Obj>) -> &mut Obj {
        self.node(key, Node::Arr(values.into_iter().map(Node::Obj).collect()))
    }

    /// The value of `key`, when it is a plain one.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| *k == key).and_then(|(_, n)| match n {
            Node::V(v) => Some(v),
            _ => None,
        })
    }

    /// Takes `key` out, to be put again elsewhere in the order.
    pub fn remove(&mut self, key: &str) -> Option<Node> {
        let at = self.0.iter().position(|(k, _)| *k == key)?;
        Some(self.0.remove(at).1)
    }
}

/// An object of plain values, in their order.
impl From<Vec<(&'static str, Value)>> for Obj {
    fn from(pairs: Vec<(&'static str, Value)>) -> Obj {
        Obj(pairs.into_iter().map(|(k, v)| (k, Node::V(v))).collect())
    }
}

impl Serialize for Node {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Node::V(value) => value.serialize(serializer),
            Node::Obj(obj) => obj.serialize(serializer),
            Node::Arr(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Node::Raw(raw) => raw.serialize(serializer),
        }
    }
}

impl Serialize for Obj {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
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
    use serde_json::json;

    #[test]
    fn keys_keep_their_order_nested_raw_and_removed() {
        #[derive(serde::Serialize)]
        struct Own {
            z: u8,
            a: u8,
        }
        let mut inner = Obj::new();
        inner.put("short", "#1").put("full", "a/b#1");
        let mut o = Obj::new();
        o.put("z", 1).obj("references", inner).put("gone", 0).node("own", raw(&Own { z: 1, a: 2 }));
        o.node("none", None::<Obj>).node("list", Node::Arr(vec![v(2), object(vec![("b", v(1)), ("a", v(0))])]));
        assert!(matches!(o.remove("gone"), Some(Node::V(Value::Number(_)))));
        o.put("a", Value::Null);
        assert_eq!(o.get("z"), Some(&json!(1)));
        assert_eq!(
            serde_json::to_string(&o).unwrap(),
            r##"{"z":1,"references":{"short":"#1","full":"a/b#1"},"own":{"z":1,"a":2},"none":null,"list":[2,{"b":1,"a":0}],"a":null}"##
        );
    }
}
