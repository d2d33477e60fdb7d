//! The `toolsets` section: names, entries that match, every tool covered, sizes that fit the
//! clients, a default selection that serves the product's prompts, and the discovery tools'
//! reserved names.

use std::collections::HashMap;

use runtime_model::selection::{discovery_tool_names, RESERVED};

use super::Validator;
use crate::descriptors::sorted_tools;
use crate::locate::{index_path, key_path};
use crate::toolsets::{
    default_selection, entry_matches, resolve, MAX_DEFAULT_TOOLS, MAX_TOOLSET_TOOLS,
};

impl<'a> Validator<'a> {
    pub(super) fn toolsets(&mut self) {
        let cat = &self.l.catalog;
        let reserved_tools = discovery_tool_names(&cat.product.tool_prefix);
        for (i, t) in cat.tools.iter().enumerate() {
            if reserved_tools.contains(&t.name) {
                self.value(
                    &key_path(&index_path("tools", i), "name"),
                    format!("`{}` is the name of a discovery tool", t.name),
                    Some(format!(
                        "another name: {} are served by the runtime in discovery mode",
                        reserved_tools.join(", ")
                    )),
                );
            }
        }
        if cat.toolsets.is_empty() {
            if !cat.tools.is_empty() && !cat.product.fixture {
                self.key(
                    "tools",
                    "the product declares no `toolsets`".into(),
                    Some("declare `toolsets:` (name, title, description, tools, default) covering every tool".into()),
                );
            }
            return;
        }
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, ts) in cat.toolsets.iter().enumerate() {
            let base = index_path("toolsets", i);
            let npath = key_path(&base, "name");
            if let Some(first) = seen.insert(&ts.name, i) {
                self.value(
                    &npath,
                    format!(
                        "duplicate toolset `{}` (first at toolsets[{first}])",
                        ts.name
                    ),
                    Some("every toolset name is unique within a product".into()),
                );
            }
            if RESERVED.contains(&ts.name.as_str()) {
                self.value(
                    &npath,
                    format!("`{}` is a built-in selection name", ts.name),
                    Some(format!("any name but {}", RESERVED.join(", "))),
                );
            }
            let valid = ts
                .name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_lowercase())
                && ts
                    .name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if !valid {
                self.value(
                    &npath,
                    format!("`{}` cannot name a toolset", ts.name),
                    Some("`[a-z][a-z0-9_]*`".into()),
                );
            }
            for (j, entry) in ts.tools.iter().enumerate() {
                if !cat.tools.iter().any(|t| entry_matches(entry, t)) {
                    self.value(
                        &index_path(&key_path(&base, "tools"), j),
                        format!("`{entry}` matches no tool"),
                        Some("a tool name, a glob over names (`*`, `?`), `scope:<glob>`, `read_only`, `write` or `destructive`".into()),
                    );
                }
            }
        }
        let sets = resolve(cat);
        for (i, (ts, set)) in cat.toolsets.iter().zip(&sets).enumerate() {
            if set.len() > MAX_TOOLSET_TOOLS {
                self.key(
                    &key_path(&index_path("toolsets", i), "tools"),
                    format!(
                        "toolset `{}` has {} tools, more than {MAX_TOOLSET_TOOLS}",
                        ts.name,
                        set.len()
                    ),
                    Some(
                        "split it: VS Code / Copilot and the OpenAI API refuse more than 128 tools"
                            .into(),
                    ),
                );
            }
        }
        let sorted = sorted_tools(cat);
        for (i, t) in sorted.iter().enumerate() {
            if !sets.iter().any(|s| s.contains(&i)) {
                let at = cat.tools.iter().position(|x| x.name == t.name).unwrap_or(0);
                self.key(
                    &key_path(&index_path("tools", at), "name"),
                    format!("tool `{}` is in no toolset", t.name),
                    Some("add it (by name, pattern or tag) to a toolset's `tools`".into()),
                );
            }
        }
        let default = default_selection(cat);
        if default.is_empty() {
            self.key(
                "toolsets",
                "no toolset has `default: true`".into(),
                Some("mark the toolsets a client gets when it names none".into()),
            );
        }
        if default.len() > MAX_DEFAULT_TOOLS {
            self.key(
                "toolsets",
                format!(
                    "the default selection has {} tools, more than {MAX_DEFAULT_TOOLS}",
                    default.len()
                ),
                Some("fewer `default: true` toolsets: Cursor sends only the first 40 tools".into()),
            );
        }
        for (i, p) in cat.prompts.iter().enumerate() {
            for (j, u) in p.uses.iter().enumerate() {
                let in_default = sorted
                    .iter()
                    .position(|t| &t.name == u)
                    .is_some_and(|k| default.contains(&k));
                if !in_default && cat.tools.iter().any(|t| &t.name == u) {
                    self.value(
                        &index_path(&key_path(&index_path("prompts", i), "uses"), j),
                        format!(
                            "prompt `{}` uses `{u}`, which is in no default toolset",
                            p.name
                        ),
                        Some("the default selection serves every prompt: add the tool to a `default: true` toolset".into()),
                    );
                }
            }
        }
    }
}
