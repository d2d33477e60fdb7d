//! The crates' modules import one another one way: no circle of `crate::`/`super::`/`self::`
//! imports between the files of any crate of the workspace (`runtime/src`, `runtime/model/src`,
//! `runtime/sandbox/src`, `runtime/fixtures/src`, `codegen/src`, `codegen/tools/src`, `src`,
//! `test-support/src`); `generated/src` is the generator's output.
//!
//! A node is a module file (`mod.rs` counts as its folder, `lib.rs` as the crate root). An edge is
//! any path a file names, in a `use` or inline (`crate::backend::records::record(..)`), resolved to
//! the deepest module file it reaches; a path may also start at one of the file's own submodules
//! (`pub use embedded::EmbeddedResolver;` in `auth/mod.rs` is an edge to `auth/embedded.rs`), so
//! a folder whose `mod.rs` re-exports a child that imports `super::` items is a circle too. Test-only code (`#[cfg(test)]` modules, inline or in their
//! own file) is left out: a test may look at the whole crate. Comments and string literals are
//! blanked before paths are read, so neither can invent or hide an edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[test]
fn no_import_circles_in_the_runtime_and_the_generator() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for src in [
        "runtime/src",
        "runtime/model/src",
        "runtime/sandbox/src",
        "codegen/src",
        "src",
        "test-support/src",
        "codegen/tools/src",
        "runtime/fixtures/src",
    ] {
        let dir = root.join(src);
        assert!(dir.is_dir(), "{} is missing", dir.display());
        for cycle in import_cycles(&dir) {
            found.push(format!("{src}: {}", cycle.join(" -> ")));
        }
    }
    assert!(
        found.is_empty(),
        "import circles (each file imports the next):\n{}",
        found.join("\n")
    );
}

/// The checker finds a circle it is shown, through `super::`, `crate::`, inline paths and `mod.rs`
/// folders, and ignores test modules, comments and strings.
#[test]
fn the_checker_sees_circles_and_only_circles() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n");
    write("a/mod.rs", "pub mod x;\nuse crate::b::{self, B};\n");
    write("a/x.rs", "pub struct X;\n");
    write(
        "b.rs",
        "pub struct B;\nfn f() { let _ = crate::c::g(); }\n\
         // crate::a::x is only a comment\n\
         const S: &str = \"crate::a::x\";\n\
         #[cfg(test)]\nmod tests { use crate::a::x::X; fn t() { let _ = '{'; } }\n",
    );
    write("c.rs", "pub fn g() {}\nuse super::a::x::X;\n");
    assert!(import_cycles(dir.path()).is_empty());
    // Now `x` imports `b`: a -> b -> c -> a/x -> b.
    write("a/x.rs", "pub struct X;\nuse crate::b::B;\n");
    let cycles = import_cycles(dir.path());
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    let names: BTreeSet<&str> = cycles[0].iter().map(String::as_str).collect();
    assert!(names.contains("a/x.rs") && names.contains("b.rs") && names.contains("c.rs"));
    assert!(!names.contains("a/mod.rs"), "{cycles:?}");
    // A folder whose mod.rs re-exports a child that imports the folder's own items.
    write("a/x.rs", "pub struct X;\nuse super::Y;\n");
    write("a/mod.rs", "pub mod x;\npub use x::X;\npub struct Y;\n");
    let cycles = import_cycles(dir.path());
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert_eq!(cycles[0], ["a/mod.rs", "a/x.rs", "a/mod.rs"]);
    // Naming the child inline (`x::X`) is the same edge; `other::x::X` is not.
    write(
        "a/mod.rs",
        "pub mod x;\npub struct Y;\nfn f() { let _ = x::X; }\n",
    );
    assert_eq!(import_cycles(dir.path()).len(), 1);
    write(
        "a/mod.rs",
        "pub mod x;\npub struct Y;\nfn f() { let _ = other::x::X; }\n",
    );
    assert!(import_cycles(dir.path()).is_empty());
}

/// Every text a person or model reads has one home, `catalog/texts/runtime.yaml` (checked by the
/// generator, read through `runtime_model::texts::Text`): no Rust source of the server spells a
/// text per locale, i.e. has a match arm on a locale (`Locale::PtBr =>`, `(_, Es) =>`,
/// `Locale::PtBr | Locale::Es =>`). `runtime/model/src/locale.rs` is the one exception: its arms
/// are the locales' tags and the ways they write numbers and dates, not texts.
#[test]
fn no_text_is_spelled_per_locale_in_rust() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for src in [
        "runtime/src",
        "runtime/model/src",
        "runtime/sandbox/src",
        "src",
    ] {
        let dir = root.join(src);
        assert!(dir.is_dir(), "{} is missing", dir.display());
        let mut stack = vec![dir.clone()];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let shown = format!("{src}/{}", rel(&dir, &path));
                if path.extension().is_none_or(|e| e != "rs")
                    || shown == "runtime/model/src/locale.rs"
                {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                for (line, arm) in per_locale_arms(&text) {
                    found.push(format!("{shown}:{line}: {arm}"));
                }
            }
        }
    }
    found.sort();
    assert!(
        found.is_empty(),
        "texts spelled per locale in Rust (move them to catalog/texts/runtime.yaml and name them \
         with runtime_model::texts::Text):\n{}",
        found.join("\n")
    );
}

