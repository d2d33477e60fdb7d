//! Identities and permissions through the real protocol (JSON-RPC over Streamable HTTP, behind
//! the bearer auth layer), for every product, with the documented demo tokens (issue 4).

#[path = "confirmation_harness/mod.rs"]
mod harness;

use std::collections::BTreeSet;

use harness::{records_of, start, Client, Options, TestServer};
use runtime::catalog::{CompletionKind, ContentKind, Product, Template};
use serde_json::{json, Value};

/// The tool of each product whose permission `demo-limited` lacks (runtime/identities.yaml).
fn limited_tool(product: &str) -> &'static str {
    match product {
        "banking" => "banking_charge_bank_billet_list",
        "billing" => "billing_invoices_list",
        "finance" => "finance_payables_list",
        "dashboards" => "dashboards_portal_users_list",
        "inbox" => "emails_list",
        other => panic!("no limited tool for {other}"),
    }
}

fn products() -> Vec<&'static Product> {
    let p = generated::PRODUCTS.to_vec();
    assert_eq!(p.len(), 5, "the five products are generated");
    p
}

async fn server() -> TestServer {
    start(Options::all_products()).await
}

fn names(items: &[Value], key: &str) -> BTreeSet<String> {
    items
        .iter()
        .filter_map(|i| i[key].as_str().map(String::from))
        .collect()
}

/// The clients of one product in each era family (2026 and sessionless 2025).
fn eras(c: &Client) -> [(&'static str, Client); 2] {
    [
        ("2026-07-28", c.clone()),
        ("2025-11-25", c.clone().legacy("2025-11-25")),
    ]
}

/// A record URI of a one-variable JSON template, with a real id listed by `demo-full`.
async fn record_uri(full: &Client, p: &'static Product, t: &Template) -> Option<String> {
    if t.content != ContentKind::JsonRecord || t.args.len() != 1 {
        return None;
    }
    let list = p.tool(t.list_tool?)?;
    let schema: Value = serde_json::from_str(list.input_schema_json).ok()?;
    if schema["required"].as_array().is_some_and(|r| !r.is_empty()) {
        return None;
    }
    let rec = match p.tool(t.read_by)?.operation {
        runtime::catalog::Operation::Get { record, .. } => p.record(record)?,
        _ => return None,
    };
    let a = full.call_tool(list.name, json!({}), None, None).await;
    let id = records_of(&a)
        .first()?
        .get(rec.id_field)?
        .as_str()?
        .to_string();
    let var = t.args[0].0;
    Some(t.uri_template.replace(&format!("{{{var}}}"), &id))
}

#[tokio::test]
async fn http_needs_a_valid_bearer() {
    let s = server().await;
    for p in products() {
        for c in [
            s.client(p.name, "x").without_token(),
            s.client(p.name, "demo-nonexistent"),
        ] {
            let a = c.request("tools/list", json!({})).await;
            assert_eq!(a.status, 401, "{}: {}", p.name, a.body);
        }
    }
    // The challenge points at the RFC 9728 metadata.
    let resp = reqwest::Client::new()
        .post(format!("{}/banking/mcp", s.base))
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401);
    let challenge = resp.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(
        challenge,
        format!(
            "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource\"",
            s.base
        )
    );
}

