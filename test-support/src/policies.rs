//! Small static products for the tests of the runtime's auth and confirmation: four tools (list,
//! get, update, destructive delete) under each of the two policy families the real catalogs use,
//! so a test of a policy rule needs no generated catalog.

use runtime_model::catalog::*;

const fn annotations(read_only: bool, destructive: bool) -> Annotations {
    Annotations {
        read_only,
        destructive,
        idempotent: read_only,
        open_world: false,
    }
}

const fn make_tool(
    name: &'static str,
    title: &'static str,
    permission: &'static str,
    read_only: bool,
    destructive: bool,
    operation: Operation,
) -> Tool {
    Tool {
        title,
        description: "test tool",
        annotations: annotations(read_only, destructive),
        destructive_clause: if destructive {
            Some("deletes a thing")
        } else {
            None
        },
        scope: "test.things",
        permission,
        operation,
        ..Tool::bare(name, Binding::Extension("test"))
    }
}

static TOOLS: [Tool; 4] = [
    make_tool(
        "test_things_list",
        "List things",
        "things.list",
        true,
        false,
        Operation::List { record: "things" },
    ),
    make_tool(
        "test_things_get",
        "Get a thing",
        "things.read",
        true,
        false,
        Operation::Get {
            record: "things",
            id_arg: "id",
        },
    ),
    make_tool(
        "test_things_update",
        "Update a thing",
        "things.write",
        false,
        false,
        Operation::Update {
            record: "things",
            id_arg: "id",
        },
    ),
    make_tool(
        "test_things_delete",
        "Delete a thing",
        "things.delete",
        false,
        true,
        Operation::Delete {
            record: "things",
            id_arg: "id",
        },
    ),
];

const fn product_with(name: &'static str, policy: Policy) -> Product {
    Product {
        title: "Test",
        uri_prefix: "kobana://test/",
        tool_prefix: "test_",
        api_base_url: "http://127.0.0.1:1",
        policy,
        ..Product::bare(name, &TOOLS)
    }
}

/// Banking/billing-like: runs unconfirmable destructive tools, asks again on replay, binds person
/// and organization.
pub static LENIENT: Product = product_with("test_lenient", Policy::RUN_UNCONFIRMED);

/// Finance/inbox-like: refuses unconfirmable destructive tools and replays, binds the workspace too.
pub static STRICT: Product = product_with(
    "test_strict",
    Policy {
        unconfirmable_destructive: UnconfirmableDestructive::Refuse,
        decline_code: "USER_DECLINED",
        replay: ReplayPolicy::Refuse,
        confirmation_binds: ConfirmationBinding {
            person: true,
            organization: true,
            workspace: true,
        },
        confirmation_ttl_secs: 300,
        resources_list: ResourcesListPolicy::FixedOnly,
        workspaced: true,
    },
);

/// The product a test uses when the policy does not matter: [`LENIENT`].
pub fn product() -> &'static Product {
    &LENIENT
}

/// The test tool of that name (panics if absent; tests only).
pub fn tool(name: &str) -> &'static Tool {
    TOOLS
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no test tool {name}"))
}
