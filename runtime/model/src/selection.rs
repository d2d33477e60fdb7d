//! Tool selection: which tools of a product a server offers and a request sees.
//!
//! One home for the rule, whatever the source (flags, `KOBANA_*` variables, the TOML file, HTTP
//! headers, URL paths): each source becomes a [`SelectionSpec`], the server's spec becomes a
//! [`Ceiling`] once at start ([`Ceiling::for_products`]), and each request's spec is narrowed
//! against it ([`Ceiling::narrow`]) into the [`Selection`] every surface applies: listings,
//! `tools/call`, resources, templates, prompts and completions.
//!
//! The rules:
//! - the server's selection is the ceiling: a request narrows it, never widens it;
//! - a server started with no inclusion (no toolsets, no tools) has every tool as its ceiling;
//! - a request that names nothing gets the server's own selection: the toolsets and tools the
//!   server named, else the product's default toolsets (within the ceiling);
//! - read-only and exclusions win over inclusions, at both levels;
//! - `default` and `all` are toolset names too (the product's default toolsets; every tool);
//! - toolset `discovery` adds the three discovery tools ([`discovery_tool_names`]): they reach the
//!   whole ceiling (minus the request's own exclusions and read-only), so a selection of
//!   `discovery` alone lists three tools and still reaches every allowed one through them. Named
//!   alone, `discovery` does not shrink the ceiling;
//! - an unknown toolset or tool name is an error ([`SelectionError`]): at start, or a 400.

use std::fmt;

use crate::catalog::Product;
use crate::locale::Locale;
use crate::texts::Text;

/// The toolset name of the product's default toolsets.
pub const DEFAULT: &str = "default";
/// The toolset name of every tool.
pub const ALL: &str = "all";
/// The toolset name that turns discovery mode on.
pub const DISCOVERY: &str = "discovery";
/// Toolset names a catalog may not declare (they mean something already).
pub const RESERVED: [&str; 3] = [DEFAULT, ALL, DISCOVERY];

/// The three discovery tools of a product, in order (search, describe, call):
/// `<tool_prefix>search_tools`, `<tool_prefix>describe_tools`, `<tool_prefix>call_tool`. A
/// catalog may not declare tools with these names.
pub fn discovery_tool_names(tool_prefix: &str) -> [String; 3] {
    [
        format!("{tool_prefix}search_tools"),
        format!("{tool_prefix}describe_tools"),
        format!("{tool_prefix}call_tool"),
    ]
}

/// What one source asked for. `None` = that source did not name any.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SelectionSpec {
    /// Toolset names (`default`, `all`, `discovery` included).
    pub toolsets: Option<Vec<String>>,
    /// Tool names added to the toolsets.
    pub tools: Option<Vec<String>>,
    /// Tool names taken out (wins over inclusions).
    pub exclude_tools: Vec<String>,
    /// Only read-only tools (wins over inclusions).
    pub read_only: bool,
}

impl SelectionSpec {
    /// A comma-separated list (flags, variables, headers, URL paths): names trimmed, empty ones
    /// dropped.
    pub fn list(text: &str) -> Vec<String> {
        text.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    }

    /// Whether the source named nothing at all.
    pub fn names_nothing(&self) -> bool {
        self.toolsets.is_none()
            && self.tools.is_none()
            && self.exclude_tools.is_empty()
            && !self.read_only
    }

    /// Adds toolset `discovery` (the `--discovery` switch).
    pub fn with_discovery(mut self) -> Self {
        let sets = self.toolsets.get_or_insert_with(Vec::new);
        if !sets.iter().any(|s| s == DISCOVERY) {
            sets.push(DISCOVERY.to_string());
        }
        self
    }

