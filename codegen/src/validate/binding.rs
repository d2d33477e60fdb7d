//! A tool's `http` binding (or `handler`), and multipart file uploads.

use std::collections::BTreeSet;

use super::grammar::{is_identifier, one_of, template_vars, HTTP_METHODS, MULTIPART_METHODS};
use super::json_schema::{base64_properties, is_string_schema, property_at, schema_required};
use super::Validator;
use crate::locate::{index_path, key_path};
use crate::model::{Body, Tool};

impl<'a> Validator<'a> {
    pub(super) fn binding(&mut self, base: &str, t: &Tool, props: &[String]) {
        match (&t.http, &t.handler) {
            (Some(_), Some(_)) => self.key(
                &key_path(base, "handler"),
                "a tool has both `http` and `handler`".into(),
                Some("exactly one: `http:` for an API operation, `handler:` for a hand-written extension".into()),
            ),
            (None, None) => self.key(
                base,
                "a tool has neither `http` nor `handler`".into(),
                Some("exactly one: `http: {method, path, …}` or `handler: <name>`".into()),
            ),
            (None, Some(h)) => {
                if !is_identifier(h) {
                    self.value(
                        &key_path(base, "handler"),
                        format!("`{h}` cannot name a handler"),
                        Some("lowercase letters, digits and `_`, starting with a letter".into()),
                    );
                }
            }
            (Some(http), None) => {
                let hpath = key_path(base, "http");
                if !HTTP_METHODS.contains(&http.method.as_str()) {
                    self.value(
                        &key_path(&hpath, "method"),
                        format!("`{}` is not an HTTP method", http.method),
                        Some(one_of(HTTP_METHODS)),
                    );
                }
                let ppath = key_path(&hpath, "path");
                if !http.path.starts_with('/') {
                    self.value(
                        &ppath,
                        format!("`{}` does not start with `/`", http.path),
                        Some("a path relative to the API base, e.g. `/v1/bank_billets/{id}`".into()),
                    );
                }
                let props_hint = || {
                    if props.is_empty() {
                        "the input schema declares no properties; add one".to_string()
                    } else {
                        format!(
                            "a property of input_schema: {}",
                            one_of(&props.iter().map(String::as_str).collect::<Vec<_>>())
                        )
                    }
                };
                match template_vars(&http.path) {
                    Err(why) => self.value(&ppath, why, Some("`{name}` path variables".into())),
                    Ok(vars) => {
                        for var in &vars {
                            let arg = http.path_args.get(var).unwrap_or(var);
                            if !props.iter().any(|p| p == arg) {
                                self.value(
                                    &ppath,
                                    format!(
                                        "path parameter `{{{var}}}` takes the argument `{arg}`, which is not in the input schema"
                                    ),
                                    Some(format!("{}; or map it with `path_args: {{{var}: <argument>}}`", props_hint())),
                                );
                            } else if !schema_required(&t.input_schema).contains(arg) {
                                self.value(
                                    &ppath,
                                    format!(
                                        "path parameter `{{{var}}}` takes the argument `{arg}`, which the input schema does not require"
                                    ),
                                    Some(format!("add `{arg}` to `input_schema.required`: without it the URL cannot be built")),
                                );
                            }
                        }
                        for k in http.path_args.keys() {
                            if !vars.contains(k) {
                                self.key(
                                    &key_path(&key_path(&hpath, "path_args"), k),
                                    format!("`{k}` is not a variable of the path `{}`", http.path),
                                    Some(format!("one of {}", one_of(&vars.iter().map(String::as_str).collect::<Vec<_>>()))),
                                );
                            }
                        }
                    }
                }
                for (j, q) in http.query.iter().enumerate() {
                    if !props.contains(q) {
                        self.value(
                            &index_path(&key_path(&hpath, "query"), j),
                            format!("query argument `{q}` is not in the input schema"),
                            Some(props_hint()),
                        );
                    }
                }
                let (fields, fields_path) = match &http.body {
                    Some(Body::Fields(f)) => (f.as_slice(), key_path(&hpath, "body")),
                    Some(Body::Wrapped(w)) => {
                        (w.fields.as_slice(), key_path(&key_path(&hpath, "body"), "fields"))
                    }
                    _ => (&[][..], String::new()),
                };
                for (j, f) in fields.iter().enumerate() {
                    if !props.contains(f) {
                        self.value(
                            &index_path(&fields_path, j),
                            format!("body argument `{f}` is not in the input schema"),
                            Some(props_hint()),
                        );
                    }
                }
                if let Some(Body::Multipart(m)) = &http.body {
                    self.multipart(&hpath, t, http, &m.multipart);
                }
                if http.method == "GET" && http.body.is_some() {
                    self.key(
                        &key_path(&hpath, "body"),
                        "a GET binding has a body".into(),
                        Some("send GET arguments with `query:`, or use POST".into()),
                    );
                }
            }
        }
    }

