//! The four list methods, served from pre-serialized bytes.
//!
//! The catalog carries every descriptor as a JSON string built at generation time. For each
//! distinct permission set (scopes + permissions) and tool selection
//! ([`runtime_model::selection::Selection`]: the request's toolsets within the server's ceiling)
//! we concatenate, once, the descriptors that pair may see into complete `result` objects, page by page and per era (the 2026 pages carry
//! `resultType`, `ttlMs`, `cacheScope` and `serverInfo`). A `tools/list` request then costs a
//! permission-set lookup and one copy of the page into the response: no serde work. A tool
//! listing that shows every tool is joined once per locale ([`Listings`]' `every_tool`) and
//! shared by every view that shows it, rather than copied into each: the generated tables keep
//! each tool's descriptor as its own text (so a change to one tool changes only its lines there).
//!
//! Views are per locale too (the key carries it): each locale's descriptors are their own static
//! text (`LocaleTexts`), so choosing a language costs one more key field, not a translation.
//!
//! 2025-03-26 predates `outputSchema` and `Tool.title`: its tool pages are built (on the first
//! such request) from the descriptors without the one and with the other as `annotations.title`.

use std::collections::{BTreeSet, HashMap};
use std::hash::BuildHasher;
use std::sync::{Arc, OnceLock, RwLock};

use axum::body::Bytes;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use runtime_model::catalog::Product;
use runtime_model::identity::Identity;
use runtime_model::locale::Locale;
use runtime_model::selection::Selection;

use crate::contract::RpcError;
use crate::rpc::page::Page;

/// The four listings, for one era.
#[derive(Debug, Default)]
pub struct EraPages {
    pub tools: Vec<Page>,
    pub resources: Vec<Page>,
    pub templates: Vec<Page>,
    pub prompts: Vec<Page>,
}

/// What one permission set under one selection may see.
#[derive(Debug)]
pub struct View {
    /// By index in `product.tools`: permitted and selected (visible).
    pub callable: Vec<bool>,
    /// By index in `product.prompts`: every `uses` tool is callable.
    pub usable_prompts: Vec<bool>,
    pub legacy: EraPages,
    pub modern: EraPages,
    /// The tool pages for 2025-03-26 clients (no `outputSchema`), built on first use.
    legacy_2025_03_26_tools: OnceLock<Vec<Page>>,
    /// The descriptors of the callable tools (input of the pages above).
    tool_descriptors: Vec<&'static str>,
}

impl View {
    pub fn can_call(&self, product: &Product, tool: &str) -> bool {
        product
            .tools
            .iter()
            .position(|t| t.name == tool)
            .is_some_and(|i| self.callable[i])
    }
}

#[derive(Debug, PartialEq, Eq)]
struct Key {
    scopes: BTreeSet<String>,
    permissions: BTreeSet<String>,
    selection: Arc<Selection>,
    locale: Locale,
}

/// Which list a cursor belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    Tools,
    Resources,
    Templates,
    Prompts,
}

impl ListKind {
    fn tag(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Resources => "resources",
            ListKind::Templates => "templates",
            ListKind::Prompts => "prompts",
        }
    }
    fn field(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Resources => "resources",
            ListKind::Templates => "resourceTemplates",
            ListKind::Prompts => "prompts",
        }
    }
}

/// Views by hash of the permission set and selection (a bucket holds the keys sharing a hash).
///
/// Hashed with foldhash, seeded at random per process, not SipHash: the lookup runs on every
/// listing request, and SipHash over the scopes, permissions and selection was most of its cost
/// (a `tools/list` view lookup: 1,674 instructions with SipHash, 795 with foldhash, callgrind).
/// Keys are compared whole, so a collision costs a longer bucket, never a wrong view.
type ViewCache = HashMap<u64, Vec<(Key, Arc<View>)>, foldhash::fast::RandomState>;

