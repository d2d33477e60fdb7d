//! The editor JSON Schema (`catalog/catalog.schema.json`) agrees with the model (`model.rs`).
//!
//! - The committed file is exactly what `codegen_tools::schema` produces.
//! - For every struct of the model, serde's own list of keys (read from the "unknown field …,
//!   expected one of …" error it gives when a bogus key is inserted into `data/full.yaml`) equals
//!   the keys of a closed object of the schema. `full.yaml` uses every struct of the model.
//! - Valid catalogs validate against the schema (the test ones, and every real catalog that
//!   codegen accepts), so the schema never flags what the generator accepts.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use codegen::load::{parse, SourceFile};
use serde_yaml::Value;

const FULL: &str = include_str!("../../tests/data/full.yaml");
const TINY: &str = include_str!("../../tests/data/tiny.yaml");
const BOGUS: &str = "zz_bogus_key";
/// The structs of `model.rs` reachable by inserting a key into `full.yaml`: all 34 but
/// `WrappedBody`, `MultipartBody`, `MultipartForm` and `FilePart`, which sit inside an untagged
/// enum (serde then reports "did not match any variant" instead of the key list; they are
/// checked on their own), and the five of the `views:` section (`ViewSpec`, `CodeSpec`,
/// `ActionSpec`, `ChartSpec`, `ViewText`), which `full.yaml` does not declare yet (a view needs
/// a tool whose result carries its fields): their schema keys are not compared here.
const MODEL_STRUCTS: usize = 23;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn source(text: &str) -> SourceFile {
    SourceFile {
        display: "catalog/full.yaml".into(),
        path: PathBuf::from("full.yaml"),
        stem: "full".into(),
        in_fixtures: false,
        text: text.into(),
    }
}

#[test]
fn committed_schema_file_is_current() {
    let committed = std::fs::read_to_string(repo_root().join(codegen_tools::schema::SCHEMA_PATH))
        .expect("catalog/catalog.schema.json exists; run `cargo run -p codegen`");
    assert!(
        committed == codegen_tools::schema::schema_text(),
        "catalog/catalog.schema.json is stale; run `cargo run -p codegen`"
    );
}

#[test]
fn full_example_is_a_valid_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    std::fs::create_dir_all(&catalog).unwrap();
    std::fs::write(catalog.join("full.yaml"), FULL).unwrap();
    if let Err(e) = codegen::load_all(&catalog) {
        panic!("{e}");
    }
    // And it renders.
    codegen::generate(&catalog).unwrap();
}

/// Every mapping path of a YAML value.
fn mapping_paths(v: &Value, path: Vec<Value>, out: &mut Vec<Vec<Value>>) {
    match v {
        Value::Mapping(m) => {
            out.push(path.clone());
            for (k, child) in m {
                let mut p = path.clone();
                p.push(k.clone());
                mapping_paths(child, p, out);
            }
        }
        Value::Sequence(s) => {
            for (i, child) in s.iter().enumerate() {
                let mut p = path.clone();
                p.push(Value::Number(i.into()));
                mapping_paths(child, p, out);
            }
        }
        _ => {}
    }
}

fn at_mut<'a>(v: &'a mut Value, path: &[Value]) -> &'a mut Value {
    let mut cur = v;
    for seg in path {
        cur = match seg {
            Value::Number(n) => &mut cur.as_sequence_mut().unwrap()[n.as_u64().unwrap() as usize],
            key => cur.as_mapping_mut().unwrap().get_mut(key).unwrap(),
        };
    }
    cur
}

/// The keys serde lists in "unknown field `x`, expected one of `a`, `b`" (or "expected `a`").
fn expected_keys(message: &str) -> Option<BTreeSet<String>> {
    let rest = message.strip_prefix(&format!("unknown field `{BOGUS}`, "))?;
    let list = rest
        .strip_prefix("expected one of ")
        .or_else(|| rest.strip_prefix("expected "))?;
    Some(
        list.split(", ")
            .flat_map(|k| k.split(" or "))
            .map(|k| k.trim_matches('`').to_string())
            .collect(),
    )
}

