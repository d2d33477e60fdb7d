//! Finding and parsing the catalog files.
//!
//! Catalogs are `catalog/*.yaml` (the products) and `catalog/fixtures/*.yaml` (test products such as
//! the conformance fixture). Each is parsed by `serde_yaml` into [`crate::model::Catalog`], whose
//! structs deny unknown keys, and indexed by [`PositionIndex`] so later checks can point at keys.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::derived;
use crate::diag::Diagnostic;
use crate::locate::{index_path, key_path, PositionIndex};
use crate::model::Catalog;

/// The folder of fixture catalogs, inside the catalog folder.
pub const FIXTURES_DIR: &str = "fixtures";

/// One catalog file, read.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// `catalog/banking.yaml` or `catalog/fixtures/conformance.yaml`: how files are named to people
    /// and in generated preambles, independent of where the repository is.
    pub display: String,
    pub path: PathBuf,
    /// File name without extension: the generated module name.
    pub stem: String,
    /// Whether the file lives in `catalog/fixtures/`.
    pub in_fixtures: bool,
    pub text: String,
}

/// One catalog, parsed, with the positions of its keys.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub source: SourceFile,
    pub catalog: Catalog,
    /// The generated output-schemas sidecar merged into `catalog`, if the catalog has one.
    pub output_schemas: Option<derived::OutputSchemasFile>,
    /// The file as a YAML value, inline texts `{en, pt-BR, es}` kept (the source of the
    /// per-locale catalogs).
    pub value: serde_yaml::Value,
    /// The catalog in each locale, in [`runtime_model::locale::Locale::ALL`] order (filled by
    /// [`crate::load_all`] once the catalog is valid).
    pub localized: Vec<crate::texts::Localized>,
    /// Texts without translations in a product still being translated
    /// ([`crate::texts::LENIENT_PRODUCTS`]): reported, and served in their source language.
    pub warnings: Vec<Diagnostic>,
    /// Translation entries marked `review: true` (moved to a reworded text by
    /// [`crate::reword::rekey`], not checked yet): served as they are, and warned about.
    pub reviews: Vec<Diagnostic>,
    /// Built on first use: only a catalog with problems needs positions, and indexing is a
    /// second parse of the text.
    index: std::sync::OnceLock<PositionIndex>,
}

impl Loaded {
    /// Where each key and value of the file is.
    pub fn index(&self) -> &PositionIndex {
        self.index
            .get_or_init(|| PositionIndex::build(&self.source.text))
    }

    /// A diagnostic pointing at the key of `path`.
    pub fn at_key(&self, path: &str, message: String, hint: Option<String>) -> Diagnostic {
        let pos = self.index().key(path);
        Diagnostic {
            file: self.source.display.clone(),
            line: pos.line,
            column: pos.column,
            path: path.to_string(),
            message,
            hint,
        }
    }

    /// A diagnostic pointing at the value of `path`.
    pub fn at_value(&self, path: &str, message: String, hint: Option<String>) -> Diagnostic {
        let pos = self.index().value(path);
        Diagnostic {
            file: self.source.display.clone(),
            line: pos.line,
            column: pos.column,
            path: path.to_string(),
            message,
            hint,
        }
    }
}

/// The catalog files under `catalog_dir`, products first then fixtures, each group sorted by name.
pub fn discover(catalog_dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = yaml_files(catalog_dir)?;
    let fixtures = catalog_dir.join(FIXTURES_DIR);
    if fixtures.is_dir() {
        files.extend(yaml_files(&fixtures)?);
    }
    Ok(files)
}