    /// This spec as one product sees it under `serve all`: the names the product does not know
    /// are dropped (they belong to another product), and a list left empty counts as not named.
    /// When the spec names toolsets or tools and none of them is this product's, the product
    /// serves its default toolsets: the operator narrowed what is served, and a product left
    /// out of the names must not fall back to every tool it has (issue 37).
    pub fn for_product(&self, product: &Product) -> SelectionSpec {
        let keep_sets = |v: &Vec<String>| -> Option<Vec<String>> {
            let kept: Vec<String> = v
                .iter()
                .filter(|n| toolset_known(product, n))
                .cloned()
                .collect();
            (!kept.is_empty()).then_some(kept)
        };
        let keep_tools = |v: &Vec<String>| -> Vec<String> {
            v.iter()
                .filter(|n| tool_index(product, n).is_some())
                .cloned()
                .collect()
        };
        let specific = |n: &String| !RESERVED.contains(&n.as_str());
        let mut toolsets = self.toolsets.as_ref().and_then(keep_sets);
        let tools = self
            .tools
            .as_ref()
            .map(keep_tools)
            .filter(|v| !v.is_empty());
        let named = self.toolsets.iter().flatten().any(specific)
            || self.tools.as_ref().is_some_and(|v| !v.is_empty());
        let kept = toolsets.iter().flatten().any(specific) || tools.is_some();
        if named && !kept {
            toolsets
                .get_or_insert_with(Vec::new)
                .push(DEFAULT.to_string());
        }
        SelectionSpec {
            toolsets,
            tools,
            exclude_tools: keep_tools(&self.exclude_tools),
            read_only: self.read_only,
        }
    }
}

/// An unknown name in a selection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelectionError {
    UnknownToolset { name: String, known: Vec<String> },
    UnknownTool { name: String, product: String },
}

impl SelectionError {
    /// The error in `locale` (a flag's or header's refusal reaches a person); the names stay as
    /// they were sent.
    pub fn message_in(&self, locale: Locale) -> String {
        match self {
            SelectionError::UnknownToolset { name, known } => Text::SelectionUnknownToolset
                .fill(locale, &[("name", name), ("known", &known.join(", "))]),
            SelectionError::UnknownTool { name, product } => {
                Text::SelectionUnknownTool.fill(locale, &[("name", name), ("product", product)])
            }
        }
    }
}

impl fmt::Display for SelectionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message_in(Locale::En))
    }
}

impl std::error::Error for SelectionError {}

/// A set of tools by index in `Product::tools`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ToolSet(Vec<u64>);

impl ToolSet {
    pub fn empty(n: usize) -> Self {
        ToolSet(vec![0; n.div_ceil(64)])
    }
    pub fn full(n: usize) -> Self {
        let mut s = Self::empty(n);
        for i in 0..n {
            s.insert(i);
        }
        s
    }
    pub fn insert(&mut self, i: usize) {
        if let Some(w) = self.0.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }
    pub fn remove(&mut self, i: usize) {
        if let Some(w) = self.0.get_mut(i / 64) {
            *w &= !(1 << (i % 64));
        }
    }
    pub fn contains(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
    pub fn intersect(&mut self, other: &ToolSet) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a &= b;
        }
    }
    pub fn union(&mut self, other: &ToolSet) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }
    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What one request sees: the tools it lists and calls directly (`visible`), the tools the
/// discovery tools reach (`reachable`, a superset), and whether discovery mode is on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Selection {
    visible: ToolSet,
    reachable: ToolSet,
    discovery: bool,
}

