//! The packages and one-line installs: the MCP Registry's `server.json` and the MCPB manifests
//! against their published schemas, the MCPB bundle script, the container image's health check
//! probe and Dockerfile, and the reference deployment (`compose.yaml` and its load balancer and
//! Prometheus configurations).
//!
//! The schemas come from package registries (`scripts/fetch_package_schemas.sh`, run by
//! `scripts/test.sh`): `KOBANA_REGISTRY_SCHEMA` and `KOBANA_MCPB_SCHEMA` name the files. Without
//! them the schema tests fail, unless `KOBANA_TEST_SKIP` lists `schemas`.

#[path = "support/shell.rs"]
mod shell;
#[path = "support/skip.rs"]
mod skip;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn read_json(rel: &str) -> Value {
    serde_json::from_str(&read(rel)).unwrap_or_else(|e| panic!("{rel}: not JSON: {e}"))
}

const REGISTRY_NAME: &str = "br.com.kobana/kobana-mcp";
const SERVER_JSON: &str = "generated/packaging/server.json";

fn product_names() -> Vec<&'static str> {
    generated::PRODUCTS.iter().map(|p| p.name).collect()
}

/// The schema a variable names, or `None` when the caller opted out (said on stderr).
fn schema(var: &str, test: &str) -> Option<Value> {
    match std::env::var_os(var) {
        Some(path) => {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{var}={}: {e}", PathBuf::from(&path).display()));
            Some(serde_json::from_str(&text).unwrap_or_else(|e| panic!("{var}: not JSON: {e}")))
        }
        None if skip::opted_out(
            "schemas",
            test,
            &format!("{var} is not set (scripts/fetch_package_schemas.sh fetches it)"),
        ) =>
        {
            None
        }
        None => panic!(
            "{var} is not set: run `scripts/fetch_package_schemas.sh DIR` (scripts/test.sh does) \
             or opt out with KOBANA_TEST_SKIP=schemas"
        ),
    }
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap_or_else(|e| panic!("the schema does not compile: {e}"))
}