/// Views per permission set, built on first use.
pub struct Listings {
    product: &'static Product,
    page_size: usize,
    /// By [`Locale::index`]: each locale's 2026 suffix names its `contentLanguage`.
    modern_suffix: [String; 3],
    views: RwLock<ViewCache>,
    /// Hashes a view's key (see [`ViewCache`]).
    key_hasher: foldhash::fast::RandomState,
    /// By index in `product.tools`: served but not listed (a proxy's tools that could only answer
    /// `not_available`).
    unlisted: Vec<bool>,
    /// The descriptors of the discovery tools (search, describe, call) by [`Locale::index`],
    /// listed when a selection turns discovery on.
    discovery: [[&'static str; 3]; 3],
    /// By [`Locale::index`]: every tool's descriptor joined by commas, built on first use. Views
    /// listing every tool share it (see [`Listings::every_tool_pages`]).
    every_tool: [OnceLock<Bytes>; 3],
}

/// Upper bound of cached permission sets; beyond it the cache starts over.
const MAX_VIEWS: usize = 4096;

impl Listings {
    /// `modern_suffix` (by [`Locale::index`]) is appended inside every 2026 page object of that
    /// locale (starts with a comma).
    pub fn new(product: &'static Product, page_size: usize, modern_suffix: [String; 3]) -> Self {
        Self {
            product,
            page_size: page_size.max(1),
            modern_suffix,
            views: RwLock::new(HashMap::default()),
            key_hasher: foldhash::fast::RandomState::default(),
            unlisted: vec![false; product.tools.len()],
            discovery: super::discovery_tools::descriptors(product),
            every_tool: Default::default(),
        }
    }

    /// Leaves the tools `unlisted` (by index) out of `tools/list`; they stay callable.
    pub fn with_unlisted(mut self, unlisted: Vec<bool>) -> Self {
        self.unlisted = unlisted;
        self
    }

    /// Whether tool `idx` is served but left out of listings (a proxy's tools that could only
    /// answer `not_available`); discovery's search and describe leave it out too.
    pub fn is_unlisted(&self, idx: usize) -> bool {
        self.unlisted.get(idx).copied().unwrap_or(false)
    }

    /// The view of this caller's permission set under this selection, in `locale`.
    pub fn view(
        &self,
        identity: &Identity,
        selection: &Arc<Selection>,
        locale: Locale,
    ) -> Arc<View> {
        let hash = self.key_hasher.hash_one((
            &identity.scopes,
            &identity.permissions,
            &**selection,
            locale,
        ));
        if let Ok(map) = self.views.read() {
            if let Some(bucket) = map.get(&hash) {
                for (k, v) in bucket {
                    if k.scopes == identity.scopes
                        && k.permissions == identity.permissions
                        && *k.selection == **selection
                        && k.locale == locale
                    {
                        return v.clone();
                    }
                }
            }
        }
        let view = Arc::new(self.build(identity, selection, locale));
        if let Ok(mut map) = self.views.write() {
            if map.len() >= MAX_VIEWS {
                map.clear();
            }
            map.entry(hash).or_default().push((
                Key {
                    scopes: identity.scopes.clone(),
                    permissions: identity.permissions.clone(),
                    selection: selection.clone(),
                    locale,
                },
                view.clone(),
            ));
        }
        view
    }

    fn build(&self, identity: &Identity, selection: &Selection, locale: Locale) -> View {
        let p = self.product;
        // The locale's descriptors, parallel to the product's lists; a table built by hand has
        // none and lists its own.
        let texts = p.texts(locale);
        let tool_json =
            |i: usize| texts.map_or(p.tools[i].descriptor_json, |t| t.tools[i].descriptor_json);
        let resource_json = |i: usize| {
            texts.map_or(p.resources[i].descriptor_json, |t| {
                t.resources[i].descriptor_json
            })
        };
        let template_json = |i: usize| {
            texts.map_or(p.templates[i].descriptor_json, |t| {
                t.templates[i].descriptor_json
            })
        };
        let prompt_json = |i: usize| {
            texts.map_or(p.prompts[i].descriptor_json, |t| {
                t.prompts[i].descriptor_json
            })
        };
        let callable: Vec<bool> = p
            .tools
            .iter()
            .enumerate()
            .map(|(i, t)| selection.visible(i) && identity.can_call(t).is_ok())
            .collect();
        let can = |name: &str| {
            p.tools
                .iter()
                .position(|t| t.name == name)
                .is_some_and(|i| callable[i])
        };
        let usable_prompts: Vec<bool> = p
            .prompts
            .iter()
            .map(|pr| pr.uses.iter().all(|u| can(u)))
            .collect();
        let listed = |i: usize| callable[i] && !self.unlisted.get(i).copied().unwrap_or(false);
        let mut tools: Vec<&'static str> = (0..p.tools.len())
            .filter(|i| listed(*i))
            .map(tool_json)
            .collect();
        if selection.discovery() {
            tools.extend(self.discovery[locale.index()]);
        }
        let resources: Vec<&str> = (0..p.resources.len())
            .filter(|i| can(p.resources[*i].read_by))
            .map(resource_json)
            .collect();
        let templates: Vec<&str> = (0..p.templates.len())
            .filter(|i| can(p.templates[*i].read_by))
            .map(template_json)
            .collect();
        let prompts: Vec<&str> = (0..p.prompts.len())
            .filter(|i| usable_prompts[*i])
            .map(prompt_json)
            .collect();
        let every_tool = (0..callable.len()).all(listed) && !selection.discovery();
        let era = |suffix: &str| EraPages {
            tools: match every_tool {
                true => self.every_tool_pages(locale, &tools, suffix),
                false => None,
            }
            .unwrap_or_else(|| self.pages(ListKind::Tools, &tools, suffix)),
            resources: self.pages(ListKind::Resources, &resources, suffix),
            templates: self.pages(ListKind::Templates, &templates, suffix),
            prompts: self.pages(ListKind::Prompts, &prompts, suffix),
        };
        View {
            legacy: era(""),
            modern: era(&self.modern_suffix[locale.index()]),
            callable,
            usable_prompts,
            legacy_2025_03_26_tools: OnceLock::new(),
            tool_descriptors: tools,
        }
    }

    /// The 2025-03-26 tool pages of `view`: its descriptors without `outputSchema`.
    pub fn tools_2025_03_26<'v>(&self, view: &'v View) -> &'v [Page] {
        view.legacy_2025_03_26_tools.get_or_init(|| {
            let stripped: Vec<String> = view
                .tool_descriptors
                .iter()
                .map(|d| without_output_schema(d))
                .collect();
            let refs: Vec<&str> = stripped.iter().map(String::as_str).collect();
            self.pages(ListKind::Tools, &refs, "")
        })
    }

