//! The listing gate: every tool descriptor the generator would emit passes the portability lint
//! ([`runtime_model::schema_lint`]), so a catalog edit cannot bring back a schema that the
//! Inspector or a strict model provider flags.

use runtime_model::schema_lint;

use super::Validator;
use crate::descriptors;
use crate::locate::{index_path, key_path};

impl Validator<'_> {
    pub(super) fn listing(&mut self) {
        let cat = &self.l.catalog;
        // A fixture catalog lists its schemas verbatim, to exercise the protocol (`Plan`).
        if cat.product.fixture {
            return;
        }
        let plan = descriptors::Plan::of(cat);
        for (i, t) in cat.tools.iter().enumerate() {
            let descriptor = descriptors::tool_with(cat, t, &plan);
            for f in schema_lint::lint_tool(&descriptor) {
                let key = match f.kind {
                    schema_lint::SchemaKind::Input => "input_schema",
                    schema_lint::SchemaKind::Output => "output_schema",
                };
                self.value(
                    &key_path(&index_path("tools", i), key),
                    format!(
                        "as listed, the schema is not portable: {} at `{}`: {}",
                        f.rule,
                        if f.pointer.is_empty() { "/" } else { &f.pointer },
                        f.message
                    ),
                    Some(
                        "give every property a `type` (a nullable one as `type: [X, \"null\"]`), \
                         arrays their `items`, and no `$ref` (see catalog/README.md, Portable schemas)"
                            .into(),
                    ),
                );
            }
        }
    }
}
