//! The caller of a stdio connection: one token for the whole process.
//!
//! The token comes from `KOBANA_ACCESS_TOKEN` and the default workspace from
//! `KOBANA_WORKSPACE_ID`. The identity is resolved once at start-up; the protocol engine still
//! checks it on every request.
//!
//! Without a token:
//! - in sandbox mode the connection runs as the full demo identity (`demo-full`) and a notice goes
//!   to stderr (stdout belongs to the protocol): the sandbox has only demo data, and an MCP client
//!   launched without configuration should work out of the box;
//! - in proxy mode (real data) start-up fails with an error naming `KOBANA_ACCESS_TOKEN`.
//!
//! When the identity service cannot be reached at start (a laptop offline, the API down), the
//! token is not to blame and the process still starts: a [`PendingCaller`] asks the service again
//! on every request that needs the caller, and the transport answers the others (the listings)
//! meanwhile. Only a service that answers can refuse the token.

use std::sync::{Arc, OnceLock};

use super::resolver::{
    with_default_workspace, AuthError, Authenticated, Resolver, TOKEN_ENV, WORKSPACE_ENV,
};

/// The demo token a sandbox stdio connection uses when none is given.
pub const SANDBOX_DEFAULT_TOKEN: &str = "demo-full";

/// What the environment says about the stdio caller.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StdioCredentials {
    pub token: Option<String>,
    pub workspace: Option<String>,
}

impl StdioCredentials {
    /// Reads `KOBANA_ACCESS_TOKEN` and `KOBANA_WORKSPACE_ID` (empty values count as unset).
    pub fn from_env() -> Self {
        let var = |k: &str| {
            std::env::var(k)
                .ok()
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        Self {
            token: var(TOKEN_ENV),
            workspace: var(WORKSPACE_ENV),
        }
    }
}

/// Why a stdio connection cannot start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StdioAuthError {
    #[error("set {TOKEN_ENV} to a Kobana access token (no anonymous access outside the sandbox)")]
    MissingToken,
    #[error("{TOKEN_ENV} was not accepted: {0}")]
    Rejected(AuthError),
    /// The identity service did not answer: nothing is known about the token yet.
    #[error("the identity service is unreachable ({0}); {TOKEN_ENV} could not be checked")]
    Unreachable(String),
    #[error("{WORKSPACE_ENV}: {0}")]
    Workspace(AuthError),
}

impl StdioAuthError {
    /// The refusal in `locale` (its English is the `Display` above), for the caller of a
    /// request the refusal stopped.
    pub fn message(&self, locale: runtime_model::locale::Locale) -> String {
        use runtime_model::texts::Text;
        match self {
            StdioAuthError::Rejected(e) => Text::StdioTokenRejected.fill(
                locale,
                &[
                    ("variable", &TOKEN_ENV as &dyn std::fmt::Display),
                    ("why", &e.message(locale)),
                ],
            ),
            StdioAuthError::Unreachable(why) => Text::StdioTokenUnchecked.fill(
                locale,
                &[
                    ("why", why as &dyn std::fmt::Display),
                    ("variable", &TOKEN_ENV),
                ],
            ),
            StdioAuthError::Workspace(e) => format!("{WORKSPACE_ENV}: {}", e.message(locale)),
            // Said at start, to the operator (a pending caller has a token).
            StdioAuthError::MissingToken => self.to_string(),
        }
    }
}

/// Resolves the stdio caller. `sandbox` selects the no-token fallback described in the module
/// docs; the notice, when one is due, is returned so the caller prints it (to stderr).
pub async fn resolve_stdio(
    resolver: &dyn Resolver,
    creds: &StdioCredentials,
    sandbox: bool,
) -> Result<(Authenticated, Option<String>), StdioAuthError> {
    let (token, notice) = stdio_token(creds, sandbox)?;
    let who = resolve_token(resolver, &token, creds.workspace.as_deref()).await?;
    Ok((who, notice))
}

