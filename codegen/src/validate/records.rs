//! The `records` section, and the record types that `singleton` tools read.

use super::grammar::{check_seed, is_identifier, one_of, FIELD_TYPES, SEED_HINT};
use super::Validator;
use crate::locate::{index_path, key_path};
use crate::model::{OperationKind, Tool};

impl<'a> Validator<'a> {
    pub(super) fn records(&mut self) {
        let records = &self.l.catalog.records;
        for (name, r) in records {
            let base = key_path("records", name);
            if !is_identifier(name) {
                self.key(
                    &base,
                    format!("`{name}` cannot name a record type"),
                    Some("lowercase letters, digits and `_`, starting with a letter".into()),
                );
            }
            if !r.fields.contains_key(&r.id_field) {
                self.value(
                    &key_path(&base, "id_field"),
                    format!(
                        "the id field `{}` is not among the record's fields",
                        r.id_field
                    ),
                    Some(format!(
                        "declare `{}` under `fields:`, or set `id_field` to one of {}",
                        r.id_field,
                        one_of(&r.fields.keys().map(String::as_str).collect::<Vec<_>>())
                    )),
                );
            }
            for (fname, f) in &r.fields {
                let fpath = key_path(&key_path(&base, "fields"), fname);
                if !FIELD_TYPES.contains(&f.ty.as_str()) {
                    self.value(
                        &key_path(&fpath, "type"),
                        format!("`{}` is not a field type", f.ty),
                        Some(one_of(FIELD_TYPES)),
                    );
                }
                if !f.seed.is_empty() {
                    if let Err(why) = check_seed(&f.seed, !f.enum_values.is_empty(), r, records) {
                        self.value(&key_path(&fpath, "seed"), why, Some(SEED_HINT.into()));
                    }
                }
            }
        }
    }

    /// A record type addressed by another record's uid while carrying a `uid` of its own
    /// ([`crate::owner_key`]) names its owner and the tool listing it, and every URI template
    /// reading it says in its `limitation` which uid its address takes (the docs show it beside
    /// the template; the runtime's not-found answer says it to the caller).
    pub(super) fn owner_keyed(&mut self) {
        let cat = &self.l.catalog;
        let mut keyed = Vec::new();
        for (name, r) in &cat.records {
            match crate::owner_key::derive(cat, r) {
                Ok(Some(_)) => keyed.push(name.as_str()),
                Ok(None) => {}
                Err(why) => self.value(
                    &key_path(&key_path("records", name), "id_field"),
                    why,
                    Some(
                        "seed the id field `ref:<record>` with a record type some `list` tool lists, or address the record by its own `uid`"
                            .into(),
                    ),
                ),
            }
        }
        for (i, t) in cat.templates.iter().enumerate() {
            let record = cat
                .tools
                .iter()
                .find(|tool| tool.name == t.read_by)
                .and_then(|tool| tool.operation.as_ref())
                .and_then(|o| o.record.as_deref());
            let Some(record) = record.filter(|r| keyed.contains(r)) else {
                continue;
            };
            if t.limitation.as_deref().is_none_or(str::is_empty) {
                self.key(
                    &index_path("templates", i),
                    format!(
                        "`{}` reads `{record}` records, which are addressed by their owner's uid while carrying a `uid` of their own, but has no `limitation`",
                        t.uri_template
                    ),
                    Some("say in `limitation:` which uid the address takes, and where a caller finds it".into()),
                );
            }
        }
    }

    /// A record type read by a `singleton` operation holds exactly one record per scope: it is
    /// seeded with one (`seed_count: 1`), and no tool lists, creates or deletes records of it.
    pub(super) fn singletons(&mut self) {
        let cat = &self.l.catalog;
        let ops: Vec<(usize, &Tool, &crate::model::Operation)> = cat
            .tools
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.operation.as_ref().map(|o| (i, t, o)))
            .collect();
        for (_, single, op) in ops
            .iter()
            .filter(|(_, _, o)| o.kind == OperationKind::Singleton)
        {
            let Some(rname) = &op.record else { continue };
            let Some(rec) = cat.records.get(rname) else {
                continue;
            };
            if rec.seed_count != 1 {
                // At the key: when `seed_count` is left out (default 30), this is the record type.
                self.key(
                    &key_path(&key_path("records", rname), "seed_count"),
                    format!(
                        "`{rname}` is read by the singleton tool `{}` but seeds {} records",
                        single.name, rec.seed_count
                    ),
                    Some("a singleton type holds exactly one record: `seed_count: 1`".into()),
                );
            }
            for (j, other, oop) in &ops {
                let breaks = matches!(
                    oop.kind,
                    OperationKind::List | OperationKind::Create | OperationKind::Delete
                );
                if breaks && oop.record.as_deref() == Some(rname.as_str()) {
                    self.value(
                        &key_path(&key_path(&index_path("tools", *j), "operation"), "kind"),
                        format!(
                            "`{}` {}s `{rname}`, which the singleton tool `{}` reads as the one record of its type",
                            other.name,
                            format!("{:?}", oop.kind).to_lowercase(),
                            single.name
                        ),
                        Some(format!(
                            "read `{rname}` with `kind: singleton`; update it with `kind: update` or an action"
                        )),
                    );
                }
            }
        }
    }
}