/// The checker finds the arms of a per-locale text, however the match is written, and nothing in
/// comments, strings or other matches.
#[test]
fn the_checker_sees_per_locale_arms() {
    let old = "fn t(l: Locale) -> &'static str {\n    match l {\n        Locale::En => \"Yes\",\n        \
               Locale::PtBr => {\n            \"Sim\"\n        }\n        Locale::Es => \"Sí\",\n    }\n}\n\
               fn u(p: P, l: Locale) -> String {\n    use Locale::{En, Es, PtBr};\n    match (p, l) {\n        \
               (P::A, En) => x(),\n        (P::A, PtBr | Es) => y(),\n    }\n}\n";
    let lines: Vec<usize> = per_locale_arms(old).into_iter().map(|(n, _)| n).collect();
    assert_eq!(lines, [3, 4, 7, 13, 14]);
    let fine = "// Locale::PtBr => \"Sim\"\nconst S: &str = \"Locale::Es => x\";\n\
                match v { Yes => 1, Answer::En => 2, _ => 3 }\nlet t = Text::FormYes.get(locale);\n";
    assert_eq!(per_locale_arms(fine), []);
}

/// The lines (1-based) holding a match arm whose pattern ends with a locale (`PtBr`, `Es`, `En`,
/// alone or as `Locale::…`, before `=>` or a tuple's `) =>`), comments and strings left out.
fn per_locale_arms(text: &str) -> Vec<(usize, String)> {
    let blanked = blank_comments_and_strings(text);
    let mut out = Vec::new();
    for (i, (line, original)) in blanked.lines().zip(text.lines()).enumerate() {
        let mut from = 0;
        while let Some(at) = line[from..].find("=>") {
            let before = line[..from + at].trim_end();
            from += at + 2;
            let before = before.strip_suffix(')').unwrap_or(before).trim_end();
            let locale = ["PtBr", "Es", "En"].iter().any(|v| {
                before.strip_suffix(v).is_some_and(|head| {
                    let head = head.strip_suffix("Locale::").unwrap_or(head);
                    !head.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
                })
            });
            if locale {
                out.push((i + 1, original.trim().to_string()));
                break;
            }
        }
    }
    out
}

/// In a binary crate, `main.rs` is the root: a module that imports an item `main.rs` defines,
/// while `main.rs` uses that module, is a circle (a module of its own breaks it).
#[test]
fn a_binary_crates_root_is_a_node() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| std::fs::write(dir.path().join(rel), text).unwrap();
    write(
        "main.rs",
        "mod cli;\nmod settings;\npub struct Cli;\nfn main() { settings::f(); }\n",
    );
    write("settings.rs", "use crate::Cli;\npub fn f() {}\n");
    write("cli.rs", "pub struct Args;\n");
    let cycles = import_cycles(dir.path());
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert!(cycles[0].contains(&"main.rs".to_string()), "{cycles:?}");
    write("settings.rs", "use crate::cli::Args;\npub fn f() {}\n");
    assert!(import_cycles(dir.path()).is_empty());
    // Beside a lib.rs, main.rs is another crate: not a node.
    write("lib.rs", "pub mod cli;\n");
    write("settings.rs", "use crate::Cli;\npub fn f() {}\n");
    assert!(import_cycles(dir.path())
        .iter()
        .all(|c| !c.contains(&"main.rs".to_string())));
}

