//! Two small hand-written catalogs (a v1/v2 billing-like product and a workspaced inbox-like
//! one), for tests and benchmarks of the sandbox, the proxy and `serve-api` before — and
//! independently of — the generated catalogs. Never served as Kobana products.

use runtime_model::catalog::*;

const fn f(name: &'static str, ty: &'static str, seed: &'static str) -> Field {
    Field {
        name,
        ty,
        description: "",
        enum_values: &[],
        sortable: false,
        seed,
    }
}

const fn e(name: &'static str, values: &'static [&'static str]) -> Field {
    Field {
        name,
        ty: "string",
        description: "",
        enum_values: values,
        sortable: false,
        seed: "enum",
    }
}

const ANN_READ: Annotations = Annotations {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: true,
};
const ANN_WRITE: Annotations = Annotations {
    read_only: false,
    destructive: false,
    idempotent: false,
    open_world: true,
};
const ANN_DESTROY: Annotations = Annotations {
    read_only: false,
    destructive: true,
    idempotent: true,
    open_world: true,
};

const fn http(
    method: HttpMethod,
    path: &'static str,
    path_params: &'static [(&'static str, &'static str)],
    query_params: &'static [&'static str],
    body: BodyMode,
) -> Binding {
    Binding::Http(HttpBinding {
        method,
        path,
        path_params,
        query_params,
        body,
        operation_ref: None,
    })
}

const fn tool(
    name: &'static str,
    annotations: Annotations,
    permission: &'static str,
    binding: Binding,
    operation: Operation,
) -> Tool {
    Tool {
        title: name,
        description: name,
        annotations,
        permission,
        operation,
        ..Tool::bare(name, binding)
    }
}

pub static CANCEL: Action = Action {
    name: "cancel",
    from: &["opened", "overdue"],
    set: &[("status", "canceled")],
    state_field: "status",
    creates: None,
    add: None,
    remove: None,
};

pub static PAY: Action = Action {
    name: "pay",
    from: &["opened", "overdue"],
    set: &[("status", "paid")],
    state_field: "status",
    creates: Some("bank_billet_payments"),
    add: None,
    remove: None,
};

const LIST_QUERY: &[&str] = &[
    "page",
    "per_page",
    "status",
    "customer_id",
    "created_from",
    "created_to",
];

pub static TOOLS: &[Tool] = &[
    tool(
        "demo_customers_list",
        ANN_READ,
        "customers.read",
        http(
            HttpMethod::Get,
            "/v2/customers",
            &[],
            &["page", "per_page", "name"],
            BodyMode::None,
        ),
        Operation::List {
            record: "customers",
        },
    ),
    tool(
        "demo_customer_get",
        ANN_READ,
        "customers.read",
        http(
            HttpMethod::Get,
            "/v2/customers/{uid}",
            &[("uid", "uid")],
            &[],
            BodyMode::None,
        ),
        Operation::Get {
            record: "customers",
            id_arg: "uid",
        },
    ),
    tool(
        "demo_bank_billets_list",
        ANN_READ,
        "bank_billets.read",
        http(
            HttpMethod::Get,
            "/v1/bank_billets",
            &[],
            LIST_QUERY,
            BodyMode::None,
        ),
        Operation::List {
            record: "bank_billets",
        },
    ),
    tool(
        "demo_bank_billet_get",
        ANN_READ,
        "bank_billets.read",
        http(
            HttpMethod::Get,
            "/v1/bank_billets/{id}",
            &[("id", "id")],
            &[],
            BodyMode::None,
        ),
        Operation::Get {
            record: "bank_billets",
            id_arg: "id",
        },
    ),
    tool(
        "demo_bank_billet_pdf",
        ANN_READ,
        "bank_billets.read",
        http(
            HttpMethod::Get,
            "/v1/bank_billets/{id}/pdf",
            &[("id", "id")],
            &[],
            BodyMode::None,
        ),
        Operation::Get {
            record: "bank_billets",
            id_arg: "id",
        },
    ),
    tool(
        "demo_bank_billet_create",
        ANN_WRITE,
        "bank_billets.create",
        http(
            HttpMethod::Post,
            "/v1/bank_billets",
            &[],
            &[],
            BodyMode::Wrapped(
                "bank_billet",
                &["amount", "expire_at", "customer_id", "description"],
            ),
        ),
        Operation::Create {
            record: "bank_billets",
        },
    ),
    tool(
        "demo_bank_billet_update",
        ANN_WRITE,
        "bank_billets.update",
        http(
            HttpMethod::Put,
            "/v1/bank_billets/{id}",
            &[("id", "id")],
            &[],
            BodyMode::Rest,
        ),
        Operation::Update {
            record: "bank_billets",
            id_arg: "id",
        },
    ),
    tool(
        "demo_bank_billet_cancel",
        ANN_DESTROY,
        "bank_billets.cancel",
        http(
            HttpMethod::Put,
            "/v1/bank_billets/{id}/cancel",
            &[("id", "id")],
            &[],
            BodyMode::None,
        ),
        Operation::Action {
            record: "bank_billets",
            id_arg: "id",
            action: &CANCEL,
        },
    ),
    tool(
        "demo_bank_billet_pay",
        ANN_DESTROY,
        "bank_billets.pay",
        http(
            HttpMethod::Post,
            "/v1/bank_billets/{id}/pay",
            &[("id", "id")],
            &[],
            BodyMode::Fields(&["paid_amount"]),
        ),
        Operation::Action {
            record: "bank_billets",
            id_arg: "id",
            action: &PAY,
        },
    ),
    tool(
        "demo_bank_billet_delete",
        ANN_DESTROY,
        "bank_billets.delete",
        http(
            HttpMethod::Delete,
            "/v1/bank_billets/{id}",
            &[("id", "id")],
            &[],
            BodyMode::None,
        ),
        Operation::Delete {
            record: "bank_billets",
            id_arg: "id",
        },
    ),
    tool(
        "demo_payments_list",
        ANN_READ,
        "bank_billets.read",
        http(
            HttpMethod::Get,
            "/v2/charge/payments",
            &[],
            &["page", "per_page", "bank_billet_id"],
            BodyMode::None,
        ),
        Operation::List {
            record: "bank_billet_payments",
        },
    ),
    tool(
        "demo_report",
        ANN_READ,
        "reports.read",
        Binding::Extension("demo_report"),
        Operation::Custom,
    ),
];

