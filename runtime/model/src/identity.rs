//! Who is calling: a person in an organization, with scopes, permissions and workspaces.
//!
//! Identities are resolved from bearer tokens by a pluggable [`Resolver`] (embedded identities file
//! by default; the Kobana API's identity endpoint upstream). Every permission check in the runtime
//! goes through [`Identity::can_call`], on every request, in every era.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::catalog::Tool;

/// A resolved caller.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// Stable id of the person.
    pub person: String,
    /// Display name (for logs and confirmation forms).
    #[serde(default)]
    pub name: String,
    pub organization: String,
    /// OAuth scopes: `read`, `write`, `all`, and resource scopes such as `charge.bank_billets`.
    pub scopes: BTreeSet<String>,
    /// Permissions of the person's role, such as `bank_billets.read`; `*` grants all.
    pub permissions: BTreeSet<String>,
    /// Workspaces the person can reach.
    #[serde(default)]
    pub workspaces: BTreeSet<String>,
    /// The connection's default workspace, if any (set per connection/request, not per token).
    #[serde(default)]
    pub default_workspace: Option<String>,
}

/// Why a caller may not use a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Denial {
    /// The token lacks the scope (`read`/`write` meta scope or the resource scope).
    InsufficientScope(String),
    /// The person's role lacks the permission.
    InsufficientPermission(String),
}

impl Denial {
    pub fn code(&self) -> &'static str {
        match self {
            Denial::InsufficientScope(_) => "insufficient_scope",
            Denial::InsufficientPermission(_) => "insufficient_permission",
        }
    }
    pub fn missing(&self) -> &str {
        match self {
            Denial::InsufficientScope(s) | Denial::InsufficientPermission(s) => s,
        }
    }
}

impl Identity {
    /// The scope and permission check of one tool. `all` grants every scope; a read-only tool needs
    /// `read` (or `write`) plus its resource scope, any other tool needs `write` plus its resource scope.
    pub fn can_call(&self, tool: &Tool) -> Result<(), Denial> {
        let has = |s: &str| self.scopes.contains(s) || self.scopes.contains("all");
        let meta = if tool.annotations.read_only {
            if has("read") || has("write") {
                None
            } else {
                Some("read")
            }
        } else if has("write") {
            None
        } else {
            Some("write")
        };
        if let Some(m) = meta {
            return Err(Denial::InsufficientScope(m.to_string()));
        }
        if !tool.scope.is_empty() && !has(tool.scope) {
            return Err(Denial::InsufficientScope(tool.scope.to_string()));
        }
        if !tool.permission.is_empty()
            && !self.permissions.contains(tool.permission)
            && !self.permissions.contains("*")
        {
            return Err(Denial::InsufficientPermission(tool.permission.to_string()));
        }
        Ok(())
    }
}
