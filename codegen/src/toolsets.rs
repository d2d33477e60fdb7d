//! Toolsets: which tools each `toolsets[].tools` entry names, and what a selection costs a client.
//!
//! An entry is a tool name, a glob over tool names (`*` any run, `?` one character), or a tag
//! (`scope:<glob>`, `read_only`, `write`, `destructive`). The validator reports entries matching
//! nothing, tools in no toolset, and toolsets over [`MAX_TOOLSET_TOOLS`]; the Rust emitter and the
//! docs use the resolved indices (in `tools/list` order, [`sorted_tools`]).

use crate::descriptors::{self, resolve_annotations, sorted_tools};
use crate::model::{Catalog, Tool};

/// The most tools a toolset may hold: VS Code / Copilot and the OpenAI API refuse more than 128
/// tools per request.
pub const MAX_TOOLSET_TOOLS: usize = 128;

/// The most tools the default selection may hold: Cursor sends only the first 40 tools.
pub const MAX_DEFAULT_TOOLS: usize = 40;

/// `*` matches any run of characters, `?` one; everything else itself.
pub fn glob(pattern: &str, text: &str) -> bool {
    // What comes before the first wildcard is matched as it is: a pattern without one is an exact
    // name, and most patterns (`banking_pix_*`) are refused by their literal start alone.
    let literal = pattern.find(['*', '?']).unwrap_or(pattern.len());
    if literal == pattern.len() {
        return pattern == text;
    }
    if !text.as_bytes().starts_with(&pattern.as_bytes()[..literal]) {
        return false;
    }
    // Tool names and scopes are ASCII: match their bytes without collecting characters (a
    // 3,000-tool catalog with 75 toolsets asks this 225,000 times per resolution). Otherwise `?`
    // must match one character, not one byte.
    if pattern.is_ascii() && text.is_ascii() {
        glob_over(pattern.as_bytes(), text.as_bytes())
    } else {
        let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
        glob_over(&p, &t)
    }
}

/// [`glob`] over units that compare as characters: `*` any run, `?` one unit.
fn glob_over<C: Copy + PartialEq + GlobUnit>(p: &[C], t: &[C]) -> bool {
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi].is('?') || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi].is('*') {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi].is('*') {
        pi += 1;
    }
    pi == p.len()
}

/// A byte of ASCII text or a character: what [`glob_over`] compares with `*` and `?`.
trait GlobUnit {
    fn is(self, c: char) -> bool;
}

impl GlobUnit for u8 {
    fn is(self, c: char) -> bool {
        char::from(self) == c
    }
}

impl GlobUnit for char {
    fn is(self, c: char) -> bool {
        self == c
    }
}

/// Whether one toolset entry names this tool.
pub fn entry_matches(entry: &str, t: &Tool) -> bool {
    if let Some(scope) = entry.strip_prefix("scope:") {
        return glob(scope, &t.scope);
    }
    match entry {
        "read_only" => resolve_annotations(t).read_only,
        "write" => !resolve_annotations(t).read_only,
        "destructive" => resolve_annotations(t).destructive,
        _ => glob(entry, &t.name),
    }
}

/// The tools of each toolset, as indices into [`sorted_tools`], ascending.
pub fn resolve(c: &Catalog) -> Vec<Vec<usize>> {
    let sorted = sorted_tools(c);
    c.toolsets
        .iter()
        .map(|ts| {
            (0..sorted.len())
                .filter(|&i| ts.tools.iter().any(|e| entry_matches(e, sorted[i])))
                .collect()
        })
        .collect()
}

/// The tools of the default selection (every tool when the catalog declares no toolsets).
pub fn default_selection(c: &Catalog) -> Vec<usize> {
    let n = c.tools.len();
    if c.toolsets.is_empty() {
        return (0..n).collect();
    }
    let mut chosen = vec![false; n];
    for (ts, set) in c.toolsets.iter().zip(resolve(c)) {
        if ts.default {
            for i in set {
                chosen[i] = true;
            }
        }
    }
    (0..n).filter(|&i| chosen[i]).collect()
}