/// The token a stdio connection runs with, and the notice to print with it (a `Bearer ` scheme
/// dropped, or the sandbox's default taken).
pub fn stdio_token(
    creds: &StdioCredentials,
    sandbox: bool,
) -> Result<(String, Option<String>), StdioAuthError> {
    match (&creds.token, sandbox) {
        // The variable holds the token alone; a value pasted from an `Authorization` header
        // (`Bearer demo-full`) is taken for the token after the scheme, saying so.
        (Some(t), _) => Ok(match strip_bearer(t) {
            Some(bare) => (
                bare.to_string(),
                Some(format!(
                    "kobana-mcp: {TOKEN_ENV} starts with `Bearer `: using the token after it (set the variable to the token alone)"
                )),
            ),
            None => (t.clone(), None),
        }),
        (None, true) => Ok((
            SANDBOX_DEFAULT_TOKEN.to_string(),
            Some(format!(
                "kobana-mcp: {TOKEN_ENV} is not set; the sandbox runs as the demo identity `{SANDBOX_DEFAULT_TOKEN}` (full access to demo data)"
            )),
        )),
        (None, false) => Err(StdioAuthError::MissingToken),
    }
}

async fn resolve_token(
    resolver: &dyn Resolver,
    token: &str,
    workspace: Option<&str>,
) -> Result<Authenticated, StdioAuthError> {
    let identity = resolver.resolve(token).await.map_err(|e| match e {
        AuthError::Unavailable(why) => StdioAuthError::Unreachable(why),
        e => StdioAuthError::Rejected(e),
    })?;
    let identity =
        with_default_workspace(identity, workspace).map_err(StdioAuthError::Workspace)?;
    Ok(Authenticated {
        identity: Arc::new(identity),
        token: Arc::from(token),
    })
}

/// A stdio caller the identity service could not tell at start: each [`PendingCaller::resolve`]
/// asks it again until it answers, and keeps the first identity it gives (as a caller resolved
/// at start is kept for the whole process).
pub struct PendingCaller {
    resolver: Arc<dyn Resolver>,
    token: String,
    workspace: Option<String>,
    known: OnceLock<Authenticated>,
}

impl PendingCaller {
    pub fn new(resolver: Arc<dyn Resolver>, token: String, workspace: Option<String>) -> Self {
        Self {
            resolver,
            token,
            workspace,
            known: OnceLock::new(),
        }
    }

    /// The caller, once the identity service answered for it; until then, why not (asking again
    /// each time).
    pub async fn resolve(&self) -> Result<Authenticated, StdioAuthError> {
        if let Some(who) = self.known.get() {
            return Ok(who.clone());
        }
        let who = resolve_token(
            self.resolver.as_ref(),
            &self.token,
            self.workspace.as_deref(),
        )
        .await?;
        Ok(self.known.get_or_init(|| who).clone())
    }
}