    /// A `{multipart: {files: [...]}}` body: a method that carries a body, and file parts whose
    /// arguments are base64 strings of the input schema, each named once, none in path or query;
    /// every base64 property of the schema is one of the file parts.
    pub(super) fn multipart(
        &mut self,
        hpath: &str,
        t: &Tool,
        http: &crate::model::HttpBinding,
        form: &crate::model::MultipartForm,
    ) {
        let fpath = key_path(&key_path(&key_path(hpath, "body"), "multipart"), "files");
        if !MULTIPART_METHODS.contains(&http.method.as_str()) {
            self.value(
                &key_path(hpath, "method"),
                format!("a `{}` binding cannot send a multipart form", http.method),
                Some(format!(
                    "a multipart body needs {}",
                    one_of(MULTIPART_METHODS)
                )),
            );
        }
        if form.files.is_empty() {
            self.value(
                &fpath,
                "a multipart body with no file part".into(),
                Some("list the file arguments: `files: [{arg: <base64 argument>}]`, or use `body: rest` for a JSON body".into()),
            );
        }
        let base64_props = base64_properties(&t.input_schema);
        let path_args: Vec<String> = template_vars(&http.path)
            .unwrap_or_default()
            .into_iter()
            .map(|v| http.path_args.get(&v).cloned().unwrap_or(v))
            .collect();
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        for (j, file) in form.files.iter().enumerate() {
            let part = index_path(&fpath, j);
            let apath = key_path(&part, "arg");
            let segments: Vec<&str> = file.arg.split('.').collect();
            if !seen.insert(file.arg.as_str()) {
                self.value(
                    &apath,
                    format!("the file argument `{}` is listed twice", file.arg),
                    Some("list each file argument once".into()),
                );
            }
            if path_args
                .iter()
                .chain(&http.query)
                .any(|a| a == segments[0])
            {
                self.value(
                    &apath,
                    format!(
                        "the file argument `{}` is also sent in the path or query",
                        file.arg
                    ),
                    Some(
                        "a file part is sent in the body only; remove it from `path`/`query`"
                            .into(),
                    ),
                );
            }
            match property_at(&t.input_schema, &segments) {
                None => {
                    let hint = if base64_props.is_empty() {
                        "a property of input_schema with `type: string` and `contentEncoding: base64`; nest with a dotted path (`files.crt_file`)".to_string()
                    } else {
                        format!(
                            "one of the input schema's base64 properties: {}",
                            one_of(&base64_props.iter().map(String::as_str).collect::<Vec<_>>())
                        )
                    };
                    self.value(
                        &apath,
                        format!(
                            "the file argument `{}` is not in the input schema",
                            file.arg
                        ),
                        Some(hint),
                    );
                }
                Some(schema) => {
                    if !is_string_schema(schema)
                        || schema.get("contentEncoding").and_then(|v| v.as_str()) != Some("base64")
                    {
                        self.value(
                            &apath,
                            format!(
                                "the file argument `{}` is not a base64 string in the input schema",
                                file.arg
                            ),
                            Some("declare it `type: string` with `contentEncoding: base64` (and `contentMediaType` when the file type is known): the model sends the file's bytes base64-encoded".into()),
                        );
                    }
                }
            }
            if let (Some(_), Some(_)) = (&file.filename_arg, &file.filename_field) {
                self.key(
                    &key_path(&part, "filename_field"),
                    "a file part has both `filename_arg` and `filename_field`".into(),
                    Some("`filename_field` when the API has its own field naming the file (it is sent too), `filename_arg` when the argument only names the part".into()),
                );
            }
            for (key, name) in [
                ("filename_arg", &file.filename_arg),
                ("filename_field", &file.filename_field),
            ] {
                let Some(name) = name else { continue };
                let npath = key_path(&part, key);
                let segs: Vec<&str> = name.split('.').collect();
                match property_at(&t.input_schema, &segs) {
                    None => self.value(
                        &npath,
                        format!("the filename argument `{name}` is not in the input schema"),
                        Some(
                            "a `type: string` property of input_schema (dotted path when nested)"
                                .into(),
                        ),
                    ),
                    Some(schema) if !is_string_schema(schema) => self.value(
                        &npath,
                        format!(
                            "the filename argument `{name}` is not a string in the input schema"
                        ),
                        Some("declare it `type: string` (or `[string, \"null\"]`)".into()),
                    ),
                    Some(_) if form.files.iter().any(|f| &f.arg == name) => self.value(
                        &npath,
                        format!("`{name}` is a file argument, not a file name"),
                        Some("name a separate string argument, e.g. `<file>_filename`".into()),
                    ),
                    Some(_) => {}
                }
            }
            if let Some(d) = &file.default_filename {
                let bad = d.trim().is_empty()
                    || d.chars()
                        .any(|c| c.is_control() || matches!(c, '/' | '\\' | '"'));
                if bad {
                    self.value(
                        &key_path(&part, "default_filename"),
                        format!("`{d}` cannot name an uploaded file"),
                        Some("a plain file name without `/`, `\\`, `\"` or control characters, e.g. `retorno.ret`".into()),
                    );
                }
            }
        }
        for prop in &base64_props {
            if !form.files.iter().any(|f| &f.arg == prop) {
                self.value(
                    &fpath,
                    format!("the base64 argument `{prop}` is not a file part, so it would be sent as text"),
                    Some(format!("add `{{arg: {prop}}}` to `files`, or drop `contentEncoding: base64` from it")),
                );
            }
        }
    }
}
