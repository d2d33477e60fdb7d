//! The JSON that clients receive verbatim, built once at generation time.
//!
//! `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list` answer with these
//! objects as they are; the schemas catalog serves the record entries. Keys come out in a fixed
//! order (serde_json keeps insertion order here) so the generated files are byte-stable.

use runtime_model::catalog::Annotations;
use serde_json::{json, Map, Value};

use crate::model::{Catalog, Prompt, RecordType, Resource, Template, Tool};

/// The runtime's annotations of a tool, lowered once (the Rust tables, the descriptors and the
/// docs all read this). Fills the optional annotations: a read-only tool is idempotent and never destructive; a writing
/// tool is idempotent when its HTTP method is (PUT, DELETE), not otherwise; `openWorldHint` is
/// false unless written, since every tool talks to Kobana's own API (or its sandbox), a closed
/// domain.
pub fn resolve_annotations(t: &Tool) -> Annotations {
    let a = &t.annotations;
    let method_idempotent = t
        .http
        .as_ref()
        .map(|h| matches!(h.method.as_str(), "GET" | "PUT" | "DELETE"))
        .unwrap_or(false);
    Annotations {
        read_only: a.read_only,
        destructive: !a.read_only && a.destructive.unwrap_or(true),
        idempotent: a.idempotent.unwrap_or(a.read_only || method_idempotent),
        open_world: a.open_world.unwrap_or(false),
    }
}

/// A YAML value as JSON (catalog schemas have string keys; validation checked that).
///
/// Converted node by node: going through serde (`serde_json::to_value`) cost a serializer call,
/// a key copy and a map lookup per node, and every tool's schemas are converted once per listing
/// and table (issue 17). A value the direct walk does not take as it is (a tagged value, a key
/// that is not a string) goes through serde as before, so the result is always what serde gives.
pub fn yaml_to_json(v: &serde_yaml::Value) -> Value {
    direct_json(v).unwrap_or_else(|| serde_json::to_value(v).unwrap_or(Value::Null))
}

/// [`yaml_to_json`] without serde; `None` for a tagged value or a key that is not a string.
fn direct_json(v: &serde_yaml::Value) -> Option<Value> {
    use serde_yaml::Value as Y;
    Some(match v {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(*b),
        // As serde_yaml serializes a number: u64, else i64, else f64 (NaN and infinities, which
        // JSON cannot write, become null, as serde_json's serializer makes them).
        Y::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Value::from(u),
            (None, Some(i), _) => Value::from(i),
            (None, None, Some(f)) => {
                serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
            }
            (None, None, None) => return None,
        },
        Y::String(s) => Value::String(s.clone()),
        Y::Sequence(items) => Value::Array(items.iter().map(direct_json).collect::<Option<_>>()?),
        Y::Mapping(m) => {
            let mut out = Map::with_capacity(m.len());
            for (k, v) in m {
                out.insert(k.as_str()?.to_owned(), direct_json(v)?);
            }
            Value::Object(out)
        }
        Y::Tagged(_) => return None,
    })
}

/// The `Tool` object of `tools/list`: schemas in their listed form ([`crate::compact`]), and the
/// annotations that say something a client acts on. Left out: `annotations.title` (it repeats
/// `title`; the 2025-03-26 listing, whose `Tool` has no `title`, puts it back), and hints that
/// equal the spec's defaults in the direction that is safe to misread — `readOnlyHint: false` (a
/// client that ignores defaults still reads "not read-only"), and on a read-only tool
/// `destructiveHint`/`idempotentHint` (the spec gives them meaning only for writing tools; a
/// client that ignores that can only err towards asking for confirmation). A writing tool always
/// says `destructiveHint` explicitly, and `idempotentHint` when it is true; `openWorldHint: false`
/// is explicit since the spec's default is true.
pub fn tool(c: &Catalog, t: &Tool) -> Value {
    tool_with(c, t, &Plan::of(c))
}

