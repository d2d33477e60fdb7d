//! Canonical JSON (RFC 8785, the JSON Canonicalization Scheme) and the digests built on it.
//!
//! Everything that binds or keys on a JSON value — a confirmation's arguments, a sealed state's
//! principal, an `Idempotency-Key` — goes through here, so that two values that mean the same
//! thing give the same text everywhere: object keys sorted by their UTF-16 code units, no
//! whitespace, strings with the minimal escapes, and numbers written as ECMAScript writes an
//! IEEE-754 double (`1.0`, `1e2` and `100` are all `100`; `-0` is `0`; `1e21` is `1e+21`).
//!
//! The one consequence to know: integers beyond ±2^53 are rounded to the nearest double, so
//! `9007199254740993` and `9007199254740992` have the same canonical form. That is the RFC's
//! rule, and the one every JavaScript MCP client already applies when it parses the request.
//!
//! The implementation is the `serde_json_canonicalizer` crate; this module only fixes how the
//! project calls it.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The RFC 8785 text of `value`.
pub fn to_string(value: &Value) -> String {
    // A `serde_json::Value` holds no NaN or infinity and its keys are strings, which are the only
    // inputs the canonicalizer refuses; the fallback is unreachable but never panics.
    serde_json_canonicalizer::to_string(value).unwrap_or_else(|_| value.to_string())
}

/// SHA-256, lowercase hex, of the RFC 8785 text of `value`: two values that mean the same thing
/// hash the same.
pub fn sha256_hex(value: &Value) -> String {
    hex::encode(Sha256::digest(to_string(value).as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn canon(text: &str) -> String {
        to_string(&serde_json::from_str(text).expect("test JSON"))
    }

    #[test]
    fn keys_are_sorted_at_every_level_and_whitespace_dropped() {
        assert_eq!(
            canon(r#"{ "b": [ 2, {"y":1, "x":2} ], "a": {} }"#),
            r#"{"a":{},"b":[2,{"x":2,"y":1}]}"#
        );
    }

    #[test]
    fn numbers_are_written_as_ecmascript_doubles() {
        assert_eq!(
            canon("[1.0, 1e2, -0.0, 0.1, 1e21, 1e-7, 1.5, -1]"),
            "[1,100,0,0.1,1e+21,1e-7,1.5,-1]"
        );
        // Beyond 2^53 the value is the nearest double (RFC 8785 §3.2.2.3).
        assert_eq!(canon("9007199254740993"), "9007199254740992");
        assert_eq!(canon("18446744073709551615"), "18446744073709552000");
    }

    #[test]
    fn keys_sort_by_utf16_code_units_not_by_code_points() {
        // U+1F600 is the surrogate pair D83D DE00, which sorts before U+E000 in UTF-16 but after
        // it in UTF-8 / code-point order (RFC 8785 §3.2.3).
        assert_eq!(
            canon(r#"{"\ue000": 1, "\ud83d\ude00": 2}"#),
            "{\"\u{1F600}\":2,\"\u{E000}\":1}"
        );
    }

    #[test]
    fn strings_keep_only_the_required_escapes() {
        assert_eq!(
            to_string(&json!("a\u{1f}\"\\/é\n")),
            "\"a\\u001f\\\"\\\\/é\\n\""
        );
    }

    #[test]
    fn equal_meaning_gives_equal_digest() {
        let a =
            serde_json::from_str::<Value>(r#"{"amount": 1.0, "to": {"b": 1, "a": 2}}"#).unwrap();
        let b = json!({"to": {"a": 2, "b": 1}, "amount": 1});
        assert_eq!(sha256_hex(&a), sha256_hex(&b));
        assert_ne!(
            sha256_hex(&a),
            sha256_hex(&json!({"amount": 2, "to": {"a": 2, "b": 1}}))
        );
        assert_eq!(sha256_hex(&a).len(), 64);
    }
}
