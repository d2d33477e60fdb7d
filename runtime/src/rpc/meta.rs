//! A request's `params._meta`, read once as the message is parsed: only the keys the server acts
//! on, each kept as it was sent.
//!
//! Every 2026-07-28 request carries a `_meta` (protocol version, client capabilities, client
//! info, often a trace context). Read into the `params` map like any member, it cost every
//! request three order-preserving maps and a string per key, then hashed lookups to find the
//! few keys anyone reads, and a copy of the capabilities. Here the parser walks `_meta` once:
//! the keys below are kept (as the `Value` the map would have held, so every rule reading them is
//! unchanged), every other key is skipped without being built. The `params` map a request
//! carries has no `_meta`; whoever reads it reads [`Meta`].

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::params::Params;
use crate::contract::era;

/// `params._meta`: whether it was an object, and the members the server reads, as sent (a key
/// sent twice keeps its last value, as a JSON object read into a map does). A request keeps it
/// boxed, and only when it sent one: it is several hundred bytes, and a request is moved
/// through a few layers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Meta {
    /// `_meta` is there and is an object (a `_meta` of any other type has no members).
    pub object: bool,
    /// `io.modelcontextprotocol/protocolVersion`.
    pub protocol_version: Option<Value>,
    /// `io.modelcontextprotocol/clientCapabilities`.
    pub client_capabilities: Option<Value>,
    /// `io.modelcontextprotocol/logLevel`.
    pub log_level: Option<Value>,
    /// `io.modelcontextprotocol/acceptLanguage` (SEP-2792).
    pub accept_language: Option<Value>,
    /// `progressToken` (both eras).
    pub progress_token: Option<Value>,
    /// `traceparent`: the W3C trace context a client continues.
    pub traceparent: Option<Value>,
    /// `tracestate`.
    pub tracestate: Option<Value>,
}

/// The `_meta` of a request that sent none.
pub static NONE: Meta = Meta {
    object: false,
    protocol_version: None,
    client_capabilities: None,
    log_level: None,
    accept_language: None,
    progress_token: None,
    traceparent: None,
    tracestate: None,
};

impl Meta {
    /// The member `key` of `_meta`, when it is one the server reads.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match key {
            era::META_PROTOCOL_VERSION => self.protocol_version.as_ref(),
            era::META_CLIENT_CAPABILITIES => self.client_capabilities.as_ref(),
            era::META_LOG_LEVEL => self.log_level.as_ref(),
            era::META_ACCEPT_LANGUAGE => self.accept_language.as_ref(),
            "progressToken" => self.progress_token.as_ref(),
            "traceparent" => self.traceparent.as_ref(),
            "tracestate" => self.tracestate.as_ref(),
            _ => None,
        }
    }

    /// The slot of a member the server reads; `None` for any other key.
    fn slot(&mut self, key: &str) -> Option<&mut Option<Value>> {
        match key {
            era::META_PROTOCOL_VERSION => Some(&mut self.protocol_version),
            era::META_CLIENT_CAPABILITIES => Some(&mut self.client_capabilities),
            era::META_LOG_LEVEL => Some(&mut self.log_level),
            era::META_ACCEPT_LANGUAGE => Some(&mut self.accept_language),
            "progressToken" => Some(&mut self.progress_token),
            "traceparent" => Some(&mut self.traceparent),
            "tracestate" => Some(&mut self.tracestate),
            _ => None,
        }
    }

    /// The `_meta` of an already parsed value (the general reader's path).
    pub fn from_value(value: Value) -> Self {
        let Value::Object(members) = value else {
            return Self::default();
        };
        let mut meta = Self {
            object: true,
            ..Self::default()
        };
        for (key, value) in members {
            if let Some(slot) = meta.slot(&key) {
                *slot = Some(value);
            }
        }
        meta
    }
}

/// Takes `_meta` out of a parsed `params` map (the general reader's path), leaving the other
/// members in their order; `None` when there was none.
pub fn split(mut params: Map<String, Value>) -> (Map<String, Value>, Option<Box<Meta>>) {
    let meta = params
        .shift_remove("_meta")
        .map(|m| Box::new(Meta::from_value(m)));
    (params, meta)
}

/// `params` as the parser reads it: `_meta` into [`Meta`], every other member into [`Params`].
#[derive(Default)]
pub(crate) struct ParamsWithMeta {
    pub rest: Params,
    pub meta: Option<Box<Meta>>,
}

impl<'de> Deserialize<'de> for ParamsWithMeta {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(ParamsVisitor)
    }
}

struct ParamsVisitor;