/// The bytes of each tool's descriptor in a 2025 `tools/list` result, in `tools/list` order,
/// under the product's listing plan. Built once per catalog and summed per selection by
/// [`listing_bytes`]: building the plan and every descriptor per selection made the docs cost
/// toolsets × tools (half of codegen's time on a 3,000-tool catalog with 75 toolsets).
pub struct DescriptorSizes(Vec<usize>);

impl DescriptorSizes {
    /// The sizes of a listing already built.
    pub fn from_listing(l: &descriptors::Listing) -> Self {
        Self(l.ranges.iter().map(|r| r.len()).collect())
    }

    pub fn of(c: &Catalog) -> Self {
        let plan = descriptors::Plan::of(c);
        Self(
            sorted_tools(c)
                .iter()
                .map(|t| {
                    serde_json::to_string(&descriptors::tool_with(c, t, &plan))
                        .map(|s| s.len())
                        .unwrap_or(0)
                })
                .collect(),
        )
    }
}

/// The bytes of a 2025 `tools/list` result listing these tools (`{"tools":[…]}`, indices in
/// `tools/list` order), as the server sends it.
pub fn listing_bytes(sizes: &DescriptorSizes, tools: &[usize]) -> usize {
    let body: usize = tools.iter().map(|&i| sizes.0[i]).sum();
    let commas = tools.len().saturating_sub(1);
    "{\"tools\":[".len() + body + commas + "]}".len()
}

/// A rough token estimate of a listing: bytes / 4 (JSON text averages about four bytes per
/// token in the common tokenizers; an estimate, not a count).
pub fn tokens_estimate(bytes: usize) -> usize {
    bytes.div_ceil(4)
}

/// The handler of the tools whose record type Kobana's API has no endpoint for
/// (`runtime/src/extensions/catalog.rs`): the embedded sandbox answers them; behind a proxy only
/// a `get` whose record type has an HTTP list can answer (it scans the list), the others would
/// answer nothing but "not available" and are not listed (issue 36).
const NO_ENDPOINT_HANDLER: &str = "template_without_endpoint";

/// The tools a proxy (`--upstream`) does not list, as indices into [`sorted_tools`], ascending:
/// the one home of that rule, read by the runtime (`Product::sandbox_only`) and the docs (how
/// many tools a selection lists behind a proxy).
pub fn sandbox_only(c: &Catalog) -> Vec<usize> {
    use crate::model::OperationKind;
    let sorted = sorted_tools(c);
    let has_http_list = |record: &str| {
        c.tools.iter().any(|t| {
            t.http.is_some()
                && t.operation.as_ref().is_some_and(|o| {
                    o.kind == OperationKind::List && o.record.as_deref() == Some(record)
                })
        })
    };
    (0..sorted.len())
        .filter(|&i| {
            let t = sorted[i];
            if t.handler.as_deref() != Some(NO_ENDPOINT_HANDLER) {
                return false;
            }
            match &t.operation {
                Some(o) if o.kind == OperationKind::Get => {
                    !o.record.as_deref().is_some_and(has_http_list)
                }
                _ => true,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn globs_match_runs_and_single_characters() {
        assert!(glob("banking_pix_*", "banking_pix_create"));
        assert!(glob("*_list", "banking_pix_list"));
        assert!(glob("a?c", "abc"));
        assert!(!glob("a?c", "abbc"));
        assert!(glob("a*b*c", "axxbyyc"));
        assert!(!glob("banking_pix_*", "banking_pay"));
        assert!(glob("exact", "exact"));
        assert!(!glob("exact", "exactly"));
        // `?` is one character, not one byte, in text that is not ASCII.
        assert!(glob("a?c", "aéc"));
        assert!(glob("*é?", "xxéy"));
        assert!(!glob("a?c", "aébc"));
        // A literal start decides alone, wildcards after it still count.
        assert!(!glob("ab*", "a"));
        assert!(glob("ab*", "ab"));
        assert!(!glob("é*", "e"));
        assert!(glob("é?*", "éx"));
        assert!(!glob("", "x"));
        assert!(glob("", ""));
    }
}
