//! `tools/list` as clients receive it (over Streamable HTTP, every page): small enough, and
//! portable (issue 13).
//!
//! - banking's full 2025-11-25 listing is at most half of the bytes it had before the listing
//!   was compacted ([`BANKING_BASELINE_BYTES`], measured on the emission the catalog had then),
//!   with every tool still described and still declaring its output schema where the catalog
//!   declares one;
//! - every product's listing, on every era, has no portability finding
//!   (`runtime_model::schema_lint`: the MCP Inspector's rules plus the strict providers' cheap
//!   ones).
//!
//! Figures per product are printed (`cargo test --test listing_size -- --nocapture`);
//! `cargo run -p codegen -- listing-report` prints them split by descriptor part.

#[path = "confirmation_harness/mod.rs"]
mod harness;

use harness::{start, Client, Options};
use runtime_model::schema_lint::lint_tool;
use serde_json::{json, Value};

/// banking's full 2025-11-25 `tools/list` result (`{"tools":[…]}`, 315 tools) before compaction:
/// 880,137 bytes (input schemas 319,031, output schemas 392,984, descriptions 97,224,
/// annotations 44,624, names 13,899, titles 11,734), from `codegen listing-report` at commit
/// e90104a.
const BANKING_BASELINE_BYTES: usize = 880_137;

/// The era families a listing is served in.
fn eras(c: &Client) -> [(&'static str, Client); 3] {
    [
        ("2026-07-28", c.clone()),
        ("2025-11-25", c.clone().legacy("2025-11-25")),
        ("2025-03-26", c.clone().legacy("2025-03-26")),
    ]
}

/// The bytes of a full `tools/list` result holding `tools` (as one page).
fn listing_bytes(tools: &[Value]) -> usize {
    serde_json::to_string(&json!({ "tools": tools }))
        .unwrap()
        .len()
}

#[tokio::test]
async fn every_listing_on_every_era_has_no_portability_finding() {
    let server = start(Options::all_products()).await;
    let mut problems = Vec::new();
    for p in generated::PRODUCTS {
        let c = server.client(p.name, "demo-full");
        for (era, client) in eras(&c) {
            let tools = client.list_all("tools/list", "tools").await;
            assert_eq!(tools.len(), p.tools.len(), "{} {era}: every tool", p.name);
            let mut count = 0;
            for t in &tools {
                for f in lint_tool(t) {
                    count += 1;
                    if problems.len() < 20 {
                        problems.push(format!("{} {era} {}: {f}", p.name, t["name"]));
                    }
                }
            }
            println!(
                "{} {era}: {} tools, {} bytes, {count} portability findings",
                p.name,
                tools.len(),
                listing_bytes(&tools)
            );
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[tokio::test]
async fn banking_lists_in_at_most_half_its_former_bytes_losing_no_tool_description_or_schema() {
    let banking = generated::product("banking").unwrap();
    // In every locale: Portuguese and Spanish texts run longer than English ones.
    for locale in runtime_model::locale::Locale::ALL {
        let mut opts = Options::all_products();
        opts.configure = Some(Box::new(move |c| c.engine.locale = Some(locale)));
        let server = start(opts).await;
        let c = server.client("banking", "demo-full").legacy("2025-11-25");
        let tools = c.list_all("tools/list", "tools").await;
        let bytes = listing_bytes(&tools);
        println!(
            "banking 2025-11-25 tools/list ({}): {bytes} bytes, {:.1}% of the {BANKING_BASELINE_BYTES} before",
            locale.tag(),
            bytes as f64 * 100.0 / BANKING_BASELINE_BYTES as f64
        );
        assert!(
            bytes * 2 <= BANKING_BASELINE_BYTES,
            "banking's tools/list in {} is {bytes} bytes, more than half of {BANKING_BASELINE_BYTES}",
            locale.tag()
        );
        assert_eq!(tools.len(), banking.tools.len());
        let texts = banking.texts(locale).expect("banking speaks every locale");
        for t in &tools {
            let name = t["name"].as_str().unwrap();
            let i = banking.tools.iter().position(|x| x.name == name).unwrap();
            let tool = &banking.tools[i];
            let listed = t["description"].as_str().unwrap_or_default();
            assert!(
                !listed.trim().is_empty(),
                "{name} is listed without a description"
            );
            // The locale's text, less at most the sentence naming the API operation.
            let full = texts.tools[i].description;
            assert!(
                listed == full
                    || (listed.len() < full.len()
                        && full.contains(listed.split(". ").next().unwrap_or(listed))),
                "{name}: {listed:?} is not the catalog's text {full:?}"
            );
            assert_eq!(t["title"].as_str(), Some(texts.tools[i].title), "{name}");
            assert_eq!(
                t.get("outputSchema").is_some(),
                tool.output_schema_json.is_some(),
                "{name} declares an output schema exactly when the catalog does"
            );
            assert_eq!(t["inputSchema"]["type"], "object", "{name}");
        }
    }
}

/// 2025-03-26 has no `Tool.title` and no `outputSchema`: its listing carries the title as
/// `annotations.title` and no output schema; later eras carry `title` once, at the top.
#[tokio::test]
async fn the_title_is_where_each_era_reads_it() {
    let server = start(Options::all_products()).await;
    let c = server.client("finance", "demo-full");
    let old = c
        .clone()
        .legacy("2025-03-26")
        .list_all("tools/list", "tools")
        .await;
    let new = c.legacy("2025-11-25").list_all("tools/list", "tools").await;
    for (o, n) in old.iter().zip(&new) {
        assert_eq!(o["annotations"]["title"], n["title"], "{}", n["name"]);
        assert!(o.get("outputSchema").is_none());
        assert!(n["annotations"].get("title").is_none(), "{}", n["name"]);
    }
    assert!(new.iter().any(|t| t.get("outputSchema").is_some()));
}

/// The README's figures for banking's listing (issue 36): its tool count, the size of its full
/// 2025-11-25 `tools/list` as the server sends it (in its default language), and the size of its
/// default selection, each measured here and compared with what the README says, so a catalog
/// change that moves them fails until the README follows.
#[tokio::test]
async fn the_readmes_listing_figures_are_the_measured_ones() {
    let banking = generated::product("banking").unwrap();
    let server = start(Options::all_products()).await;
    let c = server.client("banking", "demo-full").legacy("2025-11-25");
    // The harness's server selects nothing: every tool is listed.
    let all = c.list_all("tools/list", "tools").await;
    assert_eq!(all.len(), banking.tools.len());
    let kb = (listing_bytes(&all) + 500) / 1000;
    // What a client naming no toolset gets from a server started without a selection.
    let default = runtime_model::selection::Ceiling::new(banking, &Default::default())
        .unwrap()
        .default_selection();
    let default = (0..banking.tools.len())
        .filter(|i| default.visible(*i))
        .count();
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let said = format!(
        "Banking has {} tools (a `tools/list` of about {kb} KB)",
        all.len()
    );
    assert!(readme.contains(&said), "the README should say: {said}");
    let said = format!("(banking: `billets`, {default} tools");
    assert!(readme.contains(&said), "the README should say: {said}");
}