impl Selection {
    /// Every tool visible, no discovery: the selection of a server configured without one.
    pub fn everything(product: &Product) -> Self {
        let all = ToolSet::full(product.tools.len());
        Selection {
            visible: all.clone(),
            reachable: all,
            discovery: false,
        }
    }
    /// Listed and directly callable.
    pub fn visible(&self, tool: usize) -> bool {
        self.visible.contains(tool)
    }
    /// Callable through the discovery tools (when discovery is on).
    pub fn reachable(&self, tool: usize) -> bool {
        self.reachable.contains(tool)
    }
    /// The discovery tools are listed and callable.
    pub fn discovery(&self) -> bool {
        self.discovery
    }
    /// What both selections allow (two sources of one request, such as its URL path and its
    /// headers): never more than either.
    pub fn intersect(&self, other: &Selection) -> Selection {
        let mut visible = self.visible.clone();
        visible.intersect(&other.visible);
        let mut reachable = self.reachable.clone();
        reachable.intersect(&other.reachable);
        Selection {
            visible,
            reachable,
            discovery: self.discovery && other.discovery,
        }
    }

    /// How many catalog tools are visible.
    pub fn visible_count(&self) -> usize {
        self.visible.len()
    }
    /// The tool names visible, in catalog order.
    pub fn visible_names(&self, product: &Product) -> Vec<&'static str> {
        product
            .tools
            .iter()
            .enumerate()
            .filter(|(i, _)| self.visible(*i))
            .map(|(_, t)| t.name)
            .collect()
    }
}

/// A server's selection for one product: the most any request may see, and what a request that
/// names nothing gets.
#[derive(Debug, Clone)]
pub struct Ceiling {
    product: &'static Product,
    /// Every tool a request may reach.
    allowed: ToolSet,
    /// What a request naming nothing gets.
    default: std::sync::Arc<Selection>,
}

fn toolset_known(product: &Product, name: &str) -> bool {
    RESERVED.contains(&name) || product.toolsets.iter().any(|t| t.name == name)
}

fn tool_index(product: &Product, name: &str) -> Option<usize> {
    product.tools.iter().position(|t| t.name == name)
}

/// The product's default toolsets; every tool when it declares no toolsets.
fn product_default(product: &Product) -> ToolSet {
    let n = product.tools.len();
    if product.toolsets.is_empty() {
        return ToolSet::full(n);
    }
    let mut s = ToolSet::empty(n);
    for t in product.toolsets.iter().filter(|t| t.default) {
        for &i in t.tools {
            s.insert(i as usize);
        }
    }
    s
}

/// The tools a spec includes (`None` when it names no toolset and no tool), and whether it names
/// `discovery`. Unknown names are errors.
fn included(
    product: &Product,
    spec: &SelectionSpec,
) -> Result<(Option<ToolSet>, bool), SelectionError> {
    let n = product.tools.len();
    let mut discovery = false;
    let mut named_tools = false;
    let mut set = ToolSet::empty(n);
    for name in spec.toolsets.iter().flatten() {
        match name.as_str() {
            DISCOVERY => discovery = true,
            DEFAULT => {
                named_tools = true;
                set.union(&product_default(product));
            }
            ALL => {
                named_tools = true;
                set.union(&ToolSet::full(n));
            }
            other => {
                let Some(ts) = product.toolsets.iter().find(|t| t.name == other) else {
                    let mut known: Vec<String> = RESERVED.iter().map(|s| s.to_string()).collect();
                    known.extend(product.toolsets.iter().map(|t| t.name.to_string()));
                    return Err(SelectionError::UnknownToolset {
                        name: other.to_string(),
                        known,
                    });
                };
                named_tools = true;
                for &i in ts.tools {
                    set.insert(i as usize);
                }
            }
        }
    }
    for name in spec.tools.iter().flatten() {
        named_tools = true;
        set.insert(known_tool(product, name)?);
    }
    // `discovery` alone names no catalog tool: it leaves the inclusion unnamed for the ceiling,
    // and empty for what is listed.
    let named = named_tools || spec.tools.is_some();
    Ok((named.then_some(set), discovery))
}

fn known_tool(product: &Product, name: &str) -> Result<usize, SelectionError> {
    tool_index(product, name).ok_or_else(|| SelectionError::UnknownTool {
        name: name.to_string(),
        product: product.name.to_string(),
    })
}

