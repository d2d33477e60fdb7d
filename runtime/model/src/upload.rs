//! File uploads: how a tool's JSON arguments become a `multipart/form-data` form, and back.
//!
//! A model cannot attach bytes to a tool call, so a file travels in the arguments as a base64
//! string (`contentEncoding: base64` in the input schema). The proxy decodes it into a file part;
//! the sandbox decodes it to check it and to describe what it stored; `sandbox serve-api` reads
//! a form back into the same arguments. Keeping both directions here makes the proxy and the
//! sandbox agree on one layout, the one Rails (the Kobana API) parses:
//!
//! - a file argument `files.crt_file` is the file part `files[crt_file]`;
//! - strings are text parts, numbers and booleans their JSON text, nulls are left out;
//! - objects use bracketed names (`custom_data[key]`), arrays `tags[]` (objects in arrays
//!   `items[][key]`).

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::{DecodePaddingMode, Engine};
use serde_json::{Map, Value};

use crate::backend::BackendError;
use crate::catalog::FileField;

/// The Content-Type of a file part whose type the catalog does not know.
pub const OCTET_STREAM: &str = "application/octet-stream";

/// Base64 with or without padding, standard alphabet.
const STANDARD: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);
/// Base64 with or without padding, URL-safe alphabet (`-`, `_`).
const URL_SAFE: GeneralPurpose = GeneralPurpose::new(
    &alphabet::URL_SAFE,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// A decoded file part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePart {
    /// The form name (`source`, `files[crt_file]`).
    pub name: String,
    /// The argument it came from, dotted (`files.crt_file`), for messages.
    pub arg: String,
    pub filename: String,
    pub media_type: String,
    pub data: Vec<u8>,
}

/// A text part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextPart {
    pub name: String,
    pub value: String,
}

/// A whole form, in the order its parts are sent: text parts first, then the files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Form {
    pub texts: Vec<TextPart>,
    pub files: Vec<FilePart>,
}

/// `["files", "crt_file"]` → `files[crt_file]`.
pub fn form_name(path: &[&str]) -> String {
    let mut out = String::new();
    for (i, seg) in path.iter().enumerate() {
        if i == 0 {
            out.push_str(seg);
        } else {
            out.push('[');
            out.push_str(seg);
            out.push(']');
        }
    }
    out
}

/// `files[crt_file]` → `["files", "crt_file"]`; `tags[]` → `["tags", ""]` (an empty segment is
/// an array element). `None` when the name is not bracketed correctly.
pub fn parse_form_name(name: &str) -> Option<Vec<String>> {
    let (head, mut rest) = match name.find('[') {
        Some(i) => (&name[..i], &name[i..]),
        None => (name, ""),
    };
    if head.is_empty() {
        return None;
    }
    let mut out = vec![head.to_string()];
    while !rest.is_empty() {
        let inner = rest.strip_prefix('[')?;
        let close = inner.find(']')?;
        out.push(inner[..close].to_string());
        rest = &inner[close + 1..];
    }
    Some(out)
}

/// `file.crt_file` as the path `["file", "crt_file"]`, for messages.
fn dotted(path: &[&str]) -> String {
    path.join(".")
}

/// Decodes a file argument: standard or URL-safe alphabet, padding optional, whitespace (line
/// breaks of MIME-style base64) ignored, a `data:…;base64,` prefix accepted.
pub fn decode_base64(arg: &str, text: &str) -> Result<Vec<u8>, BackendError> {
    let body = match text.trim_start().strip_prefix("data:") {
        Some(rest) => match rest.split_once(";base64,") {
            Some((_, data)) => data,
            None => {
                let why = "a data URL without `;base64,`";
                return Err(BackendError::Invalid(format!(
                    "`{arg}` is {why}: send the file's content base64-encoded"
                )));
            }
        },
        None => text,
    };
    let compact: String = body.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    STANDARD
        .decode(&compact)
        .or_else(|_| URL_SAFE.decode(&compact))
        .map_err(|e| {
            BackendError::Invalid(format!(
                "`{arg}` is not valid base64 ({e}): send the file's content base64-encoded"
            ))
        })
}

/// The value at a path of nested objects.
pub fn value_at<'a>(args: &'a Map<String, Value>, path: &[&str]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    rest.iter()
        .try_fold(args.get(*first)?, |v, seg| v.as_object()?.get(*seg))
}

