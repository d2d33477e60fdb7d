//! The `completions` section: named completion sources.

use super::grammar::one_of;
use super::json_schema::is_list_tool;
use super::Validator;
use crate::locate::key_path;
use crate::model::CompletionSource;

impl<'a> Validator<'a> {
    pub(super) fn completions(&mut self) {
        let cat = &self.l.catalog;
        for (id, c) in &cat.completions {
            let base = key_path("completions", id);
            match c {
                CompletionSource::ListIds(l) => {
                    let lbase = key_path(&base, "list_ids");
                    let tpath = key_path(&lbase, "tool");
                    if let Some(t) = self.tool_ref(&tpath, &l.tool, "a `list_ids` source") {
                        if !is_list_tool(t) {
                            self.value(
                                &tpath,
                                format!("`{}` is not a list tool", l.tool),
                                Some("a completion source reads ids from a tool with `operation: {kind: list}` or a name ending in `_list`".into()),
                            );
                        }
                        let declared = super::json_schema::schema_properties(&t.input_schema);
                        for name in l.args.keys() {
                            if !declared.contains(name) {
                                self.value(
                                    &key_path(&key_path(&lbase, "args"), name),
                                    format!("`{name}` is not an argument of `{}`", l.tool),
                                    Some(format!(
                                        "one of {}",
                                        one_of(
                                            &declared
                                                .iter()
                                                .map(String::as_str)
                                                .collect::<Vec<_>>()
                                        )
                                    )),
                                );
                            }
                        }
                        let record = t.operation.as_ref().and_then(|o| o.record.as_ref());
                        if let Some(rec) = record.and_then(|r| cat.records.get(r)) {
                            if !rec.fields.contains_key(&l.field) {
                                self.value(
                                    &key_path(&lbase, "field"),
                                    format!("`{}` is not a field of the listed record", l.field),
                                    Some(format!(
                                        "one of {}",
                                        one_of(
                                            &rec.fields
                                                .keys()
                                                .map(String::as_str)
                                                .collect::<Vec<_>>()
                                        )
                                    )),
                                );
                            }
                        }
                    }
                    if l.limit == 0 || l.limit > 100 {
                        self.value(
                            &key_path(&lbase, "limit"),
                            format!("limit {} is out of range", l.limit),
                            Some("1 to 100 (MCP completions return at most 100 values)".into()),
                        );
                    }
                }
                CompletionSource::Fixed(values) if values.is_empty() => self.value(
                    &base,
                    "a fixed completion source with no values".into(),
                    Some("`{fixed: [a, b]}` with at least one value, or `none`".into()),
                ),
                CompletionSource::LastMonths(0) | CompletionSource::TodayAndMonthStarts(0) => self
                    .value(
                        &base,
                        "a month count of 0 suggests nothing".into(),
                        Some("a positive number of months".into()),
                    ),
                _ => {}
            }
        }
    }
}
