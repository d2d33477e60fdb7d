//! One log line per request: method, the name it targets, duration and outcome.
//!
//! Emitted by [`crate::protocol::engine::Engine::handle`], so every request the engine answers is logged
//! once whatever the transport (stdio, HTTP) or era. Fields are structured (target
//! [`TARGET`]): `method`, `name` (tool or prompt name, resource URI; empty for lists),
//! `duration_us`, `outcome` (`ok`, `error`, `is_error`, `input_required`, `cancelled`) and `code` (the
//! JSON-RPC error code, or the application error code of an `isError` result). Argument values,
//! answers and tokens are never logged. Requests answered outside an engine get their line too:
//! a 2025 `initialize` ([`log_initialize`]) and requests the HTTP layers refused ([`log_refused`]:
//! outcome `refused`, the HTTP status as `code`). On HTTP every line has the client address
//! (`client_ip`, the request's [`crate::contract::Call::client_ip`]); on stdio it is empty.

use crate::rpc::params::Params;
use std::borrow::Cow;
use std::time::Instant;

use serde_json::Value;

use crate::rpc::reply::Reply;

/// The `tracing` target of request lines.
pub const TARGET: &str = "kobana_mcp::request";

/// Most bytes of a method name a log line or span carries ([`clip`]): every method served is
/// far shorter.
pub const METHOD_MAX: usize = 64;
/// Most bytes of a tool or prompt name or resource URI a log line or span carries ([`clip`]).
pub const NAME_MAX: usize = 256;

/// What a caller sent, as a log line or span carries it: at most `max` bytes (cut at a character
/// boundary), then a marker with the length sent. A caller chooses these texts (a method name
/// of a megabyte is one request), and every copy of one would be kept by each log sink.
pub fn clip(text: &str, max: usize) -> Cow<'_, str> {
    if text.len() <= max {
        return Cow::Borrowed(text);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}…[cut: {} bytes]", &text[..end], text.len()))
}

/// A client address as its log line writes it: empty when there is none (stdio).
fn client_ip_text(ip: Option<std::net::IpAddr>) -> String {
    match ip {
        None => String::new(),
        Some(std::net::IpAddr::V4(v4)) => ipv4_text(v4),
        Some(ip) => ip.to_string(),
    }
}

/// An IPv4 address as `Display` writes it (`127.0.0.1`), without the formatting machinery,
/// which cost a request line about 1K instructions (issue 17).
fn ipv4_text(ip: std::net::Ipv4Addr) -> String {
    let mut text = String::with_capacity(15);
    for (i, octet) in ip.octets().into_iter().enumerate() {
        if i > 0 {
            text.push('.');
        }
        if octet >= 100 {
            text.push(char::from(b'0' + octet / 100));
        }
        if octet >= 10 {
            text.push(char::from(b'0' + octet / 10 % 10));
        }
        text.push(char::from(b'0' + octet % 10));
    }
    text
}

/// Runs one request's future and logs its line, with the request's client address. A request
/// whose future is dropped before it answers (the connection layer's time limit, a closed
/// connection) is logged with outcome `cancelled`.
pub async fn logged<F>(
    method: &str,
    params: &Params,
    client_ip: Option<std::net::IpAddr>,
    answer: F,
) -> Reply
where
    F: std::future::Future<Output = Reply>,
{
    let mut pending = Pending {
        method: clip(method, METHOD_MAX),
        name: clip(target_name(method, params), NAME_MAX),
        client_ip,
        started: Instant::now(),
        answered: false,
    };
    let reply = answer.await;
    pending.answered = true;
    let (outcome, code) = outcome(&reply);
    pending.log(outcome, code.as_deref().unwrap_or(""));
    reply
}

/// A request being answered; logs `cancelled` if dropped unanswered.
struct Pending<'a> {
    method: Cow<'a, str>,
    name: Cow<'a, str>,
    client_ip: Option<std::net::IpAddr>,
    started: Instant,
    answered: bool,
}

impl Pending<'_> {
    fn log(&self, outcome: &str, code: &str) {
        let duration_us = u64::try_from(self.started.elapsed().as_micros()).unwrap_or(u64::MAX);
        tracing::info!(
            target: TARGET,
            method = &*self.method,
            name = &*self.name,
            duration_us,
            outcome,
            code,
            client_ip = client_ip_text(self.client_ip),
            "request"
        );
    }
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if !self.answered {
            self.log("cancelled", "");
        }
    }
}