/// Removes the value at a path; an object left empty by it is removed too.
fn remove_at(args: &mut Map<String, Value>, path: &[&str]) {
    match path {
        [] => {}
        [last] => {
            args.shift_remove(*last);
        }
        [first, rest @ ..] => {
            if let Some(Value::Object(inner)) = args.get_mut(*first) {
                remove_at(inner, rest);
                if inner.is_empty() {
                    args.shift_remove(*first);
                }
            }
        }
    }
}

/// Sets the value at a path, creating the objects on the way (replacing a non-object).
pub fn insert_at(args: &mut Map<String, Value>, path: &[&str], value: Value) {
    match path {
        [] => {}
        [last] => {
            args.insert(last.to_string(), value);
        }
        [first, rest @ ..] => {
            let slot = args
                .entry(first.to_string())
                .or_insert_with(|| Value::Object(Map::new()));
            if !slot.is_object() {
                *slot = Value::Object(Map::new());
            }
            if let Value::Object(inner) = slot {
                insert_at(inner, rest, value);
            }
        }
    }
}

/// A filename safe in a `Content-Disposition` header: the last path segment, without quotes,
/// backslashes or control characters.
fn safe_filename(name: &str) -> String {
    let last = name.rsplit(['/', '\\']).next().unwrap_or(name);
    last.chars()
        .map(|c| if c.is_control() || c == '"' { '_' } else { c })
        .collect::<String>()
        .trim()
        .to_string()
}

/// The filename of a file part: its filename argument when given and not blank, else the
/// catalog's default.
fn filename_of(field: &FileField, args: &Map<String, Value>) -> Result<String, BackendError> {
    let given = match field.filename_arg {
        Some(path) => match value_at(args, path) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(other) => {
                return Err(BackendError::Invalid(format!(
                    "`{}` must be a file name (string), got {other}",
                    dotted(path)
                )))
            }
        },
        None => None,
    };
    let name = given
        .map(safe_filename)
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| field.default_filename.to_string());
    Ok(name)
}

/// Decodes every file argument that is present. A file argument that is absent or null is left
/// out (the input schema says which are required); one that is not a base64 string is an error
/// naming it.
pub fn decode_files(
    files: &[FileField],
    args: &Map<String, Value>,
) -> Result<Vec<FilePart>, BackendError> {
    let mut out = Vec::new();
    for field in files {
        let arg = dotted(field.arg);
        let text = match value_at(args, field.arg) {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) => s,
            Some(other) => {
                let kind = match other {
                    Value::Object(_) => "an object",
                    Value::Array(_) => "an array",
                    Value::Number(_) => "a number",
                    _ => "a boolean",
                };
                return Err(BackendError::Invalid(format!(
                    "`{arg}` must be the file's content as a base64 string, got {kind}"
                )));
            }
        };
        out.push(FilePart {
            name: form_name(field.arg),
            data: decode_base64(&arg, text)?,
            filename: filename_of(field, args)?,
            media_type: field.media_type.to_string(),
            arg,
        });
    }
    Ok(out)
}

/// The arguments with each file's base64 content replaced by a short description
/// (`<file: 1234 base64 characters>`), for showing a call to a person (confirmation forms, logs)
/// without pasting a whole file into it.
pub fn abbreviate_files(files: &[FileField], args: &Map<String, Value>) -> Map<String, Value> {
    let mut out = args.clone();
    for field in files {
        if let Some(Value::String(s)) = value_at(args, field.arg) {
            let short = format!("<file: {} base64 characters>", s.len());
            insert_at(&mut out, field.arg, Value::String(short));
        }
    }
    out
}

