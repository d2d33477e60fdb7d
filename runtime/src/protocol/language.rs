//! The language of an answer: application and protocol errors written in the request's locale, and the
//! 2026 `_meta` `contentLanguage` (SEP-2792) saying which locale that was.
//!
//! Every method builds its answer with the application error table's English message
//! (`runtime_model::errors`); this is the one place that rewrites it into the locale, so no
//! method needs to carry the locale down to where an error is made. The detail after the message
//! is translated when it is one a backend writes in fixed words; argument validation writes its
//! findings in the locale where it makes them (`validation_words::validation_problem`).

use runtime_model::errors;
use runtime_model::locale::Locale;
use serde_json::{json, Value};

use crate::contract::era;
use crate::rpc::reply::Reply;

/// `reply` in `locale`: its application error message translated, and (2026) `_meta`
/// `contentLanguage` added to a result object.
pub fn localize_reply(reply: Reply, locale: Locale, modern: bool) -> Reply {
    match reply {
        Reply::Value(v) => Reply::Value(localized(v, locale, modern)),
        Reply::InputRequired(v) => Reply::InputRequired(localized(v, locale, modern)),
        Reply::Error(mut e) => {
            let code = e
                .data
                .as_ref()
                .and_then(|d| d.get("error"))
                .and_then(Value::as_str)
                .and_then(errors::by_code);
            e.message = match code {
                Some(err) => translated(&e.message, err, locale),
                // A protocol error (invalid params, unknown method, a missing capability).
                None => crate::rpc::protocol_errors::translate(&e.message, locale),
            };
            Reply::Error(e)
        }
        raw @ (Reply::Raw(_) | Reply::ToolError { .. }) => raw,
    }
}

/// A result object in `locale`: its application error translated and (2026) its `_meta`
/// `contentLanguage` set.
fn localized(mut v: Value, locale: Locale, modern: bool) -> Value {
    localize_tool_error(&mut v, locale);
    if modern {
        if let Value::Object(m) = &mut v {
            let meta = m.entry("_meta").or_insert_with(|| json!({}));
            if let Value::Object(meta) = meta {
                meta.insert(era::META_CONTENT_LANGUAGE.into(), json!(locale.tag()));
            }
        }
    }
    v
}

/// A message that starts with `err`'s English text, with that part in `locale`, and the detail
/// after it too when it is one a backend writes in fixed words
/// ([`crate::rpc::protocol_errors::translate_detail`]).
pub fn translated(message: &str, err: &errors::AppError, locale: Locale) -> String {
    match message.strip_prefix(err.message) {
        Some(rest) => match rest.strip_prefix(": ") {
            Some(detail) => format!(
                "{}: {}",
                err.message_in(locale),
                crate::rpc::protocol_errors::translate_detail(detail, locale)
            ),
            None => format!("{}{rest}", err.message_in(locale)),
        },
        None => message.to_string(),
    }
}

/// An `isError` tool result carrying `structuredContent.error` (see
/// `tools::app_error_output`): its message, and the text block repeating it, in `locale`.
fn localize_tool_error(v: &mut Value, locale: Locale) {
    if locale == Locale::En || v.get("isError") != Some(&Value::Bool(true)) {
        return;
    }
    let Value::Object(m) = v else { return };
    let Some(mut structured) = m.remove("structuredContent") else {
        return;
    };
    let mut content = match m.remove("content") {
        Some(Value::Array(c)) => c,
        _ => Vec::new(),
    };
    localize_error(&mut structured, &mut content, locale);
    m.insert("structuredContent".into(), structured);
    m.insert("content".into(), Value::Array(content));
}

/// The error of a tool result (`structured` = `{"error": {code, message, …}}`) in `locale`,
/// and the text blocks of `content` that repeat it.
pub fn localize_error(structured: &mut Value, content: &mut [Value], locale: Locale) {
    if locale == Locale::En {
        return;
    }
    let Some(error) = structured.get("error") else {
        return;
    };
    let Some(err) = error
        .get("code")
        .and_then(Value::as_str)
        .and_then(errors::by_code)
    else {
        return;
    };
    let Some(message) = error.get("message").and_then(Value::as_str) else {
        return;
    };
    let message = translated(message, err, locale);
    let before = structured.to_string();
    if let Some(m) = structured.pointer_mut("/error/message") {
        *m = json!(message);
    }
    let after = structured.to_string();
    // The text block repeats the structured error: keep them the same.
    for block in content {
        if block.get("text").and_then(Value::as_str) == Some(before.as_str()) {
            block["text"] = json!(after);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::RpcError;

    #[test]
    fn tool_errors_and_refusals_speak_the_locale() {
        let out = super::super::tools::app_error_output(
            &errors::NOT_FOUND,
            Some("bank_billets 42"),
            Default::default(),
        );
        let v = json!({
            "content": out.content,
            "structuredContent": out.structured,
            "isError": true,
        });
        let Reply::Value(v) = localize_reply(Reply::Value(v), Locale::PtBr, true) else {
            panic!("a value")
        };
        let msg = v["structuredContent"]["error"]["message"].as_str().unwrap();
        assert_eq!(msg, "Registro não encontrado: bank_billets 42");
        assert!(v["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Registro não encontrado"));
        assert_eq!(v["_meta"][era::META_CONTENT_LANGUAGE], "pt-BR");

        let e = super::super::resources::refusal(&errors::INSUFFICIENT_SCOPE, None);
        let Reply::Error(e) = localize_reply(Reply::Error(e), Locale::Es, false) else {
            panic!("an error")
        };
        assert!(e.message.starts_with("El token de acceso"), "{}", e.message);

        // A protocol error's fixed words too (see `protocol_errors`).
        let e = RpcError::invalid_params("Invalid cursor");
        let Reply::Error(e) = localize_reply(Reply::Error(e), Locale::Es, true) else {
            panic!("an error")
        };
        assert_eq!(e.message, "Cursor inválido");
    }
}
