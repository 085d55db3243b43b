//! YAML into JSON values with a budget on their size. serde_yaml_ng replays an anchor's events
//! for every alias that names it, so 200 KB of YAML whose anchor holds 100 KB and is named
//! 2,000 times becomes 200 MB of values before anything could look at them. Its own repetition
//! limit counts aliases, not what they expand to, so it stops a billion laughs but not this.
//! Here every value is charged about what its JSON text will cost as it is built, and building
//! stops once the budget is spent, at the position of the (anchored) value being copied.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::cell::Cell;
use std::fmt;

/// What the error says when the budget is spent; [`super::yaml_to_json`] recognises it.
pub(super) const SPENT: &str = "aliases expand this document past the reader's budget";

/// How many bytes of values YAML may still become (shared by every document of a stream).
pub(super) struct Budget(Cell<usize>);

impl Budget {
    pub(super) fn new(bytes: usize) -> Budget {
        Budget(Cell::new(bytes))
    }

    /// One YAML document as a JSON value, charged to the budget.
    pub(super) fn value<'de, D: Deserializer<'de>>(&self, doc: D) -> Result<Value, D::Error> {
        Charged(self).deserialize(doc)
    }

    fn charge<E: de::Error>(&self, bytes: usize) -> Result<(), E> {
        match self.0.get().checked_sub(bytes) {
            Some(left) => {
                self.0.set(left);
                Ok(())
            }
            None => Err(E::custom(SPENT)),
        }
    }
}

/// Builds a value as serde_json's own `Value` visitor does (the same numbers, nulls and key
/// handling, so an alias-free document converts exactly as before), charging each part.
#[derive(Clone, Copy)]
struct Charged<'b>(&'b Budget);

/// Charged for a scalar other than a string: about its JSON text (`false,`, a number).
const SCALAR: usize = 6;

impl<'de> DeserializeSeed<'de> for Charged<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Charged<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        self.0.charge(SCALAR)?;
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        self.0.charge(SCALAR)?;
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        self.0.charge(SCALAR)?;
        Ok(Value::Number(v.into()))
    }

    // An integer past 64 bits is kept as the digits it was written with: a number would be a
    // float, and a quantity read from it another number than the bundle says.
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        self.visit_string(v.to_string())
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        self.visit_string(v.to_string())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        self.0.charge(SCALAR)?;
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        self.visit_string(v.to_string())
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        self.0.charge(v.len() + 2)?;
        Ok(Value::String(v))
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        self.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.0.charge(SCALAR)?;
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.0.charge(2)?;
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(self)? {
            self.0.charge(1)?;
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.0.charge(2)?;
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            self.0.charge(key.len() + 4)?;
            let v = map.next_value_seed(self)?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn convert(yaml: &str, budget: usize) -> Result<Value, String> {
        let b = Budget::new(budget);
        let doc = serde_yaml_ng::Deserializer::from_str(yaml);
        b.value(doc).map_err(|e| e.to_string())
    }

    #[test]
    fn converts_as_serde_json_does_within_the_budget() {
        let yaml =
            "a: 1\nb: -2\nc: 1.5\nd: .inf\ne: ~\nf: [x, true]\n1: one\ng: &g {h: i}\nj: *g\n";
        let ours = convert(yaml, 1 << 20).unwrap();
        let theirs: Value = serde_yaml_ng::from_str(yaml).unwrap();
        assert_eq!(ours, theirs);
    }

    #[test]
    fn integers_past_64_bits_keep_their_digits() {
        let v = convert(
            "a: 99999999999999999999999\nb: -99999999999999999999999\n",
            1 << 20,
        );
        assert_eq!(
            v.unwrap(),
            serde_json::json!({"a": "99999999999999999999999", "b": "-99999999999999999999999"})
        );
    }

    #[test]
    fn an_anchor_named_too_often_spends_the_budget_where_it_is_named() {
        let big = format!("[{}]", vec!["x".repeat(1000); 10].join(", "));
        let yaml = format!("a: &a {big}\nb: [{}]\n", vec!["*a"; 100].join(", "));
        // About 1 MB once expanded: within 2 MB, not within 100 KB.
        assert!(convert(&yaml, 2 << 20).is_ok());
        let e = convert(&yaml, 100_000).unwrap_err();
        assert!(e.contains(SPENT), "{e}");
        // Where: the anchored value that was being copied when the budget ran out.
        assert!(e.contains("line 1"), "{e}");
    }
}