/// The key sets of every closed object (`additionalProperties: false`) of the schema.
fn schema_objects(v: &serde_json::Value, out: &mut Vec<BTreeSet<String>>) {
    match v {
        serde_json::Value::Object(m) => {
            if m.get("additionalProperties") == Some(&serde_json::Value::Bool(false)) {
                if let Some(props) = m.get("properties").and_then(|p| p.as_object()) {
                    out.push(props.keys().cloned().collect());
                }
            }
            for child in m.values() {
                schema_objects(child, out);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|c| schema_objects(c, out)),
        _ => {}
    }
}

#[test]
fn every_model_struct_has_the_same_keys_in_the_schema() {
    let root: Value = serde_yaml::from_str(FULL).unwrap();
    let mut paths = Vec::new();
    mapping_paths(&root, Vec::new(), &mut paths);
    let mut model_sets: BTreeSet<BTreeSet<String>> = BTreeSet::new();
    for path in paths {
        let mut doc = root.clone();
        at_mut(&mut doc, &path)
            .as_mapping_mut()
            .unwrap()
            .insert(Value::String(BOGUS.into()), Value::Null);
        let text = serde_yaml::to_string(&doc).unwrap();
        if let Err(d) = parse(source(&text)) {
            if let Some(keys) = expected_keys(&d.message) {
                model_sets.insert(keys);
            }
        }
    }
    assert_eq!(
        model_sets.len(),
        MODEL_STRUCTS,
        "full.yaml must use every struct of model.rs once: {model_sets:#?}"
    );
    let wrapped = serde_yaml::from_str::<codegen::model::WrappedBody>(&format!(
        "{{wrap: x, fields: [], {BOGUS}: 1}}"
    ))
    .unwrap_err()
    .to_string();
    let wrapped = wrapped.split(" at line").next().unwrap();
    model_sets.insert(expected_keys(wrapped).expect("WrappedBody lists its keys"));
    // The multipart body's structs sit inside the same untagged enum: checked on their own too.
    let own_keys = |err: serde_yaml::Error, what: &str| {
        let text = err.to_string();
        let text = text.split(" at line").next().unwrap().to_string();
        expected_keys(&text).unwrap_or_else(|| panic!("{what} lists its keys: {text}"))
    };
    model_sets.insert(own_keys(
        serde_yaml::from_str::<codegen::model::MultipartBody>(&format!(
            "{{multipart: {{files: []}}, {BOGUS}: 1}}"
        ))
        .unwrap_err(),
        "MultipartBody",
    ));
    model_sets.insert(own_keys(
        serde_yaml::from_str::<codegen::model::MultipartForm>(&format!(
            "{{files: [], {BOGUS}: 1}}"
        ))
        .unwrap_err(),
        "MultipartForm",
    ));
    model_sets.insert(own_keys(
        serde_yaml::from_str::<codegen::model::FilePart>(&format!("{{arg: x, {BOGUS}: 1}}"))
            .unwrap_err(),
        "FilePart",
    ));
    let mut schema_sets = Vec::new();
    schema_objects(&codegen_tools::schema::catalog_schema(), &mut schema_sets);
    for keys in &model_sets {
        assert!(
            schema_sets.contains(keys),
            "no object of catalog.schema.json has exactly the keys {keys:?}; update codegen/tools/src/schema.rs"
        );
    }
}

fn schema_errors(text: &str) -> Vec<String> {
    let schema = codegen_tools::schema::catalog_schema();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let yaml: Value = serde_yaml::from_str(text).unwrap();
    let instance = serde_json::to_value(&yaml).unwrap();
    validator
        .iter_errors(&instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn test_catalogs_validate_against_the_schema() {
    for (name, text) in [("full", FULL), ("tiny", TINY)] {
        let errors = schema_errors(text);
        assert!(errors.is_empty(), "{name}.yaml: {errors:#?}");
    }
}

#[test]
fn schema_rejects_what_the_generator_rejects() {
    let typo = TINY.replace(
        "    annotations: {readOnlyHint: true}\n",
        "    annotations: {readOnlyHint: true, destructivehint: false}\n",
    );
    assert!(!schema_errors(&typo).is_empty());
    let no_hint = TINY.replace(
        "      readOnlyHint: false\n      destructiveHint: false\n",
        "      readOnlyHint: false\n",
    );
    assert!(!schema_errors(&no_hint).is_empty());
    let any_of = TINY.replace(
        "    input_schema: {type: object}\n",
        "    input_schema: {type: object, anyOf: [{required: [a]}]}\n",
    );
    assert!(!schema_errors(&any_of).is_empty());
    let long_name = TINY.replace(
        "- name: tiny_orders_create",
        &format!("- name: tiny_{}", "x".repeat(60)),
    );
    assert!(!schema_errors(&long_name).is_empty());
}

#[test]
fn real_catalogs_that_codegen_accepts_validate_against_the_schema() {
    let catalog = repo_root().join("catalog");
    let Ok(files) = codegen::load::discover(&catalog) else {
        return;
    };
    for file in files {
        let src = codegen::load::read(&catalog, &file).unwrap();
        let text = src.text.clone();
        let accepted = parse(src)
            .ok()
            .is_some_and(|l| codegen::validate::validate(&l).is_empty());
        if accepted {
            let errors = schema_errors(&text);
            assert!(errors.is_empty(), "{}: {errors:#?}", file.display());
        }
    }
}