/// How a product's listing is written, decided once for all its tools.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// What the product's instructions already say.
    pub said: crate::compact::Said,
    /// Output schemas are listed whole (portable form): the listing so built stays within
    /// [`crate::compact::LISTING_WHOLE_MAX`] bytes. Otherwise they are summarized.
    pub whole_outputs: bool,
    /// Schemas are listed exactly as written: a fixture catalog exists to exercise the protocol
    /// (JSON Schema 2020-12's `$defs`, `$ref`, `if`/`then`/`else` verbatim), not to fit clients.
    pub verbatim: bool,
}

impl Plan {
    pub fn of(c: &Catalog) -> Plan {
        let said = crate::compact::Said::by(&c.product.instructions);
        let verbatim = c.product.fixture;
        let whole = Plan {
            said,
            whole_outputs: true,
            verbatim,
        };
        // Stops at the first tool that takes the sum over the limit: a large catalog need not
        // build the rest only to learn what its first few hundred tools already say.
        let mut bytes = 0usize;
        let mut fits = true;
        for t in &c.tools {
            bytes += serde_json::to_string(&tool_with(c, t, &whole))
                .map(|s| s.len() + 1)
                .unwrap_or(0);
            if bytes > crate::compact::LISTING_WHOLE_MAX {
                fits = false;
                break;
            }
        }
        Plan {
            said,
            whole_outputs: fits,
            verbatim,
        }
    }
}

/// A catalog's tool descriptors as `tools/list` sends them: every descriptor's JSON text joined by
/// commas in listing order ([`sorted_tools`]), and where each one lies in that text. Built once per
/// catalog (see [`Listings`]): the Rust tables, the docs' size figures and the index all read it.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    pub json: String,
    pub ranges: Vec<std::ops::Range<usize>>,
}

impl Listing {
    pub fn of(c: &Catalog) -> Listing {
        let sorted = sorted_tools(c);
        let plan = Plan::of(c);
        let mut json = String::new();
        let mut ranges = Vec::with_capacity(sorted.len());
        for (i, t) in sorted.iter().enumerate() {
            if i > 0 {
                json.push(',');
            }
            let start = json.len();
            json.push_str(
                &serde_json::to_string(&tool_with(c, t, &plan)).unwrap_or_else(|_| "null".into()),
            );
            ranges.push(start..json.len());
        }
        Listing { json, ranges }
    }
}

/// The [`Listing`] of each catalog one generation renders, built on first use. Catalogs are told
/// apart by address; the cache borrows them, so none can change or go away while it lives.
#[derive(Default)]
pub struct Listings<'a> {
    built: std::cell::RefCell<Vec<(&'a Catalog, std::rc::Rc<Listing>)>>,
}

impl<'a> Listings<'a> {
    pub fn of(&self, c: &'a Catalog) -> std::rc::Rc<Listing> {
        if let Some((_, l)) = self
            .built
            .borrow()
            .iter()
            .find(|(k, _)| std::ptr::eq(*k, c))
        {
            return l.clone();
        }
        let l = std::rc::Rc::new(Listing::of(c));
        self.built.borrow_mut().push((c, l.clone()));
        l
    }

    /// Remembers the listing of `c`, built elsewhere (by another thread).
    pub fn insert(&self, c: &'a Catalog, listing: Listing) {
        self.built.borrow_mut().push((c, std::rc::Rc::new(listing)));
    }
}

/// The `Tool` object of `tools/list` under a product's [`Plan`].
pub fn tool_with(_c: &Catalog, t: &Tool, plan: &Plan) -> Value {
    let a = resolve_annotations(t);
    let mut m = Map::new();
    m.insert("name".into(), json!(t.name));
    m.insert("title".into(), json!(t.title));
    m.insert(
        "description".into(),
        json!(if plan.verbatim {
            t.description.clone()
        } else {
            crate::compact::description(&t.description)
        }),
    );
    let input = yaml_to_json(&t.input_schema);
    m.insert(
        "inputSchema".into(),
        if plan.verbatim {
            input
        } else {
            crate::compact::input_schema(&input, plan.said)
        },
    );
    if let Some(o) = &t.output_schema {
        let output = yaml_to_json(o);
        m.insert(
            "outputSchema".into(),
            if plan.verbatim {
                output
            } else {
                crate::compact::output_schema(&output, plan.whole_outputs)
            },
        );
    }
    let mut ann = Map::new();
    if a.read_only {
        ann.insert("readOnlyHint".into(), json!(true));
    } else {
        ann.insert("destructiveHint".into(), json!(a.destructive));
        if a.idempotent {
            ann.insert("idempotentHint".into(), json!(true));
        }
    }
    ann.insert("openWorldHint".into(), json!(a.open_world));
    m.insert("annotations".into(), Value::Object(ann));
    Value::Object(m)
}

