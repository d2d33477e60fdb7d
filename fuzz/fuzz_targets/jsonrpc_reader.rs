//! The JSON-RPC reader and the connection layer's request parsing, on arbitrary bytes.
//!
//! Properties: nothing panics; the fast path of `parse_bytes` (a borrowed envelope) decides
//! exactly what the general path (`parse_value` on the parsed JSON) decides, so an optimisation
//! can never accept what the strict reader refuses or the other way round; bytes that are not
//! JSON are answered with -32700 and a null id; a rejection never carries an id other than the
//! message's own string or number id.
#![no_main]

use libfuzzer_sys::fuzz_target;
use runtime::connection::{self, era, modern};
use runtime::rpc::jsonrpc::{self, Incoming, PARSE_ERROR};
use runtime::rpc::meta::Meta;
use runtime::rpc::params::Params;
use serde_json::Value;

/// What a parse decided, in a form two paths can be compared by.
fn outcome(r: &Result<Incoming, jsonrpc::Rejected>) -> String {
    match r {
        Ok(Incoming::Request(req)) => format!(
            "request id={} method={:?} params={:?} meta={:?}",
            req.id, req.method, req.params, req.meta
        ),
        Ok(Incoming::Notification { method, params }) => {
            format!("notification method={method:?} params={params:?}")
        }
        Ok(Incoming::Response { id, outcome }) => format!("response id={id} outcome={outcome:?}"),
        Err(rej) => format!("rejected id={} code={}", rej.id, rej.error.code),
    }
}

/// The connection layer's reading of a request's `params` and `_meta` (both eras).
fn read_params(params: &Params, meta: &Meta) {
    let _ = modern::has_modern_meta(meta);
    let _ = modern::progress_token(meta);
    let _ = modern::accept_language(meta);
    if let Ok(read) = modern::read_meta(&mut meta.clone()) {
        let _ = read;
    }
    if let Some(v) = params.get("protocolVersion").and_then(Value::as_str) {
        let _ = era::legacy_version(v);
        let _ = era::sessionless_version(Some(v));
        let _ = modern::check_version(v);
    }
}

fuzz_target!(|data: &[u8]| {
    let fast = jsonrpc::parse_bytes(data);
    match serde_json::from_slice::<Value>(data) {
        Ok(value) => {
            let slow = jsonrpc::parse_value(value);
            assert_eq!(
                outcome(&fast),
                outcome(&slow),
                "parse_bytes and parse_value disagree"
            );
        }
        Err(_) => {
            // Not JSON at all: only a parse error may come back (the envelope path reads the
            // same grammar, so it cannot accept what serde_json refuses as a value, except for
            // numbers serde_json would refuse in fields the envelope ignores).
            if let Err(rej) = &fast {
                if rej.error.code == PARSE_ERROR {
                    assert_eq!(rej.id, Value::Null, "a parse error names no id");
                }
            }
        }
    }
    match &fast {
        Ok(Incoming::Request(req)) => {
            assert!(matches!(req.id, Value::String(_) | Value::Number(_)));
            read_params(&req.params, req.meta());
        }
        Ok(Incoming::Notification { params, .. }) => read_params(params, &Meta::default()),
        Ok(Incoming::Response { .. }) => {}
        Err(rej) => assert!(matches!(
            rej.id,
            Value::Null | Value::String(_) | Value::Number(_)
        )),
    }
    // Batches: the connection layer splits the array and reads each member alone.
    if connection::is_batch(data) {
        if let Ok(Value::Array(items)) = serde_json::from_slice::<Value>(data) {
            for item in items {
                let _ = jsonrpc::parse_value(item);
            }
        }
    }
});
