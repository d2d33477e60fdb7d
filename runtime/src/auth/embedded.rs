//! The embedded identities file: tokens → identities, without any network.
//!
//! The default resolver. The file that ships with the project (`runtime/identities.yaml`) holds
//! the documented demo tokens used by the sandbox and the tests; a deployment can point at its own
//! file, where tokens may be stored as SHA-256 digests (`token_sha256`) instead of in clear.
//!
//! Two shorthands keep the file independent of how many tools the catalogs have:
//! - `resource_scopes: all` adds the resource scope of every tool of the served products (a
//!   read-only token needs `read` plus each resource scope, but must not get `all`);
//! - `permissions: ["*"]` with `without_permissions_of: [tool, …]` expands to every permission of
//!   the served products except those the named tools need (a "missing one permission" user).
//!
//! Lookups go by the SHA-256 of the presented token, so the map never compares secrets directly.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use runtime_model::backend::BoxFuture;
use runtime_model::catalog::Product;
use runtime_model::identity::Identity;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::resolver::{AuthError, Resolver};

/// The identities file that ships with the project.
pub const BUILTIN_IDENTITIES: &str = include_str!("../../identities.yaml");

/// A problem in an identities file; names the entry and the field.
#[derive(Debug, thiserror::Error)]
pub enum IdentitiesError {
    #[error("cannot read identities file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("identities file is not valid YAML for this format: {0}")]
    Parse(String),
    #[error("identities entry {index} ({person:?}): {problem}")]
    Entry {
        index: usize,
        person: String,
        problem: String,
    },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct IdentitiesFile {
    identities: Vec<IdentityEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct IdentityEntry {
    /// The token in clear (demo files).
    #[serde(default)]
    token: Option<String>,
    /// The lowercase hex SHA-256 of the token (deployment files).
    #[serde(default)]
    token_sha256: Option<String>,
    person: String,
    #[serde(default)]
    name: String,
    organization: String,
    #[serde(default)]
    scopes: Vec<String>,
    /// `all`: add the resource scope of every tool of the served products.
    #[serde(default)]
    resource_scopes: Option<String>,
    #[serde(default)]
    permissions: Vec<String>,
    /// Tools whose permissions are removed from an expanded `*`.
    #[serde(default)]
    without_permissions_of: Vec<String>,
    #[serde(default)]
    workspaces: Vec<String>,
    /// What this demo identity is for (documentation only).
    #[serde(default)]
    #[allow(dead_code)]
    purpose: String,
}

/// Resolves tokens from an identities file.
#[derive(Debug, Clone)]
pub struct EmbeddedResolver {
    /// SHA-256 of the token → identity (no default workspace).
    by_token_digest: HashMap<TokenDigest, Identity>,
}

impl EmbeddedResolver {
    /// The identities file that ships with the project, expanded against `products`.
    pub fn builtin(products: &[&Product]) -> Result<Self, IdentitiesError> {
        Self::from_yaml(BUILTIN_IDENTITIES, products)
    }

    /// An identities file on disk, expanded against `products`.
    pub fn from_file(path: &Path, products: &[&Product]) -> Result<Self, IdentitiesError> {
        let text = std::fs::read_to_string(path).map_err(|source| IdentitiesError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_yaml(&text, products)
    }

    /// Parses an identities document, expanded against `products`.
    pub fn from_yaml(text: &str, products: &[&Product]) -> Result<Self, IdentitiesError> {
        let file: IdentitiesFile =
            serde_yaml::from_str(text).map_err(|e| IdentitiesError::Parse(e.to_string()))?;
        let mut by_token_digest = HashMap::new();
        for (i, entry) in file.identities.into_iter().enumerate() {
            let index = i + 1;
            let err = |problem: String| IdentitiesError::Entry {
                index,
                person: entry.person.clone(),
                problem,
            };
            let digest = match (&entry.token, &entry.token_sha256) {
                (Some(t), None) if !t.is_empty() => token_digest(t),
                (None, Some(d)) if d.len() == 64 && d.bytes().all(|b| b.is_ascii_hexdigit()) => {
                    let mut digest = TokenDigest::default();
                    hex::decode_to_slice(d, &mut digest)
                        .map_err(|e| err(format!("token_sha256: {e}")))?;
                    digest
                }
                (None, Some(_)) => {
                    return Err(err("token_sha256 must be 64 hexadecimal digits".into()))
                }
                _ => {
                    return Err(err(
                        "exactly one of `token` (non-empty) or `token_sha256` is needed".into(),
                    ))
                }
            };
            if entry.person.trim().is_empty() {
                return Err(err("`person` is empty".into()));
            }
            if entry.organization.trim().is_empty() {
                return Err(err("`organization` is empty".into()));
            }
            let identity = expand(&entry, products).map_err(err)?;
            if by_token_digest.insert(digest, identity).is_some() {
                return Err(err("this token is already used by an earlier entry".into()));
            }
        }
        Ok(Self { by_token_digest })
    }

    /// How many identities the file holds.
    pub fn len(&self) -> usize {
        self.by_token_digest.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_token_digest.is_empty()
    }

    /// The identity of a token, synchronously.
    pub fn lookup(&self, token: &str) -> Option<&Identity> {
        self.by_token_digest.get(&token_digest(token))
    }
}

impl Resolver for EmbeddedResolver {
    fn resolve<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, AuthError>> {
        let found = self.lookup(token).cloned().ok_or(AuthError::Invalid);
        Box::pin(async move { found })
    }
}

/// The SHA-256 of a token: what identities are found by, and what the `token_sha256` field
/// holds (in hex). Kept as bytes: a request's lookup hashes its token once and compares 32
/// bytes, with no hex text built per request.
pub type TokenDigest = [u8; 32];

/// The SHA-256 of a token.
pub fn token_digest(token: &str) -> TokenDigest {
    Sha256::digest(token.as_bytes()).into()
}

fn expand(entry: &IdentityEntry, products: &[&Product]) -> Result<Identity, String> {
    let mut scopes: BTreeSet<String> = entry.scopes.iter().cloned().collect();
    match entry.resource_scopes.as_deref() {
        None => {}
        Some("all") => scopes.extend(
            all_tools(products)
                .filter(|t| !t.scope.is_empty())
                .map(|t| t.scope.to_string()),
        ),
        Some(other) => {
            return Err(format!(
                "`resource_scopes` accepts only `all`, found {other:?}"
            ))
        }
    }
    let mut permissions: BTreeSet<String> = entry.permissions.iter().cloned().collect();
    if !entry.without_permissions_of.is_empty() {
        if !permissions.remove("*") {
            return Err(
                "`without_permissions_of` needs `permissions: [\"*\"]` to subtract from".into(),
            );
        }
        let mut removed = BTreeSet::new();
        for name in &entry.without_permissions_of {
            match all_tools(products).find(|t| t.name == name) {
                Some(tool) if !tool.permission.is_empty() => {
                    removed.insert(tool.permission);
                }
                Some(_) => {
                    return Err(format!(
                        "tool {name:?} in `without_permissions_of` needs no permission"
                    ))
                }
                // The product of this tool is not served here: nothing to subtract from.
                None => {
                    tracing::debug!(tool = %name, "without_permissions_of names a tool no served product has")
                }
            }
        }
        permissions.extend(
            all_tools(products)
                .map(|t| t.permission)
                .filter(|p| !p.is_empty() && !removed.contains(p))
                .map(str::to_string),
        );
    }
    Ok(Identity {
        person: entry.person.clone(),
        name: entry.name.clone(),
        organization: entry.organization.clone(),
        scopes,
        permissions,
        workspaces: entry.workspaces.iter().cloned().collect(),
        default_workspace: None,
    })
}

fn all_tools<'p>(
    products: &'p [&Product],
) -> impl Iterator<Item = &'static runtime_model::catalog::Tool> + 'p {
    products.iter().flat_map(|p| p.tools.iter())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::with_default_workspace;
    use test_support::policies::{product, tool};

    #[test]
    fn the_builtin_file_has_the_documented_demo_tokens() {
        let p = product();
        let r = EmbeddedResolver::builtin(&[p]).unwrap();
        for token in [
            "demo-full",
            "demo-readonly",
            "demo-limited",
            "demo-multi-workspace",
            "demo-colleague",
            "demo-other-org",
        ] {
            assert!(r.lookup(token).is_some(), "{token} is missing");
        }
        assert!(r.lookup("demo-nope").is_none());
        let full = r.lookup("demo-full").unwrap();
        let colleague = r.lookup("demo-colleague").unwrap();
        let other = r.lookup("demo-other-org").unwrap();
        assert_eq!(full.organization, colleague.organization);
        assert_ne!(full.person, colleague.person);
        assert_ne!(full.organization, other.organization);
        let multi = with_default_workspace(r.lookup("demo-multi-workspace").unwrap().clone(), None)
            .unwrap();
        assert!(multi.workspaces.len() > 1);
        assert_eq!(multi.default_workspace, None);
    }

    #[test]
    fn the_builtin_tokens_have_the_promised_rights() {
        let p = product();
        let r = EmbeddedResolver::builtin(&[p]).unwrap();
        let full = r.lookup("demo-full").unwrap();
        let ro = r.lookup("demo-readonly").unwrap();
        let limited = r.lookup("demo-limited").unwrap();
        for t in p.tools {
            assert_eq!(full.can_call(t), Ok(()), "{}", t.name);
            if t.annotations.read_only {
                assert_eq!(ro.can_call(t), Ok(()), "{}", t.name);
            } else {
                assert_eq!(
                    ro.can_call(t).unwrap_err().code(),
                    "insufficient_scope",
                    "{}",
                    t.name
                );
            }
        }
        // The builtin file names real products' tools; the test product has none of them.
        assert_eq!(limited.can_call(tool("test_things_list")), Ok(()));
        let yaml = "identities:\n  - {token: t, person: p, organization: o, scopes: [all], permissions: ['*'], without_permissions_of: [test_things_list, other_product_tool]}\n";
        let r = EmbeddedResolver::from_yaml(yaml, &[p]).unwrap();
        let limited = r.lookup("t").unwrap();
        let denied = limited.can_call(tool("test_things_list")).unwrap_err();
        assert_eq!(denied.code(), "insufficient_permission");
        assert_eq!(denied.missing(), "things.list");
        assert_eq!(limited.can_call(tool("test_things_delete")), Ok(()));
        assert!(!limited.permissions.contains("*"));
    }

    #[test]
    fn hashed_tokens_and_errors() {
        let digest = hex::encode(token_digest("s3cret"));
        let yaml = format!(
            "identities:\n  - token_sha256: {digest}\n    person: p\n    organization: o\n    scopes: [read]\n"
        );
        let r = EmbeddedResolver::from_yaml(&yaml, &[]).unwrap();
        assert_eq!(r.lookup("s3cret").unwrap().person, "p");
        assert!(r.lookup("S3cret").is_none());

        let dup = "identities:\n  - {token: a, person: p, organization: o}\n  - {token: a, person: q, organization: o}\n";
        let e = EmbeddedResolver::from_yaml(dup, &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("entry 2") && e.contains("already used"), "{e}");

        let both = "identities:\n  - {token: a, token_sha256: b, person: p, organization: o}\n";
        assert!(EmbeddedResolver::from_yaml(both, &[]).is_err());
        let unknown = "identities:\n  - {token: a, person: p, organization: o, colour: red}\n";
        let e = EmbeddedResolver::from_yaml(unknown, &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("colour"), "{e}");
        let bad_sub = "identities:\n  - {token: a, person: p, organization: o, permissions: [x], without_permissions_of: [t]}\n";
        let e = EmbeddedResolver::from_yaml(bad_sub, &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("without_permissions_of"), "{e}");
        let no_org = "identities:\n  - {token: a, person: p, organization: ' '}\n";
        assert!(EmbeddedResolver::from_yaml(no_org, &[]).is_err());
    }

    #[tokio::test]
    async fn resolves_through_the_trait() {
        let p = product();
        let r: Box<dyn Resolver> = Box::new(EmbeddedResolver::builtin(&[p]).unwrap());
        assert!(r.resolve("demo-full").await.is_ok());
        assert_eq!(r.resolve("wrong").await, Err(AuthError::Invalid));
    }
}