/// The runtime's layers import downwards only: the handler contract imports neither the protocol
/// nor the extensions (both import it), the protocol does not reach up into the extensions, the
/// connection layer or the transports, and the connection layer does not reach the transports.
#[test]
fn the_runtime_layers_import_downwards() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let below_nothing_of = [
        (
            "contract/",
            &[
                "protocol/",
                "extensions/",
                "connection/",
                "transport/",
                "server.rs",
            ][..],
        ),
        (
            "protocol/",
            &["extensions/", "connection/", "transport/", "server.rs"][..],
        ),
        (
            "extensions/",
            &["protocol/", "connection/", "transport/", "server.rs"][..],
        ),
        ("connection/", &["transport/", "server.rs"][..]),
    ];
    let mut wrong = Vec::new();
    for (from, to) in import_edges(&src) {
        for (layer, above) in below_nothing_of {
            if from.starts_with(layer) && to.iter().any(|t| above.iter().any(|a| t.starts_with(a)))
            {
                let hits: Vec<&String> = to
                    .iter()
                    .filter(|t| above.iter().any(|a| t.starts_with(a)))
                    .collect();
                wrong.push(format!("{from} imports {hits:?}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layering:\n{}",
        wrong.join("\n")
    );
}

/// No `.rs` file of the repository implements `GlobalAlloc` (a hand-written allocator is unsafe
/// code on every allocation of a server that moves money): the server and the generator's
/// processes use the `mimalloc` crate's. And the contract crate
/// stays a contract: `runtime-model` depends on neither tokio nor libc.
#[test]
fn no_hand_written_allocator_and_a_model_without_tokio_or_libc() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(
        files
            .iter()
            .any(|f| f.ends_with("runtime/model/src/lib.rs")),
        "the walk missed the repository's sources"
    );
    let allocators: Vec<String> = files
        .iter()
        .filter(|f| implements_global_alloc(&std::fs::read_to_string(f).unwrap_or_default()))
        .map(|f| f.strip_prefix(&root).unwrap_or(f).display().to_string())
        .collect();
    assert!(
        allocators.is_empty(),
        "hand-written global allocators: {allocators:?}"
    );
    let manifest = std::fs::read_to_string(root.join("runtime/model/Cargo.toml")).unwrap();
    let deps = dependencies(&manifest);
    let banned: Vec<&String> = deps
        .iter()
        .filter(|d| ["tokio", "libc"].contains(&d.as_str()))
        .collect();
    assert!(banned.is_empty(), "runtime-model depends on {banned:?}");
}

/// The checks above see what they look for, in every spelling, and only that.
#[test]
fn the_allocator_and_dependency_checks_see_what_they_look_for() {
    // The trait's name is spliced in, so that a plain grep of the repository for an allocator
    // impl finds none here either.
    const TRAIT: &str = "GlobalAlloc";
    assert!(implements_global_alloc(&format!(
        "unsafe impl {TRAIT} for Allocator {{}}"
    )));
    assert!(implements_global_alloc(&format!(
        "unsafe impl<T: Sync>\n  std::alloc::{TRAIT} for A<T> {{}}"
    )));
    assert!(!implements_global_alloc(&format!(
        "// unsafe impl {TRAIT} for A {{}}\nconst S: &str = \"impl {TRAIT} for B\";\n\
         #[global_allocator]\nstatic A: mimalloc::MiMalloc = mimalloc::MiMalloc;\n\
         impl Sync for {TRAIT}Stats {{}}"
    )));
    let manifest = "[package]\nname = \"m\"\n# tokio = \"1\"\n[dependencies]\nserde.workspace = true\n\
                    libc = \"0.2\"\n[dev-dependencies]\nrt = { package = \"tokio\", version = \"1\" }\n\
                    [target.'cfg(unix)'.dependencies.nix]\nversion = \"0.29\"\n";
    assert_eq!(
        dependencies(manifest),
        ["serde", "libc", "rt", "tokio", "nix"]
    );
}

/// Test code lives beside the runtime, not in it (issue 34): the conformance fixture's handlers
/// are the `runtime-fixtures` crate (`runtime/fixtures/`), which adds them with
/// `Extensions::with`, and test helpers are `#[cfg(test)]` modules or `test-support`. So `runtime`
/// declares no `fixtures` feature, and no file under `runtime/src` compiles code for such a feature
/// or for tests-or-a-feature (`cfg(any(test, feature = …))`): the first thing a reader opens is the
/// server.
#[test]
fn no_fixture_code_in_the_runtime_sources() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap();
    let declared = features(&manifest);
    assert!(
        !declared.iter().any(|f| f == "fixtures"),
        "runtime/Cargo.toml declares a `fixtures` feature: {declared:?}"
    );
    let src = crate_dir.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(
        files.iter().any(|f| f.ends_with("src/lib.rs")),
        "the walk missed runtime/src"
    );
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for line in fixture_gates(&text) {
            found.push(format!("runtime/src/{}:{line}", rel(&src, file)));
        }
    }
    assert!(
        found.is_empty(),
        "code behind a fixtures feature in runtime/src (it belongs in runtime/fixtures/ or a \
         #[cfg(test)] module):\n{}",
        found.join("\n")
    );
}

/// The fixture checks see the old layout (a `fixtures` feature, modules and list entries gated
/// on it, however spaced) and leave plain test modules and other features alone.
#[test]
fn the_fixture_checks_see_what_they_look_for() {
    let old_manifest = "[package]\nname = \"runtime\"\n\n[features]\n# The conformance handlers.\n\
                        fixtures = []\nother = [\"dep:x\"]\n\n[dev-dependencies]\n\
                        generated = { workspace = true, features = [\"fixtures\"] }\n";
    assert_eq!(features(old_manifest), ["fixtures", "other"]);
    assert!(features("[package]\nname = \"r\"\n[dev-dependencies]\nfixtures = \"1\"\n").is_empty());
    let old_extensions = "pub mod catalog;\n#[cfg(any(test, feature = \"fixtures\"))]\n\
                          pub mod conformance;\n#[cfg(feature=\"fixtures\")]\nmod tasks;\n\
                          pub static ALL: Extensions = Extensions::new(&[\n    &catalog::EXTENSION,\n\
                          \x20   #[cfg(any( test , feature = \"other\" ))]\n    &conformance::EXTENSION,\n]);\n";
    assert_eq!(fixture_gates(old_extensions), [2, 4, 8]);
    assert!(fixture_gates(
        "#[cfg(test)]\nmod tests;\n#[cfg(feature = \"otel\")]\nmod otel;\n#[cfg(all(test, unix))]\nmod u;\n"
    )
    .is_empty());
}

/// The names a manifest's `[features]` table declares.
fn features(manifest: &str) -> Vec<String> {
    let mut in_features = false;
    let mut out = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_features = line == "[features]";
        } else if in_features && !line.starts_with('#') {
            if let Some((key, _)) = line.split_once('=') {
                out.push(key.trim().to_string());
            }
        }
    }
    out
}

/// Every server build compiles the catalog compiler (`generated/build.rs` runs it), so it stays
/// lean (issue 34): its build-time dependencies are neither `schemars` nor `jsonschema` nor the
/// tools crate (the OpenAPI importer, the fact files, packaging), and `generated` builds with the
/// compiler alone. `schemars` may be an optional dependency of `codegen` (its `schema` feature,
/// which `codegen-tools` turns on) as long as neither `generated` nor `codegen`'s default
/// features enable it.
#[test]
fn the_server_build_compiles_a_lean_catalog_compiler() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let problems =
        lean_compiler_problems(&read("generated/Cargo.toml"), &read("codegen/Cargo.toml"));
    assert!(
        problems.is_empty(),
        "the build script of `generated` compiles more than the catalog compiler:\n{}",
        problems.join("\n")
    );
}

