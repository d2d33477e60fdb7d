//! The catalog's `confirmation:` section: what a person recognises each record type by, shown in
//! the question before a destructive tool runs, and the states each action cannot leave.
//!
//! ```yaml
//! confirmation:
//!   values:                      # labels of documented values, shared by the record types
//!     canceled: {en: Cancelled, pt-BR: Cancelado, es: Cancelado}
//!   records:
//!     charge_bank_billets:
//!       facts:
//!         - {field: amount, kind: money, label: {en: Amount, pt-BR: Valor, es: Importe}}
//!         - {field: status, kind: status, label: {en: Status, pt-BR: Situação, es: Estado}}
//!       terminal: {cancel: [canceled, paid]}
//! ```
//!
//! Its own section (its format in `crate::model`, beside the rest; its checks and Rust output
//! here) so that it is declared once per
//! record type and stays apart from the record's storage fields. The generator refuses a
//! destructive tool whose record type declares no facts: a question without them asks a person
//! to approve an id. Compiled into `runtime_model::record_facts`.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::quote;

use crate::diag::Diagnostic;
use crate::load::Loaded;
use crate::locate::{index_path, key_path};
use crate::model::{Catalog, FactKind, OperationKind, Words};

impl Words {
    /// The label in `locale`.
    pub fn get(&self, locale: runtime_model::locale::Locale) -> Option<&str> {
        use runtime_model::locale::Locale;
        match locale {
            Locale::PtBr => self.pt_br.as_deref(),
            Locale::Es => self.es.as_deref(),
            Locale::En => self.en.as_deref(),
        }
    }

    fn missing(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        for (tag, v) in [("pt-BR", &self.pt_br), ("es", &self.es), ("en", &self.en)] {
            if v.as_deref().is_none_or(|s| s.trim().is_empty()) {
                out.push(tag);
            }
        }
        out
    }

