//! The `resources` (fixed URIs) and `templates` (URI templates) sections.

use std::collections::HashMap;

use super::grammar::{one_of, template_vars};
use super::json_schema::{is_list_tool, schema_properties};
use super::Validator;
use crate::locate::{index_path, key_path};
use crate::model::{Content, Tool};

impl<'a> Validator<'a> {
    pub(super) fn resources_and_templates(&mut self) {
        let cat = &self.l.catalog;
        let prefix = cat.product.uri_prefix.as_str();
        let mut uris: HashMap<&str, String> = HashMap::new();
        for (i, r) in cat.resources.iter().enumerate() {
            let base = index_path("resources", i);
            let upath = key_path(&base, "uri");
            if !r.uri.starts_with(prefix) {
                self.value(
                    &upath,
                    format!("`{}` does not start with the product's URI prefix", r.uri),
                    Some(format!("`{prefix}…` (product.uri_prefix)")),
                );
            }
            if r.uri.contains('{') || r.uri.contains('}') {
                self.value(
                    &upath,
                    format!("`{}` has template variables", r.uri),
                    Some("move it to `templates:` with `uri_template:`".into()),
                );
            }
            if let Some(first) = uris.insert(&r.uri, base.clone()) {
                self.value(
                    &upath,
                    format!("duplicate URI `{}` (first at {first})", r.uri),
                    Some("every URI and URI template is unique".into()),
                );
            }
            self.resource_common(&base, &r.name, &r.mime_type, &r.read_by, &r.content);
        }
        for (i, t) in cat.templates.iter().enumerate() {
            let base = index_path("templates", i);
            let upath = key_path(&base, "uri_template");
            if !t.uri_template.starts_with(prefix) {
                self.value(
                    &upath,
                    format!(
                        "`{}` does not start with the product's URI prefix",
                        t.uri_template
                    ),
                    Some(format!("`{prefix}…` (product.uri_prefix)")),
                );
            }
            if let Some(first) = uris.insert(&t.uri_template, base.clone()) {
                self.value(
                    &upath,
                    format!(
                        "duplicate URI template `{}` (first at {first})",
                        t.uri_template
                    ),
                    Some("every URI and URI template is unique".into()),
                );
            }
            let reader = self.resource_common(&base, &t.name, &t.mime_type, &t.read_by, &t.content);
            let vars = match template_vars(&t.uri_template) {
                Ok(v) if v.is_empty() => {
                    self.value(
                        &upath,
                        format!("`{}` has no `{{variable}}`", t.uri_template),
                        Some("a fixed URI belongs under `resources:` with `uri:`".into()),
                    );
                    v
                }
                Ok(v) => v,
                Err(why) => {
                    self.value(
                        &upath,
                        why,
                        Some("RFC 6570 level 1: `kobana://<product>/path/{name}`".into()),
                    );
                    Vec::new()
                }
            };
            if let Some(reader) = reader {
                let props = schema_properties(&reader.input_schema);
                for var in &vars {
                    let arg = t.args.get(var).unwrap_or(var);
                    if !props.contains(arg) {
                        self.value(
                            &upath,
                            format!(
                                "template variable `{{{var}}}` has no matching argument `{arg}` in `{}`",
                                reader.name
                            ),
                            Some(format!(
                                "map it with `args: {{{var}: <argument>}}` to one of {}",
                                one_of(&props.iter().map(String::as_str).collect::<Vec<_>>())
                            )),
                        );
                    }
                }
            }
            for k in t.args.keys() {
                if !vars.contains(k) {
                    self.key(
                        &key_path(&key_path(&base, "args"), k),
                        format!("`{k}` is not a variable of `{}`", t.uri_template),
                        Some(format!(
                            "one of {}",
                            one_of(&vars.iter().map(String::as_str).collect::<Vec<_>>())
                        )),
                    );
                }
            }
            for (k, src) in &t.complete {
                let cpath = key_path(&key_path(&base, "complete"), k);
                if !vars.contains(k) {
                    self.key(
                        &cpath,
                        format!("`{k}` is not a variable of `{}`", t.uri_template),
                        Some(format!(
                            "one of {}",
                            one_of(&vars.iter().map(String::as_str).collect::<Vec<_>>())
                        )),
                    );
                }
                self.completion_ref(&cpath, src);
            }
            let lpath = key_path(&base, "list_tool");
            match &t.list_tool {
                Some(lt) => {
                    if let Some(tool) = self.tool_ref(&lpath, lt, "`list_tool`") {
                        if !is_list_tool(tool) {
                            self.value(
                                &lpath,
                                format!("`{lt}` is not a list tool"),
                                Some("a tool with `operation: {kind: list}` or a name ending in `_list`".into()),
                            );
                        }
                    }
                }
                None if t.listed => self.key(
                    &key_path(&base, "listed"),
                    "a template with `listed: true` names no `list_tool`".into(),
                    Some("add `list_tool: <the list tool giving its most recent records>`, or `listed: false`".into()),
                ),
                None => {}
            }
        }
    }

    /// Checks shared by fixed resources and templates; returns the reading tool when it exists.
    pub(super) fn resource_common(
        &mut self,
        base: &str,
        name: &str,
        mime: &str,
        read_by: &str,
        content: &Content,
    ) -> Option<&'a Tool> {
        if name.trim().is_empty() {
            self.value(&key_path(base, "name"), "must not be empty".into(), None);
        }
        if !mime.contains('/') {
            self.value(
                &key_path(base, "mime_type"),
                format!("`{mime}` is not a MIME type"),
                Some("e.g. `application/json`, `text/plain`, `application/pdf`".into()),
            );
        }
        let rpath = key_path(base, "read_by");
        let reader = self.tool_ref(&rpath, read_by, "`read_by`");
        if let Some(t) = reader {
            if !t.annotations.read_only {
                self.value(
                    &rpath,
                    format!("`{read_by}` is not read-only; reading a resource must not write"),
                    Some("a tool with `readOnlyHint: true`".into()),
                );
            }
        }
        let zero = match content {
            Content::Blob(s) | Content::BlobOrText(s) => s.max_bytes == 0,
            Content::SignedUrl(u) => u.ttl_seconds == 0,
            _ => false,
        };
        if zero {
            self.value(
                &key_path(base, "content"),
                "a zero size or lifetime limit".into(),
                Some("a positive `max_bytes` / `ttl_seconds`".into()),
            );
        }
        reader
    }
}
