//! The billing product document against the billing catalog, its generated docs and its sandbox.
//!
//! `../shared/product-docs/001_85b6251b381b87a7.txt` (pt-BR) is the specification: every URI of its
//! resources table, every prompt with its arguments, every completion rule, the destructive rule and
//! the confirmation policy. These tests read its facts (`catalog/facts/product-docs/billing.json`,
//! derived from the document by `cargo run -p codegen-tools -- facts --write`, verified by `facts
//! --check`) and check that each statement is in the compiled catalog (`generated::product`) and in `generated/docs/billing.md`, so nothing in
//! the document can be missing, and nothing is served as a resource that the document does not name.
//! The sandbox part checks that the seed data gives every prompt something to find.
//!
//! The checks every pt-BR product document shares are in `product_doc::pt_br`
//! (`document_tests!` declares them here as tests); the billing prompts' seeds are checked below.

#[path = "product_doc/mod.rs"]
mod product_doc;

use product_doc::pt_br::{self, Sandboxed};
use product_doc::{current_month, ProductDoc};
use serde_json::json;

const SPEC: pt_br::Spec = pt_br::Spec {
    doc: ProductDoc {
        product: "billing",
        page: "pt-BR",
    },
    writing_prompt: "collect_overdue_invoices",
};

pt_br::document_tests!(SPEC);

#[test]
fn every_billing_prompt_has_something_to_find() {
    let s = Sandboxed::new(SPEC.doc.product());
    // collect_overdue_invoices
    let overdue = s.list_all("billing_invoices_list", json!({"status": "overdue"}));
    assert!(!overdue.is_empty(), "overdue invoices");
    assert!(overdue.iter().all(|i| i["status"] == "overdue"));
    // review_pending_nfes
    assert!(
        !s.list_all("billing_invoices_list", json!({"nfe_status": "not_issued"}))
            .is_empty(),
        "invoices without NF-e"
    );
    let rejected = s.list_all("billing_nfes_list", json!({"status": "rejected"}));
    assert!(!rejected.is_empty(), "rejected NF-e");
    assert!(rejected.iter().all(|n| n["rejection_reason"]
        .as_str()
        .is_some_and(|r| !r.is_empty())));
    // customer_overview: a customer with something overdue can be portrayed.
    let customer_id = overdue[0]["customer_id"]
        .as_str()
        .expect("overdue invoice has a customer")
        .to_string();
    let customer = s.call("billing_customers_get", json!({"id": customer_id}));
    assert_eq!(customer["id"], customer_id.as_str());
    let theirs = s.list_all(
        "billing_invoices_list",
        json!({"customer_id": customer_id, "status": "overdue"}),
    );
    assert!(!theirs.is_empty(), "the customer's overdue invoices");
    assert!(
        !s.list_all("billing_subscriptions_list", json!({}))
            .is_empty(),
        "subscriptions"
    );
    // monthly_billing_summary (default: the current month)
    let month = current_month();
    let billed = s.list_all(
        "billing_invoices_list",
        json!({"due_date_from": format!("{month}-01"), "due_date_to": format!("{month}-31")}),
    );
    assert!(!billed.is_empty(), "invoices due in {month}");
    assert!(billed.iter().all(|i| i["due_date"]
        .as_str()
        .is_some_and(|d| d.starts_with(&month))));
    assert!(
        !s.list_all("billing_payments_list", json!({"status": "confirmed"}))
            .is_empty(),
        "payments received"
    );
}