#[tokio::test]
async fn a_read_only_token_lists_and_reads_but_sees_no_writing_tool_or_prompt() {
    let s = server().await;
    for p in products() {
        let ro = s.client(p.name, "demo-readonly");
        for (era, c) in eras(&ro) {
            let tools = c.list_all("tools/list", "tools").await;
            let listed = names(&tools, "name");
            let reads: BTreeSet<String> = p
                .tools
                .iter()
                .filter(|t| t.annotations.read_only)
                .map(|t| t.name.to_string())
                .collect();
            assert_eq!(listed, reads, "{} {era}: exactly the reading tools", p.name);

            let prompts = names(&c.list_all("prompts/list", "prompts").await, "name");
            for pr in p.prompts {
                let usable = !pr.writes
                    && pr
                        .uses
                        .iter()
                        .all(|u| p.tool(u).is_some_and(|t| t.annotations.read_only));
                assert_eq!(
                    prompts.contains(pr.name),
                    usable,
                    "{} {era}: prompt {}",
                    p.name,
                    pr.name
                );
                if pr.writes {
                    let a = c
                        .request("prompts/get", json!({"name": pr.name, "arguments": {}}))
                        .await;
                    assert_eq!(a.error()["code"], -32602, "{} {era}: {}", p.name, a.body);
                }
            }

            // Every template is read by a reading tool: all are listed.
            let templates = names(
                &c.list_all("resources/templates/list", "resourceTemplates")
                    .await,
                "uriTemplate",
            );
            let all: BTreeSet<String> = p
                .templates
                .iter()
                .map(|t| t.uri_template.to_string())
                .collect();
            assert_eq!(templates, all, "{} {era}", p.name);
        }
        // Resources are readable and id completions are served.
        let mut read_one = false;
        let mut completed = false;
        for t in p.templates {
            if let Some(uri) = record_uri(&ro, p, t).await {
                if !read_one {
                    let a = ro.request("resources/read", json!({"uri": uri})).await;
                    assert!(
                        a.result()["contents"][0]["text"].is_string(),
                        "{}: {}",
                        p.name,
                        a.body
                    );
                    read_one = true;
                }
                if !completed {
                    if let Some((var, source)) = t.completions.first() {
                        if matches!(
                            p.completion(source).map(|c| c.kind),
                            Some(CompletionKind::ListIds { .. })
                        ) {
                            let a = ro
                                .request(
                                    "completion/complete",
                                    json!({"ref": {"type": "ref/resource", "uri": t.uri_template},
                                           "argument": {"name": var, "value": ""}}),
                                )
                                .await;
                            let values = a.result()["completion"]["values"]
                                .as_array()
                                .cloned()
                                .unwrap_or_default();
                            assert!(
                                !values.is_empty(),
                                "{} {}: {}",
                                p.name,
                                t.uri_template,
                                a.body
                            );
                            completed = true;
                        }
                    }
                }
            }
        }
        assert!(
            read_one,
            "{}: a record resource was read with the read-only token",
            p.name
        );
        assert!(
            completed,
            "{}: an id completion was served to the read-only token",
            p.name
        );
    }
}

#[tokio::test]
async fn a_read_only_token_calling_a_writing_tool_is_refused_for_scope() {
    let s = server().await;
    for p in products() {
        let write = p
            .tools
            .iter()
            .find(|t| !t.annotations.read_only)
            .expect("a writing tool");
        for (era, c) in eras(&s.client(p.name, "demo-readonly")) {
            let a = c.call_tool(write.name, json!({}), None, None).await;
            assert_eq!(
                a.tool_error_code().as_deref(),
                Some("insufficient_scope"),
                "{} {era}: {}",
                p.name,
                a.body
            );
            assert_eq!(
                a.result()["structuredContent"]["error"]["missing"],
                "write",
                "{} {era}",
                p.name
            );
        }
    }
}

