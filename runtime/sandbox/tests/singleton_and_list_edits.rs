//! Two operations the catalogs declare without product code: a `singleton` read (the token's
//! organization, one record per scope, never padded like a listable type) and an action that adds
//! to or removes from an array field (who may send to an inbox).

use runtime_model::backend::{Backend, BackendError, CallContext, Output};
use runtime_model::catalog::*;
use runtime_sandbox::{Sandbox, SandboxConfig};
use serde_json::{json, Map, Value};

const READ: Annotations = Annotations {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};
const WRITE: Annotations = Annotations {
    read_only: false,
    destructive: true,
    idempotent: true,
    open_world: false,
};

const fn field(name: &'static str, ty: &'static str, seed: &'static str) -> Field {
    Field {
        name,
        ty,
        description: "",
        enum_values: &[],
        sortable: false,
        seed,
    }
}

const fn tool(name: &'static str, path: &'static str, operation: Operation) -> Tool {
    let binding = Binding::Http(HttpBinding {
        method: HttpMethod::Get,
        path,
        path_params: &[],
        query_params: &[],
        body: BodyMode::None,
        operation_ref: None,
    });
    Tool {
        title: name,
        description: name,
        annotations: if matches!(operation, Operation::Action { .. }) {
            WRITE
        } else {
            READ
        },
        operation,
        ..Tool::bare(name, binding)
    }
}

static ADD: Action = Action {
    name: "add_recipient",
    from: &[],
    set: &[],
    state_field: "status",
    creates: None,
    add: Some(ListEdit {
        field: "recipients",
        from_arg: "email",
    }),
    remove: None,
};

static REMOVE: Action = Action {
    name: "remove_recipient",
    from: &["active"],
    set: &[],
    state_field: "status",
    creates: None,
    add: None,
    remove: Some(ListEdit {
        field: "recipients",
        from_arg: "email",
    }),
};

/// Moves an address from one list to the other in one call: both edits or neither.
static MOVE: Action = Action {
    name: "block_sender",
    from: &[],
    set: &[],
    state_field: "status",
    creates: None,
    add: Some(ListEdit {
        field: "blocked",
        from_arg: "email",
    }),
    remove: Some(ListEdit {
        field: "recipients",
        from_arg: "email",
    }),
};

static TOOLS: &[Tool] = &[
    tool(
        "t_organization_get",
        "/v1/organization",
        Operation::Singleton {
            record: "organization",
        },
    ),
    // A listing of the singleton type too, to show it is not padded to 25 records.
    tool(
        "t_organization_list",
        "/v1/organizations",
        Operation::List {
            record: "organization",
        },
    ),
    tool(
        "t_inboxes_list",
        "/v2/inboxes",
        Operation::List { record: "inboxes" },
    ),
    tool(
        "t_inboxes_get",
        "/v2/inboxes/{id}",
        Operation::Get {
            record: "inboxes",
            id_arg: "id",
        },
    ),
    tool(
        "t_inboxes_add_recipient",
        "/v2/inboxes/{id}/recipients",
        Operation::Action {
            record: "inboxes",
            id_arg: "id",
            action: &ADD,
        },
    ),
    tool(
        "t_inboxes_remove_recipient",
        "/v2/inboxes/{id}/recipients/{email}",
        Operation::Action {
            record: "inboxes",
            id_arg: "id",
            action: &REMOVE,
        },
    ),
    tool(
        "t_inboxes_block_sender",
        "/v2/inboxes/{id}/block",
        Operation::Action {
            record: "inboxes",
            id_arg: "id",
            action: &MOVE,
        },
    ),
];

