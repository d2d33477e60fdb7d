//! Enforcing a tool's declared `outputSchema` on what its backend answered.
//!
//! MCP: when a tool declares an output schema, its `structuredContent` MUST conform, and clients
//! may reject a result that does not. Banking's schemas come from Kobana's OpenAPI specs, so an
//! upstream answer can drift from them. Such an answer is not passed on as the result: the caller
//! gets an `isError` result, in its language, saying the operation *was carried out* (HTTP 2xx —
//! it must not be retried blindly) but its answer does not match the schema at a given place,
//! with the raw answer beside it so nothing is lost; a warning is logged. Like every tool error,
//! its `structuredContent` is `{"error": {code, message, …}}` and its text block is that JSON, so
//! the two say the same thing in the same language.
//!
//! The schema comes compiled from the engine's `ToolSchemas` (`protocol::schemas`).

use runtime_model::catalog::Tool;
use runtime_model::errors::UPSTREAM_ERROR;
use runtime_model::locale::Locale;
use runtime_model::texts::Text;
use serde_json::{json, Value};

use super::schemas::Compiled;
use crate::contract::ToolOutput;

/// `Ok` when `tool` declares no output schema or `answer` conforms to it; otherwise the
/// `isError` result to send instead of the answer, in `locale`.
/// `schema` is the tool's compiled output schema, `None` when it declares none.
pub(crate) fn check(
    tool: &Tool,
    schema: Option<&Compiled>,
    answer: &Value,
    locale: Locale,
) -> Result<(), ToolOutput> {
    let Some(compiled) = schema else {
        return Ok(());
    };
    let validator = match compiled {
        Ok(v) => v,
        Err(why) => {
            // A catalog bug (tests compile every schema): the answer cannot be checked, and
            // refusing it would fail every call of the tool; pass it on and say so.
            tracing::warn!(tool = tool.name, "{why}; answer passed on unchecked");
            return Ok(());
        }
    };
    // `is_valid` is the fast path (no error values built); the errors only when it fails.
    if validator.is_valid(answer) {
        return Ok(());
    }
    let Some(error) = validator.iter_errors(answer).next() else {
        return Ok(());
    };
    let path = error.instance_path().to_string();
    let path = if path.is_empty() {
        "/".to_string()
    } else {
        path
    };
    tracing::warn!(
        tool = tool.name,
        instance_path = %path,
        error = %error,
        "the answer does not match the tool's declared output schema"
    );
    let problem = super::validation_words::validation_finding(&error, locale);
    let message = Text::OutputSchemaMismatch.fill(
        locale,
        &[
            ("path", &path as &dyn std::fmt::Display),
            ("problem", &problem),
        ],
    );
    let structured = json!({"error": {
        "code": UPSTREAM_ERROR.code,
        "message": message,
        "path": path,
        "answer": answer,
    }});
    Err(ToolOutput {
        content: vec![json!({"type": "text", "text": structured.to_string()})],
        structured: Some(structured),
        is_error: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::schemas::ToolSchemas;
    use runtime_model::catalog::Product;
    use std::sync::OnceLock;

    fn banking() -> &'static Product {
        generated::product("banking").unwrap()
    }

    /// Banking's schemas, compiled once for these tests as an engine compiles them.
    fn schemas() -> &'static ToolSchemas {
        static SCHEMAS: OnceLock<ToolSchemas> = OnceLock::new();
        SCHEMAS.get_or_init(|| ToolSchemas::new(banking()))
    }

    fn validator(tool: &Tool) -> Option<&'static Compiled> {
        let idx = banking().tools.iter().position(|t| t.name == tool.name)?;
        schemas().output(idx)
    }

    fn check(tool: &Tool, answer: &Value) -> Result<(), ToolOutput> {
        super::check(tool, validator(tool), answer, Locale::En)
    }

    #[test]
    fn conforming_answers_and_tools_without_a_schema_pass() {
        let pix_get = banking().tool("banking_charge_pix_get").unwrap();
        assert!(pix_get.output_schema_json.is_some());
        let good = json!({"status": 200, "data": {"uid": "u1", "amount": 12.5, "status": "paid"}});
        assert!(check(pix_get, &good).is_ok());
        let no_schema = banking()
            .tools
            .iter()
            .find(|t| t.output_schema_json.is_none())
            .unwrap();
        assert!(check(no_schema, &json!([1, 2])).is_ok());
    }

    #[test]
    fn a_drifting_answer_becomes_an_error_naming_the_place_with_the_raw_answer() {
        let pix_get = banking().tool("banking_charge_pix_get").unwrap();
        let bad = json!({"status": 200, "data": {"uid": "u1", "amount": "12,50"}});
        let out = check(pix_get, &bad).unwrap_err();
        assert!(out.is_error);
        let structured = out.structured.clone().expect("a structured error");
        let text = out.content[0]["text"].as_str().unwrap();
        // The text block is the structured error, word for word.
        assert_eq!(serde_json::from_str::<Value>(text).unwrap(), structured);
        let message = structured["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("The operation was carried out (HTTP 2xx)"),
            "{message}"
        );
        assert!(message.contains("at `/data/amount`"), "{message}");
        assert_eq!(structured["error"]["answer"], bad);
        // a non-object answer breaks the object root
        let out = check(pix_get, &json!([1])).unwrap_err();
        assert!(out.content[0]["text"].as_str().unwrap().contains("at `/`"));
        // In the caller's language, the validator's finding too (no English).
        for locale in [Locale::PtBr, Locale::Es] {
            let out = super::check(pix_get, validator(pix_get), &bad, locale).unwrap_err();
            let s = out.structured.expect("a structured error");
            let message = s["error"]["message"].as_str().unwrap();
            assert!(message.contains("HTTP 2xx") && message.contains("`/data/amount`"));
            for english in [
                "carried out",
                "does not match",
                "is not of type",
                "answer as it came",
            ] {
                assert!(!message.contains(english), "{locale}: {message}");
            }
        }
    }

    #[test]
    fn each_schema_is_compiled_once() {
        let tool = banking().tool("banking_charge_pix_list").unwrap();
        let a = validator(tool).unwrap();
        let b = validator(tool).unwrap();
        assert!(std::ptr::eq(a, b));
    }
}

