//! The small grammars of catalog values, as pure functions: names, RFC 6570 level-1 templates,
//! seed generators, prompt-argument defaults, and the wording of "one of" / "did you mean" hints.

use std::collections::BTreeMap;

pub use crate::model::{MAX_TOOL_NAME, SEED_SIMPLE};

/// The two spellings of the decline error.
pub const DECLINE_CODES: &[&str] = &["user_declined", "USER_DECLINED"];
pub(super) const HTTP_METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE"];
/// The methods that can carry a multipart form.
pub(super) const MULTIPART_METHODS: &[&str] = &["POST", "PUT", "PATCH"];
pub(super) const FIELD_TYPES: &[&str] =
    &["string", "integer", "number", "boolean", "object", "array"];
/// Words a Rust module cannot be named (the product name becomes a module name).
pub(super) const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv",
    "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// The `{var}` names of an RFC 6570 level-1 template, or what is wrong with it (the one parser,
/// shared with the runtime).
pub use runtime_model::uri_template::variables as template_vars;

pub(super) fn is_snake_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

pub(super) fn is_identifier(s: &str) -> bool {
    is_snake_name(s) && s.chars().next().is_some_and(|c| c.is_ascii_lowercase())
}

pub(crate) fn one_of(values: &[&str]) -> String {
    values
        .iter()
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Closest candidate by edit distance (Levenshtein, from `strsim`), for "did you mean" hints:
/// within a third of the longer name's length (at least 2 edits), the nearest first.
pub(super) fn closest<'b>(
    word: &str,
    candidates: impl IntoIterator<Item = &'b str>,
) -> Option<&'b str> {
    candidates
        .into_iter()
        .map(|c| (strsim::levenshtein(word, c), c))
        .filter(|(d, c)| *d <= (c.len().max(word.len()) / 3).max(2))
        .min()
        .map(|(_, c)| c)
}

/// What `seed:` may say, for hints.
pub const SEED_HINT: &str = "`uid`, `person_name`, `company_name`, `cpf`, `cnpj`, `email`, `phone`, `pix_key`, `amount:MIN..MAX`, `date:FROM..TO` (days from today), `datetime:FROM..TO`, `enum`, `ref:<record>`, `bool`, `int:MIN..MAX`, `text:<words>`, `const:<value>`, `sequence`, `same:<ref field>.<field>` or `same:<record>.<field>`, `links:<slug>=<record>|…`";

pub(super) fn check_seed(
    spec: &str,
    has_enum: bool,
    this: &crate::model::RecordType,
    records: &BTreeMap<String, crate::model::RecordType>,
) -> Result<(), String> {
    if SEED_SIMPLE.contains(&spec) {
        if spec == "enum" && !has_enum {
            return Err("seed `enum` on a field without `enum:` values".into());
        }
        return Ok(());
    }
    let Some((kind, arg)) = spec.split_once(':') else {
        return Err(format!("`{spec}` is not a seed generator"));
    };
    let range = |arg: &str, decimals: bool| -> Result<(), String> {
        let (lo, hi) = arg
            .split_once("..")
            .ok_or_else(|| format!("`{spec}` needs a range `MIN..MAX`"))?;
        let parse = |s: &str| -> Result<f64, String> {
            if !decimals && s.contains('.') {
                return Err(format!("`{s}` in `{spec}` is not an integer"));
            }
            s.trim()
                .parse::<f64>()
                .map_err(|_| format!("`{s}` in `{spec}` is not a number"))
        };
        let (lo, hi) = (parse(lo)?, parse(hi)?);
        if lo > hi {
            return Err(format!("the range of `{spec}` is empty (MIN > MAX)"));
        }
        Ok(())
    };
    match kind {
        "amount" => range(arg, true),
        "date" | "datetime" | "int" => range(arg, false),
        "ref" if records.contains_key(arg) => Ok(()),
        "ref" => Err(format!("`{spec}` refers to an unknown record type `{arg}`")),
        "same" => check_same(spec, arg, this, records),
        "links" => {
            for pair in arg.split('|') {
                let (label, record) = pair
                    .split_once('=')
                    .ok_or_else(|| format!("`{spec}` needs `<slug>=<record>|…`"))?;
                if label.trim().is_empty() || !records.contains_key(record.trim()) {
                    return Err(format!(
                        "`{spec}`: `{pair}` names no slug or an unknown record type"
                    ));
                }
            }
            Ok(())
        }
        "text" | "const" if !arg.is_empty() => Ok(()),
        "text" | "const" => Err(format!("`{spec}` needs a value after `:`")),
        _ => Err(format!("`{spec}` is not a seed generator")),
    }
}

