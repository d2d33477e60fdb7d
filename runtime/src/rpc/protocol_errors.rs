//! The fixed words of the JSON-RPC errors a client reads for ordinary mistakes (invalid params,
//! an unknown method or prompt, a client capability the request did not declare), in pt-BR and
//! es. Methods write these errors in English where they are made; [`crate::protocol::language`] rewrites
//! each into the request's locale through [`translate`], so no method carries the locale down.
//! What a message names (methods, fields, arguments, URIs, the validator's detail) is kept as
//! it was written: `{}` in a pattern stands for it.

use runtime_model::locale::Locale;

/// `(English pattern, pt-BR, es)`; `{}` marks a part copied as it is, in order. The first
/// pattern that matches the whole message wins, so a specific message comes before the
/// general prefix that would also match it.
const PATTERNS: &[(&str, &str, &str)] = &[
    (
        "Method not found: {}",
        "Método não encontrado: {}",
        "Método no encontrado: {}",
    ),
    (
        "Invalid params: tools/call needs `name` (a string)",
        "Parâmetros inválidos: tools/call precisa de `name` (uma string)",
        "Parámetros inválidos: tools/call necesita `name` (una cadena)",
    ),
    (
        "Invalid params: prompts/get needs `name` (a string)",
        "Parâmetros inválidos: prompts/get precisa de `name` (uma string)",
        "Parámetros inválidos: prompts/get necesita `name` (una cadena)",
    ),
    (
        "Invalid params: `arguments` must be an object of strings",
        "Parâmetros inválidos: `arguments` deve ser um objeto de strings",
        "Parámetros inválidos: `arguments` debe ser un objeto de cadenas",
    ),
    (
        "Invalid params: `arguments` must be an object",
        "Parâmetros inválidos: `arguments` deve ser um objeto",
        "Parámetros inválidos: `arguments` debe ser un objeto",
    ),
    (
        "Invalid params: level must be one of {}",
        "Parâmetros inválidos: level deve ser um destes: {}",
        "Parámetros inválidos: level debe ser uno de estos: {}",
    ),
    (
        "Invalid params: uri (a string) is required",
        "Parâmetros inválidos: uri (uma string) é obrigatório",
        "Parámetros inválidos: uri (una cadena) es obligatorio",
    ),
    (
        "Invalid params: {}",
        "Parâmetros inválidos: {}",
        "Parámetros inválidos: {}",
    ),
    ("Invalid cursor", "Cursor inválido", "Cursor inválido"),
    (
        "Unknown prompt: {}",
        "Prompt desconhecido: {}",
        "Prompt desconocido: {}",
    ),
    (
        "Prompt {} is not available: it uses tools this caller cannot call",
        "O prompt {} não está disponível: ele usa ferramentas que quem chama não pode chamar",
        "El prompt {} no está disponible: usa herramientas que quien llama no puede llamar",
    ),
    (
        "Missing required argument `{}` of prompt {}",
        "Falta o argumento obrigatório `{}` do prompt {}",
        "Falta el argumento obligatorio `{}` del prompt {}",
    ),
    (
        "Invalid argument `{}` of prompt {}: it is required and must not be empty",
        "Argumento inválido `{}` do prompt {}: é obrigatório e não pode ficar vazio",
        "Argumento inválido `{}` del prompt {}: es obligatorio y no puede quedar vacío",
    ),
    (
        "Invalid argument `{}`: prompt arguments are strings",
        "Argumento inválido `{}`: os argumentos de um prompt são strings",
        "Argumento inválido `{}`: los argumentos de un prompt son cadenas",
    ),
    (
        "Invalid argument `{}`: {} is not a date (YYYY-MM-DD)",
        "Argumento inválido `{}`: {} não é uma data (YYYY-MM-DD)",
        "Argumento inválido `{}`: {} no es una fecha (YYYY-MM-DD)",
    ),
    (
        "Invalid argument `{}`: {} is not a month (YYYY-MM)",
        "Argumento inválido `{}`: {} não é um mês (YYYY-MM)",
        "Argumento inválido `{}`: {} no es un mes (YYYY-MM)",
    ),
    (
        "Resource not found: {}",
        "Recurso não encontrado: {}",
        "Recurso no encontrado: {}",
    ),
    (
        "Invalid or expired requestState: {}",
        "requestState inválido ou expirado: {}",
        "requestState inválido o vencido: {}",
    ),
    (
        "This request needs the client capability `{}`, which the request did not declare",
        "Esta solicitação precisa da capacidade de cliente `{}`, que a solicitação não declarou",
        "Esta solicitud necesita la capacidad de cliente `{}`, que la solicitud no declaró",
    ),
    (
        "{} needs the client capability {} (the Tasks extension), which the request did not declare",
        "{} precisa da capacidade de cliente {} (a extensão Tasks), que a solicitação não declarou",
        "{} necesita la capacidad de cliente {} (la extensión Tasks), que la solicitud no declaró",
    ),
    (
        "Session not found",
        "Sessão não encontrada",
        "Sesión no encontrada",
    ),
];

/// `message` in `locale` when it is one of the `PATTERNS`; otherwise as it is.
pub fn translate(message: &str, locale: Locale) -> String {
    if locale == Locale::En {
        return message.to_string();
    }
    for (en, pt_br, es) in PATTERNS {
        if let Some(parts) = captures(en, message) {
            let target = if locale == Locale::PtBr { pt_br } else { es };
            return fill(target, &parts);
        }
    }
    message.to_string()
}

/// The parts of `message` that `pattern`'s `{}` stand for, when the whole message matches.
fn captures<'m>(pattern: &str, message: &'m str) -> Option<Vec<&'m str>> {
    let literals: Vec<&str> = pattern.split("{}").collect();
    let mut rest = message.strip_prefix(literals[0])?;
    let mut parts = Vec::new();
    for (i, lit) in literals.iter().enumerate().skip(1) {
        let last = i == literals.len() - 1;
        let at = if last {
            // The last literal ends the message.
            rest.len()
                .checked_sub(lit.len())
                .filter(|&at| rest[at..] == **lit)?
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

/// `template` with its `{}` replaced by `parts`, in order.
fn fill(template: &str, parts: &[&str]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut pieces = template.split("{}");
    if let Some(first) = pieces.next() {
        out.push_str(first);
    }
    for (piece, part) in pieces.zip(parts.iter().copied().chain(std::iter::repeat(""))) {
        out.push_str(part);
        out.push_str(piece);
    }
    out
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
    }
}
