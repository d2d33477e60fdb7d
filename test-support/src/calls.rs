//! The context a backend test calls tools with, and a tool it can call with no arguments.

use std::collections::BTreeSet;

use runtime_model::backend::CallContext;
use runtime_model::catalog::{Product, Tool};
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

/// A read-only tool of `product` that requires no argument, so `{}` calls it.
pub fn argless_read(product: &'static Product) -> &'static Tool {
    product
        .tools
        .iter()
        .find(|t| t.annotations.read_only && !t.input_schema_json.contains("\"required\""))
        .expect("a read tool without required arguments")
}