fn errors(v: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    v.iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

// ---- server.json ----------------------------------------------------------------------------

#[test]
fn server_json_is_valid_against_the_registrys_published_schema() {
    let Some(schema) = schema(
        "KOBANA_REGISTRY_SCHEMA",
        "server_json_is_valid_against_the_registrys_published_schema",
    ) else {
        return;
    };
    assert_eq!(
        schema["$id"],
        "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
        "the schema fetched is not the 2025-12-11 release"
    );
    let server = read_json(SERVER_JSON);
    assert_eq!(
        server["$schema"], schema["$id"],
        "server.json names another schema"
    );
    let v = validator(&schema);
    assert_eq!(errors(&v, &server), Vec::<String>::new());
}

/// A change that breaks a document.
type Mutation = Box<dyn Fn(&mut Value)>;

#[test]
fn a_malformed_server_json_is_refused_by_the_schema() {
    let Some(schema) = schema(
        "KOBANA_REGISTRY_SCHEMA",
        "a_malformed_server_json_is_refused_by_the_schema",
    ) else {
        return;
    };
    let v = validator(&schema);
    let good = read_json(SERVER_JSON);
    let mutations: Vec<(&str, Mutation)> = vec![
        (
            "no name",
            Box::new(|s| drop(s.as_object_mut().map(|o| o.remove("name")))),
        ),
        (
            "a name with two slashes",
            Box::new(|s| s["name"] = json!("br.com/kobana/mcp")),
        ),
        (
            "a description over 100 characters",
            Box::new(|s| s["description"] = json!("x".repeat(101))),
        ),
        (
            "no version",
            Box::new(|s| drop(s.as_object_mut().map(|o| o.remove("version")))),
        ),
        (
            "a package version `latest`",
            Box::new(|s| s["packages"][0]["version"] = json!("latest")),
        ),
        (
            "a package without transport",
            Box::new(|s| {
                drop(
                    s["packages"][0]
                        .as_object_mut()
                        .map(|o| o.remove("transport")),
                )
            }),
        ),
        (
            "a package hash that is not SHA-256 hex",
            Box::new(|s| s["packages"][0]["fileSha256"] = json!("not-a-hash")),
        ),
        (
            "a remote that is not http(s)",
            Box::new(|s| s["remotes"][0]["url"] = json!("ftp://{host}/mcp")),
        ),
        (
            "a remote of an unknown type",
            Box::new(|s| s["remotes"][0]["type"] = json!("websocket")),
        ),
    ];
    for (what, mutate) in mutations {
        let mut bad = good.clone();
        mutate(&mut bad);
        assert!(
            !errors(&v, &bad).is_empty(),
            "server.json with {what} passed the schema"
        );
    }
}

#[test]
fn server_json_names_the_packages_this_repository_builds() {
    let server = read_json(SERVER_JSON);
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(server["name"], REGISTRY_NAME);
    assert_eq!(server["version"], version);
    let packages = server["packages"].as_array().expect("packages");
    let kinds: Vec<&str> = packages
        .iter()
        .map(|p| p["registryType"].as_str().unwrap_or(""))
        .collect();
    // No release publishes the crates to crates.io (issue 36): no cargo package is declared.
    assert_eq!(kinds, ["oci"]);
    let oci = &packages[0];
    assert_eq!(
        oci["identifier"],
        format!("ghcr.io/kobana/kobana-mcp:{version}")
    );
    assert_eq!(oci["runtimeHint"], "docker");
    for p in packages {
        assert_eq!(p["transport"]["type"], "stdio");
        let args: Vec<&Value> = p["packageArguments"]
            .as_array()
            .expect("args")
            .iter()
            .collect();
        assert_eq!(args[0]["value"], "serve");
        assert_eq!(args[2]["value"], "--stdio");
        assert_eq!(args[1]["choices"], json!(product_names()));
        let token = p["environmentVariables"]
            .as_array()
            .expect("env")
            .iter()
            .find(|e| e["name"] == "KOBANA_ACCESS_TOKEN")
            .expect("the token variable");
        assert_eq!(token["isSecret"], true);
        // The sandbox, what a package runs without an upstream, needs no token (issue 36); and
        // no default upstream, which would send a client that fills defaults to the live API.
        assert_eq!(token["isRequired"], false);
        let upstream = p["environmentVariables"]
            .as_array()
            .expect("env")
            .iter()
            .find(|e| e["name"] == "KOBANA_UPSTREAM_URL")
            .expect("the upstream variable");
        assert!(upstream.get("default").is_none(), "{upstream}");
        assert!(p["environmentVariables"]
            .as_array()
            .expect("env")
            .iter()
            .all(|e| e["isRequired"] == false));
    }
    let remote = &server["remotes"][0];
    assert_eq!(remote["type"], "streamable-http");
    assert_eq!(remote["url"], "https://{host}/{product}/mcp");
    assert_eq!(
        remote["variables"]["product"]["choices"],
        json!(product_names())
    );
    assert_eq!(remote["headers"][0]["name"], "Authorization");
    assert_eq!(remote["headers"][0]["isSecret"], true);

    // What the registry checks before it accepts the packages: the image's label and the
    // crate README's `mcp-name:` line carry the server's name.
    let dockerfile = read("Dockerfile");
    assert!(
        dockerfile.contains(&format!(
            "io.modelcontextprotocol.server.name=\"{REGISTRY_NAME}\""
        )),
        "the Dockerfile's label does not name {REGISTRY_NAME}"
    );
    assert!(
        read("README.md")
            .lines()
            .any(|l| l.trim() == format!("mcp-name: {REGISTRY_NAME}")),
        "README.md has no `mcp-name: {REGISTRY_NAME}` line (crates.io ownership check)"
    );
}

// ---- MCPB -----------------------------------------------------------------------------------

fn mcpb_manifest(product: &str) -> Value {
    read_json(&format!("generated/packaging/mcpb-{product}.manifest.json"))
}

#[test]
fn mcpb_manifests_are_valid_against_the_published_mcpb_schema() {
    let test = "mcpb_manifests_are_valid_against_the_published_mcpb_schema";
    let Some(schema) = schema("KOBANA_MCPB_SCHEMA", test) else {
        return;
    };
    let v = validator(&schema);
    for product in product_names() {
        let m = mcpb_manifest(product);
        assert_eq!(errors(&v, &m), Vec::<String>::new(), "{product}");
        // The schema is strict: a stray key or a missing server is refused.
        let mut bad = m.clone();
        bad["server"]["mcp_config"]["environment"] = json!({});
        assert!(
            !errors(&v, &bad).is_empty(),
            "{product}: a stray key passed"
        );
        let mut bad = m.clone();
        bad.as_object_mut().map(|o| o.remove("server"));
        assert!(!errors(&v, &bad).is_empty(), "{product}: no server passed");
    }
}

#[test]
fn mcpb_manifests_run_the_binary_with_the_token_as_a_sensitive_setting() {
    for p in generated::PRODUCTS {
        let m = mcpb_manifest(p.name);
        assert_eq!(m["manifest_version"], "0.3");
        assert_eq!(m["name"], format!("kobana-{}", p.name));
        assert_eq!(m["display_name"], p.title);
        assert_eq!(m["version"], env!("CARGO_PKG_VERSION"));
        let server = &m["server"];
        assert_eq!(server["type"], "binary");
        assert_eq!(server["entry_point"], "server/kobana-mcp");
        let config = &server["mcp_config"];
        assert_eq!(config["command"], "${__dirname}/server/kobana-mcp");
        assert_eq!(config["args"], json!(["serve", p.name, "--stdio"]));
        assert_eq!(
            config["platform_overrides"]["win32"]["command"],
            "${__dirname}/server/kobana-mcp.exe"
        );
        assert_eq!(
            config["env"]["KOBANA_ACCESS_TOKEN"],
            "${user_config.access_token}"
        );
        // Only a product Kobana publishes an API for can be pointed at it (issue 38): the
        // server refuses an upstream for the others unless told it implements their paths.
        if p.published_api {
            assert_eq!(
                config["env"]["KOBANA_UPSTREAM_URL"],
                "${user_config.api_url}"
            );
        } else {
            assert!(config["env"].get("KOBANA_UPSTREAM_URL").is_none(), "{m}");
            assert!(m["user_config"].get("api_url").is_none(), "{m}");
        }
        let token = &m["user_config"]["access_token"];
        assert_eq!(token["type"], "string");
        assert_eq!(token["sensitive"], true);
        // The bundle starts on the sandbox, which needs no token (issue 36); the API is one
        // setting away.
        assert_eq!(token["required"], false);
        if p.published_api {
            assert_eq!(m["user_config"]["api_url"]["default"], "");
            let api = m["user_config"]["api_url"]["description"]
                .as_str()
                .unwrap_or("");
            assert!(api.contains(p.api_base_url), "{api}");
        }
        // Keywords are the product's own: no payment words on a product without payment tools.
        let keywords: Vec<&str> = m["keywords"]
            .as_array()
            .expect("keywords")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(
            keywords.contains(&"kobana") && keywords.contains(&p.name),
            "{keywords:?}"
        );
        let pays = matches!(p.name, "banking");
        for word in ["pix", "boleto", "billets"] {
            if !pays {
                assert!(!keywords.contains(&word), "{}: {keywords:?}", p.name);
            }
        }
        assert_eq!(keywords.contains(&"pix"), pays, "{}: {keywords:?}", p.name);
        assert_eq!(
            m["compatibility"]["platforms"],
            json!(["darwin", "linux", "win32"])
        );
        // The tools the client sees: the default listing (issue 36), not every tool.
        let mut listed: Vec<&str> = m["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|t| t["name"].as_str().unwrap_or(""))
            .collect();
        listed.sort_unstable();
        let default = runtime_model::selection::Ceiling::new(p, &Default::default())
            .unwrap()
            .default_selection();
        let mut served: Vec<&str> = p
            .tools
            .iter()
            .enumerate()
            .filter(|(i, _)| default.visible(*i))
            .map(|(_, t)| t.name)
            .collect();
        served.sort_unstable();
        assert_eq!(listed, served, "{}: manifest tools", p.name);
    }
}

/// Lists a zip's members and reads its manifest, with Python's zipfile (the script's own tool).
fn unzip_listing(bundle: &Path) -> (Vec<(String, u64, u32)>, Value) {
    let script = r#"
import json, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    print(json.dumps({
        "members": [[i.filename, i.file_size, i.external_attr >> 16] for i in z.infolist()],
        "manifest": json.loads(z.read("manifest.json")),
    }))
"#;
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(bundle)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("listing JSON");
    let members = v["members"]
        .as_array()
        .expect("members")
        .iter()
        .map(|m| {
            (
                m[0].as_str().unwrap_or("").to_string(),
                m[1].as_u64().unwrap_or(0),
                m[2].as_u64().unwrap_or(0) as u32,
            )
        })
        .collect();
    (members, v["manifest"].clone())
}

#[test]
fn build_mcpb_packs_the_binary_and_the_manifest_narrowed_to_its_platform() {
    let binary = Path::new(env!("CARGO_BIN_EXE_kobana-mcp"));
    let size = std::fs::metadata(binary).expect("binary").len();
    let out = tempfile::tempdir().expect("tempdir");
    for (target, platform, exe) in [
        ("x86_64-unknown-linux-musl", "linux", "kobana-mcp"),
        ("aarch64-apple-darwin", "darwin", "kobana-mcp"),
        ("x86_64-pc-windows-msvc", "win32", "kobana-mcp.exe"),
    ] {
        let run = Command::new("bash")
            .arg(root().join("scripts/build_mcpb.sh"))
            .args(["finance"])
            .arg(binary)
            .arg(target)
            .arg(out.path())
            .output()
            .expect("build_mcpb.sh runs");
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success(),
            "{target}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let bundle = out.path().join(format!("kobana-finance-{target}.mcpb"));
        assert!(stdout.contains(&bundle.display().to_string()), "{stdout}");
        let (members, manifest) = unzip_listing(&bundle);
        let names: Vec<&str> = members.iter().map(|m| m.0.as_str()).collect();
        assert_eq!(
            names,
            ["manifest.json".to_string(), format!("server/{exe}")]
        );
        assert_eq!(members[1].1, size, "{target}: the packed binary's size");
        assert_eq!(
            members[1].2 & 0o111,
            0o111,
            "{target}: not executable once unpacked"
        );
        assert_eq!(manifest["compatibility"]["platforms"], json!([platform]));
        assert_eq!(manifest["server"]["entry_point"], format!("server/{exe}"));
        assert_eq!(
            manifest["server"]["mcp_config"]["args"],
            json!(["serve", "finance", "--stdio"])
        );
        let sha = stdout
            .lines()
            .find_map(|l| l.strip_prefix("sha256 "))
            .expect("the bundle's sha256");
        assert!(
            sha.len() == 64 && sha.bytes().all(|b| b.is_ascii_hexdigit()),
            "{sha}"
        );
    }
    // An unknown product is refused, naming the products there are.
    let run = Command::new("bash")
        .arg(root().join("scripts/build_mcpb.sh"))
        .args(["payroll"])
        .arg(binary)
        .args(["x86_64-unknown-linux-musl"])
        .arg(out.path())
        .output()
        .expect("build_mcpb.sh runs");
    assert!(!run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("no manifest for product 'payroll'") && err.contains("banking"),
        "{err}"
    );
}

// ---- the image ------------------------------------------------------------------------------

/// A one-shot HTTP server answering `status` to the first request; returns its URL and the
/// request it saw.
fn one_answer(status: &'static str) -> (String, std::thread::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/healthz", listener.local_addr().expect("addr"));
    let handle = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().expect("accept");
        // The whole request head, then the answer.
        let mut buf = Vec::new();
        let mut chunk = [0u8; 256];
        while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
            match conn.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        let _ = write!(
            conn,
            "HTTP/1.1 {status}\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
        );
        String::from_utf8_lossy(&buf).into_owned()
    });
    (url, handle)
}

