//! The context a backend test calls tools with.

use std::collections::BTreeSet;

use runtime_model::backend::CallContext;
use runtime_model::catalog::Product;
use runtime_model::identity::Identity;
use runtime_model::locale::Locale;

/// A call by person `p1` holding every scope and permission of organization `org`, in English,
/// with no workspace, token or idempotency key: a test that needs one of those sets it with
/// struct update syntax (`CallContext { workspace: …, ..admin(product, org) }`).
pub fn admin(product: &'static Product, org: &str) -> CallContext {
    CallContext {
        product,
        identity: Identity {
            person: "p1".into(),
            name: "P".into(),
            organization: org.into(),
            scopes: BTreeSet::from(["all".to_string()]),
            permissions: BTreeSet::from(["*".to_string()]),
            workspaces: BTreeSet::new(),
            default_workspace: None,
        }
        .into(),
        bearer_token: None,
        workspace: None,
        idempotency_key: None,
        locale: Locale::En,
        progress: Default::default(),
        attempts: Default::default(),
    }
}
