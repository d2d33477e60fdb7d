//! Tool names that fit the name budget ([`crate::names`]), and aliases (former names
//! `tools/call` still accepts).

use std::collections::HashMap;

use super::grammar::{is_snake_name, MAX_TOOL_NAME};
use super::Validator;
use crate::locate::{index_path, key_path};

impl Validator<'_> {
    pub(super) fn names(&mut self) {
        let cat = &self.l.catalog;
        let budget = crate::names::budget(self.l);
        let documented = crate::names::documented(self.l);
        let mut taken: HashMap<&str, String> = cat
            .tools
            .iter()
            .map(|t| (t.name.as_str(), format!("the name of tool `{}`", t.name)))
            .collect();
        for (i, t) in cat.tools.iter().enumerate() {
            let base = index_path("tools", i);
            let len = t.name.chars().count();
            if len > budget && len <= MAX_TOOL_NAME && !documented.contains(&t.name) {
                self.value(
                    &key_path(&base, "name"),
                    format!(
                        "tool name `{}` is {len} characters, over the name budget of {budget}",
                        t.name
                    ),
                    Some(
                        "shorten it and keep the old name under `aliases:` (clients that saved \
                         it still call it); names the product documents write keep their length; \
                         or set product.tool_name_budget"
                            .into(),
                    ),
                );
            }
            for (j, a) in t.aliases.iter().enumerate() {
                let path = index_path(&key_path(&base, "aliases"), j);
                if !is_snake_name(a)
                    || a.len() > MAX_TOOL_NAME
                    || !a.starts_with(cat.product.tool_prefix.as_str())
                {
                    self.value(
                        &path,
                        format!("alias `{a}` is not a valid tool name"),
                        Some(format!(
                            "[a-z0-9_], at most {MAX_TOOL_NAME} characters, starting with `{}`",
                            cat.product.tool_prefix
                        )),
                    );
                }
                if let Some(first) = taken.insert(a.as_str(), format!("an alias of `{}`", t.name)) {
                    self.value(
                        &path,
                        format!("alias `{a}` is already {first}"),
                        Some("a name calls one tool".into()),
                    );
                }
            }
        }
    }
}
