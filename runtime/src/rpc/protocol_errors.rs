//! The fixed words of the JSON-RPC errors a client reads for ordinary mistakes (invalid params,
//! an unknown method or prompt, a client capability the request did not declare), in pt-BR and
//! es. Methods write these errors in English where they are made; [`crate::protocol::language`] rewrites
//! each into the request's locale through [`translate`], so no method carries the locale down.
//! The words are texts of `catalog/texts/runtime.yaml`; what a message names (methods, fields,
//! arguments, URIs, the validator's detail) is kept as it was written: a placeholder of the
//! English text stands for it.

use std::fmt::Display;

use runtime_model::locale::Locale;
use runtime_model::texts::{self, Text};

/// The texts (`catalog/texts/runtime.yaml`) whose English version a message is matched against;
/// each placeholder stands for a part copied as it is. The first text that matches the whole
/// message wins, so a specific message comes before the general prefix that would also match it.
const PATTERNS: &[Text] = &[
    Text::ProtocolMethodNotFound,
    Text::ProtocolCallNeedsName,
    Text::ProtocolPromptNeedsName,
    Text::ProtocolArgumentsStrings,
    Text::ProtocolArgumentsObject,
    Text::ProtocolLogLevel,
    Text::ProtocolUriRequired,
    Text::ProtocolCompletionNeedsRef,
    Text::ProtocolCompletionRefType,
    Text::ProtocolReadNeedsUri,
    Text::ProtocolParamsObject,
    Text::ProtocolInvalidParams,
    Text::ProtocolInvalidCursor,
    Text::ProtocolCursorNotString,
    Text::ProtocolRequestStateNotString,
    Text::ProtocolRequestStateForeign,
    Text::ProtocolUnknownPrompt,
    Text::ProtocolPromptUnavailable,
    Text::ProtocolPromptArgumentMissing,
    Text::ProtocolPromptArgumentEmpty,
    Text::ProtocolPromptArgumentNotString,
    Text::ProtocolPromptArgumentNotDate,
    Text::ProtocolPromptArgumentNotMonth,
    Text::ProtocolResourceNotFound,
    Text::ProtocolPromptNoArgument,
    Text::ProtocolUnknownTemplate,
    Text::ProtocolUnknownResource,
    Text::ProtocolHeaderRequiredFor,
    Text::ProtocolHeaderRequired,
    Text::AuthForeignWorkspace,
    Text::ProtocolRequestStateInvalid,
    Text::ProtocolCapabilityMissing,
    Text::ProtocolTasksExtensionMissing,
    Text::ProtocolSessionNotFound,
];

/// The details a backend writes after an application error's message (the sandbox's and the
/// upstream binding's refusals), matched the same way; a specific text before a general one.
const DETAIL_PATTERNS: &[Text] = &[
    Text::DetailNothingToUpdate,
    Text::DetailNoSchema,
    Text::DetailNotListedRecent,
    Text::DetailNotListed,
    Text::DetailLimitationNote,
    Text::DetailWorkspaceNeeded,
    Text::DetailWorkspaceUnreachable,
    Text::DetailArgumentRequiredPath,
    Text::DetailArgumentRequired,
    Text::SandboxPositiveInteger,
    Text::SandboxDate,
    Text::SandboxRecordId,
    Text::SandboxGroupByList,
    Text::SandboxGroupByDimension,
    Text::SandboxCannotSelect,
    Text::SandboxNeedsFilter,
    Text::SandboxState,
    Text::SandboxEmpty,
    Text::SandboxNamesMissing,
    Text::SandboxIdempotencyKeyReused,
    Text::SandboxNoneInScope,
    Text::SandboxNoneRecorded,
    Text::SandboxNotInList,
    // The most general last: any detail with " for " in it.
    Text::SandboxNoneFor,
];

/// `message` in `locale` when it is one of the `PATTERNS`; otherwise as it is.
pub fn translate(message: &str, locale: Locale) -> String {
    translate_with(PATTERNS, message, locale)
}

/// The detail after an application error's message in `locale` when it is one of the
/// `DETAIL_PATTERNS`; otherwise as it is.
pub fn translate_detail(detail: &str, locale: Locale) -> String {
    translate_with(DETAIL_PATTERNS, detail, locale)
}

fn translate_with(patterns: &[Text], message: &str, locale: Locale) -> String {
    if locale == Locale::En {
        return message.to_string();
    }
    for text in patterns {
        let (literals, names) = texts::split(text.get(Locale::En));
        if let Some(parts) = captures(&literals, message) {
            let args: Vec<(&str, &dyn Display)> = names
                .iter()
                .zip(&parts)
                .map(|(name, part)| (*name, part as &dyn Display))
                .collect();
            return text.fill(locale, &args);
        }
    }
    message.to_string()
}

/// The parts of `message` that the placeholders between `literals` stand for, when the whole
/// message matches.
fn captures<'m>(literals: &[&str], message: &'m str) -> Option<Vec<&'m str>> {
    let mut rest = message.strip_prefix(literals[0])?;
    let mut parts = Vec::new();
    for (i, lit) in literals.iter().enumerate().skip(1) {
        let last = i == literals.len() - 1;
        let at = if last {
            // The last literal ends the message.
            // (`ends_with` first: the cut may fall inside a character of a longer text.)
            rest.len()
                .checked_sub(lit.len())
                .filter(|_| rest.ends_with(*lit))?
        } else {
            rest.find(lit)?
        };
        if !rest.is_char_boundary(at) {
            return None;
        }
        parts.push(&rest[..at]);
        rest = &rest[at + lit.len()..];
    }
    (rest.is_empty()).then_some(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixed_words_are_translated_and_what_they_name_is_kept() {
        assert_eq!(
            translate("Method not found: tools/frobnicate", Locale::PtBr),
            "Método não encontrado: tools/frobnicate"
        );
        assert_eq!(
            translate("Invalid params: `arguments` must be an object", Locale::Es),
            "Parámetros inválidos: `arguments` debe ser un objeto"
        );
        assert_eq!(
            translate(
                "Missing required argument `day` of prompt daily",
                Locale::Es
            ),
            "Falta el argumento obligatorio `day` del prompt daily"
        );
        let tasks = "tasks/get needs the client capability extensions[\"x\"] (the Tasks extension), which the request did not declare";
        assert_eq!(
            translate(tasks, Locale::PtBr),
            "tasks/get precisa da capacidade de cliente extensions[\"x\"] (a extensão Tasks), que a solicitação não declarou"
        );
        // The general prefix keeps the detail.
        assert_eq!(
            translate("Invalid params: `x` is wrong", Locale::PtBr),
            "Parâmetros inválidos: `x` is wrong"
        );
        // English, and messages no pattern knows, stay as they are.
        assert_eq!(
            translate("Method not found: a", Locale::En),
            "Method not found: a"
        );
        assert_eq!(
            translate("Parse error: eof", Locale::Es),
            "Parse error: eof"
        );
        assert_eq!(translate("Invalid cursor!", Locale::Es), "Invalid cursor!");
        // A message in another language, cut inside one of its characters, is left as it is.
        assert_eq!(
            translate_detail("argumento `uid`: true não é do tipo texto", Locale::Es),
            "argumento `uid`: true não é do tipo texto"
        );
    }
}