fn yaml_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let is_yaml = matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml") | Some("yml")
        );
        if is_yaml && path.is_file() {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

/// Reads one catalog file. `catalog_dir` only serves to name it (`catalog/<relative path>`).
pub fn read(catalog_dir: &Path, path: &Path) -> Result<SourceFile, Diagnostic> {
    let rel = path.strip_prefix(catalog_dir).unwrap_or(path);
    let rel_text = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    let display = format!("catalog/{rel_text}");
    let in_fixtures = rel
        .parent()
        .map(|p| p == Path::new(FIXTURES_DIR))
        .unwrap_or(false);
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = std::fs::read_to_string(path).map_err(|e| Diagnostic {
        file: display.clone(),
        line: 0,
        column: 0,
        path: String::new(),
        message: format!("cannot read the file: {e}"),
        hint: None,
    })?;
    Ok(SourceFile {
        display,
        path: path.to_path_buf(),
        stem,
        in_fixtures,
        text,
    })
}

/// Parses a read catalog file into the model; shape errors come back with their position.
///
/// Two steps: the text becomes a `serde_yaml::Value` (syntax errors carry serde_yaml's own
/// position), then the value becomes a [`Catalog`] through serde_yaml's `singleton_map_recursive`,
/// which lets enums be written as one-key maps (`{recent: 5}`, `{blob: {max_bytes: N}}`) instead of
/// the YAML tags serde_yaml 0.9 expects by default. `serde_path_to_error` gives the path of a shape
/// error, and the position index turns that path back into a line and column.
pub fn parse(source: SourceFile) -> Result<Loaded, Diagnostic> {
    let value: serde_yaml::Value = match serde_yaml::from_str(&source.text) {
        Ok(v) => v,
        Err(e) => {
            let index = PositionIndex::build(&source.text);
            return Err(syntax_error(&source, &index, &e));
        }
    };
    let raw = value.clone();
    let mut value = value;
    let locale = crate::texts::default_locale(&value);
    crate::texts::resolve_inline(&mut value, locale);
    let mut track = serde_path_to_error::Track::new();
    let tracked = serde_path_to_error::Deserializer::new(value, &mut track);
    let result: Result<Catalog, _> =
        serde_yaml::with::singleton_map_recursive::deserialize(tracked);
    match result {
        Ok(catalog) => Ok(Loaded {
            source,
            catalog,
            output_schemas: None,
            value: raw,
            localized: Vec::new(),
            warnings: Vec::new(),
            reviews: Vec::new(),
            index: std::sync::OnceLock::new(),
        }),
        Err(e) => {
            let index = PositionIndex::build(&source.text);
            let path = path_text(&track.path());
            Err(shape_error(&source, &index, path, e.to_string()))
        }
    }
}

/// A (localized) catalog value as the model, the way [`parse`] reads one.
pub fn catalog_from_value(value: serde_yaml::Value) -> Result<Catalog, String> {
    serde_yaml::with::singleton_map_recursive::deserialize(value).map_err(|e| e.to_string())
}

/// Reads the output-schemas sidecar of `l` (if there is one) and merges it into the catalog.
/// Returns the problems: an unreadable or malformed file, an entry for a tool the catalog does
/// not have, a tool whose `output_schema` is written both by hand and in the sidecar.
pub fn attach_output_schemas(l: &mut Loaded) -> Vec<Diagnostic> {
    let path = derived::output_schemas_path(&l.source.path);
    let display = derived::output_schemas_display(&l.source.display);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            return vec![Diagnostic {
                file: display,
                line: 0,
                column: 0,
                path: String::new(),
                message: format!("cannot read the file: {e}"),
                hint: None,
            }]
        }
    };
    let entries = match derived::parse_output_schemas(&display, &text) {
        Ok(e) => e,
        Err(d) => return vec![d],
    };
    let mut file = derived::OutputSchemasFile {
        display,
        text,
        tools: BTreeSet::new(),
    };
    let mut problems = Vec::new();
    for (tool, entry) in entries {
        let Some(i) = l.catalog.tools.iter().position(|t| t.name == tool) else {
            problems.push(file.at_value(
                &key_path("", &tool),
                format!("the catalog {} has no tool `{tool}`", l.source.display),
                Some(format!(
                    "the file is stale: run `{}` (it needs the OpenAPI specs), or delete the entry",
                    derived::OUTPUT_SCHEMAS_COMMAND
                )),
            ));
            continue;
        };
        if l.catalog.tools[i].output_schema.is_some() {
            let at = key_path(&index_path("tools", i), "output_schema");
            problems.push(l.at_key(
                &at,
                format!(
                    "tool `{tool}` declares `output_schema` here and also in {} (`{tool}`)",
                    file.display
                ),
                Some(format!(
                    "keep one: delete this hand-written schema to use the derived one, or run `{}`, which leaves hand-written tools out of the generated file",
                    derived::OUTPUT_SCHEMAS_COMMAND
                )),
            ));
            continue;
        }
        l.catalog.tools[i].output_schema = Some(entry.schema);
        file.tools.insert(tool);
    }
    l.output_schemas = Some(file);
    problems
}