/// The lean-compiler check sees every way the heavy crates come back: a plain or per-target
/// dependency, a default feature, a feature `generated` turns on, the tools crate as a build
/// dependency (by key or by `package`), and passes the layout it is meant to allow.
#[test]
fn the_lean_compiler_check_sees_every_way_back() {
    let generated =
        "[package]\nname = \"generated\"\n[dependencies]\nruntime-model.workspace = true\n\
                     [build-dependencies]\ncodegen.workspace = true\n";
    let lean = "[package]\nname = \"codegen\"\n[dependencies]\nserde.workspace = true\n\
                schemars = { workspace = true, optional = true }\n[features]\nschema = [\"dep:schemars\"]\n\
                [dev-dependencies]\njsonschema.workspace = true\n";
    assert_eq!(
        lean_compiler_problems(generated, lean),
        Vec::<String>::new()
    );
    let problems = |g: &str, l: &str| lean_compiler_problems(g, l).join("\n");
    // The old layout: schemars and jsonschema plain dependencies of the compiler.
    let old = "[dependencies]\nserde.workspace = true\nschemars.workspace = true\njsonschema.workspace = true\n";
    let p = problems(generated, old);
    assert!(
        p.contains("`schemars`") && p.contains("`jsonschema`"),
        "{p}"
    );
    let per_target = "[target.'cfg(unix)'.dependencies.jsonschema]\nversion = \"0.61\"\n";
    assert!(problems(generated, per_target).contains("`jsonschema`"));
    let by_default = lean.replace("[features]\n", "[features]\ndefault = [\"schema\"]\n");
    assert!(problems(generated, &by_default).contains("default"));
    let turned_on = generated.replace(
        "codegen.workspace = true",
        "codegen = { workspace = true, features = [\"schema\"] }",
    );
    assert!(problems(&turned_on, lean).contains("features"));
    let tools = format!("{generated}codegen-tools.workspace = true\n");
    assert!(problems(&tools, lean).contains("`codegen-tools`"));
    let renamed = format!(
        "{generated}tools = {{ path = \"../codegen/tools\", package = \"codegen-tools\" }}\n"
    );
    assert!(problems(&renamed, lean).contains("`codegen-tools`"));
    let in_lean = format!("{lean}[dependencies.codegen-tools]\npath = \"tools\"\n");
    assert!(problems(generated, &in_lean).contains("`codegen-tools`"));
    let no_compiler = generated.replace("codegen.workspace = true", "");
    assert!(problems(&no_compiler, lean).contains("no `codegen`"));
}

/// The crates the server build must not compile for `generated/build.rs`.
const NOT_IN_THE_SERVER_BUILD: [&str; 3] = ["schemars", "jsonschema", "codegen-tools"];

/// What is wrong with the build-time dependencies of `generated` (its manifest) through the
/// catalog compiler (`codegen`'s manifest), one line each.
fn lean_compiler_problems(generated: &str, codegen: &str) -> Vec<String> {
    let mut out = Vec::new();
    let build = manifest_dependencies(generated, "build-dependencies");
    let Some(compiler) = build
        .iter()
        .find(|d| d.names.iter().any(|n| n == "codegen"))
    else {
        return vec!["generated/Cargo.toml has no `codegen` build dependency".into()];
    };
    if !compiler.features.is_empty() {
        out.push(format!(
            "generated's build dependency on codegen turns on features {:?}",
            compiler.features
        ));
    }
    for d in &build {
        for banned in NOT_IN_THE_SERVER_BUILD {
            if d.names.iter().any(|n| n == banned) {
                out.push(format!("generated builds with `{banned}`"));
            }
        }
    }
    let defaults = default_features(codegen);
    for d in manifest_dependencies(codegen, "dependencies") {
        for banned in NOT_IN_THE_SERVER_BUILD {
            if !d.names.iter().any(|n| n == banned) {
                continue;
            }
            if !d.optional {
                out.push(format!("codegen depends on `{banned}`"));
            } else if defaults
                .iter()
                .any(|f| f == banned || f == &format!("dep:{banned}"))
            {
                out.push(format!("codegen's default features turn on `{banned}`"));
            }
        }
    }
    out
}

/// The lines (1-based) of `code` that gate code on the `fixtures` feature, or on tests or any
/// feature (`any(test, feature = …)`), however spaced.
fn fixture_gates(code: &str) -> Vec<usize> {
    code.lines()
        .enumerate()
        .filter(|(_, line)| {
            let squashed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            squashed.contains("feature=\"fixtures\"") || squashed.contains("any(test,feature=")
        })
        .map(|(i, _)| i + 1)
        .collect()
}

/// One dependency of a manifest: its key and `package` name, whether optional, its features.
struct Dependency {
    names: Vec<String>,
    optional: bool,
    features: Vec<String>,
}

/// The dependencies of `kind` (`dependencies`, `build-dependencies`; per-target tables included)
/// of a manifest, written inline (`x = { … }`, `x.workspace = true`) or as a table
/// (`[dependencies.x]`).
fn manifest_dependencies(manifest: &str, kind: &str) -> Vec<Dependency> {
    let mut out: Vec<Dependency> = Vec::new();
    // Some(None): inside a `[kind]` table; Some(Some(i)): inside `[kind.x]`, which is out[i].
    let mut at: Option<Option<usize>> = None;
    for line in manifest.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if let Some(header) = line.strip_prefix('[') {
            let parts: Vec<&str> = header.trim_end_matches(']').split('.').collect();
            at = match parts.iter().rposition(|p| *p == kind) {
                Some(i) if i + 1 == parts.len() => Some(None),
                Some(i) => {
                    out.push(Dependency {
                        names: vec![parts[i + 1].trim_matches('"').to_string()],
                        optional: false,
                        features: Vec::new(),
                    });
                    Some(Some(out.len() - 1))
                }
                None => None,
            };
            continue;
        }
        match at {
            Some(None) if !line.is_empty() => {
                let key = line.split(['=', '.']).next().unwrap_or("").trim();
                let mut d = Dependency {
                    names: vec![key.trim_matches('"').to_string()],
                    optional: false,
                    features: Vec::new(),
                };
                read_dependency_keys(line, &mut d);
                out.push(d);
            }
            Some(Some(i)) => read_dependency_keys(line, &mut out[i]),
            _ => {}
        }
    }
    out
}

