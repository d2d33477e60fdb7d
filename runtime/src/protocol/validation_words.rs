//! The findings of JSON Schema validation in the caller's language: each kind of the
//! validator's findings a text of the runtime's table, never the validator's English. Used for
//! a call's arguments (`tools`) and for an answer checked against its output schema
//! (`output_schema`).

use runtime_model::locale::Locale;
use runtime_model::texts::Text;

/// One problem the input schema found, in `locale`: the argument it is about, and what is wrong
/// with the value, each kind of the validator's findings a text of the runtime's table; a kind
/// without its own text gets a general sentence naming the argument, never the validator's
/// English.
pub(super) fn validation_problem(e: &jsonschema::ValidationError<'_>, locale: Locale) -> String {
    let problem = validation_finding(e, locale);
    let arg = e.instance_path().as_str().trim_start_matches('/');
    if arg.is_empty() {
        Text::ValidationAtRoot.fill(locale, &[("problem", &problem)])
    } else {
        let argument = arg.replace('/', ".");
        Text::ValidationAtArgument.fill(locale, &[("argument", &argument), ("problem", &problem)])
    }
}

/// What is wrong with the value a validation error is about, in `locale`, without saying where
/// (an argument's, or an answer's: `output_schema`).
pub(super) fn validation_finding(e: &jsonschema::ValidationError<'_>, locale: Locale) -> String {
    use jsonschema::error::{TypeKind, ValidationErrorKind as K};
    let value = e.instance().to_string();
    let value = value.as_str();
    let type_name = |t: &dyn std::fmt::Display| {
        let text = match t.to_string().as_str() {
            "string" => Text::TypeString,
            "integer" => Text::TypeInteger,
            "number" => Text::TypeNumber,
            "boolean" => Text::TypeBoolean,
            "object" => Text::TypeObject,
            "array" => Text::TypeArray,
            _ => Text::TypeNull,
        };
        text.get(locale)
    };
    let limit = |l: &dyn std::fmt::Display| l.to_string();
    let problem = match e.kind() {
        K::Required { property } => {
            let argument = property.as_str().unwrap_or_default();
            return Text::ValidationRequired.fill(locale, &[("argument", &argument)]);
        }
        K::AdditionalProperties { unexpected } => {
            let names = unexpected.join(", ");
            return Text::ValidationUnknown.fill(locale, &[("names", &names)]);
        }
        K::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(t) => type_name(t).to_string(),
                TypeKind::Multiple(ts) => ts
                    .iter()
                    .map(|t| type_name(&t))
                    .collect::<Vec<_>>()
                    .join(" | "),
            };
            Text::ValidationType.fill(locale, &[("value", &value), ("expected", &expected)])
        }
        K::MinLength { limit: l } => {
            Text::ValidationMinLength.fill(locale, &[("value", &value), ("limit", l)])
        }
        K::MaxLength { limit: l } => {
            Text::ValidationMaxLength.fill(locale, &[("value", &value), ("limit", l)])
        }
        K::Minimum { limit: l } => {
            Text::ValidationMinimum.fill(locale, &[("value", &value), ("limit", &limit(l))])
        }
        K::Maximum { limit: l } => {
            Text::ValidationMaximum.fill(locale, &[("value", &value), ("limit", &limit(l))])
        }
        K::ExclusiveMinimum { limit: l } => Text::ValidationExclusiveMinimum
            .fill(locale, &[("value", &value), ("limit", &limit(l))]),
        K::ExclusiveMaximum { limit: l } => Text::ValidationExclusiveMaximum
            .fill(locale, &[("value", &value), ("limit", &limit(l))]),
        K::Enum { options } => {
            let options = options.to_string();
            Text::ValidationEnum.fill(locale, &[("value", &value), ("options", &options)])
        }
        K::Constant { expected_value } => {
            let expected = expected_value.to_string();
            Text::ValidationConst.fill(locale, &[("value", &value), ("expected", &expected)])
        }
        K::Format { format } => {
            Text::ValidationFormat.fill(locale, &[("value", &value), ("format", format)])
        }
        K::Pattern { pattern } => {
            Text::ValidationPattern.fill(locale, &[("value", &value), ("pattern", pattern)])
        }
        K::MinItems { limit: l } => Text::ValidationMinItems.fill(locale, &[("limit", l)]),
        K::MaxItems { limit: l } => Text::ValidationMaxItems.fill(locale, &[("limit", l)]),
        K::UniqueItems => Text::ValidationUniqueItems.get(locale).to_string(),
        _ => Text::ValidationOther.fill(locale, &[("value", &value)]),
    };
    problem
}
