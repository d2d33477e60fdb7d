//! The promises of issue 15 in proxy mode, against `sandbox serve-api`: the README's quick start
//! authenticates the demo tokens through the upstream resolver (serve-api answers `/v2/me`); the
//! two banking types with only a list endpoint are read by scanning it; the four without any
//! endpoint keep a clear `not_available` and their tools are not listed.

#[path = "confirmation_harness/mod.rs"]
mod harness;

use std::sync::Arc;
use std::time::Duration;

use runtime::auth::{EmbeddedResolver, Resolver, UpstreamResolver};
use runtime::backend::upstream::{Upstream, UpstreamConfig};
use runtime_sandbox::api::{self, ApiState};
use runtime_sandbox::{Sandbox, SandboxConfig};
use serde_json::{json, Value};

struct Api {
    base: String,
    _dir: tempfile::TempDir,
}

/// `sandbox serve-api` as the CLI runs it: every product, the embedded demo identities.
async fn serve_api() -> Api {
    let dir = tempfile::tempdir().expect("temp dir");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let mut cfg = SandboxConfig::new(dir.path());
    cfg.public_url = base.clone();
    let sb = Sandbox::open(&cfg).expect("sandbox");
    let products = generated::PRODUCTS.to_vec();
    let resolver = EmbeddedResolver::builtin(&products).expect("demo identities");
    let lookup: api::IdentityLookup = Arc::new(move |t: &str| resolver.lookup(t).cloned());
    let state = ApiState::new(sb, products, lookup);
    tokio::spawn(async move { axum::serve(listener, api::router(state)).await });
    Api { base, _dir: dir }
}

#[tokio::test]
async fn the_upstream_resolver_accepts_the_demo_tokens_of_serve_api() {
    let api = serve_api().await;
    let resolver = UpstreamResolver::new(&format!("{}/banking", api.base), generated::PRODUCTS)
        .expect("resolver");
    let who = resolver
        .resolve("demo-full")
        .await
        .expect("demo-full resolves");
    assert_eq!(who.organization, "org_demo");
    assert_eq!(who.person, "per_demo_ana");
    assert!(who.workspaces.contains("ws_demo_main"), "{who:?}");
    assert!(resolver.resolve("not-a-token").await.is_err());
}

async fn proxied() -> (Api, harness::TestServer) {
    let api = serve_api().await;
    let upstream = Upstream::new(UpstreamConfig {
        base_url: Some(format!("{}/{{product}}", api.base)),
        timeout: Duration::from_secs(5),
        ..UpstreamConfig::default()
    })
    .expect("upstream");
    let s = harness::start(harness::Options {
        backend: Some(Arc::new(upstream)),
        ..harness::Options::all_products()
    })
    .await;
    (api, s)
}

/// What a proxy lists, counted on a real proxy, is what the docs and the README say it lists
/// (issue 36: banking's default was documented as 29 tools while a proxy listed 27).
#[tokio::test]
async fn the_docs_say_how_many_tools_a_proxy_lists() {
    let (_api, s) = proxied().await;
    let banking = generated::product("banking").expect("banking");
    let listed: Vec<String> = s
        .client("banking", "demo-full")
        .list_all("tools/list", "tools")
        .await
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    let default = runtime_model::selection::Ceiling::new(banking, &Default::default())
        .expect("the default ceiling")
        .default_selection();
    let in_default = |name: &str| {
        banking
            .tools
            .iter()
            .position(|t| t.name == name)
            .is_some_and(|i| default.visible(i))
    };
    let default_all = (0..banking.tools.len())
        .filter(|&i| default.visible(i))
        .count();
    let default_proxied = listed.iter().filter(|n| in_default(n)).count();
    assert!(
        default_proxied < default_all,
        "{default_proxied} of {default_all}"
    );
    let root = env!("CARGO_MANIFEST_DIR");
    let index =
        std::fs::read_to_string(format!("{root}/generated/docs/README.md")).expect("docs index");
    let row = format!("| {default_all} ({default_proxied} behind a proxy) |");
    assert!(
        index.contains(&row),
        "generated/docs/README.md should say {row}"
    );
    let row = format!(
        "| {} ({} behind a proxy) |",
        banking.tools.len(),
        listed.len()
    );
    assert!(
        index.contains(&row),
        "generated/docs/README.md should say {row}"
    );
    let page =
        std::fs::read_to_string(format!("{root}/generated/docs/banking.md")).expect("banking.md");
    let page = page.split_whitespace().collect::<Vec<_>>().join(" ");
    let said = format!(
        "the default selection lists {default_proxied} tools and `all` {}",
        listed.len()
    );
    assert!(page.contains(&said), "banking.md should say {said}");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).expect("README");
    let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let said = format!("{default_all} tools ({default_proxied} behind a proxy");
    assert!(readme.contains(&said), "the README should say {said}");
}

