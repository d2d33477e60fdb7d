//! The `exclusions` section: API operations deliberately not offered as tools.

use std::collections::{BTreeMap, BTreeSet};

use super::grammar::HTTP_METHODS;
use super::Validator;
use crate::locate::{index_path, key_path};

impl<'a> Validator<'a> {
    pub(super) fn exclusions(&mut self) {
        let cat = &self.l.catalog;
        let bound: BTreeMap<String, &str> = cat
            .tools
            .iter()
            .filter_map(|t| {
                t.http
                    .as_ref()
                    .map(|h| (format!("{} {}", h.method, h.path), t.name.as_str()))
            })
            .collect();
        let mut seen = BTreeSet::new();
        for (i, e) in cat.exclusions.iter().enumerate() {
            let base = index_path("exclusions", i);
            let opath = key_path(&base, "operation");
            let well_formed = e
                .operation
                .split_once(' ')
                .is_some_and(|(m, p)| HTTP_METHODS.contains(&m) && p.starts_with('/'));
            if !well_formed {
                self.value(
                    &opath,
                    format!("`{}` is not an operation", e.operation),
                    Some("`METHOD /path`, e.g. `GET /v1/userinfo`".into()),
                );
            }
            if !seen.insert(e.operation.as_str()) {
                self.value(&opath, format!("`{}` is excluded twice", e.operation), None);
            }
            if let Some(tool) = bound.get(&e.operation) {
                self.value(
                    &opath,
                    format!(
                        "`{}` is excluded but the tool `{tool}` binds it",
                        e.operation
                    ),
                    Some("remove the exclusion, or the tool".into()),
                );
            }
            if e.reason.trim().is_empty() {
                self.value(
                    &key_path(&base, "reason"),
                    "an exclusion needs its reason".into(),
                    None,
                );
            }
        }
    }
}