pub static RECORDS: &[RecordType] = &[
    RecordType {
        name: "customers",
        title: "Customer",
        description: "",
        id_field: "uid",
        numeric_id: false,
        seed_count: 25,
        fields: &[
            f("uid", "string", "uid"),
            f("name", "string", "person_name"),
            f("document", "string", "cpf"),
            f("email", "string", "email"),
            f("phone", "string", "phone"),
            f("created_at", "string", "datetime:-120..-60"),
        ],
        keyed_by_owner: None,
        schema_json: "{}",
    },
    RecordType {
        name: "bank_billets",
        title: "Bank billet",
        description: "",
        id_field: "uid",
        numeric_id: true,
        seed_count: 30,
        fields: &[
            f("uid", "string", "uid"),
            f("amount", "number", "amount:10..5000"),
            e("status", &["opened", "paid", "canceled", "overdue"]),
            f("expire_at", "string", "date:-60..30"),
            f("customer_id", "string", "ref:customers"),
            f("customer_cnpj", "string", "cnpj"),
            f("pix_key", "string", "pix_key"),
            f("description", "string", "text:4"),
            f("paid_at", "string", "datetime:-30..0"),
            f("paid_amount", "number", "amount:10..5000"),
            f("canceled_at", "string", "datetime:-30..0"),
            f("our_number", "string", "sequence"),
            f("registered", "boolean", "bool"),
            f("installments", "integer", "int:1..12"),
            f("channel", "string", "text:api|dashboard|sftp"),
            f("currency", "string", "const:BRL"),
            f("created_at", "string", "datetime:-60..0"),
            f("updated_at", "string", ""),
        ],
        keyed_by_owner: None,
        schema_json: "{}",
    },
    RecordType {
        name: "bank_billet_payments",
        title: "Bank billet payment",
        description: "",
        id_field: "uid",
        numeric_id: false,
        seed_count: 25,
        fields: &[
            f("uid", "string", "uid"),
            f("bank_billet_id", "string", "ref:bank_billets"),
            f("amount", "number", "amount:10..5000"),
            f("paid_amount", "number", ""),
            e("status", &["confirmed", "reversed"]),
            f("paid_at", "string", "datetime:-30..0"),
            f("created_at", "string", ""),
        ],
        keyed_by_owner: None,
        schema_json: "{}",
    },
];