static RECORDS: &[RecordType] = &[
    RecordType {
        name: "organization",
        title: "Organization",
        description: "",
        id_field: "id",
        numeric_id: false,
        // Deliberately above 1: a singleton type is seeded with one record whatever this says.
        seed_count: 30,
        fields: &[
            field("id", "string", "uid"),
            field("name", "string", "company_name"),
            field("cnpj", "string", "cnpj"),
        ],
        keyed_by_owner: None,
        schema_json: "{}",
    },
    RecordType {
        name: "inboxes",
        title: "Inbox",
        description: "",
        id_field: "uid",
        numeric_id: false,
        seed_count: 25,
        fields: &[
            field("uid", "string", "uid"),
            field(
                "recipients",
                "array",
                "const:[\"fornecedor@example.com.br\", \"financeiro@example.com.br\"]",
            ),
            field("blocked", "array", ""),
            Field {
                name: "status",
                ty: "string",
                description: "",
                enum_values: &["active", "paused"],
                sortable: false,
                seed: "enum",
            },
            field("updated_at", "string", "datetime:-30..-1"),
        ],
        keyed_by_owner: None,
        schema_json: "{}",
    },
];

static PRODUCT: Product = Product {
    title: "Singletons and list edits",
    uri_prefix: "kobana://singles/",
    tool_prefix: "t_",
    naming: "t_<resource>_<action>",
    api_base_url: "https://api-sandbox.kobana.com.br",
    records: RECORDS,
    ..Product::bare("singles", TOOLS)
};

fn ctx(org: &str) -> CallContext {
    test_support::calls::admin(&PRODUCT, org)
}

async fn call(sb: &Sandbox, c: &CallContext, name: &str, a: Value) -> Result<Value, BackendError> {
    let tool = PRODUCT.tool(name).expect("tool");
    let args: Map<String, Value> = a.as_object().cloned().expect("object");
    match sb.call(c, tool, &args).await? {
        Output::Json(v) => Ok(v),
        other => panic!("{name}: not JSON: {other:?}"),
    }
}

/// The record of a `/v2` answer (`{status, data}`).
fn data(v: Value) -> Value {
    v.get("data").cloned().unwrap_or(v)
}

fn list(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("a list: {v}"))
        .iter()
        .map(|x| x.as_str().expect("a string").to_string())
        .collect()
}

#[tokio::test]
async fn a_singleton_type_is_one_record_per_organization() {
    let dir = tempfile::tempdir().unwrap();
    let sb = Sandbox::open(&SandboxConfig::new(dir.path())).unwrap();
    let a = ctx("org_a");
    let one = call(&sb, &a, "t_organization_get", json!({}))
        .await
        .unwrap();
    assert!(one.is_object(), "one record, not a listing: {one}");
    assert!(one["id"].as_str().is_some_and(|s| !s.is_empty()), "{one}");
    assert!(one["name"].as_str().is_some_and(|s| !s.is_empty()), "{one}");
    let listed = call(&sb, &a, "t_organization_list", json!({"per_page": 50}))
        .await
        .unwrap();
    assert_eq!(
        listed.as_array().map(Vec::len),
        Some(1),
        "seeded once, not padded to 25 (nor to seed_count 30): {listed}"
    );
    assert_eq!(listed[0], one, "the listing holds the same record");
    assert_eq!(
        call(&sb, &a, "t_organization_get", json!({}))
            .await
            .unwrap(),
        one,
        "every read gives the same record"
    );
    // Another organization has its own.
    let b = call(&sb, &ctx("org_b"), "t_organization_get", json!({}))
        .await
        .unwrap();
    assert_ne!(b["id"], one["id"], "each organization has its own record");
}

async fn first_inbox(sb: &Sandbox, c: &CallContext, status: &str) -> Value {
    let page = call(
        sb,
        c,
        "t_inboxes_list",
        json!({"status": status, "per_page": 50}),
    )
    .await
    .unwrap();
    page["data"][0].clone()
}