impl<'de> Visitor<'de> for ParamsVisitor {
    type Value = ParamsWithMeta;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a params object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ParamsWithMeta, A::Error> {
        let mut rest = Params::new();
        let mut meta = None;
        while let Some(Key(key)) = map.next_key()? {
            if key == "_meta" {
                meta = Some(Box::new(map.next_value::<MetaSeed>()?.0));
            } else {
                let value: Value = map.next_value()?;
                rest.insert(key.into_owned(), value);
            }
        }
        Ok(ParamsWithMeta { rest, meta })
    }
}

/// An object key, borrowed from the input unless it had escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s)))
            }
        }
        d.deserialize_str(V)
    }
}

/// `_meta` of any JSON type: an object is read into [`Meta`]; anything else is skipped.
struct MetaSeed(Meta);

impl<'de> Deserialize<'de> for MetaSeed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(MetaVisitor).map(MetaSeed)
    }
}

struct MetaVisitor;

impl<'de> Visitor<'de> for MetaVisitor {
    type Value = Meta;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Meta, A::Error> {
        let mut meta = Meta {
            object: true,
            ..Meta::default()
        };
        while let Some(Key(key)) = map.next_key()? {
            match meta.slot(&key) {
                Some(slot) => *slot = Some(map.next_value()?),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(meta)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Meta, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Meta::default())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Meta, E> {
        Ok(Meta::default())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Meta, E> {
        Ok(Meta::default())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Meta, E> {
        Ok(Meta::default())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Meta, E> {
        Ok(Meta::default())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Meta, E> {
        Ok(Meta::default())
    }
    fn visit_unit<E: de::Error>(self) -> Result<Meta, E> {
        Ok(Meta::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The fast reader and the general one agree, and both keep exactly what the map held.
    #[test]
    fn meta_is_read_as_the_map_held_it() {
        let cases = [
            json!({"name": "t", "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
                "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
                "io.modelcontextprotocol/logLevel": "info",
                "io.modelcontextprotocol/acceptLanguage": "pt-BR",
                "progressToken": 7, "traceparent": "00-x", "tracestate": "a=b", "other": [1]}}),
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": null}, "a": 1}),
            json!({"_meta": "text", "b": 2}),
            json!({"_meta": [1, {"progressToken": 1}]}),
            json!({"_meta": null}),
            json!({"_meta": 3.5}),
            json!({"a": {"_meta": {"progressToken": 1}}}),
            json!({}),
        ];
        for case in cases {
            let text = case.to_string();
            let fast: ParamsWithMeta = serde_json::from_str(&text).unwrap();
            let (rest, meta) = split(case.as_object().unwrap().clone());
            assert_eq!(fast.rest, Params::from(rest.clone()), "{text}");
            assert_eq!(fast.meta, meta, "{text}");
            assert_eq!(meta.is_some(), case.get("_meta").is_some(), "{text}");
            let meta = meta.as_deref().unwrap_or(&NONE);
            let sent = case.get("_meta");
            assert_eq!(meta.object, sent.is_some_and(Value::is_object), "{text}");
            for key in [
                era::META_PROTOCOL_VERSION,
                era::META_CLIENT_CAPABILITIES,
                era::META_LOG_LEVEL,
                era::META_ACCEPT_LANGUAGE,
                "progressToken",
                "traceparent",
                "tracestate",
            ] {
                assert_eq!(
                    meta.get(key),
                    sent.and_then(|m| m.get(key)),
                    "{key} of {text}"
                );
            }
            assert_eq!(meta.get("io.modelcontextprotocol/clientInfo"), None);
            assert!(!rest.contains_key("_meta"), "{text}");
        }
    }

    #[test]
    fn a_key_sent_twice_keeps_its_last_value_and_escapes_are_read() {
        let text = r#"{"_meta":{"progressToken":1,"progress\u0054oken":"b"},"x":1,"_meta":{"traceparent":"t"}}"#;
        let fast: ParamsWithMeta = serde_json::from_str(text).unwrap();
        let general: Map<String, Value> = serde_json::from_str(text).unwrap();
        let (rest, meta) = split(general);
        assert_eq!(fast.meta, meta);
        assert_eq!(fast.rest, Params::from(rest));
        let meta = meta.expect("sent");
        assert_eq!(meta.traceparent, Some(json!("t")));
        assert_eq!(meta.progress_token, None);
        let once = r#"{"_meta":{"progressToken":1,"progress\u0054oken":"b"}}"#;
        let fast: ParamsWithMeta = serde_json::from_str(once).unwrap();
        assert_eq!(fast.meta.expect("sent").progress_token, Some(json!("b")));
    }
}