pub static TEMPLATES: &[Template] = &[
    Template {
        uri_template: "kobana://demo/bank_billets/{id}",
        name: "bank_billet",
        title: "Bank billet",
        description: "",
        mime_type: "application/json",
        read_by: "demo_bank_billet_get",
        args: &[("id", "id")],
        content: ContentKind::JsonRecord,
        listed: true,
        list_tool: Some("demo_bank_billets_list"),
        completions: &[],
        limitation: None,
        descriptor_json: "{}",
    },
    Template {
        uri_template: "kobana://demo/bank_billets/{id}/pdf",
        name: "bank_billet_pdf",
        title: "Bank billet PDF",
        description: "",
        mime_type: "application/pdf",
        read_by: "demo_bank_billet_pdf",
        args: &[("id", "id")],
        content: ContentKind::Blob {
            max_bytes: 10 * 1024 * 1024,
        },
        listed: false,
        list_tool: None,
        completions: &[],
        limitation: None,
        descriptor_json: "{}",
    },
    Template {
        uri_template: "kobana://demo/customers/{uid}",
        name: "customer",
        title: "Customer",
        description: "",
        mime_type: "application/json",
        read_by: "demo_customer_get",
        args: &[("uid", "uid")],
        content: ContentKind::JsonRecord,
        listed: true,
        list_tool: Some("demo_customers_list"),
        completions: &[],
        limitation: None,
        descriptor_json: "{}",
    },
];

const POLICY: Policy = Policy {
    resources_list: ResourcesListPolicy::Recent(20),
    ..Policy::RUN_UNCONFIRMED
};

/// A billing-like product: customers (v2), bank billets (v1, numeric id) with cancel/pay actions,
/// payments created by `pay`, a PDF, and one custom tool.
pub static PRODUCT: Product = Product {
    title: "Demo",
    uri_prefix: "kobana://demo/",
    tool_prefix: "demo_",
    naming: "demo_<resource>_<action>",
    api_base_url: "https://api-sandbox.kobana.com.br",
    policy: POLICY,
    templates: TEMPLATES,
    records: RECORDS,
    ..Product::bare("demo", TOOLS)
};

pub static INBOX_TOOLS: &[Tool] = &[
    tool(
        "demo_inbox_emails_list",
        ANN_READ,
        "emails.read",
        http(
            HttpMethod::Get,
            "/v2/emails",
            &[],
            &["page", "per_page", "status", "workspace_id"],
            BodyMode::None,
        ),
        Operation::List { record: "emails" },
    ),
    tool(
        "demo_inbox_email_get",
        ANN_READ,
        "emails.read",
        http(
            HttpMethod::Get,
            "/v2/emails/{id}",
            &[("id", "id")],
            &["workspace_id"],
            BodyMode::None,
        ),
        Operation::Get {
            record: "emails",
            id_arg: "id",
        },
    ),
    tool(
        "demo_inbox_email_eml",
        ANN_READ,
        "emails.read",
        http(
            HttpMethod::Get,
            "/v2/emails/{id}/eml",
            &[("id", "id")],
            &["workspace_id"],
            BodyMode::None,
        ),
        Operation::Get {
            record: "emails",
            id_arg: "id",
        },
    ),
];

pub static INBOX_RECORDS: &[RecordType] = &[RecordType {
    name: "emails",
    title: "E-mail",
    description: "",
    id_field: "id",
    numeric_id: false,
    seed_count: 25,
    fields: &[
        f("id", "string", "uid"),
        f("workspace_id", "string", ""),
        f("from", "string", "email"),
        f("subject", "string", "text:5"),
        e("status", &["received", "processed", "failed"]),
        f("size", "integer", "int:800..4000"),
        f("received_at", "string", "datetime:-20..0"),
        f("created_at", "string", ""),
    ],
    keyed_by_owner: None,
    schema_json: "{}",
}];

pub static INBOX_TEMPLATES: &[Template] = &[Template {
    uri_template: "kobana://demo_inbox/emails/{id}/eml",
    name: "email_eml",
    title: "E-mail .eml",
    description: "",
    mime_type: "application/json",
    read_by: "demo_inbox_email_eml",
    args: &[("id", "id")],
    content: ContentKind::SignedUrl { ttl_secs: 300 },
    listed: false,
    list_tool: None,
    completions: &[],
    limitation: None,
    descriptor_json: "{}",
}];

/// A workspaced inbox-like product with a signed `.eml` download.
pub static INBOX: Product = Product {
    title: "Demo inbox",
    uri_prefix: "kobana://demo_inbox/",
    tool_prefix: "demo_inbox_",
    naming: "demo_inbox_<resource>_<action>",
    api_base_url: "https://api-sandbox.kobana.com.br",
    policy: Policy {
        workspaced: true,
        ..Policy::RUN_UNCONFIRMED
    },
    templates: INBOX_TEMPLATES,
    records: INBOX_RECORDS,
    ..Product::bare("demo_inbox", INBOX_TOOLS)
};

/// Both demo products.
pub static PRODUCTS: &[&Product] = &[&PRODUCT, &INBOX];
