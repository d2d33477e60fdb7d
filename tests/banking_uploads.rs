//! The four banking operations that upload a file (`multipart/form-data`): CNAB discharges, data
//! imports, statement imports and certificates. The model passes each file base64-encoded; the
//! sandbox decodes it and keeps its name, size and SHA-256; the proxy sends a real multipart form,
//! which `sandbox serve-api` reads back into the same call.

use std::collections::BTreeSet;
use std::time::Duration;

use runtime::backend::{Upstream, UpstreamConfig};
use runtime_model::backend::{Backend, BackendError, CallContext, Output};
use runtime_model::catalog::{Binding, BodyMode, Product};
use runtime_model::identity::Identity;
use runtime_sandbox::api::{self, ApiState};
use runtime_sandbox::{Sandbox, SandboxConfig};
use serde_json::{json, Map, Value};

/// "CNAB\n" followed by two bytes that are not UTF-8, and its SHA-256 (computed with `sha256sum`).
const CNAB_B64: &str = "Q05BQgr//g==";
const CNAB_SHA256: &str = "03c157034a82f0e218325fb0ca2f6e94244266293efe9bdd0c580453171f455f";
/// A two-line CSV (15 bytes), and its SHA-256.
const CSV_B64: &str = "dWlkLG5hbWUKMSxBbmEK";
const CSV_SHA256: &str = "372b417070927037b28d4e25789fc78b145b736ff6a2c26d8cd0bded70ad151d";
/// Bytes 00 01 02 ff, and their SHA-256.
const PFX_B64: &str = "AAEC/w==";
const PFX_SHA256: &str = "3d1f57c984978ef98a18378c8166c1cb8ede02c03eeb6aee7e2f121dfeee3e56";

fn banking() -> &'static Product {
    generated::product("banking").expect("banking is compiled")
}

fn ctx(token: Option<&str>) -> CallContext {
    CallContext {
        product: banking(),
        identity: Identity {
            person: "p1".into(),
            name: "Pessoa".into(),
            organization: runtime_sandbox::DEMO_ORGANIZATION.into(),
            scopes: BTreeSet::from(["all".to_string()]),
            permissions: BTreeSet::from(["*".to_string()]),
            workspaces: BTreeSet::new(),
            default_workspace: None,
        }
        .into(),
        bearer_token: token.map(str::to_string),
        workspace: None,
        idempotency_key: None,
        locale: runtime_model::locale::Locale::En,
        progress: Default::default(),
        attempts: Default::default(),
    }
}

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

/// The record of an answer: v1 answers it bare, v2 under `data`.
fn record(v: Value) -> Value {
    match v.get("data") {
        Some(d) if d.is_object() => d.clone(),
        _ => v,
    }
}

fn open_sandbox() -> (Sandbox, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    (Sandbox::open(&SandboxConfig::new(dir.path())).unwrap(), dir)
}

async fn call(
    b: &dyn Backend,
    c: &CallContext,
    tool: &str,
    a: Value,
) -> Result<Output, BackendError> {
    let tool = banking()
        .tool(tool)
        .unwrap_or_else(|| panic!("{tool} missing"));
    b.call(c, tool, &obj(a)).await
}

async fn created(b: &dyn Backend, c: &CallContext, tool: &str, a: Value) -> Value {
    match call(b, c, tool, a).await {
        Ok(Output::Json(v)) => record(v),
        other => panic!("{tool}: {other:?}"),
    }
}

fn invalid(r: Result<Output, BackendError>) -> String {
    match r {
        Err(BackendError::Invalid(m)) => m,
        other => panic!("expected an invalid-arguments error, got {other:?}"),
    }
}