/// The token of a value written as an `Authorization` header (`Bearer <token>`, any case), or
/// `None` when it is not one.
fn strip_bearer(value: &str) -> Option<&str> {
    let (scheme, rest) = value.split_once(char::is_whitespace)?;
    let rest = rest.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !rest.is_empty()).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::EmbeddedResolver;
    use test_support::policies::product;

    fn resolver() -> EmbeddedResolver {
        EmbeddedResolver::builtin(&[product()]).unwrap()
    }

    #[tokio::test]
    async fn sandbox_without_token_runs_as_demo_full_with_a_notice() {
        let (who, notice) = resolve_stdio(&resolver(), &StdioCredentials::default(), true)
            .await
            .unwrap();
        assert_eq!(who.identity.person, "per_demo_ana");
        assert!(notice.unwrap().contains(TOKEN_ENV));
    }

    #[tokio::test]
    async fn a_token_written_as_a_bearer_header_is_taken_with_a_notice() {
        for value in ["Bearer demo-full", "bearer  demo-full"] {
            let creds = StdioCredentials {
                token: Some(value.into()),
                workspace: None,
            };
            let (who, notice) = resolve_stdio(&resolver(), &creds, true)
                .await
                .unwrap_or_else(|e| panic!("{value}: {e}"));
            assert_eq!(who.identity.person, "per_demo_ana", "{value}");
            assert_eq!(&*who.token, "demo-full");
            let notice = notice.expect("a notice");
            assert!(
                notice.contains(TOKEN_ENV) && notice.contains("Bearer"),
                "{notice}"
            );
        }
        // A token that merely contains the word is left alone (and refused as unknown).
        let creds = StdioCredentials {
            token: Some("Bearer".into()),
            workspace: None,
        };
        assert!(resolve_stdio(&resolver(), &creds, true).await.is_err());
    }

    /// An identity service that cannot be reached until `up` is set, then knows every token.
    struct Flaky {
        up: std::sync::atomic::AtomicBool,
        inner: EmbeddedResolver,
    }

    impl Resolver for Flaky {
        fn resolve<'a>(
            &'a self,
            token: &'a str,
        ) -> runtime_model::backend::BoxFuture<
            'a,
            Result<runtime_model::identity::Identity, AuthError>,
        > {
            if self.up.load(std::sync::atomic::Ordering::SeqCst) {
                self.inner.resolve(token)
            } else {
                Box::pin(async { Err(AuthError::Unavailable("connection refused".into())) })
            }
        }
    }

    #[tokio::test]
    async fn an_unreachable_identity_service_is_not_a_refused_token_and_is_asked_again() {
        let flaky = Arc::new(Flaky {
            up: false.into(),
            inner: resolver(),
        });
        let creds = StdioCredentials {
            token: Some("demo-full".into()),
            workspace: None,
        };
        let err = resolve_stdio(flaky.as_ref(), &creds, false)
            .await
            .unwrap_err();
        assert!(matches!(err, StdioAuthError::Unreachable(_)), "{err:?}");
        let said = err.to_string();
        assert!(said.contains("unreachable"), "{said}");
        assert!(!said.contains("not accepted"), "{said}");
        let pending = PendingCaller::new(flaky.clone(), "demo-full".into(), None);
        assert!(matches!(
            pending.resolve().await,
            Err(StdioAuthError::Unreachable(_))
        ));
        flaky.up.store(true, std::sync::atomic::Ordering::SeqCst);
        let who = pending.resolve().await.unwrap();
        assert_eq!(who.identity.person, "per_demo_ana");
        // Kept once known, as a caller resolved at start is.
        flaky.up.store(false, std::sync::atomic::Ordering::SeqCst);
        assert!(pending.resolve().await.is_ok());
    }

    #[tokio::test]
    async fn proxy_without_token_refuses_to_start() {
        let err = resolve_stdio(&resolver(), &StdioCredentials::default(), false)
            .await
            .unwrap_err();
        assert_eq!(err, StdioAuthError::MissingToken);
        assert!(err.to_string().contains("KOBANA_ACCESS_TOKEN"));
    }

    #[tokio::test]
    async fn token_and_workspace_from_the_environment_values() {
        let creds = StdioCredentials {
            token: Some("demo-multi-workspace".into()),
            workspace: Some("ws_demo_branch".into()),
        };
        let (who, notice) = resolve_stdio(&resolver(), &creds, true).await.unwrap();
        assert_eq!(notice, None);
        assert_eq!(
            who.identity.default_workspace.as_deref(),
            Some("ws_demo_branch")
        );
        let bad_ws = StdioCredentials {
            token: Some("demo-multi-workspace".into()),
            workspace: Some("ws_elsewhere".into()),
        };
        assert!(matches!(
            resolve_stdio(&resolver(), &bad_ws, true).await,
            Err(StdioAuthError::Workspace(_))
        ));
        let bad_token = StdioCredentials {
            token: Some("wrong".into()),
            workspace: None,
        };
        assert_eq!(
            resolve_stdio(&resolver(), &bad_token, true)
                .await
                .unwrap_err(),
            StdioAuthError::Rejected(AuthError::Invalid)
        );
    }
}
