//! Tool names that fit the clients' limits.
//!
//! Clients prefix tool names with the server's name (`mcp__kobana-banking__…`) and many cap the
//! result at 64 characters, so a tool name should leave room: at most [`DEFAULT_NAME_BUDGET`]
//! characters unless configured otherwise.

/// The default name budget: 64 (the common cap) minus room for a client's prefix.
pub const DEFAULT_NAME_BUDGET: usize = 48;