/// `package`, `optional` and `features` of a dependency, from a line of its entry or table.
fn read_dependency_keys(line: &str, d: &mut Dependency) {
    let value_of = |key: &str| -> Option<&str> {
        let at = find_word(line, key)?;
        line[at + key.len()..]
            .trim_start()
            .strip_prefix('=')
            .map(str::trim_start)
    };
    if let Some(name) = value_of("package").and_then(|v| v.strip_prefix('"')?.split('"').next()) {
        d.names.push(name.to_string());
    }
    if value_of("optional").is_some_and(|v| v.starts_with("true")) {
        d.optional = true;
    }
    if let Some(list) = value_of("features").and_then(|v| v.strip_prefix('[')?.split(']').next()) {
        d.features.extend(
            list.split(',')
                .map(|f| f.trim().trim_matches('"').to_string())
                .filter(|f| !f.is_empty()),
        );
    }
}

/// The features a manifest's `default` turns on, with the features they turn on in turn.
fn default_features(manifest: &str) -> Vec<String> {
    let mut table: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut in_features = false;
    for line in manifest.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.starts_with('[') {
            in_features = line == "[features]";
            continue;
        }
        if let (true, Some((name, list))) = (in_features, line.split_once('=')) {
            let list = list.trim().trim_start_matches('[').trim_end_matches(']');
            table.insert(
                name.trim().to_string(),
                list.split(',')
                    .map(|f| f.trim().trim_matches('"').to_string())
                    .filter(|f| !f.is_empty())
                    .collect(),
            );
        }
    }
    let mut on: Vec<String> = Vec::new();
    let mut todo = vec!["default".to_string()];
    while let Some(f) = todo.pop() {
        for g in table.get(&f).into_iter().flatten() {
            if !on.contains(g) {
                on.push(g.clone());
                todo.push(g.clone());
            }
        }
    }
    on
}

/// Every `.rs` file under `dir`, but in build outputs (`target/`) and hidden folders.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "target" && name != "node_modules" && !name.starts_with('.') {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// Whether `code` has an `impl … GlobalAlloc for …` (comments and strings aside).
fn implements_global_alloc(code: &str) -> bool {
    let code = blank_comments_and_strings(code);
    // An impl header runs from `impl` to its `{` (or `;`): the words before `for` name the
    // trait (its path, generics and bounds).
    code.split(['{', '}', ';']).any(|header| {
        let words: Vec<&str> = header
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        let Some(at) = words.iter().position(|w| *w == "impl") else {
            return false;
        };
        let Some(of) = words[at..].iter().position(|w| *w == "for") else {
            return false;
        };
        words[at..at + of].contains(&"GlobalAlloc")
    })
}

/// The crates a manifest depends on (normal, dev, build, per target), by key and by `package`.
fn dependencies(manifest: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if let Some(header) = line.strip_prefix('[') {
            let header = header.trim_end_matches(']');
            in_deps = false;
            let parts: Vec<&str> = header.split('.').collect();
            match parts.iter().rposition(|p| p.ends_with("dependencies")) {
                Some(i) if i + 1 == parts.len() => in_deps = true,
                Some(i) => found.push(parts[i + 1].trim_matches('"').to_string()),
                None => {}
            }
            continue;
        }
        if !in_deps || line.is_empty() {
            continue;
        }
        let key = line.split(['=', '.']).next().unwrap_or("").trim();
        found.push(key.trim_matches('"').to_string());
        if let Some(p) = line.split("package").nth(1) {
            let p = p.trim_start().trim_start_matches('=').trim_start();
            if let Some(name) = p.strip_prefix('"').and_then(|s| s.split('"').next()) {
                found.push(name.to_string());
            }
        }
    }
    found
}

/// One circle per strongly connected group of files, each as a closed path of file names.
fn import_cycles(src: &Path) -> Vec<Vec<String>> {
    cycles(&import_edges(src))
}

/// Each module file (relative name) with the module files it imports.
fn import_edges(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let files = module_files(src);
    let modules: BTreeMap<Vec<String>, String> = files
        .iter()
        .map(|(m, f)| (m.clone(), rel(src, f)))
        .collect();
    let test_only = test_only_modules(&files);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, file) in &files {
        if test_only.iter().any(|t| module.starts_with(t)) {
            continue;
        }
        let name = rel(src, file);
        let text = std::fs::read_to_string(file).unwrap();
        let code = strip_test_modules(&blank_comments_and_strings(&text));
        let children: Vec<&str> = files
            .iter()
            .filter(|(m, _)| m.len() == module.len() + 1 && m.starts_with(module))
            .filter(|(m, _)| !test_only.contains(m))
            .map(|(m, _)| m[module.len()].as_str())
            .collect();
        let out = edges.entry(name.clone()).or_default();
        for path in named_paths(&code, &children) {
            if let Some(target) = resolve(module, &path, &modules) {
                if target != name {
                    out.insert(target);
                }
            }
        }
    }
    edges
}