#[cfg(test)]
mod engine_tests {
    use std::sync::Arc;

    use runtime_model::backend::{Backend, BackendError, BoxFuture, CallContext, Output};
    use runtime_model::catalog::Tool;
    use runtime_model::identity::Identity;
    use serde_json::{json, Map, Value};

    use crate::confirm::{Confirmer, MemoryLedger};
    use crate::contract::{Call, Era};
    use crate::protocol::engine::{Engine, EngineOptions};
    use crate::rpc::jsonrpc::Request;
    use crate::rpc::reply::Reply;
    use crate::state::StateSealer;

    /// Answers every call with the same JSON.
    struct Fixed(Value);

    impl Backend for Fixed {
        fn call<'a>(
            &'a self,
            _ctx: &'a CallContext,
            _tool: &'static Tool,
            _args: &'a Map<String, Value>,
        ) -> BoxFuture<'a, Result<Output, BackendError>> {
            Box::pin(async move { Ok(Output::Json(self.0.clone())) })
        }
    }

    async fn call_pix_get(answer: Value, era: Era) -> Value {
        let product = generated::product("banking").unwrap();
        let sealer = Arc::new(StateSealer::new(vec![("k1".into(), vec![7u8; 32])]).unwrap());
        let confirmer = Confirmer::new(sealer.clone(), Arc::new(MemoryLedger::new()));
        let engine = Engine::new(
            product,
            Arc::new(Fixed(answer)),
            sealer,
            confirmer,
            crate::extensions::ALL,
            EngineOptions {
                page_size: 50,
                ttl_ms: 1000,
                ..EngineOptions::default()
            },
        );
        let identity = Identity {
            person: "p1".into(),
            name: "P".into(),
            organization: "o1".into(),
            scopes: ["all".to_string()].into_iter().collect(),
            permissions: ["*".to_string()].into_iter().collect(),
            workspaces: Default::default(),
            default_workspace: None,
        };
        let call = Call::detached(era, Arc::new(identity), json!({}));
        let req = Request::new(
            json!(1),
            "tools/call",
            json!({"name": "banking_charge_pix_get", "arguments": {"uid": "u1"}})
                .as_object()
                .cloned()
                .unwrap(),
        );
        match engine.handle(&req, &call).await {
            Reply::Value(v) | Reply::InputRequired(v) => v,
            Reply::Raw(b) | Reply::ToolError { result: b, .. } => {
                serde_json::from_slice(&b.to_vec()).unwrap()
            }
            Reply::Error(e) => panic!("{e:?}"),
        }
    }

    #[tokio::test]
    async fn tools_call_enforces_the_declared_output_schema() {
        let good =
            json!({"status": 200, "data": {"uid": "u1", "amount": 10.0, "status": "opened"}});
        let r = call_pix_get(good.clone(), Era::Legacy("2025-11-25")).await;
        assert_eq!(r.get("isError"), None);
        assert_eq!(r["structuredContent"], good);

        let bad = json!({"status": 200, "data": {"uid": "u1", "status": "lost"}});
        for era in [Era::Legacy("2025-11-25"), Era::Modern] {
            let r = call_pix_get(bad.clone(), era).await;
            assert_eq!(r["isError"], true, "{r}");
            let text = r["content"][0]["text"].as_str().unwrap();
            assert_eq!(
                serde_json::from_str::<Value>(text).unwrap(),
                r["structuredContent"],
                "{r}"
            );
            let message = r["structuredContent"]["error"]["message"].as_str().unwrap();
            // In banking's language (pt-BR), the validator's finding too.
            assert!(message.contains("executada (HTTP 2xx)"), "{message}");
            assert!(message.contains("em `/data/status`"), "{message}");
            assert!(
                message.contains("não é um dos valores aceitos"),
                "{message}"
            );
            assert_eq!(r["structuredContent"]["error"]["answer"], bad, "{r}");
        }
    }
}