fn healthcheck(url: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kobana-mcp"))
        .args(["healthcheck", "--timeout-secs", "2", "--url", url])
        .current_dir(std::env::temp_dir())
        .output()
        .expect("kobana-mcp healthcheck runs")
}

#[test]
fn healthcheck_passes_on_2xx_and_fails_otherwise_naming_why() {
    let (url, seen) = one_answer("200 OK");
    let out = healthcheck(&url);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let request = seen.join().expect("server thread");
    assert!(
        request.starts_with("GET /healthz HTTP/1.1\r\n"),
        "{request:?}"
    );

    let (url, seen) = one_answer("503 Service Unavailable");
    let out = healthcheck(&url);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unhealthy (HTTP 503)"), "{err}");
    seen.join().expect("server thread");

    // Nothing listening: a port just freed.
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let out = healthcheck(&format!("http://127.0.0.1:{port}/healthz"));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot connect"));

    let out = healthcheck("https://127.0.0.1/healthz");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("only http://"));
}

#[test]
fn the_image_is_a_static_binary_on_a_minimal_base_running_as_non_root_with_a_health_check() {
    let d = read("Dockerfile");
    let froms: Vec<&str> = d.lines().filter(|l| l.starts_with("FROM ")).collect();
    assert_eq!(
        froms.len(),
        2,
        "a build stage and a runtime stage: {froms:?}"
    );
    // The base images are build arguments (stand-ins where no registry answers); the defaults
    // are what users get.
    let default_of = |from: &str| -> String {
        let image = from
            .trim_start_matches("FROM ")
            .split_whitespace()
            .next()
            .unwrap_or("");
        match image.strip_prefix("${").and_then(|a| a.strip_suffix('}')) {
            Some(arg) => d
                .lines()
                .find_map(|l| l.strip_prefix(&format!("ARG {arg}=")))
                .unwrap_or_else(|| panic!("ARG {arg} has no default"))
                .to_string(),
            None => image.to_string(),
        }
    };
    let runtime = default_of(froms[1]);
    assert!(
        runtime.starts_with("gcr.io/distroless/static") && runtime.ends_with(":nonroot"),
        "{runtime}"
    );
    assert!(default_of(froms[0]).starts_with("rust:"), "{}", froms[0]);
    assert!(
        !d.starts_with("# syntax="),
        "a syntax line pulls a frontend image at every build"
    );
    assert!(
        d.contains("-unknown-linux-musl"),
        "the build is not static (musl)"
    );
    assert!(
        d.contains("--profile dist"),
        "not the release profile the payload is measured with"
    );
    let user = d
        .lines()
        .rfind(|l| l.starts_with("USER "))
        .expect("a USER line");
    let uid = user
        .trim_start_matches("USER ")
        .split(':')
        .next()
        .unwrap_or("");
    assert!(uid != "0" && uid != "root", "runs as root: {user}");
    let health = d
        .lines()
        .skip_while(|l| !l.starts_with("HEALTHCHECK"))
        .take(2)
        .collect::<String>();
    assert!(
        health.contains("\"healthcheck\"") && health.contains("/healthz"),
        "{health}"
    );
    // The subcommand the HEALTHCHECK runs exists with that flag.
    let out = Command::new(env!("CARGO_BIN_EXE_kobana-mcp"))
        .args(["healthcheck", "--help"])
        .output()
        .expect("runs");
    assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("--url"));
    let ignore = read(".dockerignore");
    for must in ["target", ".git", ".venv-test"] {
        assert!(
            ignore.lines().any(|l| l.trim() == must),
            ".dockerignore misses {must}"
        );
    }
}

