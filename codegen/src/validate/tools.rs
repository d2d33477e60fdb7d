//! The `tools` section: names, input and output schemas, annotations, and the sandbox operation.

use std::collections::HashMap;

use super::grammar::{is_snake_name, one_of, MAX_TOOL_NAME};
use super::json_schema::schema_properties;
use super::Validator;
use crate::locate::{index_path, key_path};
use crate::model::{ListEdit, OperationKind, RecordType, Tool};

impl<'a> Validator<'a> {
    pub(super) fn tools(&mut self) {
        let cat = &self.l.catalog;
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, t) in cat.tools.iter().enumerate() {
            let base = index_path("tools", i);
            let name_path = key_path(&base, "name");
            if let Some(first) = seen.insert(&t.name, i) {
                self.value(
                    &name_path,
                    format!(
                        "duplicate tool name `{}` (first defined at tools[{first}])",
                        t.name
                    ),
                    Some("every tool name is unique within a product".into()),
                );
            }
            if t.name.len() > MAX_TOOL_NAME {
                self.value(
                    &name_path,
                    format!("tool name `{}` is {} characters long", t.name, t.name.len()),
                    Some(format!("at most {MAX_TOOL_NAME} characters")),
                );
            }
            if !is_snake_name(&t.name) {
                self.value(
                    &name_path,
                    format!("tool name `{}` has characters outside [a-z0-9_]", t.name),
                    Some("lowercase ASCII letters, digits and `_` only".into()),
                );
            }
            let prefix = &cat.product.tool_prefix;
            if !t.name.starts_with(prefix.as_str()) {
                self.value(
                    &name_path,
                    format!(
                        "tool name `{}` does not start with the product's tool prefix",
                        t.name
                    ),
                    Some(format!("`{prefix}…` (product.tool_prefix)")),
                );
            }
            // Scope and permission may be empty: the runtime then checks only the read/write
            // meta scope (identity endpoints any caller may use).
            for (k, v) in [("title", &t.title), ("description", &t.description)] {
                if v.trim().is_empty() {
                    self.value(&key_path(&base, k), "must not be empty".into(), None);
                }
            }
            let props = self.input_schema(&base, t);
            self.input_schema_2020_12(&base, t);
            self.output_schema(&base, t);
            self.task(&base, t);
            self.annotations(&base, t);
            self.binding(&base, t, &props);
            self.operation(&base, t, &props);
        }
    }

    /// Checks the input schema restriction; returns its top-level properties.
    pub(super) fn input_schema(&mut self, base: &str, t: &Tool) -> Vec<String> {
        let path = key_path(base, "input_schema");
        let hint = "a mapping with `type: object` and `properties:`; express alternatives inside properties, not with top-level `anyOf`/`oneOf`/`allOf` (clients reject them)";
        let Some(map) = t.input_schema.as_mapping() else {
            self.value(
                &path,
                "the input schema is not a mapping".into(),
                Some(hint.into()),
            );
            return Vec::new();
        };
        if t.input_schema.get("type").and_then(|v| v.as_str()) != Some("object") {
            self.value(
                &path,
                "the input schema's root is not `type: object`".into(),
                Some(hint.into()),
            );
        }
        // A fixture catalog may compose at the root (it exercises JSON Schema 2020-12; see
        // `task.rs`); products may not: stricter clients reject it.
        let fixture = self.l.catalog.product.fixture;
        for k in ["anyOf", "oneOf", "allOf", "not", "$ref"] {
            if map.contains_key(k) && !fixture {
                self.key(
                    &key_path(&path, k),
                    format!("top-level `{k}` in an input schema"),
                    Some(hint.into()),
                );
            }
        }
        if let Some(p) = map.get("properties") {
            if !p.is_mapping() {
                self.value(
                    &key_path(&path, "properties"),
                    "`properties` is not a mapping".into(),
                    Some("a mapping from argument name to its JSON Schema".into()),
                );
            }
        }
        let props = schema_properties(&t.input_schema);
        if let Some(req) = map.get("required") {
            match req.as_sequence() {
                Some(items) => {
                    for (j, item) in items.iter().enumerate() {
                        let name = item.as_str().unwrap_or_default();
                        if !props.iter().any(|p| p == name) {
                            self.value(
                                &index_path(&key_path(&path, "required"), j),
                                format!("required argument `{name}` is not a property"),
                                Some(format!(
                                    "one of {}",
                                    one_of(&props.iter().map(String::as_str).collect::<Vec<_>>())
                                )),
                            );
                        }
                    }
                }
                None => self.value(
                    &key_path(&path, "required"),
                    "`required` is not a list".into(),
                    Some("a list of property names".into()),
                ),
            }
        }
        if serde_json::to_value(&t.input_schema).is_err() {
            self.value(
                &path,
                "the input schema cannot be expressed as JSON (non-string keys?)".into(),
                Some("string keys only".into()),
            );
        }
        props
    }

    pub(super) fn output_schema(&mut self, base: &str, t: &Tool) {
        let Some(schema) = &t.output_schema else {
            return;
        };
        // A derived schema is reported where it is written: in the generated sidecar.
        let sidecar = self
            .l
            .output_schemas
            .as_ref()
            .filter(|f| f.tools.contains(&t.name));
        let report = |v: &mut Self, message: &str, hint: &str| {
            match sidecar {
            Some(f) => v.out.push(f.at_value(
                &key_path(&key_path("", &t.name), "schema"),
                message.into(),
                Some(format!(
                    "{hint}; the file is generated: fix the rule in codegen/tools/src/openapi/output.rs and run `{}`",
                    crate::derived::OUTPUT_SCHEMAS_COMMAND
                )),
            )),
            None => v.value(&key_path(base, "output_schema"), message.into(), Some(hint.into())),
        }
        };
        if schema.get("type").and_then(|v| v.as_str()) != Some("object") {
            report(
                self,
                "the output schema's root is not `type: object`",
                "MCP structured content is a JSON object: `type: object` at the root",
            );
        }
        if serde_json::to_value(schema).is_err() {
            report(
                self,
                "the output schema cannot be expressed as JSON",
                "string keys only",
            );
        }
    }

    pub(super) fn annotations(&mut self, base: &str, t: &Tool) {
        let a = &t.annotations;
        let apath = key_path(base, "annotations");
        let dpath = key_path(&apath, "destructiveHint");
        if a.read_only && a.destructive == Some(true) {
            self.value(
                &dpath,
                "a read-only tool is marked destructive".into(),
                Some("`destructiveHint: false` (or omit it) on a read-only tool, or `readOnlyHint: false`".into()),
            );
        }
        if !a.read_only && a.destructive.is_none() {
            self.key(
                &apath,
                "a tool that is not read-only must say `destructiveHint` explicitly".into(),
                Some("add `destructiveHint: true` (it deletes, cancels, pays or overwrites) or `destructiveHint: false` (it only adds)".into()),
            );
        }
        let destructive = !a.read_only && a.destructive == Some(true);
        let cpath = key_path(base, "destructive_clause");
        match (&t.destructive_clause, destructive) {
            (None, true) => self.key(
                base,
                "a destructive tool has no `destructive_clause`".into(),
                Some("add `destructive_clause:` quoting the product document's clause that makes it destructive".into()),
            ),
            (Some(c), true) if c.trim().is_empty() => self.value(
                &cpath,
                "the destructive clause is empty".into(),
                Some("quote the product document's clause".into()),
            ),
            (Some(_), false) => self.key(
                &cpath,
                "a tool that is not destructive carries a `destructive_clause`".into(),
                Some("remove it, or mark the tool `destructiveHint: true`".into()),
            ),
            _ => {}
        }
    }

    pub(super) fn operation(&mut self, base: &str, t: &Tool, props: &[String]) {
        let Some(op) = &t.operation else {
            return;
        };
        let opath = key_path(base, "operation");
        let needs_record = !matches!(op.kind, OperationKind::Custom | OperationKind::WhoAmI);
        if op.kind == OperationKind::WhoAmI && (op.record.is_some() || op.id_arg.is_some()) {
            self.key(
                &opath,
                "a `who_am_i` operation answers the caller's identity: it takes no `record` or `id_arg`".into(),
                Some("remove `record:` and `id_arg:`".into()),
            );
        }
        let needs_id = matches!(
            op.kind,
            OperationKind::Get | OperationKind::Update | OperationKind::Delete
        );
        let mut record_ok = false;
        match &op.record {
            Some(r) => record_ok = self.record_ref(&key_path(&opath, "record"), r),
            None if needs_record => self.key(
                &opath,
                format!("a `{:?}` operation names no `record`", op.kind).to_lowercase(),
                Some("`record: <key of records>`".into()),
            ),
            None => {}
        }
        match &op.id_arg {
            Some(a) if !props.contains(a) => self.value(
                &key_path(&opath, "id_arg"),
                format!("`{a}` is not an argument of the tool"),
                Some(format!(
                    "a property of input_schema: {}",
                    one_of(&props.iter().map(String::as_str).collect::<Vec<_>>())
                )),
            ),
            Some(_) if matches!(op.kind, OperationKind::Singleton | OperationKind::Latest) => self
                .key(
                &key_path(&opath, "id_arg"),
                "a `singleton` operation reads its record without an id, so it takes no `id_arg`"
                    .into(),
                Some("remove `id_arg`, or use `kind: get` to read a record by id".into()),
            ),
            None if needs_id => self.key(
                &opath,
                format!("a `{:?}` operation names no `id_arg`", op.kind).to_lowercase(),
                Some("`id_arg: <the argument carrying the record id>`".into()),
            ),
            _ => {}
        }
        if let Some(w) = &op.where_ {
            if op.kind != OperationKind::Get || w.len() != 1 {
                self.key(
                    &key_path(&opath, "where"),
                    "`where:` takes one `field: value` on a `get` operation".into(),
                    Some("`kind: get` with `where: {kind: darf}`".into()),
                );
            }
            if let (Some(rname), Some((f, _))) = (&op.record, w.iter().next()) {
                if let Some(rec) = self.l.catalog.records.get(rname) {
                    if !rec.fields.contains_key(f) {
                        self.key(
                            &key_path(&key_path(&opath, "where"), f),
                            format!("`{f}` is not a field of `{rname}`"),
                            None,
                        );
                    }
                }
            }
        }
        if op.days.is_some() && op.kind != OperationKind::Summary {
            self.key(
                &key_path(&opath, "days"),
                "`days:` on an operation whose kind is not `summary`".into(),
                Some("`kind: summary`, or remove `days:`".into()),
            );
        }
        match (&op.grouping, op.kind) {
            (None, OperationKind::GroupedTotals) => self.key(
                &opath,
                "a `grouped_totals` operation has no `grouping:`".into(),
                Some(
                    "`grouping: {date_field: <date field>, amount_field: <signed amount field>}`"
                        .into(),
                ),
            ),
            (Some(_), k) if k != OperationKind::GroupedTotals => self.key(
                &key_path(&opath, "grouping"),
                "`grouping:` on an operation whose kind is not `grouped_totals`".into(),
                Some("`kind: grouped_totals`, or remove `grouping:`".into()),
            ),
            (Some(g), _) => {
                if let Some(rec) = op
                    .record
                    .as_ref()
                    .and_then(|r| self.l.catalog.records.get(r))
                {
                    let gpath = key_path(&opath, "grouping");
                    for (key, field) in [
                        ("date_field", &g.date_field),
                        ("amount_field", &g.amount_field),
                    ] {
                        if !rec.fields.contains_key(field) {
                            self.key(
                                &key_path(&gpath, key),
                                format!(
                                    "`{field}` is not a field of `{}`",
                                    op.record.as_deref().unwrap_or_default()
                                ),
                                None,
                            );
                        }
                    }
                    for dim in g.default_by.split(',').map(str::trim) {
                        if !["day", "week", "month"].contains(&dim) && !rec.fields.contains_key(dim)
                        {
                            self.key(
                                &key_path(&gpath, "default_by"),
                                format!("`{dim}` is neither `day`, `week`, `month` nor a field of the record"),
                                None,
                            );
                        }
                    }
                }
            }
            _ => {}
        }
        match (&op.action, op.kind) {
            (None, OperationKind::Action) => self.key(
                &opath,
                "an `action` operation has no `action:`".into(),
                Some("`action: {name, from: [..], set: {status: ..}}`".into()),
            ),
            (Some(_), k) if k != OperationKind::Action => self.key(
                &key_path(&opath, "action"),
                "`action:` on an operation whose kind is not `action`".into(),
                Some("`kind: action`, or remove `action:`".into()),
            ),
            (Some(a), _) => {
                let apath = key_path(&opath, "action");
                if let (true, Some(rname)) = (record_ok, &op.record) {
                    let rec = &self.l.catalog.records[rname];
                    let known = |f: &str| rec.fields.contains_key(f);
                    let field_hint = format!(
                        "a field of `{rname}`: {}",
                        one_of(&rec.fields.keys().map(String::as_str).collect::<Vec<_>>())
                    );
                    if !known(&a.state_field) {
                        self.value(
                            &key_path(&apath, "state_field"),
                            format!("`{}` is not a field of `{rname}`", a.state_field),
                            Some(field_hint.clone()),
                        );
                    }
                    for k in a.set.keys() {
                        if !known(k) {
                            self.key(
                                &key_path(&key_path(&apath, "set"), k),
                                format!("`{k}` is not a field of `{rname}`"),
                                Some(field_hint.clone()),
                            );
                        }
                    }
                    if let Some(state) = rec.fields.get(&a.state_field) {
                        if !state.enum_values.is_empty() {
                            for (j, from) in a.from.iter().enumerate() {
                                if !state.enum_values.contains(from) {
                                    self.value(
                                        &index_path(&key_path(&apath, "from"), j),
                                        format!(
                                            "`{from}` is not a value of `{rname}.{}`",
                                            a.state_field
                                        ),
                                        Some(one_of(
                                            &state
                                                .enum_values
                                                .iter()
                                                .map(String::as_str)
                                                .collect::<Vec<_>>(),
                                        )),
                                    );
                                }
                            }
                        }
                    }
                }
                if a.set.is_empty() && a.add.is_none() && a.remove.is_none() && a.creates.is_none()
                {
                    self.key(
                        &key_path(&apath, "set"),
                        "an action that sets nothing, edits no list and creates nothing".into(),
                        Some(
                            "e.g. `set: {status: canceled}`, or `add: {field: <array field>, from_arg: <argument>}`"
                                .into(),
                        ),
                    );
                }
                for (key, edit) in [("add", &a.add), ("remove", &a.remove)] {
                    if let Some(edit) = edit {
                        let rec = op
                            .record
                            .as_ref()
                            .filter(|_| record_ok)
                            .map(|r| (r, &self.l.catalog.records[r]));
                        self.list_edit(&key_path(&apath, key), edit, rec, props);
                    }
                }
                if let Some(c) = &a.creates {
                    self.record_ref(&key_path(&apath, "creates"), c);
                }
            }
            _ => {}
        }
    }

    /// An action's `add:` / `remove:`: the field is an array field of the record, the argument a
    /// property of the tool's input schema.
    pub(super) fn list_edit(
        &mut self,
        path: &str,
        edit: &ListEdit,
        record: Option<(&String, &RecordType)>,
        props: &[String],
    ) {
        if let Some((rname, rec)) = record {
            let arrays: Vec<&str> = rec
                .fields
                .iter()
                .filter(|(_, f)| f.ty == "array")
                .map(|(n, _)| n.as_str())
                .collect();
            let hint = if arrays.is_empty() {
                format!("`{rname}` has no field of type `array`")
            } else {
                format!("an array field of `{rname}`: {}", one_of(&arrays))
            };
            match rec.fields.get(&edit.field) {
                None => self.value(
                    &key_path(path, "field"),
                    format!("`{}` is not a field of `{rname}`", edit.field),
                    Some(hint),
                ),
                Some(f) if f.ty != "array" => self.value(
                    &key_path(path, "field"),
                    format!(
                        "`{rname}.{}` is of type `{}`, not `array`: only a list can be added to or removed from",
                        edit.field, f.ty
                    ),
                    Some(hint),
                ),
                Some(_) => {}
            }
        }
        if !props.contains(&edit.from_arg) {
            self.value(
                &key_path(path, "from_arg"),
                format!("`{}` is not an argument of the tool", edit.from_arg),
                Some(format!(
                    "a property of input_schema: {}",
                    one_of(&props.iter().map(String::as_str).collect::<Vec<_>>())
                )),
            );
        }
    }
}