/// Takes out the exclusions and, under read-only, every tool that is not read-only.
fn restrict(
    product: &Product,
    set: &mut ToolSet,
    spec: &SelectionSpec,
) -> Result<(), SelectionError> {
    for name in &spec.exclude_tools {
        set.remove(known_tool(product, name)?);
    }
    if spec.read_only {
        for (i, t) in product.tools.iter().enumerate() {
            if !t.annotations.read_only {
                set.remove(i);
            }
        }
    }
    Ok(())
}

impl Ceiling {
    /// No selection at all: every tool, for every request (a library user's or test's server).
    pub fn everything(product: &'static Product) -> Self {
        Ceiling {
            product,
            allowed: ToolSet::full(product.tools.len()),
            default: std::sync::Arc::new(Selection::everything(product)),
        }
    }

    /// The server's selection for one product, from the operator's spec.
    pub fn new(product: &'static Product, spec: &SelectionSpec) -> Result<Self, SelectionError> {
        let n = product.tools.len();
        let (inclusion, discovery) = included(product, spec)?;
        let mut allowed = inclusion.clone().unwrap_or_else(|| ToolSet::full(n));
        restrict(product, &mut allowed, spec)?;
        let mut visible = match (&inclusion, discovery) {
            (Some(set), _) => set.clone(),
            // `discovery` alone: only the discovery tools are listed.
            (None, true) => ToolSet::empty(n),
            (None, false) => product_default(product),
        };
        visible.intersect(&allowed);
        Ok(Ceiling {
            product,
            default: std::sync::Arc::new(Selection {
                visible,
                reachable: allowed.clone(),
                discovery,
            }),
            allowed,
        })
    }

    /// The ceilings of several products served together (`serve all`): each product applies the
    /// names it knows; a name no product knows is an error.
    pub fn for_products(
        products: &[&'static Product],
        spec: &SelectionSpec,
    ) -> Result<Vec<Ceiling>, SelectionError> {
        if let [only] = products {
            return Ok(vec![Ceiling::new(only, spec)?]);
        }
        for name in spec.toolsets.iter().flatten() {
            if !products.iter().any(|p| toolset_known(p, name)) {
                let mut known: Vec<String> = RESERVED.iter().map(|s| s.to_string()).collect();
                for p in products {
                    known.extend(
                        p.toolsets
                            .iter()
                            .map(|t| format!("{} ({})", t.name, p.name)),
                    );
                }
                return Err(SelectionError::UnknownToolset {
                    name: name.clone(),
                    known,
                });
            }
        }
        for name in spec.tools.iter().flatten().chain(&spec.exclude_tools) {
            if !products.iter().any(|p| tool_index(p, name).is_some()) {
                let names: Vec<&str> = products.iter().map(|p| p.name).collect();
                return Err(SelectionError::UnknownTool {
                    name: name.clone(),
                    product: names.join(", "),
                });
            }
        }
        products
            .iter()
            .map(|p| Ceiling::new(p, &spec.for_product(p)))
            .collect()
    }

    pub fn product(&self) -> &'static Product {
        self.product
    }

    /// What a request that names nothing gets.
    pub fn default_selection(&self) -> std::sync::Arc<Selection> {
        self.default.clone()
    }

