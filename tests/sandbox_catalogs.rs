//! The sandbox over the real generated catalogs: every listable type has data, every state value
//! of a listable type is seeded, and every get tool finds what its list tool lists.

use std::collections::BTreeSet;

use runtime_model::backend::{Backend, CallContext, Output};
use runtime_model::catalog::{Operation, Product};
use runtime_sandbox::{Sandbox, SandboxConfig};
use serde_json::{json, Map, Value};

fn ctx(product: &'static Product) -> CallContext {
    CallContext {
        workspace: product.policy.workspaced.then(|| "ws_test".to_string()),
        ..test_support::calls::admin(product, "org_test")
    }
}

fn items(v: &Value) -> Vec<Map<String, Value>> {
    runtime_sandbox::envelope::items(v)
        .map(|a| a.iter().filter_map(|i| i.as_object().cloned()).collect())
        .unwrap_or_default()
}

#[tokio::test]
async fn every_list_tool_of_every_product_finds_seeded_records() {
    assert!(!generated::PRODUCTS.is_empty());
    let dir = tempfile::tempdir().unwrap();
    let sb = Sandbox::open(&SandboxConfig::new(dir.path())).unwrap();
    let mut problems = Vec::new();
    for &product in generated::PRODUCTS {
        let c = ctx(product);
        for tool in product.tools {
            let Operation::List { record } = tool.operation else {
                continue;
            };
            let rt = product.record(record).unwrap();
            let mut all = Vec::new();
            for page in 1..=4 {
                let args = json!({"page": page, "per_page": 50})
                    .as_object()
                    .cloned()
                    .unwrap();
                match sb.call(&c, tool, &args).await {
                    Ok(Output::Json(v)) => {
                        let got = items(&v);
                        let done = got.len() < 50;
                        all.extend(got);
                        if done {
                            break;
                        }
                    }
                    other => {
                        problems.push(format!("{}: {other:?}", tool.name));
                        break;
                    }
                }
            }
            if all.len() < 25 {
                problems.push(format!(
                    "{} lists {} records of {record}",
                    tool.name,
                    all.len()
                ));
            }
            for field in rt
                .fields
                .iter()
                .filter(|f| !f.enum_values.is_empty() && matches!(f.seed.trim(), "" | "enum"))
            {
                let seen: BTreeSet<String> = all
                    .iter()
                    .filter_map(|r| {
                        r.get(field.name).map(|v| {
                            v.as_str()
                                .map(str::to_string)
                                .unwrap_or_else(|| v.to_string())
                        })
                    })
                    .collect();
                let missing: Vec<&str> = field
                    .enum_values
                    .iter()
                    .copied()
                    .filter(|v| !seen.contains(*v))
                    .collect();
                if !missing.is_empty()
                    && all.len() as u32 >= rt.seed_count.min(25)
                    && field.enum_values.len() <= all.len()
                {
                    problems.push(format!(
                        "{}.{}: no record with {missing:?}",
                        record, field.name
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Blob, text and signed-URL templates: the sandbox produces the bytes (PDF, XML) or the link.
#[tokio::test]
async fn file_templates_of_every_product_produce_content() {
    use runtime_model::catalog::ContentKind;
    let dir = tempfile::tempdir().unwrap();
    let sb = Sandbox::open(&SandboxConfig::new(dir.path())).unwrap();
    let mut checked = 0;
    for &product in generated::PRODUCTS {
        let c = ctx(product);
        for t in product.templates {
            if matches!(
                t.content,
                ContentKind::JsonRecord | ContentKind::SchemaCatalog | ContentKind::SchemaEntry
            ) {
                continue;
            }
            let read = product.tool(t.read_by).unwrap();
            let Operation::Get { record, .. } = read.operation else {
                continue;
            };
            let Some(list) = product
                .tools
                .iter()
                .find(|x| matches!(x.operation, Operation::List { record: r } if r == record))
            else {
                continue;
            };
            let Ok(Output::Json(v)) = sb.call(&c, list, &Map::new()).await else {
                panic!("{}", list.name)
            };
            let first = items(&v).remove(0);
            let rt = product.record(record).unwrap();
            let id = first[rt.id_field].clone();
            let mut args = Map::new();
            args.insert(t.args[0].1.to_string(), id);
            let out = sb.call(&c, read, &args).await.unwrap();
            match (t.content, out) {
                (ContentKind::Blob { .. }, Output::Bytes { data, .. }) => {
                    assert!(data.starts_with(b"%PDF"), "{}", t.name)
                }
                (ContentKind::Text, Output::Bytes { data, .. }) => {
                    assert!(data.starts_with(b"<?xml"), "{}", t.name)
                }
                (ContentKind::BlobOrText { .. }, Output::Bytes { data, .. }) => {
                    assert!(!data.is_empty(), "{}", t.name)
                }
                (ContentKind::SignedUrl { .. }, Output::Json(v)) => {
                    assert!(v["url"].as_str().unwrap().contains("&sig="), "{}", t.name)
                }
                (kind, out) => panic!("{}: {kind:?} got {out:?}", t.name),
            }
            checked += 1;
        }
    }
    println!("file templates checked: {checked}");
}

/// `resources/list` under `Recent(n)` over the sandbox: n URIs per listed type, built from the
/// templates, with string uids.
#[tokio::test]
async fn recent_resources_of_recent_products_over_the_sandbox() {
    use runtime::backend::{recent_resources, RecentOptions};
    use runtime_model::catalog::ResourcesListPolicy;
    let dir = tempfile::tempdir().unwrap();
    let sb: std::sync::Arc<dyn Backend> =
        std::sync::Arc::new(Sandbox::open(&SandboxConfig::new(dir.path())).unwrap());
    let mut seen_products = 0;
    for &product in generated::PRODUCTS {
        let ResourcesListPolicy::Recent(n) = product.policy.resources_list else {
            continue;
        };
        seen_products += 1;
        let listed = product
            .templates
            .iter()
            .filter(|t| t.listed && t.list_tool.is_some())
            .count();
        let out = recent_resources(&ctx(product), sb.clone(), n, RecentOptions::default())
            .await
            .unwrap_or_else(|e| panic!("{}: every listing answers: {e}", product.name));
        assert!(
            out.missing.is_empty(),
            "{}: {:?}",
            product.name,
            out.missing
        );
        let out = out.resources;
        assert!(listed > 0, "{}", product.name);
        assert!(
            out.len() >= listed * (n.min(25) as usize) * 9 / 10,
            "{}: {} resources for {listed} types",
            product.name,
            out.len()
        );
        for r in &out {
            let uri = r["uri"].as_str().unwrap();
            assert!(
                uri.starts_with(product.uri_prefix) && !uri.contains('{'),
                "{uri}"
            );
        }
    }
    println!("recent products: {seen_products}");
}
