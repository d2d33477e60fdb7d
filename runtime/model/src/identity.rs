//! Who is calling: a person in an organization, with scopes, permissions and workspaces.
//!
//! Identities are resolved from bearer tokens by a pluggable `Resolver` (embedded identities file
//! by default; the Kobana API's identity endpoint upstream). Every permission check in the runtime
//! goes through [`Identity::can_call`], on every request, in every era.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::catalog::{ConfirmationBinding, Tool};

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

/// The principal a confirmation or a sealed request state is bound to: the fields `binds`
/// names, as canonical JSON (so no value can forge another by containing a separator).
///
/// `workspace` is the workspace the request runs in. A confirmation binds what its product's
/// policy says ([`crate::catalog::Policy::confirmation_binds`]); a multi round-trip state binds
/// everything ([`ConfirmationBinding::ALL`]).
pub fn principal(
    identity: &Identity,
    workspace: Option<&str>,
    binds: ConfirmationBinding,
) -> String {
    let mut m = serde_json::Map::new();
    if binds.person {
        m.insert("person".into(), identity.person.clone().into());
    }
    if binds.organization {
        m.insert("organization".into(), identity.organization.clone().into());
    }
    if binds.workspace {
        m.insert("workspace".into(), workspace.map(str::to_string).into());
    }
    crate::canonical::to_string(&serde_json::Value::Object(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn who(person: &str, organization: &str) -> Identity {
        Identity {
            person: person.into(),
            name: String::new(),
            organization: organization.into(),
            scopes: BTreeSet::new(),
            permissions: BTreeSet::new(),
            workspaces: BTreeSet::new(),
            default_workspace: None,
        }
    }

    #[test]
    fn a_separator_inside_a_field_cannot_forge_another_principal() {
        // Joined with `|`, both would be "a|b|c|".
        let one = principal(&who("a|b", "c"), None, ConfirmationBinding::ALL);
        let two = principal(&who("a", "b|c"), None, ConfirmationBinding::ALL);
        assert_ne!(one, two);
        assert_eq!(
            one,
            r#"{"organization":"c","person":"a|b","workspace":null}"#
        );
    }

    #[test]
    fn only_the_bound_fields_count() {
        let binds = ConfirmationBinding {
            person: false,
            organization: true,
            workspace: false,
        };
        assert_eq!(
            principal(&who("ana", "org1"), Some("ws1"), binds),
            principal(&who("bia", "org1"), Some("ws2"), binds)
        );
        assert_ne!(
            principal(&who("ana", "org1"), Some("ws1"), ConfirmationBinding::ALL),
            principal(&who("ana", "org1"), Some("ws2"), ConfirmationBinding::ALL)
        );
        // No workspace and an empty workspace are different principals.
        assert_ne!(
            principal(&who("ana", "org1"), None, ConfirmationBinding::ALL),
            principal(&who("ana", "org1"), Some(""), ConfirmationBinding::ALL)
        );
    }
}