#[tokio::test]
async fn a_missing_permission_hides_and_refuses_naming_the_permission() {
    let s = server().await;
    for p in products() {
        let tool = p
            .tool(limited_tool(p.name))
            .expect("the limited tool exists");
        let perm = tool.permission;
        let full = s.client(p.name, "demo-full");
        let limited = s.client(p.name, "demo-limited");
        for (era, c) in eras(&limited) {
            let listed = names(&c.list_all("tools/list", "tools").await, "name");
            assert!(!listed.contains(tool.name), "{} {era}", p.name);
            // Everything needing another permission is still there.
            for t in p.tools.iter().filter(|t| t.permission != perm) {
                assert!(listed.contains(t.name), "{} {era}: {}", p.name, t.name);
            }
            let a = c.call_tool(tool.name, json!({}), None, None).await;
            assert_eq!(
                a.tool_error_code().as_deref(),
                Some("insufficient_permission"),
                "{} {era}: {}",
                p.name,
                a.body
            );
            assert_eq!(
                a.result()["structuredContent"]["error"]["missing"],
                perm,
                "{} {era}",
                p.name
            );

            // Prompts relying on a tool with that permission are neither listed nor gettable.
            let prompts = names(&c.list_all("prompts/list", "prompts").await, "name");
            for pr in p.prompts {
                let needs = pr
                    .uses
                    .iter()
                    .any(|u| p.tool(u).is_some_and(|t| t.permission == perm));
                if needs {
                    assert!(!prompts.contains(pr.name), "{} {era}: {}", p.name, pr.name);
                    let a = c
                        .request("prompts/get", json!({"name": pr.name, "arguments": {}}))
                        .await;
                    assert_eq!(a.error()["code"], -32602, "{} {era}: {}", p.name, a.body);
                }
            }
        }
        // Templates read under that permission are hidden, and reading one is refused by name.
        let templates = names(
            &limited
                .list_all("resources/templates/list", "resourceTemplates")
                .await,
            "uriTemplate",
        );
        let mut refused_read = false;
        for t in p.templates {
            let hidden = p.tool(t.read_by).is_some_and(|r| r.permission == perm);
            assert_eq!(
                !templates.contains(t.uri_template),
                hidden,
                "{}: {}",
                p.name,
                t.uri_template
            );
            if hidden && !refused_read {
                if let Some(uri) = record_uri(&full, p, t).await {
                    let a = limited.request("resources/read", json!({"uri": uri})).await;
                    let e = a.error();
                    assert_eq!(
                        e["data"]["error"], "insufficient_permission",
                        "{}: {}",
                        p.name, a.body
                    );
                    assert_eq!(e["data"]["missing"], perm, "{}", p.name);
                    assert_ne!(e["code"], -32002, "never disguised as not found");
                    refused_read = true;
                }
            }
        }
        // Where no template is read under the limited permission, the listing is still refused.
        if !refused_read {
            assert!(
                p.templates
                    .iter()
                    .all(|t| p.tool(t.read_by).is_none_or(|r| r.permission != perm)),
                "{}",
                p.name
            );
        }
    }
}

/// Every template whose `{id}` completion reads a listing under another permission than the
/// template's own read: `(product, template, variable, listing tool)`.
fn completions_from_other_listings() -> Vec<(
    &'static Product,
    &'static Template,
    &'static str,
    &'static str,
)> {
    let mut out = Vec::new();
    for p in products() {
        for t in p.templates {
            let Some(read) = p.tool(t.read_by) else {
                continue;
            };
            for (var, source) in t.completions {
                if let Some(CompletionKind::ListIds { tool, .. }) =
                    p.completion(source).map(|c| c.kind)
                {
                    if p.tool(tool)
                        .is_some_and(|l| l.permission != read.permission)
                    {
                        out.push((p, t, *var, tool));
                    }
                }
            }
        }
    }
    out
}

#[tokio::test]
async fn id_completions_come_only_from_listings_the_caller_may_run() {
    let pairs = completions_from_other_listings();
    assert!(
        !pairs.is_empty(),
        "no template completes ids from a listing under another permission: nothing to check"
    );
    // One person per listing: may read everything but that listing.
    let mut identities = String::from(
        "identities:\n  - {token: demo-full, person: per_demo_ana, organization: org_demo, scopes: [all], permissions: [\"*\"], workspaces: [ws_demo_main]}\n",
    );
    for (i, (_, _, _, tool)) in pairs.iter().enumerate() {
        identities.push_str(&format!(
            "  - {{token: no-listing-{i}, person: per_no_listing_{i}, organization: org_demo, scopes: [all], permissions: [\"*\"], without_permissions_of: [{tool}], workspaces: [ws_demo_main]}}\n"
        ));
    }
    let mut opts = Options::all_products();
    opts.identities = Some(identities);
    let s = start(opts).await;
    for (i, (p, t, var, tool)) in pairs.iter().enumerate() {
        let ask = |c: Client| async move {
            c.with_workspace("ws_demo_main")
                .request(
                    "completion/complete",
                    json!({"ref": {"type": "ref/resource", "uri": t.uri_template},
                           "argument": {"name": var, "value": ""}}),
                )
                .await
        };
        let denied = ask(s.client(p.name, &format!("no-listing-{i}"))).await;
        assert_eq!(
            denied.result()["completion"]["values"],
            json!([]),
            "{} {} without {tool}: {}",
            p.name,
            t.uri_template,
            denied.body
        );
        let allowed = ask(s.client(p.name, "demo-full")).await;
        assert!(
            allowed.result()["completion"]["values"]
                .as_array()
                .is_some_and(|v| !v.is_empty()),
            "{} {} with {tool}: {}",
            p.name,
            t.uri_template,
            allowed.body
        );
    }
    println!(
        "{} completion sources checked against a denied listing",
        pairs.len()
    );
}