fn rel(src: &Path, file: &Path) -> String {
    file.strip_prefix(src)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

/// Every `.rs` file with its module path (`a/b.rs` and `a/b/mod.rs` → `[a, b]`, `lib.rs` → `[]`).
/// Beside a `lib.rs`, `main.rs` and `bin/` are other crates (they reach the library by its name),
/// so not nodes; a binary crate's `main.rs` alone is its root (`[]`).
fn module_files(src: &Path) -> Vec<(Vec<String>, PathBuf)> {
    let mut out = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "bin") {
                    stack.push(path);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relp = rel(src, &path);
            // Beside a `lib.rs`, `main.rs` is another crate (it reaches the library by its name);
            // alone, it is the crate's root, like `lib.rs`.
            if relp == "main.rs" && src.join("lib.rs").exists() {
                continue;
            }
            let mut parts: Vec<String> = relp
                .trim_end_matches(".rs")
                .split('/')
                .map(str::to_string)
                .collect();
            if parts.len() == 1 && parts[0] == "main"
                || matches!(parts.last().map(String::as_str), Some("mod" | "lib"))
            {
                parts.pop();
            }
            out.push((parts, path));
        }
    }
    out.sort();
    out
}

/// Modules declared by their parent as `#[cfg(test)] mod name;` (a whole file of test code).
fn test_only_modules(files: &[(Vec<String>, PathBuf)]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (module, file) in files {
        let text = blank_comments_and_strings(&std::fs::read_to_string(file).unwrap());
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for w in lines.windows(2) {
            if w[0] != "#[cfg(test)]" {
                continue;
            }
            let decl = w[1]
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub ");
            if let Some(name) = decl.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
                let mut m = module.clone();
                m.push(name.trim().to_string());
                out.push(m);
            }
        }
    }
    out
}