    /// The single page listing every tool (`descriptors`, in `locale`), its descriptors the
    /// locale's joined text shared by every such view; `None` when the tools need more than one
    /// page.
    fn every_tool_pages(
        &self,
        locale: Locale,
        descriptors: &[&str],
        suffix: &str,
    ) -> Option<Vec<Page>> {
        if descriptors.is_empty() || descriptors.len() > self.page_size {
            return None;
        }
        let joined = self.every_tool[locale.index()]
            .get_or_init(|| Bytes::from(descriptors.join(",").into_bytes()))
            .clone();
        let tail = format!("]{suffix}}}");
        Some(vec![Page::of(
            Box::new([
                Bytes::from_static(b"{\"tools\":["),
                joined,
                Bytes::from(tail.into_bytes()),
            ]),
            true,
        )])
    }

    fn pages(&self, kind: ListKind, items: &[&str], suffix: &str) -> Vec<Page> {
        let chunks: Vec<&[&str]> = if items.is_empty() {
            vec![&[]]
        } else {
            items.chunks(self.page_size).collect()
        };
        let n = chunks.len();
        chunks
            .into_iter()
            .enumerate()
            .map(|(i, chunk)| {
                let len: usize = chunk.iter().map(|s| s.len() + 1).sum();
                let mut out = String::with_capacity(len + suffix.len() + 64);
                out.push_str("{\"");
                out.push_str(kind.field());
                out.push_str("\":[");
                for (j, d) in chunk.iter().enumerate() {
                    if j > 0 {
                        out.push(',');
                    }
                    out.push_str(d);
                }
                out.push(']');
                if i + 1 < n {
                    out.push_str(",\"nextCursor\":\"");
                    out.push_str(&encode_cursor(kind, i + 1));
                    out.push('"');
                }
                out.push_str(suffix);
                out.push('}');
                Page::kept(out.into_bytes())
            })
            .collect()
    }
}

/// A tool descriptor as 2025-03-26 has it: no `outputSchema`, and its `title` (which that
/// revision's `Tool` lacks) as `annotations.title`, where that revision carries a display name.
/// Unchanged when it does not parse.
fn without_output_schema(descriptor: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(descriptor) {
        Ok(serde_json::Value::Object(mut m)) => {
            m.remove("outputSchema");
            if let Some(title) = m.get("title").cloned() {
                if let Some(serde_json::Value::Object(a)) = m.get_mut("annotations") {
                    a.entry("title").or_insert(title);
                }
            }
            serde_json::Value::Object(m).to_string()
        }
        _ => descriptor.to_string(),
    }
}

/// An opaque cursor naming a page.
pub fn encode_cursor(kind: ListKind, page: usize) -> String {
    URL_SAFE_NO_PAD.encode(format!("{}:{page}", kind.tag()))
}

/// The page a `cursor` param names: page 0 without a cursor (or with the empty cursor); -32602 for
/// anything we did not issue for this list or that is past its end. Pages only move forward, so
/// following `nextCursor` always terminates.
pub fn page<'a>(
    pages: &'a [Page],
    kind: ListKind,
    cursor: Option<&serde_json::Value>,
) -> Result<&'a Page, RpcError> {
    let bad = || RpcError::invalid_params("Invalid cursor");
    let idx = match cursor {
        None | Some(serde_json::Value::Null) => 0,
        Some(serde_json::Value::String(s)) if s.is_empty() => 0,
        Some(serde_json::Value::String(s)) => {
            let raw = URL_SAFE_NO_PAD.decode(s).map_err(|_| bad())?;
            let text = std::str::from_utf8(&raw).map_err(|_| bad())?;
            let (tag, n) = text.split_once(':').ok_or_else(bad)?;
            if tag != kind.tag() {
                return Err(bad());
            }
            let n: usize = n.parse().map_err(|_| bad())?;
            if n == 0 {
                return Err(bad());
            }
            n
        }
        Some(_) => {
            return Err(RpcError::invalid_params(
                "Invalid cursor: it must be a string",
            ))
        }
    };
    pages.get(idx).ok_or_else(bad)
}