#[tokio::test]
async fn a_proxy_reads_list_only_types_by_scanning_and_hides_the_endpointless_tools() {
    let (_api, s) = proxied().await;
    let c = s.client("banking", "demo-full");
    let tools: Vec<String> = c
        .list_all("tools/list", "tools")
        .await
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    for hidden in [
        "banking_data_person_get",
        "banking_automation_email_account_get",
        "banking_admin_transaction_get",
        "banking_remittance_payment_get",
        "banking_automation_email_account_list",
    ] {
        assert!(!tools.iter().any(|t| t == hidden), "{hidden} is listed");
    }
    for listed in [
        "banking_data_bank_billet_query_get",
        "banking_data_pix_qrcode_query_get",
        "banking_admin_me_get",
    ] {
        assert!(tools.iter().any(|t| t == listed), "{listed} is not listed");
    }

    let queries = c
        .call_tool(
            "banking_data_bank_billet_query_list",
            json!({"per_page": 50}),
            None,
            None,
        )
        .await;
    let records = harness::records_of(&queries);
    let last = records
        .last()
        .and_then(|r| r["uid"].as_str())
        .unwrap_or_else(|| panic!("bank billet queries: {}", queries.body))
        .to_string();
    let read = c
        .request(
            "resources/read",
            json!({"uri": format!("kobana://banking/data/bank_billet_queries/{last}")}),
        )
        .await;
    let text = read.result()["contents"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a record: {}", read.body));
    assert!(text.contains(&last), "{text}");
    let missing = c
        .call_tool(
            "banking_data_bank_billet_query_get",
            json!({"uid": "nope"}),
            None,
            None,
        )
        .await;
    assert_eq!(
        missing.tool_error_code().as_deref(),
        Some("not_found"),
        "{}",
        missing.body
    );

    let people = c
        .request(
            "resources/read",
            json!({"uri": "kobana://banking/data/people/0190c0de-0000-7000-8000-000000000001"}),
        )
        .await;
    assert_eq!(
        people.error()["data"]["error"],
        json!("not_available"),
        "{}",
        people.body
    );
    let call = c
        .call_tool("banking_data_person_get", json!({"uid": "x"}), None, None)
        .await;
    assert_eq!(call.tool_error_code().as_deref(), Some("not_available"));
    let _: &Value = call.result();
}

#[tokio::test]
async fn a_proxy_answers_the_darf_template_only_with_darfs() {
    let (_api, s) = proxied().await;
    let c = s.client("banking", "demo-full");
    let list = c
        .call_tool(
            "banking_payment_payment_list",
            json!({"per_page": 50}),
            None,
            None,
        )
        .await;
    let payments = harness::records_of(&list);
    let other = payments
        .iter()
        .find(|p| p["kind"] != json!("darf"))
        .and_then(|p| p["uid"].as_str())
        .unwrap_or_else(|| panic!("a payment that is not a DARF: {}", list.body))
        .to_string();
    let call = c
        .call_tool(
            "banking_payment_darf_get",
            json!({"uid": other}),
            None,
            None,
        )
        .await;
    assert_eq!(
        call.tool_error_code().as_deref(),
        Some("not_found"),
        "{}",
        call.body
    );
}

/// Issue 38, in proxy mode: a mailbox channel read by its own `uid` is not found, and the answer
/// says which uid the address takes and which tool finds it, in the caller's language; the proxy
/// scans nothing to find the channel, so the answer names no entry. Read by the entry's uid, the
/// channel is served.
#[tokio::test]
async fn a_proxy_says_which_uid_a_mailbox_channel_address_takes() {
    let (_api, s) = proxied().await;
    let c = s.client("banking", "demo-full").with_language("es");
    let template = "kobana://banking/mailbox/channels/email/{uid}";
    let entries = c
        .request(
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": template}, "argument": {"name": "uid", "value": ""}}),
        )
        .await;
    let entry = entries.result()["completion"]["values"][0]
        .as_str()
        .expect("an entry uid")
        .to_string();
    let read = c
        .request(
            "resources/read",
            json!({"uri": template.replace("{uid}", &entry)}),
        )
        .await;
    let text = read.result()["contents"][0]["text"].as_str().expect("text");
    let record: Value = serde_json::from_str(text).expect("JSON");
    let own = record["uid"].as_str().expect("the channel's own uid");
    for c in [c.clone(), c.clone().legacy("2025-06-18")] {
        let answer = c
            .request(
                "resources/read",
                json!({"uri": template.replace("{uid}", own)}),
            )
            .await;
        let error = answer.error();
        let hint = error["data"]["hint"].as_str().unwrap_or_default();
        assert!(
            hint.contains("no el `uid` del propio registro")
                && hint.contains("banking_mailbox_entry_list")
                && !hint.contains(&entry),
            "{error}"
        );
        assert!(error["message"].as_str().unwrap_or_default().contains(hint));
    }
    // The tools too: a read, and a write the API refuses with 404 (a 2025 client: no
    // confirmation question reads the channel first).
    for (c, tool) in [
        (c.clone(), "banking_mailbox_channels_email_get"),
        (
            c.clone().legacy("2025-06-18"),
            "banking_mailbox_channels_email_delete",
        ),
    ] {
        let answer = c
            .call_tool(tool, json!({"entry_id": own}), None, None)
            .await;
        assert_eq!(
            answer.tool_error_code().as_deref(),
            Some("not_found"),
            "{tool}: {}",
            answer.body
        );
        let hint = answer.result()["structuredContent"]["error"]["hint"]
            .as_str()
            .unwrap_or_default();
        assert!(
            hint.contains("banking_mailbox_entry_list"),
            "{tool}: {}",
            answer.body
        );
    }
}