/// A serde_path_to_error path written the way the position index keys it.
fn path_text(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for seg in path.iter() {
        match seg {
            Segment::Seq { index } => out = crate::locate::index_path(&out, *index),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                out = crate::locate::key_path(&out, key)
            }
            Segment::Unknown => {}
        }
    }
    out
}

/// A YAML syntax error (bad indentation, unclosed quote, duplicate key, …).
fn syntax_error(source: &SourceFile, index: &PositionIndex, e: &serde_yaml::Error) -> Diagnostic {
    let full = e.to_string();
    // serde_yaml appends " at line L column C"; the diagnostic carries those separately.
    let without_pos = match full.rfind(" at line ") {
        Some(i) => full[..i].to_string(),
        None => full.clone(),
    };
    let (path, message) = split_path(&without_pos);
    let (line, column) = match e.location() {
        Some(l) => (l.line(), l.column()),
        None => {
            let p = index.value(&path);
            (p.line, p.column)
        }
    };
    Diagnostic {
        file: source.display.clone(),
        line,
        column,
        path,
        message: format!("YAML syntax: {message}"),
        hint: None,
    }
}

/// A shape error: a key the format does not have, a missing key, a wrong type or variant.
fn shape_error(
    source: &SourceFile,
    index: &PositionIndex,
    path: String,
    message: String,
) -> Diagnostic {
    // For an unknown key, point at the key itself; the path may or may not already end with it.
    let mut path = path;
    if let Some(key) = between(&message, "unknown field `", "`") {
        let with_key = crate::locate::key_path(&path, key);
        if index.contains(&with_key) {
            path = with_key;
        }
    }
    let pos = if message.starts_with("unknown field") {
        index.key(&path)
    } else {
        index.value(&path)
    };
    let hint = shape_hint(&path, &message);
    Diagnostic {
        file: source.display.clone(),
        line: pos.line,
        column: pos.column,
        path,
        message,
        hint,
    }
}

/// serde_yaml prints `tools[0].annotations: unknown field …`; split the path off when present.
fn split_path(text: &str) -> (String, String) {
    if let Some(i) = text.find(": ") {
        let head = &text[..i];
        let looks_like_path = !head.is_empty()
            && head
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']' | '-'));
        if looks_like_path {
            return (head.to_string(), text[i + 2..].to_string());
        }
    }
    (String::new(), text.to_string())
}

fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = text.find(start)? + start.len();
    let len = text[from..].find(end)?;
    Some(&text[from..from + len])
}

/// Hints for the shapes serde cannot describe by itself.
fn shape_hint(path: &str, message: &str) -> Option<String> {
    if message.contains("untagged enum Body") {
        return Some(
            "`body` is `rest` (every argument not in path or query), a list of argument names, `{wrap: <key>, fields: [<argument>, …]}`, or `{multipart: {files: [{arg: <argument>, filename_arg: …, filename_field: …, default_filename: …}]}}`".into(),
        );
    }
    if path.ends_with(".content") || message.contains("enum Content") {
        return Some(
            "`content` is `json`, `text`, `schema_catalog`, `schema_entry`, `{blob: {max_bytes: N}}`, `{blob_or_text: {max_bytes: N}}` or `{signed_url: {ttl_seconds: N}}`".into(),
        );
    }
    if path.ends_with("resources_list") {
        return Some("`resources_list` is `fixed` or `{recent: N}`".into());
    }
    if path.starts_with("completions.") {
        return Some(
            "a completion source is `{list_ids: {tool: <list tool>, field: uid, limit: 100}}`, `{fixed: [a, b]}`, `schema_names`, `{last_months: N}`, `{today_and_month_starts: N}` or `none`".into(),
        );
    }
    if message.contains("missing field") {
        return Some("add the key; see catalog/README.md for what it holds".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_path_only_takes_path_like_prefixes() {
        assert_eq!(
            split_path("tools[0].annotations: unknown field `x`"),
            (
                "tools[0].annotations".to_string(),
                "unknown field `x`".to_string()
            )
        );
        assert_eq!(
            split_path("invalid type: string, expected a map"),
            (
                String::new(),
                "invalid type: string, expected a map".to_string()
            )
        );
    }
}
