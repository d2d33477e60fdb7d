//! The URI template matcher.
//!
//! Properties: parsing, filling and matching never panic; a value survives encoding and decoding;
//! a URI filled from a template matches that template back to the very values it was filled with
//! (so `resources/read` reads the record `resources/list` named, and nothing else).
#![no_main]

use libfuzzer_sys::fuzz_target;
use runtime_model::uri_template::{decode_component, encode_component, match_uri, UriTemplate};

fuzz_target!(|input: (String, Vec<String>, String)| {
    let (template, values, uri) = input;
    let _ = match_uri(&template, &uri);
    for v in &values {
        if !v.is_empty() {
            assert_eq!(
                decode_component(&encode_component(v)).as_deref(),
                Ok(v.as_str())
            );
        }
    }
    let Ok(parsed) = UriTemplate::parse(&template) else {
        return;
    };
    let names: Vec<&str> = parsed.variables().collect();
    let value_of = |name: &str| {
        let i = names.iter().position(|n| *n == name)?;
        values.get(i).cloned()
    };
    let Some(filled) = parsed.fill(value_of) else {
        return;
    };
    let expected: Vec<(&str, String)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (*n, values[i].clone()))
        .collect();
    assert_eq!(
        parsed.matches(&filled),
        Some(expected),
        "template {template:?} filled as {filled:?} does not match back"
    );
});
