//! The `prompts` section: names, the tools a prompt uses, arguments, and the message template.

use std::collections::{BTreeSet, HashMap};

use super::grammar::{check_default, check_default_format, one_of, DEFAULT_HINT};
use super::Validator;
use crate::diag::Diagnostic;
use crate::locate::{index_path, key_path};

impl<'a> Validator<'a> {
    pub(super) fn prompts(&mut self) {
        let cat = &self.l.catalog;
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, p) in cat.prompts.iter().enumerate() {
            let base = index_path("prompts", i);
            let npath = key_path(&base, "name");
            if let Some(first) = seen.insert(&p.name, i) {
                self.value(
                    &npath,
                    format!(
                        "duplicate prompt name `{}` (first defined at prompts[{first}])",
                        p.name
                    ),
                    Some("every prompt name is unique within a product".into()),
                );
            }
            if p.name.is_empty()
                || !p
                    .name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                self.value(
                    &npath,
                    format!("`{}` cannot name a prompt", p.name),
                    Some("ASCII letters, digits, `_` and `-`".into()),
                );
            }
            let mut writing_tools = Vec::new();
            for (j, u) in p.uses.iter().enumerate() {
                let upath = index_path(&key_path(&base, "uses"), j);
                if let Some(t) = self.tool_ref(&upath, u, "`uses`") {
                    if !t.annotations.read_only {
                        writing_tools.push(u.as_str());
                        if !p.writes {
                            self.value(
                                &upath,
                                format!("the prompt has `writes: false` but relies on `{u}`, which is not read-only"),
                                Some("set `writes: true`, or use only read-only tools".into()),
                            );
                        }
                    }
                }
            }
            if p.writes && writing_tools.is_empty() && !p.uses.is_empty() {
                self.value(
                    &key_path(&base, "writes"),
                    "the prompt has `writes: true` but every tool it uses is read-only".into(),
                    Some("`writes: false`, or list the writing tool in `uses`".into()),
                );
            }
            let mut arg_names = BTreeSet::new();
            for (j, a) in p.arguments.iter().enumerate() {
                let apath = index_path(&key_path(&base, "arguments"), j);
                if !arg_names.insert(a.name.as_str()) {
                    self.value(
                        &key_path(&apath, "name"),
                        format!("duplicate argument `{}`", a.name),
                        Some("argument names are unique within a prompt".into()),
                    );
                }
                if a.required && a.default.is_some() {
                    self.key(
                        &key_path(&apath, "default"),
                        "a required argument has a default, which is never used".into(),
                        Some("`required: false` with the default, or remove `default`".into()),
                    );
                }
                if let Some(d) = &a.default {
                    if let Err(why) =
                        check_default(d).and_then(|_| check_default_format(d, a.format))
                    {
                        self.value(&key_path(&apath, "default"), why, Some(DEFAULT_HINT.into()));
                    }
                }
                if let Some(c) = &a.complete {
                    self.completion_ref(&key_path(&apath, "complete"), c);
                }
            }
            self.prompt_template(&base, &p.template, &arg_names);
        }
    }

    /// The prompt's message template compiles and uses only its arguments and `today`.
    /// Positions point at the template line in the file: a block scalar's value starts on the
    /// line of its first template line.
    pub(super) fn prompt_template(
        &mut self,
        base: &str,
        template: &str,
        arg_names: &BTreeSet<&str>,
    ) {
        let tpath = key_path(base, "template");
        // Positions are looked up only when there is a problem (the index is built lazily).
        let l = self.l;
        let at_line = |line_in_template: usize| -> crate::locate::Pos {
            let start = l.index().value(&tpath);
            crate::locate::Pos {
                line: start.line + line_in_template.saturating_sub(1),
                column: start.column,
            }
        };
        let env = minijinja::Environment::new();
        match env.template_from_str(template) {
            Err(e) => {
                let pos = at_line(e.line().unwrap_or(1));
                self.out.push(Diagnostic {
                    line: pos.line,
                    column: pos.column,
                    ..self.l.at_value(
                        &tpath,
                        format!(
                            "the template does not compile: {} (template line {})",
                            e.detail().unwrap_or("syntax error"),
                            e.line().unwrap_or(0)
                        ),
                        Some(
                            "minijinja (Jinja2) syntax: `{{ variable }}`, `{% if … %}…{% endif %}`"
                                .into(),
                        ),
                    )
                });
            }
            Ok(tpl) => {
                let mut unknown: Vec<String> = tpl
                    .undeclared_variables(false)
                    .into_iter()
                    .filter(|v| {
                        !arg_names.contains(v.as_str())
                            && !PROMPT_GLOBALS.contains(&v.as_str())
                            && !JINJA_BUILTINS.contains(&v.as_str())
                    })
                    .collect();
                unknown.sort();
                for v in unknown {
                    let line = template
                        .lines()
                        .position(|l| l.contains(v.as_str()))
                        .map(|i| i + 1)
                        .unwrap_or(1);
                    let pos = at_line(line);
                    let valid = arg_names
                        .iter()
                        .copied()
                        .chain(PROMPT_GLOBALS.iter().copied())
                        .collect::<Vec<_>>();
                    self.out.push(Diagnostic {
                        line: pos.line,
                        column: pos.column,
                        ..self.l.at_value(
                            &tpath,
                            format!(
                                "the template uses `{v}`, which is neither an argument nor `today`"
                            ),
                            Some(format!("one of {}", one_of(&valid))),
                        )
                    });
                }
            }
        }
    }
}

/// Variables every prompt template receives besides its arguments.
const PROMPT_GLOBALS: &[&str] = &["today"];
/// minijinja's own global functions, which `undeclared_variables` reports too.
const JINJA_BUILTINS: &[&str] = &[
    "range",
    "dict",
    "namespace",
    "debug",
    "lipsum",
    "cycler",
    "joiner",
    "loop",
    "self",
];