#[tokio::test]
async fn an_action_adds_to_and_removes_from_a_list_field() {
    let dir = tempfile::tempdir().unwrap();
    let sb = Sandbox::open(&SandboxConfig::new(dir.path())).unwrap();
    let c = ctx("org1");
    let inbox = first_inbox(&sb, &c, "active").await;
    let id = inbox["uid"].as_str().unwrap().to_string();
    let before = list(&inbox["recipients"]);
    assert_eq!(
        before,
        ["fornecedor@example.com.br", "financeiro@example.com.br"]
    );

    let added = data(
        call(
            &sb,
            &c,
            "t_inboxes_add_recipient",
            json!({"id": id, "email": "novo@example.com.br"}),
        )
        .await
        .unwrap(),
    );
    assert_eq!(
        list(&added["recipients"]),
        [
            "fornecedor@example.com.br",
            "financeiro@example.com.br",
            "novo@example.com.br"
        ]
    );
    assert!(added.get("email").is_none(), "the argument is not stored");
    assert_ne!(added["updated_at"], inbox["updated_at"], "touched");
    let stored = data(
        call(&sb, &c, "t_inboxes_get", json!({"id": id}))
            .await
            .unwrap(),
    );
    assert_eq!(stored["recipients"], added["recipients"], "stored");

    // Adding a value already there changes nothing.
    let again = data(
        call(
            &sb,
            &c,
            "t_inboxes_add_recipient",
            json!({"id": id, "email": "novo@example.com.br"}),
        )
        .await
        .unwrap(),
    );
    assert_eq!(again["recipients"], added["recipients"], "no duplicate");

    let removed = data(
        call(
            &sb,
            &c,
            "t_inboxes_remove_recipient",
            json!({"id": id, "email": "fornecedor@example.com.br"}),
        )
        .await
        .unwrap(),
    );
    assert_eq!(
        list(&removed["recipients"]),
        ["financeiro@example.com.br", "novo@example.com.br"]
    );

    // Removing a value that is not there: a conflict naming it and the field; nothing changes.
    let err = call(
        &sb,
        &c,
        "t_inboxes_remove_recipient",
        json!({"id": id, "email": "fornecedor@example.com.br"}),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(err, BackendError::Conflict(ref m)
            if m.contains("fornecedor@example.com.br") && m.contains("recipients")),
        "{err:?}"
    );
    let stored = data(
        call(&sb, &c, "t_inboxes_get", json!({"id": id}))
            .await
            .unwrap(),
    );
    assert_eq!(stored["recipients"], removed["recipients"]);

    // The argument is required.
    let err = call(&sb, &c, "t_inboxes_add_recipient", json!({"id": id}))
        .await
        .unwrap_err();
    assert!(
        matches!(err, BackendError::Invalid(ref m) if m.contains("`email`")),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_list_edit_follows_the_actions_state_rule() {
    let dir = tempfile::tempdir().unwrap();
    let sb = Sandbox::open(&SandboxConfig::new(dir.path())).unwrap();
    let c = ctx("org1");
    let paused = first_inbox(&sb, &c, "paused").await;
    let id = paused["uid"].as_str().unwrap();
    let err = call(
        &sb,
        &c,
        "t_inboxes_remove_recipient",
        json!({"id": id, "email": "fornecedor@example.com.br"}),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(err, BackendError::Conflict(ref m) if m.contains("paused")),
        "{err:?}"
    );
    let stored = data(
        call(&sb, &c, "t_inboxes_get", json!({"id": id}))
            .await
            .unwrap(),
    );
    assert_eq!(stored["recipients"], paused["recipients"], "unchanged");
}

#[tokio::test]
async fn both_edits_of_one_action_happen_together_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let sb = Sandbox::open(&SandboxConfig::new(dir.path())).unwrap();
    let c = ctx("org1");
    let inbox = first_inbox(&sb, &c, "active").await;
    let id = inbox["uid"].as_str().unwrap();
    // The field starts empty (no seed): the first add creates the list.
    let moved = data(
        call(
            &sb,
            &c,
            "t_inboxes_block_sender",
            json!({"id": id, "email": "financeiro@example.com.br"}),
        )
        .await
        .unwrap(),
    );
    assert_eq!(list(&moved["blocked"]), ["financeiro@example.com.br"]);
    assert_eq!(list(&moved["recipients"]), ["fornecedor@example.com.br"]);
    // The add would succeed (a no-op), the remove fails: neither is stored.
    let err = call(
        &sb,
        &c,
        "t_inboxes_block_sender",
        json!({"id": id, "email": "outro@example.com.br"}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, BackendError::Conflict(_)), "{err:?}");
    let stored = data(
        call(&sb, &c, "t_inboxes_get", json!({"id": id}))
            .await
            .unwrap(),
    );
    assert_eq!(stored["blocked"], moved["blocked"], "the add did not stick");
    assert_eq!(stored["recipients"], moved["recipients"]);
}