    fn tokens(&self) -> TokenStream {
        let w = |v: &Option<String>| v.clone().unwrap_or_default();
        let (p, s, e) = (w(&self.pt_br), w(&self.es), w(&self.en));
        quote!([#p, #s, #e])
    }
}

const ROOT: &str = "confirmation";

/// Every problem of the section, and every destructive tool whose record type declares no facts.
pub fn validate(l: &Loaded) -> Vec<Diagnostic> {
    let c = &l.catalog;
    let conf = &c.confirmation;
    let mut out = Vec::new();
    let records_path = key_path(ROOT, "records");
    for (vname, w) in &conf.values {
        let path = key_path(&key_path(ROOT, "values"), vname);
        words_check(l, &path, w, &mut out);
    }
    for (rname, rc) in &conf.records {
        let rpath = key_path(&records_path, rname);
        let Some(record) = c.records.get(rname) else {
            out.push(l.at_key(
                &rpath,
                format!("unknown record type `{rname}`"),
                Some(format!(
                    "one of {}",
                    crate::validate::grammar::one_of(
                        &c.records.keys().map(String::as_str).collect::<Vec<_>>()
                    )
                )),
            ));
            continue;
        };
        if rc.facts.is_empty() {
            out.push(l.at_key(
                &key_path(&rpath, "facts"),
                format!("`{rname}` declares no facts"),
                Some("at least one field a person recognises the record by".into()),
            ));
        }
        let fields: Vec<&str> = record.fields.keys().map(String::as_str).collect();
        for (i, f) in rc.facts.iter().enumerate() {
            let fpath = index_path(&key_path(&rpath, "facts"), i);
            let top = f.field.split('.').next().unwrap_or_default();
            let Some(field) = record.fields.get(top) else {
                out.push(l.at_value(
                    &key_path(&fpath, "field"),
                    format!("`{}` is not a field of `{rname}`", f.field),
                    Some(crate::validate::grammar::one_of(&fields)),
                ));
                continue;
            };
            words_check(l, &key_path(&fpath, "label"), &f.label, &mut out);
            for (v, w) in &f.values {
                words_check(l, &key_path(&key_path(&fpath, "values"), v), w, &mut out);
            }
            reference_check(l, &fpath, rname, f, &field.seed, &mut out);
            if f.kind == FactKind::Status {
                for v in &field.enum_values {
                    if !f.values.contains_key(v) && !conf.values.contains_key(v) {
                        out.push(l.at_value(
                            &key_path(&fpath, "field"),
                            format!("the value `{v}` of `{rname}.{}` has no label", f.field),
                            Some(format!(
                                "label it under this fact's `values:` or `{ROOT}.values.{v}`"
                            )),
                        ));
                    }
                }
            }
        }
        let state = record.fields.get(&rc.state_field);
        let actions: Vec<String> = c
            .tools
            .iter()
            .filter_map(|t| t.operation.as_ref())
            .filter(|o| o.record.as_deref() == Some(rname.as_str()))
            .filter_map(|o| match o.kind {
                OperationKind::Delete => Some("delete".to_string()),
                OperationKind::Update => Some("update".to_string()),
                OperationKind::Action => o.action.as_ref().map(|a| a.name.clone()),
                _ => None,
            })
            .collect();
        for (action, states) in &rc.terminal {
            let apath = key_path(&key_path(&rpath, "terminal"), action);
            if !actions.contains(action) {
                let names: Vec<&str> = actions.iter().map(String::as_str).collect();
                out.push(l.at_key(
                    &apath,
                    format!("no tool of this catalog does `{action}` to `{rname}`"),
                    Some(crate::validate::grammar::one_of(&names)),
                ));
            }
            let Some(state) = state else {
                out.push(l.at_key(
                    &apath,
                    format!(
                        "`{rname}` has no state field `{}` to read terminal states from",
                        rc.state_field
                    ),
                    Some("set `state_field` to the field holding the record's state".into()),
                ));
                continue;
            };
            for (i, s) in states.iter().enumerate() {
                if !state.enum_values.is_empty() && !state.enum_values.contains(s) {
                    out.push(
                        l.at_value(
                            &index_path(&apath, i),
                            format!("`{s}` is not a value of `{rname}.{}`", rc.state_field),
                            Some(crate::validate::grammar::one_of(
                                &state
                                    .enum_values
                                    .iter()
                                    .map(String::as_str)
                                    .collect::<Vec<_>>(),
                            )),
                        ),
                    );
                }
            }
        }
    }
    for (i, t) in c.tools.iter().enumerate() {
        if t.annotations.destructive != Some(true) {
            continue;
        }
        let Some(record) = t.operation.as_ref().and_then(|o| o.record.as_ref()) else {
            continue;
        };
        if conf.records.get(record).is_none_or(|r| r.facts.is_empty()) {
            out.push(l.at_value(
                &key_path(&key_path(&index_path("tools", i), "annotations"), "destructiveHint"),
                format!(
                    "the destructive tool `{}` works on `{record}`, whose record type declares no facts to confirm it by",
                    t.name
                ),
                Some(format!(
                    "declare `{ROOT}.records.{record}.facts`: the fields a person recognises the record by"
                )),
            ));
        }
    }
    out
}

/// A `ref` fact names a record type of this catalog that the product can read, and a field of
/// it to show; any other fact names neither.
fn reference_check(
    l: &Loaded,
    fpath: &str,
    rname: &str,
    f: &crate::model::FactDecl,
    seed: &str,
    out: &mut Vec<Diagnostic>,
) {
    let c = &l.catalog;
    // A field seeded as another record's id holds a reference: a person knows that record by its
    // name, not its id.
    if let Some(seeded) = seed.strip_prefix("ref:").map(str::trim) {
        if f.kind != FactKind::Ref || f.record.as_deref() != Some(seeded) {
            out.push(l.at_value(
                &key_path(fpath, "field"),
                format!(
                    "`{rname}.{}` holds the id of a `{seeded}` record: show that record's name",
                    f.field
                ),
                Some(format!(
                    "`kind: ref, record: {seeded}, show: <the field it is known by>`"
                )),
            ));
        }
    }
    if f.kind != FactKind::Ref {
        for (key, given) in [("record", &f.record), ("show", &f.show)] {
            if given.is_some() {
                out.push(l.at_key(
                    &key_path(fpath, key),
                    format!(
                        "`{key}` belongs to a `ref` fact; `{rname}.{}` is not one",
                        f.field
                    ),
                    Some("add `kind: ref`, or remove it".into()),
                ));
            }
        }
        return;
    }
    let Some(target) = &f.record else {
        out.push(l.at_key(
            fpath,
            format!("the `ref` fact `{rname}.{}` names no `record`", f.field),
            Some("the record type whose id the field holds".into()),
        ));
        return;
    };
    let Some(record) = c.records.get(target) else {
        out.push(l.at_value(
            &key_path(fpath, "record"),
            format!("unknown record type `{target}`"),
            Some(format!(
                "one of {}",
                crate::validate::grammar::one_of(
                    &c.records.keys().map(String::as_str).collect::<Vec<_>>()
                )
            )),
        ));
        return;
    };
    let readable = c
        .tools
        .iter()
        .filter_map(|t| t.operation.as_ref())
        .any(|o| {
            o.record.as_deref() == Some(target.as_str())
                && matches!(o.kind, OperationKind::Get | OperationKind::List)
        });
    if !readable {
        out.push(l.at_value(
            &key_path(fpath, "record"),
            format!("no tool of this catalog reads `{target}`, so its records cannot be shown"),
            Some("a get or list tool of that record type".into()),
        ));
    }
    match &f.show {
        None => out.push(l.at_key(
            fpath,
            format!("the `ref` fact `{rname}.{}` names no `show` field", f.field),
            Some(format!(
                "the field of `{target}` a person knows it by (its name)"
            )),
        )),
        Some(show)
            if !record
                .fields
                .contains_key(show.split('.').next().unwrap_or_default()) =>
        {
            out.push(l.at_value(
                &key_path(fpath, "show"),
                format!("`{show}` is not a field of `{target}`"),
                Some(crate::validate::grammar::one_of(
                    &record.fields.keys().map(String::as_str).collect::<Vec<_>>(),
                )),
            ))
        }
        Some(_) => {}
    }
}

fn words_check(l: &Loaded, path: &str, w: &Words, out: &mut Vec<Diagnostic>) {
    let missing = w.missing();
    if !missing.is_empty() {
        out.push(l.at_key(
            path,
            format!("missing translation: {}", missing.join(", ")),
            Some("every label has `en`, `pt-BR` and `es`".into()),
        ));
    }
}

/// The labels of the values of `record`'s `field`: `own` (a fact's), then the section's shared
/// ones for the field's documented values. One home for every place a coded value is shown to a
/// person: the confirmation question and the views.
fn labels_of<'c>(
    c: &'c Catalog,
    record: &str,
    field: &str,
    own: &'c BTreeMap<String, Words>,
) -> BTreeMap<&'c str, &'c Words> {
    let top = field.split('.').next().unwrap_or_default();
    let mut values: BTreeMap<&str, &Words> = own.iter().map(|(k, v)| (k.as_str(), v)).collect();
    if let Some(f) = c.records.get(record).and_then(|r| r.fields.get(top)) {
        for v in &f.enum_values {
            if let Some(w) = c.confirmation.values.get(v) {
                values.entry(v.as_str()).or_insert(w);
            }
        }
    }
    values
}

/// The labels of the values of `record`'s `field`, with the own labels of the record's fact about it.
pub fn value_labels<'c>(c: &'c Catalog, record: &str, field: &str) -> BTreeMap<&'c str, &'c Words> {
    static NONE: BTreeMap<String, Words> = BTreeMap::new();
    let own = c
        .confirmation
        .records
        .get(record)
        .and_then(|r| r.facts.iter().find(|f| f.field == field))
        .map_or(&NONE, |f| &f.values);
    labels_of(c, record, field, own)
}