fn with_optional_title(mut m: Map<String, Value>, title: &str) -> Map<String, Value> {
    if !title.is_empty() {
        m.insert("title".into(), json!(title));
    }
    m
}

/// The `Resource` object of `resources/list` for a fixed URI.
pub fn resource(r: &Resource) -> Value {
    let mut m = Map::new();
    m.insert("uri".into(), json!(r.uri));
    m.insert("name".into(), json!(r.name));
    let mut m = with_optional_title(m, &r.title);
    m.insert("description".into(), json!(r.description));
    m.insert("mimeType".into(), json!(r.mime_type));
    Value::Object(m)
}

/// The `ResourceTemplate` object of `resources/templates/list`.
pub fn template(t: &Template) -> Value {
    let mut m = Map::new();
    m.insert("uriTemplate".into(), json!(t.uri_template));
    m.insert("name".into(), json!(t.name));
    let mut m = with_optional_title(m, &t.title);
    m.insert("description".into(), json!(t.description));
    m.insert("mimeType".into(), json!(t.mime_type));
    Value::Object(m)
}

/// The `Prompt` object of `prompts/list`.
pub fn prompt(p: &Prompt) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(p.name));
    let mut m = with_optional_title(m, &p.title);
    m.insert("description".into(), json!(p.description));
    let args: Vec<Value> = p
        .arguments
        .iter()
        .map(|a| json!({"name": a.name, "description": a.description, "required": a.required}))
        .collect();
    m.insert("arguments".into(), Value::Array(args));
    Value::Object(m)
}

/// The schemas-catalog entry of a record type.
pub fn record_schema(name: &str, r: &RecordType) -> Value {
    let mut fields = Map::new();
    for (fname, f) in &r.fields {
        let mut fm = Map::new();
        fm.insert("type".into(), json!(f.ty));
        if !f.description.is_empty() {
            fm.insert("description".into(), json!(f.description));
        }
        if !f.enum_values.is_empty() {
            fm.insert("enum".into(), json!(f.enum_values));
        }
        if f.sortable {
            fm.insert("sortable".into(), json!(true));
        }
        fields.insert(fname.clone(), Value::Object(fm));
    }
    let mut m = Map::new();
    m.insert("name".into(), json!(name));
    m.insert("title".into(), json!(r.title));
    if !r.description.is_empty() {
        m.insert("description".into(), json!(r.description));
    }
    m.insert("id_field".into(), json!(r.id_field));
    m.insert("fields".into(), Value::Object(fields));
    Value::Object(m)
}

/// Tools in the order `tools/list` gives them: by name, so the order never depends on how the
/// YAML happens to be arranged.
pub fn sorted_tools(c: &Catalog) -> Vec<&Tool> {
    let mut tools: Vec<&Tool> = c.tools.iter().collect();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    tools
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_to_json_gives_what_serde_gives() {
        let texts = [
            "{type: object, properties: {a: {type: string, maxLength: 5, description: \"é \\\" x\"}}, required: [a]}",
            "[1, -1, 0, 18446744073709551615, -9223372036854775808, 1.5, -0.0, 1e300, .nan, .inf, -.inf]",
            "{a: null, b: true, c: [], d: {}, e: [[{f: ~}]], z: 1, y: 2, x: 3}",
            "{1: a, b: c}",
            "{true: a}",
            "{a: !tagged {b: 1}}",
            "!tag [1]",
            "'plain'",
        ];
        for text in texts {
            let v: serde_yaml::Value = serde_yaml::from_str(text).expect(text);
            let serde = serde_json::to_value(&v).unwrap_or(Value::Null);
            let ours = yaml_to_json(&v);
            assert_eq!(ours, serde, "{text}");
            // Same text too: key order and number forms.
            assert_eq!(ours.to_string(), serde.to_string(), "{text}");
        }
    }
}