/// `same:<ref field>.<field>`: `<ref field>` is a field of this record seeded `ref:<record>`,
/// and `<field>` a field of that record; `same:<record>.<field>`: a field of a record type (the
/// product's one organization).
fn check_same(
    spec: &str,
    arg: &str,
    this: &crate::model::RecordType,
    records: &BTreeMap<String, crate::model::RecordType>,
) -> Result<(), String> {
    let (via, field) = arg
        .split_once('.')
        .ok_or_else(|| format!("`{spec}` needs `<ref field>.<field>` or `<record>.<field>`"))?;
    let target = match this.fields.get(via) {
        Some(f) => f
            .seed
            .strip_prefix("ref:")
            .ok_or_else(|| format!("`{spec}`: `{via}` is not seeded `ref:<record>`"))?,
        None if records.contains_key(via) => via,
        None => {
            return Err(format!(
                "`{spec}`: `{via}` is neither a field of this record nor a record type"
            ))
        }
    };
    match records.get(target) {
        Some(r) if r.fields.contains_key(field) => Ok(()),
        Some(_) => Err(format!("`{spec}`: `{target}` has no field `{field}`")),
        None => Err(format!(
            "`{spec}` refers to an unknown record type `{target}`"
        )),
    }
}

pub(super) const DEFAULT_HINT: &str =
    "`today`, `today+Nd`, `today-Nd` or `YYYY-MM-DD` for `format: date`; `current_month` or `YYYY-MM` for `format: month`; any literal without spaces at the ends otherwise";

/// A default must produce a value of the argument's format.
pub(super) fn check_default_format(
    d: &str,
    format: Option<crate::model::ArgFormat>,
) -> Result<(), String> {
    use crate::model::ArgFormat;
    let digits = |s: &str, n: usize| s.len() == n && s.chars().all(|c| c.is_ascii_digit());
    let is_date = |s: &str| {
        let p: Vec<&str> = s.split('-').collect();
        p.len() == 3 && digits(p[0], 4) && digits(p[1], 2) && digits(p[2], 2)
    };
    let is_month = |s: &str| {
        let p: Vec<&str> = s.split('-').collect();
        p.len() == 2 && digits(p[0], 4) && digits(p[1], 2)
    };
    let relative_day = d == "today" || d.starts_with("today+") || d.starts_with("today-");
    match format {
        Some(ArgFormat::Date) if !(relative_day || is_date(d)) => Err(format!(
            "`{d}` is not a date, but the argument has `format: date`"
        )),
        Some(ArgFormat::Month) if !(d == "current_month" || is_month(d)) => Err(format!(
            "`{d}` is not a month, but the argument has `format: month`"
        )),
        _ => Ok(()),
    }
}

pub(super) fn check_default(d: &str) -> Result<(), String> {
    if d.trim() != d || d.is_empty() {
        return Err(format!("`{d}` has surrounding spaces or is empty"));
    }
    for sign in ["today+", "today-"] {
        if let Some(rest) = d.strip_prefix(sign) {
            let days = rest
                .strip_suffix('d')
                .ok_or_else(|| format!("`{d}`: an offset from today is written `{sign}Nd`"))?;
            days.parse::<u32>()
                .map_err(|_| format!("`{d}`: `{days}` is not a number of days"))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_follow_the_documented_grammar() {
        let records: BTreeMap<String, crate::model::RecordType> = serde_yaml::from_str(
            "invoices: {title: I, fields: {id: {type: string}, amount: {type: number}}}\n\
             organization: {title: O, fields: {cnpj: {type: string}}}\n\
             nfes: {title: N, fields: {invoice_id: {type: string, seed: 'ref:invoices'}, note: {type: string}, amount: {type: number}}}",
        )
        .expect("records");
        let this = &records["nfes"];
        let check = |spec: &str| check_seed(spec, false, this, &records);
        assert!(check("cpf").is_ok());
        assert!(check("amount:10..5000.5").is_ok());
        assert!(check("date:-90..30").is_ok());
        assert!(check("int:5..1").is_err());
        assert!(check("int:1.5..3").is_err());
        assert!(check("enum").is_err());
        assert!(check("ref:nothing").is_err());
        assert!(check("color").is_err());
        assert!(check("same:invoice_id.amount").is_ok());
        assert!(check("same:organization.cnpj").is_ok());
        assert!(
            check("same:invoice_id.total").is_err(),
            "no such field on the invoice"
        );
        assert!(
            check("same:note.amount").is_err(),
            "`note` is not a reference"
        );
        assert!(check("same:nothing.amount").is_err());
        assert!(check("same:amount").is_err());
        assert!(check("links:invoice=invoices|org=organization").is_ok());
        assert!(check("links:invoice=nothing").is_err());
        assert!(check("links:invoices").is_err());
    }

    #[test]
    fn defaults_follow_the_documented_grammar() {
        assert!(check_default("today").is_ok());
        assert!(check_default("today+90d").is_ok());
        assert!(check_default("today-7").is_err());
        assert!(check_default("today+x d").is_err());
        assert!(check_default("pending").is_ok());
    }

    #[test]
    fn closest_suggests_near_names_only() {
        assert_eq!(
            closest("billet_lst", ["billet_list", "payment_get"]),
            Some("billet_list")
        );
        assert_eq!(closest("zzz", ["billet_list"]), None);
    }
}
