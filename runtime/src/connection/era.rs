//! Which era and revision serves a request: the one rule both transports follow.
//!
//! In order (`versioning.mdx` of 2026-07-28, and the dual-era routing it implies):
//! 1. `initialize` without the 2026 `_meta` is the 2025 handshake: it opens a session (HTTP) or
//!    makes the process one (stdio), at the version [`negotiate_legacy`] picks.
//! 2. A request carrying the 2026 `_meta`, or naming `server/discover`, or (HTTP) whose
//!    `MCP-Protocol-Version` is not a 2025 revision, is served statelessly under 2026-07-28,
//!    whether or not a session is named.
//! 3. A request of a 2025 session is served at the session's negotiated version.
//! 4. A 2025 request with no session is served at the version it states (HTTP's header), and at
//!    **2025-03-26** when it states none ([`sessionless_version`]), over either transport.
//!
//! Why 2025-03-26 for the sessionless, unversioned request: the version header arrived with
//! 2025-06-18, and the 2025-11-25 transport says "if the header is absent and there is no other
//! signal, assume 2025-03-26". stdio never carries a header, and a process that has not run
//! `initialize` has negotiated nothing, so the same absence of any version signal gets the same
//! answer there: the oldest revision served, whose results every 2025 client can read (no
//! `outputSchema`, no `structuredContent` it did not ask for), and the only one that accepts a
//! batch, which such a client may send.

use serde_json::json;

use crate::contract::era::{LEGACY, SUPPORTED};
use crate::contract::RpcError;

/// The revision of a 2025 request that names no version and belongs to no session.
pub const UNSTATED: &str = "2025-03-26";

/// The legacy version we answer `initialize` with: the requested one when we serve it, else our
/// newest legacy version (the client then decides whether it can use it).
pub fn negotiate_legacy(requested: Option<&str>) -> &'static str {
    requested
        .and_then(|r| LEGACY.iter().find(|v| **v == r).copied())
        .unwrap_or(LEGACY[0])
}

/// A legacy version string we serve, as `'static`.
pub fn legacy_version(v: &str) -> Option<&'static str> {
    LEGACY.iter().find(|l| **l == v).copied()
}

/// Known pre-2026 revisions, including ones we do not serve (2024-11-05): such a header means the
/// client speaks the handshake wire.
pub fn is_legacy_name(v: &str) -> bool {
    legacy_version(v).is_some() || v == "2024-11-05"
}

/// The revision of a 2025 request without a session: the one its transport states (HTTP's
/// `MCP-Protocol-Version`), else [`UNSTATED`]. A stated 2025 revision we do not serve
/// (2024-11-05) is refused with -32600 naming what is served.
pub fn sessionless_version(stated: Option<&str>) -> Result<&'static str, RpcError> {
    let Some(v) = stated else {
        return Ok(UNSTATED);
    };
    legacy_version(v).ok_or_else(|| unsupported_header(v))
}

/// A version header we cannot serve the request under (-32600, HTTP 400): it names the header,
/// what it said (`shown`: the text, or a lossy rendering of bytes that are not visible ASCII)
/// and the revisions served.
pub fn unsupported_header(shown: &str) -> RpcError {
    RpcError::invalid_request(format!(
        "Unsupported MCP-Protocol-Version header {shown:?}; supported: {}",
        SUPPORTED.join(", ")
    ))
    .with_data(
        json!({"header": "MCP-Protocol-Version", "supported": SUPPORTED, "requested": shown}),
    )
}

/// Whether a version header names a revision we know the wire of (2026-07-28 or a 2025 one).
pub fn is_known_name(v: &str) -> bool {
    v == crate::contract::era::MODERN || is_legacy_name(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::era::MODERN;

    #[test]
    fn legacy_negotiation_echoes_or_counter_offers() {
        assert_eq!(negotiate_legacy(Some("2025-06-18")), "2025-06-18");
        assert_eq!(negotiate_legacy(Some("1999-01-01")), "2025-11-25");
        assert_eq!(negotiate_legacy(None), "2025-11-25");
        assert!(is_legacy_name("2024-11-05"));
        assert!(!is_legacy_name(MODERN));
    }

    #[test]
    fn an_unstated_sessionless_version_is_the_oldest_served() {
        assert_eq!(sessionless_version(None), Ok("2025-03-26"));
        assert_eq!(sessionless_version(Some("2025-06-18")), Ok("2025-06-18"));
        let e = sessionless_version(Some("2024-11-05")).unwrap_err();
        assert_eq!(e.code, -32600);
        assert_eq!(e.data.unwrap()["requested"], "2024-11-05");
    }
}