#[tokio::test]
async fn without_a_default_workspace_record_reads_need_one_and_id_completions_are_empty() {
    let s = server().await;
    for p in products().into_iter().filter(|p| p.policy.workspaced) {
        let full = s.client(p.name, "demo-full");
        let multi = s.client(p.name, "demo-multi-workspace");
        let with_default = multi.clone().with_workspace("ws_demo_main");
        let mut checked = false;
        for t in p.templates {
            let Some(uri) = record_uri(&full, p, t).await else {
                continue;
            };
            let a = multi.request("resources/read", json!({"uri": uri})).await;
            assert_eq!(
                a.error()["data"]["error"],
                "workspace_required",
                "{}: {}",
                p.name,
                a.body
            );
            let ok = with_default
                .request("resources/read", json!({"uri": uri}))
                .await;
            assert!(
                ok.result()["contents"].is_array(),
                "{}: {}",
                p.name,
                ok.body
            );
            for (var, source) in t.completions {
                if matches!(
                    p.completion(source).map(|c| c.kind),
                    Some(CompletionKind::ListIds { .. })
                ) {
                    let req = json!({"ref": {"type": "ref/resource", "uri": t.uri_template},
                                     "argument": {"name": var, "value": ""}});
                    let empty = multi.request("completion/complete", req.clone()).await;
                    assert_eq!(
                        empty.result()["completion"]["values"],
                        json!([]),
                        "{}: {}",
                        p.name,
                        empty.body
                    );
                    let some = with_default.request("completion/complete", req).await;
                    assert_ne!(
                        some.result()["completion"]["values"],
                        json!([]),
                        "{}: {}",
                        p.name,
                        some.body
                    );
                }
            }
            checked = true;
            break;
        }
        assert!(checked, "{}: a record template was checked", p.name);
        // The schema catalog does not depend on a workspace.
        for r in p
            .resources
            .iter()
            .filter(|r| r.content == ContentKind::SchemaCatalog)
        {
            let a = multi.request("resources/read", json!({"uri": r.uri})).await;
            assert!(a.result()["contents"].is_array(), "{}: {}", p.name, a.body);
        }
        // Tools accept workspace_id.
        let list = p.tool(limited_tool(p.name)).unwrap();
        let a = multi
            .call_tool(
                list.name,
                json!({"workspace_id": "ws_demo_branch"}),
                None,
                None,
            )
            .await;
        assert_eq!(a.tool_error_code(), None, "{}: {}", p.name, a.body);
    }
}

#[tokio::test]
async fn a_read_without_the_resource_scope_is_refused_naming_the_scope() {
    // `read` alone: no resource scope at all.
    let mut o = Options::all_products();
    o.identities = Some(
        "identities:\n  - {token: scopeless, person: per_s, organization: org_demo, scopes: [read], permissions: ['*'], workspaces: [ws_demo_main]}\n"
            .into(),
    );
    let s = start(o).await;
    let full = server().await;
    for p in products() {
        let c = s.client(p.name, "scopeless");
        let f = full.client(p.name, "demo-full");
        let mut refused = false;
        for t in p.templates {
            let Some(uri) = record_uri(&f, p, t).await else {
                continue;
            };
            let scope = p.tool(t.read_by).unwrap().scope;
            let a = c.request("resources/read", json!({"uri": uri})).await;
            let e = a.error();
            assert_eq!(
                e["data"]["error"], "insufficient_scope",
                "{}: {}",
                p.name, a.body
            );
            assert_eq!(e["data"]["missing"], scope, "{}", p.name);
            refused = true;
            break;
        }
        assert!(refused, "{}: a record read was refused for scope", p.name);
        // Nothing is listed either.
        let templates = c
            .list_all("resources/templates/list", "resourceTemplates")
            .await;
        let scoped: Vec<&Value> = templates
            .iter()
            .filter(|t| {
                p.templates
                    .iter()
                    .find(|x| x.uri_template == t["uriTemplate"])
                    .and_then(|x| p.tool(x.read_by))
                    .is_some_and(|r| !r.scope.is_empty())
            })
            .collect();
        assert!(scoped.is_empty(), "{}: {scoped:?}", p.name);
    }
}