/// Replaces the text of comments, string and char literals with spaces (lines kept).
fn blank_comments_and_strings(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |ch: char| if ch == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < c.len() {
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(c[i]));
                    i += 1;
                }
            }
        } else if c[i] == 'r'
            && matches!(c.get(i + 1), Some('"' | '#'))
            && (i == 0 || !(c[i - 1].is_alphanumeric() || c[i - 1] == '_'))
        {
            // Raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while c.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if c.get(j) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= c.len() {
                    break;
                }
                if c[j] == '"' && (0..hashes).all(|k| c.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            for &ch in &c[i..j.min(c.len())] {
                out.push(blank(ch));
            }
            i = j;
        } else if c[i] == '"' {
            let mut j = i + 1;
            while j < c.len() && c[j] != '"' {
                if c[j] == '\\' {
                    j += 1;
                }
                j += 1;
            }
            for &ch in &c[i..(j + 1).min(c.len())] {
                out.push(blank(ch));
            }
            i = j + 1;
        } else if c[i] == '\'' {
            // A char literal ('x', '\n', '\u{7b}'); anything else is a lifetime.
            let end = if c.get(i + 1) == Some(&'\\') {
                (i + 2..c.len()).find(|&j| c[j] == '\'')
            } else if c.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(e) => {
                    for _ in i..=e {
                        out.push(' ');
                    }
                    i = e + 1;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// Removes `#[cfg(test)] mod name { … }` blocks (braces balance once strings are blanked).
fn strip_test_modules(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let decl = after.trim_start();
        let decl = decl
            .strip_prefix("pub(crate) ")
            .or_else(|| decl.strip_prefix("pub "))
            .unwrap_or(decl);
        let is_block = decl.starts_with("mod ")
            && decl
                .find(['{', ';'])
                .is_some_and(|k| decl.as_bytes()[k] == b'{');
        if !is_block {
            out.push_str("#[cfg(test)]");
            rest = after;
            continue;
        }
        let open = after.find('{').unwrap();
        let mut depth = 0;
        let mut end = after.len();
        for (k, ch) in after[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// Every path starting at `crate`, `super`, `self` or one of the module's `children` that the
/// code names: `use` trees expanded, inline paths as written. A child path comes back as
/// `self::child::…`.
fn named_paths(code: &str, children: &[&str]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    // `use` statements (possibly over several lines).
    let mut rest = code;
    while let Some(at) = find_word(rest, "use") {
        let tail = &rest[at + 3..];
        let Some(end) = tail.find(';') else { break };
        expand_use_tree(&tail[..end], &mut Vec::new(), children, &mut out);
        rest = &tail[end..];
    }
    // Inline paths, outside `use` statements (whose heads alone would name parent modules).
    let without_uses = remove_uses(code);
    let bytes = without_uses.as_bytes();
    let heads: Vec<String> = ["crate", "super", "self"]
        .iter()
        .chain(children)
        .map(|h| format!("{h}::"))
        .collect();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0
            || !(bytes[i - 1].is_ascii_alphanumeric()
                || bytes[i - 1] == b'_'
                || bytes[i - 1] == b':');
        if starts_word {
            for head in &heads {
                if without_uses[i..].starts_with(head.as_str()) {
                    let mut j = i;
                    let mut segs = Vec::new();
                    loop {
                        let seg_end = without_uses[j..]
                            .find(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
                            .map_or(without_uses.len(), |k| j + k);
                        if seg_end == j {
                            break;
                        }
                        segs.push(without_uses[j..seg_end].to_string());
                        if without_uses[seg_end..].starts_with("::") {
                            j = seg_end + 2;
                        } else {
                            break;
                        }
                    }
                    i = j;
                    if !matches!(segs[0].as_str(), "crate" | "super" | "self") {
                        segs.insert(0, "self".to_string());
                    }
                    out.push(segs);
                    break;
                }
            }
        }
        i += 1;
    }
    out
}

fn find_word(s: &str, word: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(k) = s[from..].find(word) {
        let at = from + k;
        let before_ok = at == 0 || !(b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_');
        let after = b.get(at + word.len()).copied().unwrap_or(b' ');
        if before_ok && after.is_ascii_whitespace() {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

fn remove_uses(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = find_word(rest, "use") {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let end = tail.find(';').map_or(tail.len(), |e| e + 1);
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// Expands `a::{b, c::{self, d}}` into `[a, b]`, `[a, c, self]`, `[a, c, d]`; keeps only paths
/// that start at `crate`, `super`, `self` or a child module (as `self::child::…`).
fn expand_use_tree(
    tree: &str,
    prefix: &mut Vec<String>,
    children: &[&str],
    out: &mut Vec<Vec<String>>,
) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim().trim_end_matches("::");
        let depth_before = prefix.len();
        prefix.extend(
            head.split("::")
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string),
        );
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        for part in split_top_level(inner) {
            expand_use_tree(part, prefix, children, out);
        }
        prefix.truncate(depth_before);
        return;
    }
    if tree.is_empty() {
        return;
    }
    let path = tree.split(" as ").next().unwrap_or(tree);
    let mut full = prefix.clone();
    full.extend(path.split("::").map(|s| s.trim().to_string()));
    match full.first().map(String::as_str) {
        Some("crate" | "super" | "self") => out.push(full),
        Some(head) if children.contains(&head) => {
            full.insert(0, "self".to_string());
            out.push(full);
        }
        _ => {}
    }
}

fn split_top_level(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (k, ch) in s.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

/// The deepest module file a path reaches from `module`.
fn resolve(
    module: &[String],
    path: &[String],
    modules: &BTreeMap<Vec<String>, String>,
) -> Option<String> {
    let mut at: Vec<String> = match path.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("self") => module.to_vec(),
        Some("super") => module.to_vec(),
        _ => return None,
    };
    let mut segs = &path[1..];
    if path[0] == "super" {
        at.pop();
        while segs.first().is_some_and(|s| s == "super") {
            at.pop();
            segs = &segs[1..];
        }
    }
    let mut best = modules.get(&at).cloned();
    for s in segs {
        if s == "self" || s == "*" {
            break;
        }
        at.push(s.clone());
        match modules.get(&at) {
            Some(f) => best = Some(f.clone()),
            None => break,
        }
    }
    best
}

/// One circle per strongly connected group (Tarjan), as a closed path through the group.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        groups: Vec<Vec<&'a str>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.edges.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if self.on_stack.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut group = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    group.push(w);
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    self.groups.push(group);
                }
            }
        }
    }
    let mut t = Tarjan {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        groups: Vec::new(),
    };
    for v in edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.groups
        .into_iter()
        .map(|group| {
            // A closed walk from the group's first file back to it, staying inside the group.
            let members: BTreeSet<&str> = group.iter().copied().collect();
            let start = *members.iter().next().unwrap();
            let mut path = vec![start.to_string()];
            let mut seen = BTreeSet::from([start]);
            let mut at = start;
            loop {
                let next = edges[at]
                    .iter()
                    .map(String::as_str)
                    .filter(|w| members.contains(w))
                    .find(|w| *w == start || !seen.contains(w))
                    .or_else(|| {
                        edges[at]
                            .iter()
                            .map(String::as_str)
                            .find(|w| members.contains(w))
                    })
                    .unwrap();
                path.push(next.to_string());
                if next == start || !seen.insert(next) {
                    break;
                }
                at = next;
            }
            // The group may be larger than this walk; name every member too.
            if members.len() > path.len() - 1 {
                path.push(format!(
                    "(the whole circle group: {})",
                    members.iter().copied().collect::<Vec<_>>().join(", ")
                ));
            }
            path
        })
        .collect()
}

/// The folders (and top-level files) of `runtime/src` import one way, down the layer list of
/// `lib.rs`'s module map: that list is the rule, and this test makes it true. Every top-level
/// module `lib.rs` declares is in the list, once.
#[test]
fn the_runtime_folders_import_down_the_layer_list() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let layers = layer_list(&lib);
    let declared: BTreeSet<String> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod ")?.strip_suffix(';'))
        .map(str::to_string)
        .collect();
    let listed: BTreeSet<String> = layers.iter().cloned().collect();
    assert_eq!(
        listed.len(),
        layers.len(),
        "a layer is listed twice: {layers:?}"
    );
    assert_eq!(
        declared, listed,
        "lib.rs's module map must list every module it declares, and only those"
    );
    let wrong = folder_imports_against(&import_edges(&src), &layers);
    assert!(
        wrong.is_empty(),
        "imports that run up lib.rs's layer list (a module imports only those listed below it):\n{}",
        wrong.join("\n")
    );
}

/// The checker sees a folder that imports one listed above it, and lets one below pass.
#[test]
fn the_layer_checker_sees_an_upward_import() {
    let layers: Vec<String> = ["top", "mid", "low"].map(String::from).to_vec();
    let edge = |from: &str, to: &str| {
        BTreeMap::from([(from.to_string(), BTreeSet::from([to.to_string()]))])
    };
    assert!(folder_imports_against(&edge("top/a.rs", "low/b.rs"), &layers).is_empty());
    assert!(folder_imports_against(&edge("mid.rs", "mid.rs"), &layers).is_empty());
    assert!(folder_imports_against(&edge("lib.rs", "top/a.rs"), &layers).is_empty());
    let up = folder_imports_against(&edge("low/x/y.rs", "mid.rs"), &layers);
    assert_eq!(up, ["low/x/y.rs imports mid.rs (low is below mid)"]);
    let doc = "//! Module map\n//! - `top`: a.\n//!   more.\n//! - `low`: b.\n\npub mod top;\n";
    assert_eq!(layer_list(doc), ["top", "low"]);
}

/// The modules of `lib.rs`'s map, top layer first: its `//! - \`name\`:` lines, in order.
fn layer_list(lib: &str) -> Vec<String> {
    lib.lines()
        .filter_map(|l| l.strip_prefix("//! - `"))
        .filter_map(|l| l.split_once("`:"))
        .map(|(name, _)| name.to_string())
        .collect()
}

/// The file imports between top-level modules that run up `layers` (or reach a module the list
/// does not name), one line each. The crate root (`lib.rs`) declares them all, so is left out.
fn folder_imports_against(
    edges: &BTreeMap<String, BTreeSet<String>>,
    layers: &[String],
) -> Vec<String> {
    let top = |file: &str| {
        let first = file.split('/').next().unwrap_or(file);
        first.strip_suffix(".rs").unwrap_or(first).to_string()
    };
    let rank = |m: &str| layers.iter().position(|l| l == m);
    let mut wrong = Vec::new();
    for (from, to) in edges {
        let f = top(from);
        if f == "lib" {
            continue;
        }
        for t in to {
            let g = top(t);
            if g == f || g == "lib" {
                continue;
            }
            match (rank(&f), rank(&g)) {
                (Some(a), Some(b)) if a < b => {}
                (Some(_), Some(_)) => wrong.push(format!("{from} imports {t} ({f} is below {g})")),
                _ => wrong.push(format!(
                    "{from} imports {t} (a module the layer list does not name)"
                )),
            }
        }
    }
    wrong
}

/// `ARCHITECTURE.md` names only paths that exist: every repository path it writes in backticks
/// ([`doc_paths`]) is a file or a folder (a trailing `/`) of the repository, so a file moved or
/// renamed without its map fails here, named.
#[test]
fn the_architecture_map_names_only_paths_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let doc = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let paths = doc_paths(&doc);
    assert!(
        paths.iter().any(|p| p == "runtime/tests/architecture.rs"),
        "the extractor found none of the map's paths: {paths:?}"
    );
    let missing = missing_paths(&root, &paths);
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist (relative to the repository root):\n{}",
        missing.join("\n")
    );
}