    /// The selection of one request: its spec within this ceiling. A spec naming nothing gets
    /// [`Ceiling::default_selection`]; naming only exclusions or read-only narrows that default.
    pub fn narrow(
        &self,
        spec: &SelectionSpec,
    ) -> Result<std::sync::Arc<Selection>, SelectionError> {
        if spec.names_nothing() {
            return Ok(self.default.clone());
        }
        let p = self.product;
        let (inclusion, discovery) = included(p, spec)?;
        let mut reachable = self.allowed.clone();
        restrict(p, &mut reachable, spec)?;
        let mut visible = match (&inclusion, discovery) {
            (Some(set), _) => set.clone(),
            (None, true) => ToolSet::empty(p.tools.len()),
            (None, false) => self.default.visible.clone(),
        };
        visible.intersect(&reachable);
        let discovery = discovery || (spec.toolsets.is_none() && self.default.discovery);
        Ok(std::sync::Arc::new(Selection {
            visible,
            reachable,
            discovery,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Annotations, Binding, Tool, Toolset};

    /// A bare tool, read-only or not (also the fixture of `rule_tests`).
    pub(super) const fn tool(name: &'static str, read_only: bool) -> Tool {
        Tool {
            annotations: Annotations {
                read_only,
                ..Annotations::NONE
            },
            ..Tool::bare(name, Binding::Extension("x"))
        }
    }

    static TOOLS: [Tool; 4] = [
        tool("a_list", true),
        tool("a_cancel", false),
        tool("b_list", true),
        tool("c_list", true),
    ];
    static SETS: [Toolset; 3] = [
        Toolset {
            name: "a",
            title: "",
            description: "",
            default: true,
            tools: &[0, 1],
        },
        Toolset {
            name: "b",
            title: "",
            description: "",
            default: false,
            tools: &[2],
        },
        Toolset {
            name: "c",
            title: "",
            description: "",
            default: false,
            tools: &[3],
        },
    ];
    static PRODUCT: Product = Product {
        toolsets: &SETS,
        ..Product::bare("p", &TOOLS)
    };

    /// A selection of `toolsets` by name (also used by `rule_tests`).
    pub(super) fn spec(toolsets: &[&str]) -> SelectionSpec {
        SelectionSpec {
            toolsets: Some(toolsets.iter().map(|s| s.to_string()).collect()),
            ..Default::default()
        }
    }

    fn visible(s: &Selection) -> Vec<&'static str> {
        s.visible_names(&PRODUCT)
    }

    #[test]
    fn no_server_selection_means_every_tool_allowed_and_the_default_for_requests() {
        let c = Ceiling::new(&PRODUCT, &SelectionSpec::default()).unwrap();
        assert_eq!(visible(&c.default_selection()), ["a_list", "a_cancel"]);
        assert_eq!(visible(&c.narrow(&spec(&["all"])).unwrap()).len(), 4);
        assert_eq!(visible(&c.narrow(&spec(&["b"])).unwrap()), ["b_list"]);
    }

    #[test]
    fn a_request_narrows_the_ceiling_and_never_widens_it() {
        let c = Ceiling::new(&PRODUCT, &spec(&["a", "b"])).unwrap();
        assert_eq!(
            visible(&c.default_selection()),
            ["a_list", "a_cancel", "b_list"]
        );
        assert_eq!(
            visible(&c.narrow(&spec(&["all"])).unwrap()),
            ["a_list", "a_cancel", "b_list"]
        );
        assert!(visible(&c.narrow(&spec(&["c"])).unwrap()).is_empty());
    }

    #[test]
    fn read_only_and_exclusions_win_over_inclusions() {
        let c = Ceiling::new(&PRODUCT, &SelectionSpec::default()).unwrap();
        let s = SelectionSpec {
            tools: Some(vec!["a_cancel".into(), "b_list".into()]),
            exclude_tools: vec!["b_list".into()],
            read_only: true,
            ..Default::default()
        };
        assert!(visible(&c.narrow(&s).unwrap()).is_empty());
        let ro_server = Ceiling::new(
            &PRODUCT,
            &SelectionSpec {
                read_only: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(visible(&ro_server.default_selection()), ["a_list"]);
        assert_eq!(
            visible(&ro_server.narrow(&spec(&["a"])).unwrap()),
            ["a_list"]
        );
    }

    #[test]
    fn discovery_alone_lists_nothing_else_and_reaches_the_ceiling() {
        let c = Ceiling::new(&PRODUCT, &spec(&["b"]).with_discovery()).unwrap();
        let d = c.default_selection();
        assert!(d.discovery());
        assert_eq!(visible(&d), ["b_list"]);
        let only = c.narrow(&spec(&["discovery"])).unwrap();
        assert!(only.discovery() && visible(&only).is_empty());
        assert!(only.reachable(2) && !only.reachable(0));
        let everything = Ceiling::new(&PRODUCT, &spec(&["discovery"])).unwrap();
        let d = everything.default_selection();
        assert!(visible(&d).is_empty() && (0..4).all(|i| d.reachable(i)));
    }

    #[test]
    fn unknown_names_are_errors_naming_them() {
        let e = Ceiling::new(&PRODUCT, &spec(&["a", "zzz"])).unwrap_err();
        assert!(e.to_string().contains("`zzz`"), "{e}");
        let c = Ceiling::new(&PRODUCT, &SelectionSpec::default()).unwrap();
        let e = c
            .narrow(&SelectionSpec {
                exclude_tools: vec!["nope".into()],
                ..Default::default()
            })
            .unwrap_err();
        assert!(e.to_string().contains("`nope`"), "{e}");
    }

    static OTHER_TOOLS: [Tool; 3] = [
        tool("x_list", true),
        tool("x_delete", false),
        tool("y_list", true),
    ];
    static OTHER_SETS: [Toolset; 2] = [
        Toolset {
            name: "x",
            title: "",
            description: "",
            default: true,
            tools: &[0, 1],
        },
        Toolset {
            name: "y",
            title: "",
            description: "",
            default: false,
            tools: &[2],
        },
    ];
    static OTHER: Product = Product {
        toolsets: &OTHER_SETS,
        ..Product::bare("q", &OTHER_TOOLS)
    };

    /// Under `serve all`, a selection naming one product's toolsets or tools leaves the other
    /// products on their default toolsets, not on every tool they have (issue 37, item 11).
    #[test]
    fn a_product_the_selection_does_not_name_serves_its_default_toolsets() {
        let reached = |c: &Ceiling, p: &Product| -> Vec<&'static str> {
            c.narrow(&spec(&["all"])).unwrap().visible_names(p)
        };
        for named in [spec(&["b"]), spec(&["b", "discovery"])] {
            let ceilings = Ceiling::for_products(&[&PRODUCT, &OTHER], &named).unwrap();
            assert_eq!(reached(&ceilings[0], &PRODUCT), ["b_list"], "{named:?}");
            assert_eq!(
                reached(&ceilings[1], &OTHER),
                ["x_list", "x_delete"],
                "{named:?}"
            );
        }
        let tools = SelectionSpec {
            tools: Some(vec!["c_list".into()]),
            ..Default::default()
        };
        let ceilings = Ceiling::for_products(&[&PRODUCT, &OTHER], &tools).unwrap();
        assert_eq!(reached(&ceilings[1], &OTHER), ["x_list", "x_delete"]);
        // Naming nothing of any product (reserved names, exclusions, read-only) keeps each
        // product's own ceiling: every tool reachable.
        for unnamed in [
            SelectionSpec::default(),
            spec(&["all"]),
            SelectionSpec {
                exclude_tools: vec!["a_cancel".into()],
                ..Default::default()
            },
        ] {
            let ceilings = Ceiling::for_products(&[&PRODUCT, &OTHER], &unnamed).unwrap();
            assert_eq!(reached(&ceilings[1], &OTHER).len(), 3, "{unnamed:?}");
        }
        // Each product that knows a name keeps it.
        let both = spec(&["b", "y"]);
        let ceilings = Ceiling::for_products(&[&PRODUCT, &OTHER], &both).unwrap();
        assert_eq!(reached(&ceilings[0], &PRODUCT), ["b_list"]);
        assert_eq!(reached(&ceilings[1], &OTHER), ["y_list"]);
    }
}

#[cfg(test)]
#[path = "selection_tests.rs"]
mod rule_tests;
