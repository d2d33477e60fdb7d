//! Reading the JSON Schemas a catalog writes in YAML (input schemas): properties, `required`,
//! nested properties, base64 file arguments; and what makes a tool a list tool.

use crate::model::{OperationKind, Tool};

/// Whether a tool lists records (and so can feed completions and `resources/list`).
pub fn is_list_tool(t: &Tool) -> bool {
    t.operation.as_ref().map(|o| o.kind) == Some(OperationKind::List) || t.name.ends_with("_list")
}

/// Top-level property names of a JSON Schema written in YAML.
pub fn schema_properties(schema: &serde_yaml::Value) -> Vec<String> {
    schema
        .get("properties")
        .and_then(|p| p.as_mapping())
        .map(|m| {
            m.keys()
                .filter_map(|k| k.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The `required` list of a JSON Schema written in YAML.
pub fn schema_required(schema: &serde_yaml::Value) -> Vec<String> {
    schema
        .get("required")
        .and_then(|r| r.as_sequence())
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The schema of a (possibly nested) property: `["files", "crt_file"]` is
/// `properties.files.properties.crt_file`.
pub fn property_at<'v>(
    schema: &'v serde_yaml::Value,
    path: &[&str],
) -> Option<&'v serde_yaml::Value> {
    path.iter()
        .try_fold(schema, |s, seg| s.get("properties")?.get(*seg))
}

/// `type: string`, alone or with `null`.
pub(super) fn is_string_schema(schema: &serde_yaml::Value) -> bool {
    match schema.get("type") {
        Some(serde_yaml::Value::String(t)) => t == "string",
        Some(serde_yaml::Value::Sequence(ts)) => {
            ts.iter().any(|t| t.as_str() == Some("string"))
                && ts
                    .iter()
                    .all(|t| matches!(t.as_str(), Some("string" | "null")))
        }
        _ => false,
    }
}

/// Dotted paths of every property (at any depth of `properties`) declared
/// `contentEncoding: base64`.
pub fn base64_properties(schema: &serde_yaml::Value) -> Vec<String> {
    fn walk(schema: &serde_yaml::Value, prefix: &str, out: &mut Vec<String>) {
        let Some(props) = schema.get("properties").and_then(|p| p.as_mapping()) else {
            return;
        };
        for (k, v) in props {
            let Some(k) = k.as_str() else { continue };
            let path = if prefix.is_empty() {
                k.to_string()
            } else {
                format!("{prefix}.{k}")
            };
            if v.get("contentEncoding").and_then(|e| e.as_str()) == Some("base64") {
                out.push(path.clone());
            }
            walk(v, &path, out);
        }
    }
    let mut out = Vec::new();
    walk(schema, "", &mut out);
    out
}
