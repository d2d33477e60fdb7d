//! A request's `params`, as every method reads them.

use serde_json::{Map, Value};

/// A request's `params` other than `_meta`: its members in the order sent, the last of a repeated
/// name kept in the place of the first (as `serde_json::Map` reads an object).
///
/// Why not a `Map`: a `Map` hashes every name with SipHash (std's keyed hasher, as `serde_json`
/// builds it), about 150 instructions for a short one, when it is inserted and again when it is
/// looked up, and allocates an index beside its entries. A request has rarely more than three
/// members (`name`, `arguments`, a cursor), which are compared in order for a few instructions
/// each. Past [`Params::FEW`] members they go into a `Map` after all, so that a request sent with
/// thousands of them costs a hash per member, not a scan.
#[derive(Clone, Default)]
pub struct Params(Members);

#[derive(Clone)]
enum Members {
    Few(Vec<(String, Value)>),
    Many(Map<String, Value>),
}

impl Default for Members {
    fn default() -> Self {
        Members::Few(Vec::new())
    }
}

impl Params {
    /// Above this many members, a hashed lookup is cheaper than the scan.
    pub const FEW: usize = 8;

    pub fn new() -> Self {
        Self::default()
    }

    /// The member `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match &self.0 {
            Members::Few(list) => list.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            Members::Many(map) => map.get(key),
        }
    }

    /// Sets the member `key`: in its place when it is there, else after the others.
    pub fn insert(&mut self, key: String, value: Value) {
        match &mut self.0 {
            Members::Few(list) => {
                if let Some(slot) = list.iter_mut().find(|(k, _)| *k == key) {
                    slot.1 = value;
                } else if list.len() < Self::FEW {
                    list.push((key, value));
                } else {
                    let mut map: Map<String, Value> = std::mem::take(list).into_iter().collect();
                    map.insert(key, value);
                    self.0 = Members::Many(map);
                }
            }
            Members::Many(map) => {
                map.insert(key, value);
            }
        }
    }

    pub fn len(&self) -> usize {
        match &self.0 {
            Members::Few(list) => list.len(),
            Members::Many(map) => map.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The members, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        let (few, many) = match &self.0 {
            Members::Few(list) => (Some(list.iter().map(|(k, v)| (k.as_str(), v))), None),
            Members::Many(map) => (None, Some(map.iter().map(|(k, v)| (k.as_str(), v)))),
        };
        few.into_iter().flatten().chain(many.into_iter().flatten())
    }
}

impl From<Map<String, Value>> for Params {
    fn from(map: Map<String, Value>) -> Self {
        if map.len() <= Self::FEW {
            Params(Members::Few(map.into_iter().collect()))
        } else {
            Params(Members::Many(map))
        }
    }
}

impl FromIterator<(String, Value)> for Params {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(members: I) -> Self {
        let mut params = Params::new();
        for (k, v) in members {
            params.insert(k, v);
        }
        params
    }
}

/// The members in order, whichever way they are kept.
impl PartialEq for Params {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

/// As the object the client sent (its members in order).
impl std::fmt::Debug for Params {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rpc::jsonrpc::{parse_bytes, Incoming};

    /// `params` as a request carrying them reads them (the parser's own path).
    fn parsed(params: &str) -> Params {
        let text = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{params}}}"#);
        match parse_bytes(text.as_bytes()) {
            Ok(Incoming::Request(r)) => r.params,
            other => panic!("{params}: {other:?}"),
        }
    }

    /// Whatever their number and repeats, the members read as `serde_json::Map` reads the same
    /// object: the same names in the same order, each with its last value, and `_meta` left out.
    #[test]
    fn params_read_what_a_map_reads() {
        let many = |n: usize, extra: &str| {
            let members: Vec<String> = (0..n).map(|i| format!(r#""k{i}":{i}"#)).collect();
            format!("{{{}{extra}}}", members.join(","))
        };
        let cases = [
            r#"{}"#.to_string(),
            r#"{"name":"t","arguments":{"a":[1,{"b":null}]}}"#.to_string(),
            r#"{"name":"t","name":"u","x":1}"#.to_string(),
            r#"{"n\u0061me":"escaped","name":"plain"}"#.to_string(),
            r#"{"_meta":{"progressToken":1},"cursor":"c"}"#.to_string(),
            many(Params::FEW, ""),
            many(Params::FEW, r#","k0":"again""#),
            many(Params::FEW + 1, ""),
            many(Params::FEW + 1, r#","k3":"again","k0":"and again""#),
            many(50, r#","k49":"last","new":true"#),
        ];
        for text in &cases {
            let got = parsed(text);
            let mut map: Map<String, Value> = serde_json::from_str(text).unwrap();
            map.shift_remove("_meta");
            assert_eq!(got.len(), map.len(), "{text}");
            assert_eq!(got.is_empty(), map.is_empty(), "{text}");
            let order: Vec<(&str, &Value)> = got.iter().collect();
            let expected: Vec<(&str, &Value)> = map.iter().map(|(k, v)| (k.as_str(), v)).collect();
            assert_eq!(order, expected, "{text}");
            for key in map
                .keys()
                .map(String::as_str)
                .chain(["absent", "", "k", "_meta"])
            {
                assert_eq!(got.get(key), map.get(key), "{key} of {text}");
            }
            // Built from the map (the general reader's path), or member by member: the same.
            assert_eq!(Params::from(map.clone()), got, "{text}");
            assert_eq!(map.clone().into_iter().collect::<Params>(), got, "{text}");
        }
    }

    #[test]
    fn setting_a_member_keeps_its_place() {
        let mut p = Params::new();
        for (k, v) in [("a", 1), ("b", 2), ("a", 3)] {
            p.insert(k.into(), Value::from(v));
        }
        assert_eq!(format!("{p:?}"), r#"{"a": Number(3), "b": Number(2)}"#);
        for i in 0..Params::FEW {
            p.insert(format!("x{i}"), Value::from(i));
        }
        p.insert("b".into(), Value::from("again"));
        assert_eq!(p.len(), Params::FEW + 2);
        let names: Vec<&str> = p.iter().map(|(k, _)| k).collect();
        assert_eq!(&names[..3], ["a", "b", "x0"]);
        assert_eq!(p.get("b"), Some(&Value::from("again")));
        assert_ne!(p, Params::new());
    }
}