/// The line of a request the HTTP layers refused before any engine saw it (403 from the
/// Origin/Host guard, 401/403 from the auth layer, 429 from a rate limit, 403 from a scope
/// challenge, 413 for a body over the limit, 400/404 for a message refused before any method
/// ran): outcome `refused`, `code` the
/// HTTP status, with the client address when known. `method` and `name` are empty when the body
/// was not read.
pub fn log_refused(method: &str, name: &str, status: u16, client_ip: Option<std::net::IpAddr>) {
    let client_ip = client_ip.map(|ip| ip.to_string()).unwrap_or_default();
    tracing::info!(
        target: TARGET,
        method = &*clip(method, METHOD_MAX),
        name = &*clip(name, NAME_MAX),
        duration_us = 0u64,
        outcome = "refused",
        code = status.to_string(),
        client_ip,
        "request"
    );
}

/// The line of a 2025 `initialize`, which the connection layer answers (it opens the session)
/// without an engine: `outcome` `ok`, or `error` with the JSON-RPC `code`.
pub fn log_initialize(
    started: Instant,
    error_code: Option<i64>,
    client_ip: Option<std::net::IpAddr>,
) {
    let pending = Pending {
        method: Cow::Borrowed("initialize"),
        name: Cow::Borrowed(""),
        client_ip,
        started,
        answered: true,
    };
    match error_code {
        None => pending.log("ok", ""),
        Some(c) => pending.log("error", &c.to_string()),
    }
}

/// The tool or prompt name, or the resource URI, a request targets.
pub(crate) fn target_name<'a>(method: &str, params: &'a Params) -> &'a str {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => "uri",
        "completion/complete" => {
            let r = params.get("ref");
            return r
                .and_then(|r| r.get("name").or_else(|| r.get("uri")))
                .and_then(Value::as_str)
                .unwrap_or("");
        }
        _ => return "",
    };
    params.get(key).and_then(Value::as_str).unwrap_or("")
}

fn outcome(reply: &Reply) -> (&'static str, Option<String>) {
    match reply {
        Reply::Error(e) => ("error", Some(e.code.to_string())),
        Reply::ToolError { code, .. } => ("is_error", Some(code.clone())),
        Reply::InputRequired(_) => ("input_required", None),
        Reply::Value(v) if v.get("isError") == Some(&Value::Bool(true)) => {
            let code = v
                .pointer("/structuredContent/error/code")
                .and_then(Value::as_str)
                .unwrap_or("unknown");
            ("is_error", Some(code.to_string()))
        }
        _ => ("ok", None),
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::{clip, METHOD_MAX};

    #[test]
    fn what_a_caller_sends_is_cut_with_a_marker_at_a_character_boundary() {
        assert_eq!(clip("tools/call", METHOD_MAX), "tools/call");
        let exact = "m".repeat(METHOD_MAX);
        assert_eq!(clip(&exact, METHOD_MAX), exact);
        let long = format!("z/{}", "B".repeat(1 << 20));
        let cut = clip(&long, METHOD_MAX);
        assert!(cut.starts_with(&long[..METHOD_MAX]), "{cut}");
        assert!(
            cut.ends_with(&format!("[cut: {} bytes]", long.len())),
            "{cut}"
        );
        assert!(cut.len() < METHOD_MAX + 32, "{cut}");
        // Two-byte characters across the limit: cut before the one it would split.
        let accents = "é".repeat(METHOD_MAX);
        let cut = clip(&accents, METHOD_MAX + 1);
        assert!(cut.starts_with(&"é".repeat(METHOD_MAX / 2)), "{cut}");
        assert!(!cut.starts_with(&"é".repeat(METHOD_MAX / 2 + 1)), "{cut}");
    }

    #[test]
    fn an_ipv4_address_reads_as_display_writes_it() {
        for octets in [
            [0, 0, 0, 0],
            [127, 0, 0, 1],
            [255, 255, 255, 255],
            [10, 99, 100, 9],
            [192, 168, 1, 20],
            [1, 10, 101, 250],
        ] {
            let ip = Ipv4Addr::from(octets);
            assert_eq!(super::ipv4_text(ip), ip.to_string());
        }
    }
}