#[test]
fn the_four_upload_operations_are_bound_as_multipart() {
    let mut uploads: Vec<(&str, Vec<String>)> = banking()
        .tools
        .iter()
        .filter_map(|t| match t.binding {
            Binding::Http(ref h) => match h.body {
                BodyMode::Multipart { files } => {
                    Some((t.name, files.iter().map(|f| f.arg.join(".")).collect()))
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    uploads.sort();
    assert_eq!(
        uploads,
        vec![
            (
                "banking_admin_certificate_create",
                vec![
                    "files.crt_file".to_string(),
                    "files.crt_private_key_file".to_string(),
                    "files.pfx_file".to_string()
                ]
            ),
            ("banking_charge_discharge_create", vec!["file".to_string()]),
            ("banking_data_import_create", vec!["source".to_string()]),
            (
                "banking_financial_statement_import_create",
                vec!["source".to_string()]
            ),
        ]
    );
    // Their schemas say how to pass a file.
    for (name, _) in &uploads {
        let schema: Value =
            serde_json::from_str(banking().tool(name).unwrap().input_schema_json).unwrap();
        let text = schema.to_string();
        assert!(text.contains(r#""contentEncoding":"base64""#), "{name}");
        assert!(text.contains("base64-encoded"), "{name}");
        assert!(!text.contains(r#""format":"binary""#), "{name}");
    }
}

#[tokio::test]
async fn the_sandbox_keeps_the_name_size_and_digest_of_an_upload() {
    let (sb, _dir) = open_sandbox();
    let c = ctx(None);
    let discharge = created(
        &sb,
        &c,
        "banking_charge_discharge_create",
        json!({"file": CNAB_B64, "filename": "RET001.ret", "external_id": "e1"}),
    )
    .await;
    assert_eq!(discharge["filename"], "RET001.ret");
    assert_eq!(
        discharge["uploaded_files"],
        json!([{
            "field": "file",
            "filename": "RET001.ret",
            "content_type": "text/plain",
            "byte_size": 7,
            "sha256": CNAB_SHA256,
        }])
    );
    assert!(!discharge.to_string().contains(CNAB_B64), "{discharge}");
    // It is stored: the read tool finds it by its numeric id.
    let id = discharge["id"].as_i64().expect("a numeric id").to_string();
    let read = created(&sb, &c, "banking_charge_discharge_get", json!({"id": id})).await;
    assert_eq!(read["uploaded_files"], discharge["uploaded_files"]);

    // Without a file name, the record and the part take the catalog's default.
    let unnamed = created(
        &sb,
        &c,
        "banking_charge_discharge_create",
        json!({"file": CNAB_B64}),
    )
    .await;
    assert_eq!(unnamed["filename"], "retorno.ret");

    let import = created(
        &sb,
        &c,
        "banking_data_import_create",
        json!({"collection_name": "customers", "source": CSV_B64}),
    )
    .await;
    assert_eq!(import["collection_name"], "customers");
    assert_eq!(import["uploaded_files"][0]["filename"], "import.csv");
    assert_eq!(import["uploaded_files"][0]["content_type"], "text/csv");
    assert_eq!(import["uploaded_files"][0]["byte_size"], 15);
    assert_eq!(import["uploaded_files"][0]["sha256"], CSV_SHA256);

    let cert = created(
        &sb,
        &c,
        "banking_admin_certificate_create",
        json!({"label": "Meu", "cnpj_cpf": "16.974.923/0001-84", "type": "pfx",
               "files": {"pfx_file": PFX_B64, "pfx_password": "s3cret"}}),
    )
    .await;
    assert_eq!(
        cert["uploaded_files"],
        json!([{
            "field": "files[pfx_file]",
            "filename": "certificate.pfx",
            "content_type": "application/x-pkcs12",
            "byte_size": 4,
            "sha256": PFX_SHA256,
        }])
    );
    assert!(
        !cert.to_string().contains("s3cret"),
        "the password is not stored: {cert}"
    );
}

#[tokio::test]
async fn the_sandbox_refuses_bad_or_missing_files_and_stores_nothing() {
    let (sb, _dir) = open_sandbox();
    let c = ctx(None);
    // The sandbox refuses references to unknown records: import into a seeded account.
    let accounts = match call(&sb, &c, "banking_financial_account_list", json!({})).await {
        Ok(Output::Json(v)) => v,
        other => panic!("banking_financial_account_list: {other:?}"),
    };
    let account = accounts["data"][0]["uid"]
        .as_str()
        .or(accounts[0]["uid"].as_str())
        .unwrap_or_else(|| panic!("a seeded financial account: {accounts}"))
        .to_string();
    let count = |v: Value| match v {
        Value::Array(a) => a.len(),
        other => other["data"].as_array().map(Vec::len).unwrap_or(0),
    };
    let list = |sb: Sandbox, account: String| async move {
        match call(
            &sb,
            &ctx(None),
            "banking_financial_statement_import_list",
            json!({"financial_account_uid": account, "per_page": 50}),
        )
        .await
        {
            Ok(Output::Json(v)) => v,
            other => panic!("{other:?}"),
        }
    };
    let before = count(list(sb.clone(), account.clone()).await);
    let m = invalid(
        call(
            &sb,
            &c,
            "banking_financial_statement_import_create",
            json!({"financial_account_uid": account, "source": "***not base64***"}),
        )
        .await,
    );
    assert!(m.starts_with("`source` is not valid base64"), "{m}");
    let m = invalid(
        call(
            &sb,
            &c,
            "banking_admin_certificate_create",
            json!({"label": "x", "cnpj_cpf": "1", "type": "crt", "files": {"crt_file": 12}}),
        )
        .await,
    );
    assert_eq!(
        m,
        "`files.crt_file` must be the file's content as a base64 string, got a number"
    );
    let m = invalid(
        call(
            &sb,
            &c,
            "banking_admin_certificate_create",
            json!({"label": "x", "cnpj_cpf": "1", "type": "pfx", "files": {"pfx_password": "p"}}),
        )
        .await,
    );
    assert!(
        m.contains("`files.crt_file` or `files.crt_private_key_file` or `files.pfx_file`"),
        "{m}"
    );
    assert_eq!(count(list(sb.clone(), account.clone()).await), before);
}

struct ServeApi {
    base: String,
    _dir: tempfile::TempDir,
}

async fn serve_api() -> ServeApi {
    let (sb, dir) = open_sandbox();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let state = ApiState::new(sb, vec![banking()], api::any_token());
    tokio::spawn(async move { axum::serve(listener, api::router(state)).await });
    ServeApi { base, _dir: dir }
}

fn proxy(api: &ServeApi) -> Upstream {
    Upstream::new(UpstreamConfig {
        base_url: Some(format!("{}/{{product}}", api.base)),
        timeout: Duration::from_secs(10),
        ..UpstreamConfig::default()
    })
    .unwrap()
}

#[tokio::test]
async fn uploads_go_through_the_proxy_as_forms_that_serve_api_reads_back() {
    let api = serve_api().await;
    let up = proxy(&api);
    let c = ctx(Some("any-token"));

    // serve-api refuses references to unknown records: import into a seeded account.
    let accounts = match call(&up, &c, "banking_financial_account_list", json!({})).await {
        Ok(Output::Json(v)) => v,
        other => panic!("banking_financial_account_list: {other:?}"),
    };
    let account = accounts["data"][0]["uid"]
        .as_str()
        .or(accounts[0]["uid"].as_str())
        .unwrap_or_else(|| panic!("a seeded financial account: {accounts}"))
        .to_string();
    let import = created(
        &up,
        &c,
        "banking_financial_statement_import_create",
        json!({"financial_account_uid": account, "source": CNAB_B64,
               "source_filename": "extrato-jan.ret", "external_id": "x",
               "custom_data": {"codigo": "123"}, "tags": ["a", "b"]}),
    )
    .await;
    assert_eq!(import["financial_account_uid"], json!(account));
    assert_eq!(
        import["uploaded_files"],
        json!([{
            "field": "source",
            "filename": "extrato-jan.ret",
            "content_type": "text/plain",
            "byte_size": 7,
            "sha256": CNAB_SHA256,
        }])
    );

    let discharge = created(
        &up,
        &c,
        "banking_charge_discharge_create",
        json!({"file": CNAB_B64, "filename": "RET002.ret", "bank_billet_account_id": 7}),
    )
    .await;
    assert_eq!(discharge["filename"], "RET002.ret");
    assert_eq!(discharge["uploaded_files"][0]["sha256"], CNAB_SHA256);

    let cert = created(
        &up,
        &c,
        "banking_admin_certificate_create",
        json!({"label": "Meu", "cnpj_cpf": "1", "type": "crt", "subaccounts": true,
               "files": {"crt_file": PFX_B64, "crt_private_key_file": CSV_B64}}),
    )
    .await;
    let files: Vec<(String, String)> = cert["uploaded_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["field"].as_str().unwrap().to_string(),
                f["sha256"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        files,
        vec![
            ("files[crt_file]".to_string(), PFX_SHA256.to_string()),
            (
                "files[crt_private_key_file]".to_string(),
                CSV_SHA256.to_string()
            ),
        ]
    );

    // Bad base64 never leaves the proxy.
    let m = invalid(
        call(
            &up,
            &c,
            "banking_data_import_create",
            json!({"collection_name": "customers", "source": "@@@"}),
        )
        .await,
    );
    assert!(m.starts_with("`source` is not valid base64"), "{m}");
}

#[tokio::test]
async fn serve_api_reads_forms_only_where_the_api_takes_them() {
    let api = serve_api().await;
    let client = reqwest::Client::new();
    let form = || {
        reqwest::multipart::Form::new()
            .text("collection_name", "ignored")
            .part(
                "source",
                reqwest::multipart::Part::bytes(b"a,b\n".to_vec()).file_name("x.csv"),
            )
    };
    // A JSON route refuses a form.
    let resp = client
        .post(format!("{}/banking/v1/bank_billets", api.base))
        .bearer_auth("t")
        .multipart(form())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 415);
    // An upload route takes it; the file part is read as the `source` argument.
    let resp = client
        .post(format!("{}/banking/v1/imports/customers", api.base))
        .bearer_auth("t")
        .multipart(form())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 201);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(
        body["collection_name"], "customers",
        "the path wins: {body}"
    );
    assert_eq!(body["uploaded_files"][0]["filename"], "x.csv");
    assert_eq!(body["uploaded_files"][0]["byte_size"], 4);
    // A file part the operation does not take is refused, naming it.
    let resp = client
        .post(format!("{}/banking/v1/imports/customers", api.base))
        .bearer_auth("t")
        .multipart(reqwest::multipart::Form::new().part(
            "attachment",
            reqwest::multipart::Part::bytes(vec![1]).file_name("a.bin"),
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 422);
    let text = resp.text().await.unwrap();
    assert!(text.contains("`attachment`"), "{text}");
    // A body that claims to be a form and is not one is a clear 400.
    let resp = client
        .post(format!("{}/banking/v1/imports/customers", api.base))
        .bearer_auth("t")
        .header("content-type", "multipart/form-data; boundary=xyz")
        .body("garbage")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 400);
}

#[test]
fn the_banking_docs_say_which_tools_upload_a_file() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("generated/docs/banking.en.md");
    let docs = std::fs::read_to_string(&path).unwrap();
    let section = docs
        .split("## File uploads")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("a File uploads section");
    assert!(section.contains("multipart/form-data"), "{section}");
    let rows: Vec<&str> = section
        .lines()
        .filter(|l| l.starts_with("| `banking_"))
        .collect();
    assert_eq!(rows.len(), 4, "{section}");
    for tool in banking().tools {
        let uploads = matches!(
            tool.binding,
            Binding::Http(ref h) if matches!(h.body, BodyMode::Multipart { .. })
        );
        let listed = rows
            .iter()
            .any(|r| r.starts_with(&format!("| `{}` |", tool.name)));
        assert_eq!(uploads, listed, "{}", tool.name);
    }
    assert!(section.contains(
        "| `banking_data_import_create` | `source` → part `source` (`text/csv`, filename from `source_filename`, default `import.csv`) |"
    ));
}
