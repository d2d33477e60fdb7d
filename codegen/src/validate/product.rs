//! The `product` and `policies` sections.

use std::collections::BTreeSet;

use super::grammar::{is_identifier, is_snake_name, one_of, DECLINE_CODES, RUST_KEYWORDS};
use super::Validator;
use crate::locate::index_path;
use crate::model::ResourcesList;

impl<'a> Validator<'a> {
    pub(super) fn product(&mut self) {
        let p = &self.l.catalog.product;
        let src = &self.l.source;
        if !is_identifier(&p.name) || RUST_KEYWORDS.contains(&p.name.as_str()) {
            self.value(
                "product.name",
                format!("`{}` cannot name a product", p.name),
                Some("lowercase letters, digits and `_`, starting with a letter, not a Rust keyword (it becomes the module `generated::<name>`)".into()),
            );
        }
        if p.name != src.stem {
            self.value(
                "product.name",
                format!(
                    "the product is named `{}` but its file is `{}`",
                    p.name, src.display
                ),
                Some(format!(
                    "name the file `{}.yaml`, or the product `{}`",
                    p.name, src.stem
                )),
            );
        }
        if runtime_model::locale::Locale::from_tag(&p.locale).is_none()
            || p.locale
                != runtime_model::locale::Locale::from_tag(&p.locale).map_or("", |l| l.tag())
        {
            self.value(
                "product.locale",
                format!("`{}` is not a locale of the products", p.locale),
                Some("`pt-BR`, `es` or `en`: the language of the product's document".into()),
            );
        }
        let kobana = crate::rust::PRODUCT_ORDER.contains(&p.name.as_str());
        // Asked of the YAML value: the position index is built only for a catalog with problems.
        let says_locale = self
            .l
            .value
            .get("product")
            .and_then(|v| v.get("locale"))
            .is_some();
        if kobana && !says_locale {
            self.key(
                "product",
                format!("product `{}` does not say the language of its document", p.name),
                Some("add `locale: pt-BR` or `locale: es` (every text is then checked in pt-BR, es and en; see catalog/README.md)".into()),
            );
        }
        if p.fixture != src.in_fixtures {
            let hint = if src.in_fixtures {
                "files under catalog/fixtures/ are test products: set `fixture: true`"
            } else {
                "a test product lives under catalog/fixtures/; a catalog/*.yaml product has `fixture: false` (the default)"
            };
            self.key(
                "product.fixture",
                format!("`fixture: {}` does not match where the file is", p.fixture),
                Some(hint.into()),
            );
        }
        for (path, val) in [
            ("product.title", &p.title),
            ("product.version", &p.version),
            ("product.naming", &p.naming),
        ] {
            if val.trim().is_empty() {
                self.value(path, "must not be empty".into(), None);
            }
        }
        let prefix_ok = p.uri_prefix.contains("://")
            && p.uri_prefix.ends_with('/')
            && !p.uri_prefix.contains('{');
        if !prefix_ok {
            self.value(
                "product.uri_prefix",
                format!("`{}` is not a URI prefix", p.uri_prefix),
                Some(format!(
                    "a scheme, `://`, and a trailing `/`, e.g. `kobana://{}/`",
                    p.name
                )),
            );
        }
        if !(p.api_base_url.starts_with("https://") || p.api_base_url.starts_with("http://")) {
            self.value(
                "product.api_base_url",
                format!("`{}` is not an http(s) URL", p.api_base_url),
                Some("e.g. `https://api.kobana.com.br`".into()),
            );
        }
        if !p.tool_prefix.is_empty() && !is_snake_name(&p.tool_prefix) {
            self.value(
                "product.tool_prefix",
                format!("`{}` cannot start tool names", p.tool_prefix),
                Some("lowercase letters, digits and `_`".into()),
            );
        }
    }

    pub(super) fn policies(&mut self) {
        let p = &self.l.catalog.policies;
        if !DECLINE_CODES.contains(&p.decline_code.as_str()) {
            self.value(
                "policies.decline_code",
                format!("`{}` is not a decline code", p.decline_code),
                Some(one_of(DECLINE_CODES)),
            );
        }
        if p.confirmation_binds.is_empty() {
            self.value(
                "policies.confirmation_binds",
                "a confirmation must be bound to at least one identity field".into(),
                Some("a list of `person`, `organization`, `workspace`".into()),
            );
        }
        let mut seen = BTreeSet::new();
        for (i, b) in p.confirmation_binds.iter().enumerate() {
            if !seen.insert(*b) {
                self.value(
                    &index_path("policies.confirmation_binds", i),
                    format!("`{b:?}` is listed twice").to_lowercase(),
                    Some("list each of `person`, `organization`, `workspace` at most once".into()),
                );
            }
            if *b == crate::model::BindField::Workspace && !p.workspaced {
                self.value(
                    &index_path("policies.confirmation_binds", i),
                    "a confirmation is bound to the workspace, but the product is not workspaced"
                        .into(),
                    Some(
                        "set `policies.workspaced: true`, or bind to `person`/`organization` only"
                            .into(),
                    ),
                );
            }
        }
        if p.confirmation_ttl_seconds == 0 {
            self.value(
                "policies.confirmation_ttl_seconds",
                "a confirmation must live more than 0 seconds".into(),
                Some("a positive number of seconds, e.g. 300".into()),
            );
        }
        if p.resources_list == ResourcesList::Recent(0) {
            self.value(
                "policies.resources_list",
                "`recent: 0` lists nothing".into(),
                Some("`fixed`, or `{recent: N}` with N > 0".into()),
            );
        }
    }
}
