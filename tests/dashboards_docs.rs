//! The dashboards product document against the dashboards catalog, its generated docs and its sandbox.
//!
//! `../shared/product-docs/003_3ec0f81887b17c41.txt` (pt-BR) is the specification: every URI of its
//! resources table, every prompt with its arguments, every completion rule, the destructive rule and
//! the confirmation policy. These tests read its facts (`catalog/facts/product-docs/dashboards.json`,
//! derived from the document by `cargo run -p codegen-tools -- facts --write`, verified by `facts
//! --check`) and check that each statement is in the compiled catalog (`generated::product`) and in `generated/docs/dashboards.md`, so nothing in
//! the document can be missing, and nothing is served as a resource that the document does not name.
//! The sandbox part checks that the seed data gives every prompt something to find.
//!
//! The checks every pt-BR product document shares are in `product_doc::pt_br`
//! (`document_tests!` declares them here as tests); the dashboards prompts' seeds and the portal
//! user resource are checked below.

#[path = "product_doc/mod.rs"]
mod product_doc;

use std::collections::BTreeMap;

use product_doc::pt_br::{self, Sandboxed};
use product_doc::ProductDoc;
use runtime::catalog::Operation;
use serde_json::json;

const SPEC: pt_br::Spec = pt_br::Spec {
    doc: ProductDoc {
        product: "dashboards",
        page: "pt-BR",
    },
    writing_prompt: "review_portal_access",
};

pt_br::document_tests!(SPEC);

#[test]
fn every_dashboards_prompt_has_something_to_find() {
    let s = Sandboxed::new(SPEC.doc.product());
    // tenant_overview: a tenant ID shared by several portal users, each with a status.
    let users = s.list_all("dashboards_portal_users_list", json!({}));
    let mut by_tenant: BTreeMap<String, usize> = BTreeMap::new();
    for u in &users {
        let tenant = u["tenant_id"]
            .as_str()
            .expect("a portal user has a tenant_id");
        assert!(
            u["status"].as_str().is_some_and(|x| !x.is_empty()),
            "a portal user has a status"
        );
        *by_tenant.entry(tenant.to_string()).or_default() += 1;
    }
    let (tenant, n) = by_tenant
        .iter()
        .max_by_key(|(_, n)| **n)
        .expect("portal users exist");
    assert!(
        *n >= 2,
        "some tenant ID is shared by several portal users: {by_tenant:?}"
    );
    let theirs = s.list_all("dashboards_portal_users_list", json!({"tenant_id": tenant}));
    assert_eq!(
        theirs.len(),
        *n,
        "the tenant_id filter gives that tenant's users"
    );
    // review_portal_access: users still waiting for the invite.
    for status in ["invited", "invite_expired"] {
        let waiting = s.list_all("dashboards_portal_users_list", json!({"status": status}));
        assert!(!waiting.is_empty(), "portal users with status {status}");
        assert!(waiting.iter().all(|u| u["status"] == status));
    }
    // team_access_review: the team, with role and permissions.
    let team = s.list_all("dashboards_team_members_list", json!({}));
    assert!(!team.is_empty(), "team members");
    for m in &team {
        assert!(
            m["role"].as_str().is_some_and(|r| !r.is_empty()),
            "a member has a role"
        );
        assert!(
            m["permissions"].as_str().is_some(),
            "a member has permissions"
        );
    }
}

#[test]
fn a_portal_user_resource_shows_the_status_and_the_tenant_id() {
    // "Um usuário do portal, com o status e o tenant ID cujos registros ele vê (JSON)"
    let p = SPEC.doc.product();
    let t = p
        .templates
        .iter()
        .find(|t| t.uri_template == "kobana://dashboards/portal_users/{id}")
        .expect("the portal user template");
    let tool = p.tool(t.read_by).expect("its tool");
    let Operation::Get { record, .. } = tool.operation else {
        panic!("{} reads one record", tool.name)
    };
    let rt = p.record(record).expect("record type");
    for field in ["status", "tenant_id"] {
        assert!(
            rt.fields.iter().any(|f| f.name == field),
            "{record} has `{field}`"
        );
    }
    let s = Sandboxed::new(SPEC.doc.product());
    let first = &s.list_all("dashboards_portal_users_list", json!({}))[0];
    let read = s.call(t.read_by, json!({"id": first["id"]}));
    assert_eq!(read["id"], first["id"]);
    assert!(
        read["status"].is_string() && read["tenant_id"].is_string(),
        "{read}"
    );
}
