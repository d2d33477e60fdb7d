//! Protocol revisions and how a request's era is told apart.
//!
//! One server answers both eras at once: the 2025 revisions (handshake, sessions, server→client
//! requests) and 2026-07-28 (stateless, everything in each request's `_meta`). The era is chosen
//! per request by the connection layer (`crate::connection`), never per connection.

/// The stateless revision.
pub const MODERN: &str = "2026-07-28";
/// Handshake revisions we serve, newest first.
pub const LEGACY: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];
/// Every revision served, newest first (`supportedVersions`, -32022 `data.supported`).
pub const SUPPORTED: [&str; 4] = [MODERN, LEGACY[0], LEGACY[1], LEGACY[2]];

/// `_meta` keys of 2026-07-28.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// The request's language preference (SEP-2792): an `Accept-Language` value.
pub const META_ACCEPT_LANGUAGE: &str = "io.modelcontextprotocol/acceptLanguage";
/// The language an answer was written in (SEP-2792): a BCP 47 tag.
pub const META_CONTENT_LANGUAGE: &str = "io.modelcontextprotocol/contentLanguage";

/// Which wire a request was served under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// 2025-03-26 / 2025-06-18 / 2025-11-25: the negotiated version is kept with it.
    Legacy(&'static str),
    /// 2026-07-28.
    Modern,
}

impl Era {
    pub fn is_modern(self) -> bool {
        matches!(self, Era::Modern)
    }
    pub fn version(self) -> &'static str {
        match self {
            Era::Legacy(v) => v,
            Era::Modern => MODERN,
        }
    }
    /// `structuredContent` exists from 2025-06-18 on.
    pub fn has_structured_content(self) -> bool {
        !matches!(self, Era::Legacy("2025-03-26"))
    }
}

/// RFC 5424 levels of `logging/setLevel` and `io.modelcontextprotocol/logLevel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl LogLevel {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "debug" => Self::Debug,
            "info" => Self::Info,
            "notice" => Self::Notice,
            "warning" => Self::Warning,
            "error" => Self::Error,
            "critical" => Self::Critical,
            "alert" => Self::Alert,
            "emergency" => Self::Emergency,
            _ => return None,
        })
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Debug => "debug",
            Self::Info => "info",
            Self::Notice => "notice",
            Self::Warning => "warning",
            Self::Error => "error",
            Self::Critical => "critical",
            Self::Alert => "alert",
            Self::Emergency => "emergency",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_levels_are_ordered() {
        assert!(LogLevel::parse("debug").unwrap() < LogLevel::Error);
        assert_eq!(LogLevel::parse("loud"), None);
    }
}