// ---- compose.yaml ---------------------------------------------------------------------------

fn compose() -> serde_yaml::Value {
    let mut v: serde_yaml::Value =
        serde_yaml::from_str(&read("compose.yaml")).expect("compose.yaml is YAML");
    v.apply_merge().expect("compose.yaml merge keys");
    v
}

fn command_of(service: &serde_yaml::Value) -> Vec<String> {
    service["command"]
        .as_sequence()
        .map(|s| {
            s.iter()
                .filter_map(|a| a.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn compose_runs_two_instances_sharing_a_persistent_non_evicting_redis() {
    let c = compose();
    let services = c["services"].as_mapping().expect("services");
    let instances: Vec<(&str, &serde_yaml::Value)> = services
        .iter()
        .filter(|(_, s)| command_of(s).starts_with(&["serve".into(), "all".into()]))
        .map(|(k, s)| (k.as_str().unwrap_or(""), s))
        .collect();
    assert_eq!(instances.len(), 2, "two kobana-mcp instances");
    let ledgers: Vec<&str> = instances
        .iter()
        .map(|(_, s)| {
            s["environment"]["KOBANA_LEDGER"]
                .as_str()
                .expect("KOBANA_LEDGER")
        })
        .collect();
    assert_eq!(
        ledgers[0], ledgers[1],
        "the instances use different ledgers"
    );
    let redis_host = ledgers[0]
        .strip_prefix("redis://")
        .and_then(|r| r.split(':').next())
        .expect("a redis:// URL");
    let redis = &c["services"][redis_host];
    let flags = command_of(redis).join(" ");
    assert!(flags.starts_with("redis-server"), "{flags}");
    assert!(
        flags.contains("--appendonly yes"),
        "no append-only persistence: {flags}"
    );
    assert!(
        flags.contains("--maxmemory-policy noeviction"),
        "evicting: {flags}"
    );
    assert!(
        redis["volumes"].as_sequence().is_some_and(|v| v
            .iter()
            .any(|m| m.as_str().is_some_and(|m| m.ends_with(":/data")))),
        "Redis's /data is not a volume: the append-only file would die with the container"
    );
    for (name, s) in &instances {
        // The same requestState keys (the shared config file) and the same upstream.
        assert_eq!(
            s["environment"]["KOBANA_CONFIG"], instances[0].1["environment"]["KOBANA_CONFIG"],
            "{name}"
        );
        assert_eq!(
            s["environment"]["KOBANA_UPSTREAM_URL"],
            instances[0].1["environment"]["KOBANA_UPSTREAM_URL"],
            "{name}"
        );
        // Behind HAProxy (which sets X-Forwarded-For), the instances take the client's address
        // from it; otherwise every client shares the balancer's per-IP rate limit.
        assert_eq!(
            s["environment"]["KOBANA_TRUST_PROXY_HEADERS"], "true",
            "{name}: behind the balancer without --trust-proxy-headers"
        );
        assert!(
            s.get("ports").is_none(),
            "{name}: an instance trusting proxy headers must be reachable only through the balancer"
        );
        assert!(
            s["environment"].get("KOBANA_STATE_KEYS").is_none(),
            "{name}: an empty KOBANA_STATE_KEYS would hide the shared file's keys"
        );
        assert_eq!(
            s["depends_on"][redis_host]["condition"], "service_healthy",
            "{name}"
        );
    }

    // The load balancer sends to exactly these instances, sticky per MCP session.
    let haproxy = read("deploy/haproxy.cfg");
    let mut servers: Vec<String> = haproxy
        .lines()
        .filter_map(|l| l.trim().strip_prefix("server "))
        .filter_map(|l| l.split_whitespace().nth(1))
        .filter_map(|addr| addr.split(':').next().map(String::from))
        .collect();
    servers.sort();
    let mut names: Vec<String> = instances.iter().map(|(n, _)| n.to_string()).collect();
    names.sort();
    assert_eq!(servers, names, "haproxy.cfg's servers");
    assert!(haproxy.contains("stick store-response res.hdr(mcp-session-id)"));
    assert!(haproxy.contains("option httpchk GET /readyz"));
    let lb_ports: Vec<&str> = c["services"]["lb"]["ports"]
        .as_sequence()
        .expect("lb ports")
        .iter()
        .filter_map(|p| p.as_str())
        .collect();
    assert_eq!(lb_ports, ["127.0.0.1:8080:8080"]);

    // Prometheus scrapes every instance's /metrics.
    let prom: serde_yaml::Value =
        serde_yaml::from_str(&read("deploy/prometheus.yml")).expect("prometheus.yml is YAML");
    let job = prom["scrape_configs"]
        .as_sequence()
        .expect("scrape_configs")
        .iter()
        .find(|j| j["job_name"] == "kobana-mcp")
        .expect("the kobana-mcp job");
    assert_eq!(job["metrics_path"], "/metrics");
    let mut targets: Vec<String> = job["static_configs"][0]["targets"]
        .as_sequence()
        .expect("targets")
        .iter()
        .filter_map(|t| t.as_str().map(String::from))
        .collect();
    targets.sort();
    let expected: Vec<String> = names.iter().map(|n| format!("{n}:8080")).collect();
    assert_eq!(targets, expected);
    let mounts = c["services"]["prometheus"]["volumes"]
        .as_sequence()
        .expect("prometheus volumes");
    assert!(mounts.iter().any(|m| m
        .as_str()
        .is_some_and(|m| m.starts_with("./deploy/prometheus.yml:"))));
}

// ---- Claude Code install lines ------------------------------------------------------------

/// The documents that carry `claude mcp add` lines for a person to paste.
const INSTALL_DOCS: [&str; 2] = ["README.md", "generated/docs/install.md"];

/// Every `claude mcp add` command of a document (backslash continuations joined), with the line
/// that labels it: the closest earlier comment or prose line (not a command, fence or blank).
fn claude_lines(doc: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut label = String::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if t.starts_with("claude mcp add") {
            out.push((shell::continued(t, &mut lines), label.clone()));
        } else if !(t.is_empty() || t.starts_with("```") || t.starts_with("export ")) {
            label = t.to_string();
        }
    }
    out
}

/// What Claude Code's command line (commander) makes of `claude mcp add …`: the positional
/// arguments, and the values of each option. `--env`/`-e` and `--header`/`-H` are variadic: they
/// take every following word up to the next one starting with `-`; `--` ends the options.
fn commander_parse(words: &[String]) -> (Vec<String>, Vec<(String, String)>) {
    let mut positional = Vec::new();
    let mut options = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        i += 1;
        match w {
            "--" => {
                positional.extend(words[i..].iter().cloned());
                break;
            }
            "--env" | "-e" | "--header" | "-H" => {
                while i < words.len() && !words[i].starts_with('-') {
                    options.push((w.to_string(), words[i].clone()));
                    i += 1;
                }
            }
            o if o.starts_with('-') => {
                if let Some(v) = words.get(i) {
                    options.push((o.to_string(), v.clone()));
                    i += 1;
                }
            }
            p => positional.push(p.to_string()),
        }
    }
    (positional, options)
}

#[test]
fn every_claude_code_line_parses_with_the_server_name_first_and_no_variadic_option_eating_it() {
    let mut seen = 0;
    for doc in INSTALL_DOCS {
        for (line, _) in claude_lines(&read(doc)) {
            let words = shell::words(&line);
            assert_eq!(words[..3], ["claude", "mcp", "add"], "{doc}: {line}");
            let (positional, options) = commander_parse(&words[3..]);
            let name = positional.first().map(String::as_str).unwrap_or_default();
            assert!(
                name.starts_with("kobana-"),
                "{doc}: Claude Code would name the server `{name}`: {line}"
            );
            for (option, value) in &options {
                let well_formed = match option.as_str() {
                    "--env" | "-e" => value.split_once('=').is_some_and(|(k, _)| {
                        !k.is_empty() && k.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                    }),
                    "--header" | "-H" => value.split_once(": ").is_some(),
                    _ => true,
                };
                assert!(
                    well_formed,
                    "{doc}: `{option}` takes `{value}` (Claude Code refuses it): {line}"
                );
            }
            let transport = options
                .iter()
                .find(|(o, _)| o == "--transport" || o == "-t")
                .map(|(_, v)| v.as_str())
                .unwrap_or("stdio");
            match transport {
                "stdio" => {
                    let command = words
                        .iter()
                        .position(|w| w == "--")
                        .map(|i| &words[i + 1..]);
                    assert_eq!(
                        command.and_then(|c| c.first()).map(String::as_str),
                        Some("kobana-mcp"),
                        "{doc}: the command does not follow `--`: {line}"
                    );
                    assert_eq!(positional.get(1).map(String::as_str), Some("kobana-mcp"));
                }
                _ => {
                    let url = positional.get(1).map(String::as_str).unwrap_or_default();
                    assert!(
                        url.starts_with("http://") && url.ends_with("/mcp"),
                        "{doc}: the URL is `{url}`: {line}"
                    );
                    assert_eq!(positional.len(), 2, "{doc}: {line}");
                }
            }
            seen += 1;
        }
    }
    // Every product's stdio and HTTP lines, and a proxy line for those Kobana publishes an API
    // for, in both documents (and the README's examples).
    let published = generated::PRODUCTS
        .iter()
        .filter(|p| p.published_api)
        .count();
    let expected = INSTALL_DOCS.len() * (2 * generated::PRODUCTS.len() + published);
    assert!(
        seen >= expected,
        "only {seen} `claude mcp add` lines found, not {expected}"
    );
}

#[test]
fn the_default_stdio_lines_use_the_sandbox_and_the_proxy_line_is_labelled() {
    for doc in INSTALL_DOCS {
        let lines = claude_lines(&read(doc));
        for product in product_names() {
            let key = format!("kobana-{product}");
            let stdio: Vec<&(String, String)> = lines
                .iter()
                .filter(|(l, _)| {
                    shell::words(l).get(3) == Some(&key) && l.contains(" -- kobana-mcp serve")
                })
                .collect();
            let (proxy, default): (Vec<_>, Vec<_>) = stdio
                .into_iter()
                .partition(|(l, _)| l.contains("KOBANA_UPSTREAM_URL"));
            assert!(
                !default.is_empty(),
                "{doc}: {product} has no stdio line on the sandbox (without KOBANA_UPSTREAM_URL)"
            );
            // A proxy line only where Kobana publishes an API (issue 38): for the others the
            // server refuses the upstream at start, and the page says why instead.
            if generated::product(product).is_some_and(|p| p.published_api) {
                assert!(
                    !proxy.is_empty(),
                    "{doc}: {product} has no proxy stdio line"
                );
            } else {
                assert!(
                    proxy.is_empty(),
                    "{doc}: {product} has a proxy line the server refuses"
                );
            }
            for (line, label) in proxy {
                assert!(
                    label.to_lowercase().contains("proxy"),
                    "{doc}: a line reaching the API is not labelled as the proxy variant \
                     (label `{label}`): {line}"
                );
            }
            for (line, label) in default {
                assert!(
                    !label.to_lowercase().contains("proxy"),
                    "{doc}: a sandbox line sits under the proxy label: {line}"
                );
            }
        }
    }
}

/// Every server entry of a JSON value that launches the binary (`"command": "kobana-mcp"`).
fn binary_entries(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Object(o) => {
            if o.get("command").and_then(Value::as_str) == Some("kobana-mcp") {
                out.push(v.clone());
            }
            o.values().for_each(|v| binary_entries(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| binary_entries(v, out)),
        _ => {}
    }
}

#[test]
fn the_json_stdio_entries_use_the_sandbox_and_the_proxy_variant_is_labelled() {
    for doc in INSTALL_DOCS {
        let text = read(doc);
        let mut entries = Vec::new();
        // ```json blocks (the README's shorter examples are JSON too), and `code --add-mcp '…'`.
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            if line.trim() != "```json" {
                continue;
            }
            let json: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "```").collect();
            let json = json.join("\n");
            let v: Value = serde_json::from_str(&json)
                .unwrap_or_else(|e| panic!("{doc}: a JSON block does not parse ({e}): {json}"));
            binary_entries(&v, &mut entries);
        }
        for line in shell::commands(&text, "code --add-mcp") {
            let words = shell::words(&line);
            let v: Value =
                serde_json::from_str(&words[2]).unwrap_or_else(|e| panic!("{doc}: {e}: {line}"));
            binary_entries(&v, &mut entries);
        }
        assert!(!entries.is_empty(), "{doc}: no stdio entry");
        for entry in &entries {
            assert!(
                entry["env"].get("KOBANA_UPSTREAM_URL").is_none(),
                "{doc}: a stdio entry reaches the API instead of the sandbox: {entry}"
            );
        }
        for product in product_names() {
            let api = generated::product(product).expect("a product").api_base_url;
            let note = format!("add `\"KOBANA_UPSTREAM_URL\": \"{api}\"`");
            if doc == "README.md" && product != "banking" {
                continue; // The README shows banking's Desktop entry only.
            }
            assert!(
                text.lines()
                    .any(|l| l.contains(&note) && l.to_lowercase().contains("proxy")),
                "{doc}: no labelled proxy variant of {product}'s stdio entry"
            );
        }
    }
}