/// Appends the text parts of one value under `name`.
fn flatten(name: &str, value: &Value, out: &mut Vec<TextPart>) {
    match value {
        Value::Null => {}
        Value::String(s) => out.push(TextPart {
            name: name.to_string(),
            value: s.clone(),
        }),
        Value::Number(_) | Value::Bool(_) => out.push(TextPart {
            name: name.to_string(),
            value: value.to_string(),
        }),
        Value::Object(m) => {
            for (k, v) in m {
                flatten(&format!("{name}[{k}]"), v, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                flatten(&format!("{name}[]"), item, out);
            }
        }
    }
}

/// The form a multipart binding sends: the file parts decoded, every other argument not in
/// `skip` (path and query arguments) as text parts. A filename argument that is not an API field
/// only names its part and is not sent.
pub fn build_form(
    files: &[FileField],
    args: &Map<String, Value>,
    skip: &[&str],
) -> Result<Form, BackendError> {
    let file_parts = decode_files(files, args)?;
    let mut rest: Map<String, Value> = args
        .iter()
        .filter(|(k, _)| !skip.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for field in files {
        remove_at(&mut rest, field.arg);
        if let (Some(path), false) = (field.filename_arg, field.filename_is_field) {
            remove_at(&mut rest, path);
        }
    }
    let mut texts = Vec::new();
    for (k, v) in &rest {
        flatten(k, v, &mut texts);
    }
    Ok(Form {
        texts,
        files: file_parts,
    })
}

/// Appends `value` at a parsed form name (`["tags", ""]` pushes onto the array `tags`).
fn insert_form_value(args: &mut Map<String, Value>, path: &[String], value: Value) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    if rest.is_empty() {
        args.insert(first.clone(), value);
        return;
    }
    if rest[0].is_empty() {
        let slot = args
            .entry(first.clone())
            .or_insert_with(|| Value::Array(Vec::new()));
        if !slot.is_array() {
            *slot = Value::Array(Vec::new());
        }
        if let Value::Array(items) = slot {
            if rest.len() == 1 {
                items.push(value);
            } else {
                // `items[][key]`: a new element when the last one already has this key.
                let key_path = &rest[1..];
                let start_new = match items.last() {
                    Some(Value::Object(m)) => m.contains_key(&key_path[0]),
                    _ => true,
                };
                if start_new {
                    items.push(Value::Object(Map::new()));
                }
                if let Some(Value::Object(m)) = items.last_mut() {
                    insert_form_value(m, key_path, value);
                }
            }
        }
        return;
    }
    let slot = args
        .entry(first.clone())
        .or_insert_with(|| Value::Object(Map::new()));
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    if let Value::Object(inner) = slot {
        insert_form_value(inner, rest, value);
    }
}

/// The inverse of [`build_form`], for a server reading a form: text parts by their bracketed
/// names (values stay strings; see [`coerce_to_schema`]), file parts base64-encoded back into
/// their argument, and a part's filename into its filename argument when that one is absent.
/// A part whose name is not bracketed correctly is an error naming it.
pub fn args_from_form(
    files: &[FileField],
    texts: Vec<TextPart>,
    uploads: Vec<(String, Option<String>, Vec<u8>)>,
) -> Result<Map<String, Value>, BackendError> {
    let mut args = Map::new();
    for t in texts {
        let path = parse_form_name(&t.name).ok_or_else(|| {
            BackendError::Invalid(format!("the form field name `{}` is malformed", t.name))
        })?;
        insert_form_value(&mut args, &path, Value::String(t.value));
    }
    for (name, filename, data) in uploads {
        let path = parse_form_name(&name).ok_or_else(|| {
            BackendError::Invalid(format!("the form file name `{name}` is malformed"))
        })?;
        let field = files
            .iter()
            .find(|f| f.arg.len() == path.len() && f.arg.iter().zip(&path).all(|(a, b)| a == b))
            .ok_or_else(|| {
                BackendError::Invalid(format!("`{name}` is not a file field of this operation"))
            })?;
        insert_at(&mut args, field.arg, Value::String(STANDARD.encode(&data)));
        if let (Some(fpath), Some(fname)) = (field.filename_arg, filename) {
            if value_at(&args, fpath).is_none() {
                insert_at(&mut args, fpath, Value::String(fname));
            }
        }
    }
    Ok(args)
}

/// Form values are text: turns them into the types the input schema declares (`"12"` → 12 for
/// an integer, `"true"` → true for a boolean), recursing into objects and arrays. A value that
/// does not parse stays a string, for the backend to reject with its own message.
pub fn coerce_to_schema(value: &mut Value, schema: &Value) {
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    match value {
        Value::String(s) if !types.contains(&"string") => {
            let parsed = if types.contains(&"integer") {
                s.parse::<i64>().ok().map(Value::from)
            } else {
                None
            }
            .or_else(|| {
                types
                    .contains(&"number")
                    .then(|| s.parse::<f64>().ok())
                    .flatten()
                    .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number))
            })
            .or_else(|| match (types.contains(&"boolean"), s.as_str()) {
                (true, "true" | "1") => Some(Value::Bool(true)),
                (true, "false" | "0") => Some(Value::Bool(false)),
                _ => None,
            })
            .or_else(|| (types.contains(&"null") && s.is_empty()).then_some(Value::Null));
            if let Some(v) = parsed {
                *value = v;
            }
        }
        Value::Object(m) => {
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (k, v) in m.iter_mut() {
                    if let Some(sub) = props.get(k) {
                        coerce_to_schema(v, sub);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = schema.get("items") {
                for item in items {
                    coerce_to_schema(item, sub);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const CERT_FILES: &[FileField] = &[
        FileField {
            arg: &["files", "crt_file"],
            filename_arg: None,
            filename_is_field: false,
            default_filename: "certificate.crt",
            media_type: "application/x-x509-ca-cert",
        },
        FileField {
            arg: &["files", "pfx_file"],
            filename_arg: None,
            filename_is_field: false,
            default_filename: "certificate.pfx",
            media_type: OCTET_STREAM,
        },
    ];
    const IMPORT_FILES: &[FileField] = &[FileField {
        arg: &["source"],
        filename_arg: Some(&["source_filename"]),
        filename_is_field: false,
        default_filename: "import.csv",
        media_type: "text/csv",
    }];
    const DISCHARGE_FILES: &[FileField] = &[FileField {
        arg: &["file"],
        filename_arg: Some(&["filename"]),
        filename_is_field: true,
        default_filename: "retorno.ret",
        media_type: OCTET_STREAM,
    }];

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn form_names_are_bracketed_and_parse_back() {
        assert_eq!(form_name(&["source"]), "source");
        assert_eq!(form_name(&["files", "crt_file"]), "files[crt_file]");
        assert_eq!(
            parse_form_name("files[crt_file]"),
            Some(vec!["files".to_string(), "crt_file".to_string()])
        );
        assert_eq!(
            parse_form_name("tags[]"),
            Some(vec!["tags".to_string(), String::new()])
        );
        assert_eq!(parse_form_name("[x]"), None);
        assert_eq!(parse_form_name("a[b"), None);
        assert_eq!(parse_form_name("a]b"), Some(vec!["a]b".to_string()]));
    }

    #[test]
    fn base64_variants_decode_and_garbage_names_the_argument() {
        let want = b"CNAB\n\xff\xfe".to_vec();
        for text in [
            "Q05BQgr//g==",
            "Q05BQgr//g",
            "Q05B\r\nQgr//g==",
            "Q05BQgr__g==",
            "data:application/octet-stream;base64,Q05BQgr//g==",
        ] {
            assert_eq!(decode_base64("file", text).unwrap(), want, "{text}");
        }
        let err = decode_base64("files.crt_file", "not base64!").unwrap_err();
        match err {
            BackendError::Invalid(m) => {
                assert!(m.starts_with("`files.crt_file` is not valid base64"), "{m}")
            }
            other => panic!("{other:?}"),
        }
        assert!(decode_base64("file", "data:text/plain,hello").is_err());
    }

    #[test]
    fn a_form_has_files_and_bracketed_text_parts() {
        let args = obj(json!({
            "financial_account_uid": "acc_1",
            "source": "aGVsbG8=",
            "source_filename": "../extrato.ofx",
            "external_id": "x1",
            "custom_data": {"codigo": "123", "vip": true, "nested": {"n": 2}},
            "tags": ["a", "b"],
            "nothing": null,
        }));
        let form = build_form(IMPORT_FILES, &args, &["financial_account_uid"]).unwrap();
        assert_eq!(
            form.files,
            vec![FilePart {
                name: "source".into(),
                arg: "source".into(),
                filename: "extrato.ofx".into(),
                media_type: "text/csv".into(),
                data: b"hello".to_vec(),
            }]
        );
        let texts: Vec<(&str, &str)> = form
            .texts
            .iter()
            .map(|t| (t.name.as_str(), t.value.as_str()))
            .collect();
        assert_eq!(
            texts,
            vec![
                ("external_id", "x1"),
                ("custom_data[codigo]", "123"),
                ("custom_data[vip]", "true"),
                ("custom_data[nested][n]", "2"),
                ("tags[]", "a"),
                ("tags[]", "b"),
            ]
        );
    }

    #[test]
    fn nested_file_fields_leave_their_siblings_as_text() {
        let args = obj(json!({
            "label": "Meu",
            "type": "pfx",
            "subaccounts": false,
            "files": {"pfx_file": "AAEC", "pfx_password": "s3cret"},
        }));
        let form = build_form(CERT_FILES, &args, &[]).unwrap();
        assert_eq!(form.files.len(), 1, "an absent optional file is left out");
        assert_eq!(form.files[0].name, "files[pfx_file]");
        assert_eq!(form.files[0].filename, "certificate.pfx");
        assert_eq!(form.files[0].data, vec![0, 1, 2]);
        let names: Vec<&str> = form.texts.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            vec!["label", "type", "subaccounts", "files[pfx_password]"]
        );
        let bad = obj(json!({"files": {"crt_file": {"x": 1}}}));
        assert_eq!(
            build_form(CERT_FILES, &bad, &[]).unwrap_err(),
            BackendError::Invalid(
                "`files.crt_file` must be the file's content as a base64 string, got an object"
                    .into()
            )
        );
    }

    #[test]
    fn a_filename_field_is_sent_and_names_the_part() {
        let args = obj(json!({"file": "aGk=", "filename": "RET001.ret"}));
        let form = build_form(DISCHARGE_FILES, &args, &[]).unwrap();
        assert_eq!(form.files[0].filename, "RET001.ret");
        assert_eq!(
            form.texts,
            vec![TextPart {
                name: "filename".into(),
                value: "RET001.ret".into()
            }]
        );
        let unnamed = build_form(DISCHARGE_FILES, &obj(json!({"file": "aGk="})), &[]).unwrap();
        assert_eq!(unnamed.files[0].filename, "retorno.ret");
    }

    #[test]
    fn a_form_reads_back_into_the_same_arguments() {
        let args = obj(json!({
            "label": "Meu",
            "files": {"crt_file": "AAEC", "pfx_password": "pw"},
            "tags": ["a", "b"],
            "items": [{"k": "1", "v": "x"}, {"k": "2"}],
        }));
        let form = build_form(CERT_FILES, &args, &[]).unwrap();
        let uploads = form
            .files
            .into_iter()
            .map(|f| (f.name, Some(f.filename), f.data))
            .collect();
        let back = args_from_form(CERT_FILES, form.texts, uploads).unwrap();
        assert_eq!(Value::Object(back), Value::Object(args));

        let imported = args_from_form(
            IMPORT_FILES,
            Vec::new(),
            vec![("source".into(), Some("a.csv".into()), b"x,y".to_vec())],
        )
        .unwrap();
        assert_eq!(
            Value::Object(imported),
            json!({"source": "eCx5", "source_filename": "a.csv"})
        );
        let stray = args_from_form(
            IMPORT_FILES,
            Vec::new(),
            vec![("other".into(), None, vec![])],
        );
        assert!(matches!(stray, Err(BackendError::Invalid(m)) if m.contains("`other`")));
    }

    #[test]
    fn files_are_abbreviated_for_people() {
        let args =
            obj(json!({"label": "x", "files": {"pfx_file": "AAEC/w==", "pfx_password": "p"}}));
        let shown = abbreviate_files(CERT_FILES, &args);
        assert_eq!(
            Value::Object(shown),
            json!({"label": "x", "files": {"pfx_file": "<file: 8 base64 characters>", "pfx_password": "p"}})
        );
    }

    #[test]
    fn form_text_takes_the_schema_types() {
        let schema = json!({"type": "object", "properties": {
            "n": {"type": ["integer", "null"]},
            "b": {"type": "boolean"},
            "s": {"type": "string"},
            "f": {"type": "number"},
            "o": {"type": "object", "properties": {"x": {"type": "integer"}}},
            "a": {"type": "array", "items": {"type": "integer"}},
        }});
        let mut v = json!({"n": "12", "b": "true", "s": "12", "f": "1.5", "o": {"x": "3"}, "a": ["1", "z"]});
        coerce_to_schema(&mut v, &schema);
        assert_eq!(
            v,
            json!({"n": 12, "b": true, "s": "12", "f": 1.5, "o": {"x": 3}, "a": [1, "z"]})
        );
    }
}