/// The product's `record_facts` table.
pub fn tokens(c: &Catalog) -> TokenStream {
    let conf = &c.confirmation;
    let records = conf.records.iter().map(|(rname, rc)| {
        let facts = rc.facts.iter().map(|f| {
            let field = &f.field;
            let kind = match f.kind {
                FactKind::Text => quote!(Text),
                FactKind::Money => quote!(Money),
                FactKind::Date => quote!(Date),
                FactKind::Document => quote!(Document),
                FactKind::Status => quote!(Status),
                FactKind::Flag => quote!(Flag),
                FactKind::Ref => quote!(Ref),
            };
            let reference = match (&f.record, &f.show) {
                (Some(r), Some(s)) => quote!(Some((#r, #s))),
                _ => quote!(None),
            };
            let label = f.label.tokens();
            let values = labels_of(c, rname, &f.field, &f.values);
            let values = values.iter().map(|(k, w)| {
                let w = w.tokens();
                quote!((#k, #w))
            });
            quote! {
                runtime_model::record_facts::Fact {
                    field: #field,
                    kind: runtime_model::record_facts::FactKind::#kind,
                    label: #label,
                    values: &[#(#values),*],
                    reference: #reference,
                }
            }
        });
        let state = &rc.state_field;
        let terminal = rc
            .terminal
            .iter()
            .map(|(a, states)| quote!((#a, &[#(#states),*])));
        quote! {
            runtime_model::record_facts::RecordFacts {
                record: #rname,
                facts: &[#(#facts),*],
                state_field: #state,
                terminal: &[#(#terminal),*],
            }
        }
    });
    quote!(&[#(#records),*])
}
