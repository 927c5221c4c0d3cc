//! Reading JSON strictly: duplicate keys are refused (serde_json keeps the last one
//! silently, so `{"stop": 1, "stop": 100}` would run to 100 s), and serde's "unknown field"
//! messages gain the nearest known name.

use crate::error::ScenarioError;
use crate::models::equations::suggest::nearest;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;
use core::fmt;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// `json` as a [`Value`], refusing duplicate keys with the path of the object that has them.
pub(super) fn value_without_duplicates(json: &str) -> Result<Value, ScenarioError> {
    let duplicate = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(json);
    let value = Node {
        path: String::new(),
        duplicate: &duplicate,
    }
    .deserialize(&mut de)
    .and_then(|v| de.end().map(|()| v));
    match (value, duplicate.into_inner()) {
        (_, Some((path, key))) => {
            let place = if path.is_empty() {
                "the document"
            } else {
                "this object"
            };
            Err(ScenarioError::at(
                path,
                format!("the key `{key}` appears twice in {place}; keep one"),
            ))
        }
        (Ok(v), None) => Ok(v),
        (Err(e), None) => Err(ScenarioError::at("", format!("malformed JSON: {e}"))),
    }
}

/// One JSON node at `path`; the first duplicate found is kept in `duplicate`.
struct Node<'a> {
    path: String,
    duplicate: &'a RefCell<Option<(String, String)>>,
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.into()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            let child = Node {
                path: format!("{}[{}]", self.path, items.len()),
                duplicate: self.duplicate,
            };
            match seq.next_element_seed(child)? {
                Some(v) => items.push(v),
                None => return Ok(Value::Array(items)),
            }
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                *self.duplicate.borrow_mut() = Some((self.path.clone(), key));
                return Err(de::Error::custom("duplicate key"));
            }
            let path = if self.path.is_empty() {
                key.clone()
            } else {
                format!("{}.{key}", self.path)
            };
            let child = Node {
                path,
                duplicate: self.duplicate,
            };
            let v = map.next_value_seed(child)?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// serde's `unknown field `x`, expected one of `a`, `b`` with `; did you mean `a`?` when
/// one known name is close (a single expected name is already the suggestion).
pub(super) fn with_nearest_name(message: String) -> String {
    let Some(rest) = message
        .strip_prefix("unknown field `")
        .or_else(|| message.strip_prefix("unknown variant `"))
    else {
        return message;
    };
    let Some((name, expected)) = rest.split_once('`') else {
        return message;
    };
    let known: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    if known.len() < 2 {
        return message;
    }
    let limit = (name.chars().count() / 2).max(2);
    match nearest(name, known.iter().copied(), limit) {
        Some(s) => format!("{message}; did you mean `{s}`?"),
        None => message,
    }
}