/// The extractor finds a planted path that does not exist, among paths that do and spans that are
/// not paths (commands, URLs, placeholders, globs, Rust paths, fenced blocks).
#[test]
fn the_map_checker_sees_a_path_that_does_not_exist() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
    std::fs::write(dir.path().join("a/b/c.rs"), "").unwrap();
    std::fs::write(dir.path().join("Top.toml"), "").unwrap();
    let sample = "The layer `a/b/` holds `a/b/c.rs`, configured by `Top.toml`; see `a/b/gone.rs`\n\
                  and `run.sh`, not `cargo run -p x`, `https://x.example/a`, `a/{id}`, `a/<p>.md`,\n\
                  `a/*.rs`, `crate::a::b` or `Type`. A folder `a/b/c.rs/` is no file, and a file\n\
                  `a/b` no folder: `a/b/c.rs` is.\n\
                  ```text\n`a/in/a/fence.rs`\n```\n";
    let paths = doc_paths(sample);
    assert_eq!(
        paths,
        [
            "a/b/",
            "a/b/c.rs",
            "Top.toml",
            "a/b/gone.rs",
            "run.sh",
            "a/b/c.rs/",
            "a/b",
            "a/b/c.rs"
        ]
    );
    assert_eq!(
        missing_paths(dir.path(), &paths),
        ["a/b/gone.rs", "run.sh", "a/b/c.rs/"]
    );
}

/// The repository paths a Markdown text names in code spans, in order: a span without whitespace,
/// `://`, `{`, `<` or `*` that contains a `/` or ends in `.rs`, `.md`, `.yaml`, `.toml` or `.sh`.
/// Fenced code blocks (commands, diagrams) are left out.
fn doc_paths(markdown: &str) -> Vec<String> {
    let mut text = String::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            text.push_str(line);
            text.push('\n');
        }
    }
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| {
            !span.is_empty()
                && !span.contains(char::is_whitespace)
                && !["://", "{", "<", "*"].iter().any(|b| span.contains(b))
                && (span.contains('/')
                    || [".rs", ".md", ".yaml", ".toml", ".sh"]
                        .iter()
                        .any(|e| span.ends_with(e)))
        })
        .map(str::to_string)
        .collect()
}

/// The `paths` (relative to `root`) that are not there, each once: a path ending in `/` must be
/// a folder, any other must exist.
fn missing_paths(root: &Path, paths: &[String]) -> Vec<String> {
    let mut missing: Vec<String> = Vec::new();
    for p in paths {
        let at = root.join(p.trim_matches('/'));
        let there = if p.ends_with('/') {
            at.is_dir()
        } else {
            at.exists()
        };
        if !there && !missing.contains(p) {
            missing.push(p.clone());
        }
    }
    missing
}
