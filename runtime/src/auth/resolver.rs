//! What every resolver and both connection kinds share: the [`Resolver`] trait, its error, the
//! names a connection's credentials travel under, and the default-workspace rule.

use std::sync::Arc;

use runtime_model::backend::BoxFuture;
use runtime_model::identity::Identity;

/// HTTP request header that sets the connection's default workspace.
pub const WORKSPACE_HEADER: &str = "Kobana-Workspace-Id";
/// HTTP query parameter that sets the connection's default workspace (when the header is absent).
pub const WORKSPACE_QUERY_PARAM: &str = "workspace_id";
/// Environment variable holding the bearer token of a stdio connection.
pub const TOKEN_ENV: &str = "KOBANA_ACCESS_TOKEN";
/// Environment variable holding the default workspace of a stdio connection.
pub const WORKSPACE_ENV: &str = "KOBANA_WORKSPACE_ID";

/// Why a token did not resolve to an identity.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// No bearer token was presented.
    #[error("no bearer token was given")]
    Missing,
    /// The token is unknown, expired or revoked.
    #[error("the bearer token is invalid or expired")]
    Invalid,
    /// The requested default workspace is not one the person can reach.
    #[error("workspace {0:?} is not reachable by this person")]
    ForeignWorkspace(String),
    /// The identity source could not answer (network, timeout, malformed answer).
    #[error("the identity service is unreachable: {0}")]
    Unavailable(String),
}

impl AuthError {
    /// The refusal in `locale` (its English is the `Display` above, word for word).
    pub fn message(&self, locale: runtime_model::locale::Locale) -> String {
        use runtime_model::texts::Text;
        match self {
            AuthError::Missing => Text::AuthMissingToken.get(locale).to_string(),
            AuthError::Invalid => Text::AuthInvalidToken.get(locale).to_string(),
            AuthError::ForeignWorkspace(w) => {
                Text::AuthForeignWorkspace.fill(locale, &[("workspace", &format!("{w:?}"))])
            }
            AuthError::Unavailable(why) => Text::AuthUnreachable.fill(locale, &[("why", why)]),
        }
    }
}

/// Resolves bearer tokens to identities.
///
/// Implementations never apply a default workspace: that is per connection, see
/// [`with_default_workspace`].
pub trait Resolver: Send + Sync + 'static {
    fn resolve<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, AuthError>>;
}

impl<R: Resolver + ?Sized> Resolver for Arc<R> {
    fn resolve<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, AuthError>> {
        (**self).resolve(token)
    }
}

/// Applies the connection's default workspace to a resolved identity.
///
/// - An explicitly requested workspace must be one the person reaches; otherwise
///   [`AuthError::ForeignWorkspace`] (never silently ignored: the caller asked for it).
/// - With none requested, a person who reaches exactly one workspace gets it as default; a person
///   who reaches several gets none (record resources then answer `workspace_required`).
/// - An empty requested value counts as none.
pub fn with_default_workspace(
    mut identity: Identity,
    requested: Option<&str>,
) -> Result<Identity, AuthError> {
    match requested.map(str::trim).filter(|w| !w.is_empty()) {
        Some(ws) => {
            if !identity.workspaces.contains(ws) {
                return Err(AuthError::ForeignWorkspace(ws.to_string()));
            }
            identity.default_workspace = Some(ws.to_string());
        }
        None => {
            identity.default_workspace = if identity.workspaces.len() == 1 {
                identity.workspaces.iter().next().cloned()
            } else {
                None
            };
        }
    }
    Ok(identity)
}

/// What the transport learned about the caller of one request; the HTTP auth layer puts it in
/// the request's extensions for the protocol engine.
#[derive(Debug, Clone)]
pub struct Authenticated {
    /// The identity, with the connection's default workspace applied.
    pub identity: Arc<Identity>,
    /// The bearer token as presented (forwarded upstream in proxy mode).
    pub token: Arc<str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(workspaces: &[&str]) -> Identity {
        Identity {
            person: "p".into(),
            name: String::new(),
            organization: "o".into(),
            scopes: Default::default(),
            permissions: Default::default(),
            workspaces: workspaces.iter().map(|s| s.to_string()).collect(),
            default_workspace: None,
        }
    }

    #[test]
    fn a_single_workspace_is_the_default() {
        let id = with_default_workspace(person(&["ws1"]), None).unwrap();
        assert_eq!(id.default_workspace.as_deref(), Some("ws1"));
    }

    #[test]
    fn several_workspaces_and_no_request_leave_no_default() {
        let id = with_default_workspace(person(&["ws1", "ws2"]), None).unwrap();
        assert_eq!(id.default_workspace, None);
        let id = with_default_workspace(person(&["ws1", "ws2"]), Some("  ")).unwrap();
        assert_eq!(id.default_workspace, None);
    }

    #[test]
    fn a_requested_workspace_must_be_reachable() {
        let id = with_default_workspace(person(&["ws1", "ws2"]), Some("ws2")).unwrap();
        assert_eq!(id.default_workspace.as_deref(), Some("ws2"));
        assert_eq!(
            with_default_workspace(person(&["ws1"]), Some("ws9")),
            Err(AuthError::ForeignWorkspace("ws9".into()))
        );
    }
}
