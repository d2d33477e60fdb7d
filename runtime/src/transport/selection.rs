//! A request's tool selection on HTTP: the `Kobana-Toolsets`, `Kobana-Tools`,
//! `Kobana-Exclude-Tools` and `Kobana-Read-Only` headers, and the URL paths
//! `<base>/x/<toolset>[,<toolset>…]/mcp` and `<base>/readonly/mcp` (`<base>` = `/<product>` under
//! `serve all`, empty for one product). What they mean is `runtime_model::selection`'s: each
//! source is narrowed within the server's ceiling, and when both the path and the headers name a
//! selection the request gets what both allow.

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderName};
use runtime_model::locale::Locale;
use runtime_model::selection::{Ceiling, Selection, SelectionError, SelectionSpec};
use runtime_model::texts::Text;

pub const TOOLSETS: HeaderName = HeaderName::from_static("kobana-toolsets");
pub const TOOLS: HeaderName = HeaderName::from_static("kobana-tools");
pub const EXCLUDE_TOOLS: HeaderName = HeaderName::from_static("kobana-exclude-tools");
pub const READ_ONLY: HeaderName = HeaderName::from_static("kobana-read-only");

/// What the names of the selection headers start with (header names are lowercase in a map).
const PREFIX: &str = "kobana-";

/// The route suffixes a product's MCP endpoint answers on, after its base (axum syntax).
pub const ROUTES: [&str; 3] = ["/mcp", "/x/{toolsets}/mcp", "/readonly/mcp"];

/// Why a request's selection was refused (HTTP 400).
#[derive(Debug)]
pub enum Refused {
    /// A selection header that is not visible ASCII (its name).
    NotText(String),
    /// A read-only header that is not a boolean (its value).
    NotBoolean(String),
    Unknown(SelectionError),
}

impl Refused {
    /// What was wrong, in `locale`; header names, toolsets and tools stay as they were sent.
    pub fn message_in(&self, locale: Locale) -> String {
        match self {
            Refused::NotText(h) => Text::SelectionHeaderNotText.fill(locale, &[("header", h)]),
            Refused::NotBoolean(v) => Text::SelectionNotBoolean.fill(
                locale,
                &[("header", &READ_ONLY), ("value", &format!("{v:?}"))],
            ),
            Refused::Unknown(e) => e.message_in(locale),
        }
    }
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message_in(Locale::En))
    }
}

/// The message of a refused selection (HTTP 400), in `locale`.
pub fn refusal(why: &Refused, locale: Locale) -> String {
    let why = why.message_in(locale);
    Text::SelectionRefused.fill(locale, &[("why", &why)])
}

fn text<'h>(h: &'h HeaderMap, name: &HeaderName) -> Result<Option<&'h str>, Refused> {
    match h.get(name) {
        None => Ok(None),
        Some(v) => v
            .to_str()
            .map(|s| Some(s.trim()))
            .map_err(|_| Refused::NotText(name.to_string())),
    }
}

/// `true`/`1`/`yes` or `false`/`0`/`no` (any case).
pub fn parse_bool(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" | "" => Some(false),
        _ => None,
    }
}

/// The selection the headers name.
fn from_headers(h: &HeaderMap) -> Result<SelectionSpec, Refused> {
    // Nearly every request sends none of them: one pass over its few header names is cheaper
    // than four hashed lookups of names the map does not hold.
    if !h.keys().any(|k| k.as_str().starts_with(PREFIX)) {
        return Ok(SelectionSpec::default());
    }
    let read_only = match text(h, &READ_ONLY)? {
        None => false,
        Some(v) => parse_bool(v).ok_or_else(|| Refused::NotBoolean(v.to_string()))?,
    };
    Ok(SelectionSpec {
        toolsets: text(h, &TOOLSETS)?.map(SelectionSpec::list),
        tools: text(h, &TOOLS)?.map(SelectionSpec::list),
        exclude_tools: text(h, &EXCLUDE_TOOLS)?
            .map(SelectionSpec::list)
            .unwrap_or_default(),
        read_only,
    })
}

/// The selection the URL path names, after the product's base.
fn from_path(path: &str, base: &str) -> SelectionSpec {
    let rest = path.strip_prefix(base).unwrap_or(path);
    if rest == "/readonly/mcp" {
        return SelectionSpec {
            read_only: true,
            ..Default::default()
        };
    }
    match rest
        .strip_prefix("/x/")
        .and_then(|r| r.strip_suffix("/mcp"))
    {
        Some(sets) => {
            let decoded = percent_encoding::percent_decode_str(sets).decode_utf8_lossy();
            SelectionSpec {
                toolsets: Some(SelectionSpec::list(&decoded)),
                ..Default::default()
            }
        }
        None => SelectionSpec::default(),
    }
}

/// A request's selection: `(None, false)` when it names none (the engine's default applies),
/// else the selection and `true`.
pub fn resolve(
    ceiling: &Ceiling,
    headers: &HeaderMap,
    path: &str,
    base: &str,
) -> Result<(Option<Arc<Selection>>, bool), Refused> {
    let mut named: Vec<Arc<Selection>> = Vec::new();
    for spec in [from_path(path, base), from_headers(headers)?] {
        if !spec.names_nothing() {
            named.push(ceiling.narrow(&spec).map_err(Refused::Unknown)?);
        }
    }
    Ok(match named.as_slice() {
        [] => (None, false),
        [one] => (Some(one.clone()), true),
        [a, b, ..] => (Some(Arc::new(a.intersect(b))), true),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    /// The shortcut for requests without selection headers reads what the lookups read.
    #[test]
    fn selection_headers_are_read_whatever_else_is_sent() {
        let mut h = HeaderMap::new();
        h.insert("content-type", HeaderValue::from_static("application/json"));
        h.insert("x-kobana-other", HeaderValue::from_static("pix"));
        assert!(from_headers(&h).unwrap().names_nothing());
        h.insert(READ_ONLY, HeaderValue::from_static("yes"));
        h.insert(TOOLSETS, HeaderValue::from_static("pix, boletos"));
        let spec = from_headers(&h).unwrap();
        assert!(spec.read_only);
        assert_eq!(spec.toolsets.as_deref().map(<[String]>::len), Some(2));
        h.insert(TOOLS, HeaderValue::from_bytes(b"t\xe9").unwrap());
        assert!(matches!(from_headers(&h), Err(Refused::NotText(_))));
    }
}
