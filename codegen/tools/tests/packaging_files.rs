//! The packaging files of a small catalog in a temp folder: which files, their notice, and the
//! write/check cycle of `codegen-tools`, which leaves the catalog compiler's files alone.

use std::path::Path;

const TINY: &str = include_str!("../../tests/data/tiny.yaml");

/// A throwaway repository with `catalog/tiny.yaml`, an empty `generated/` and a README with an
/// install section.
fn temp_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("catalog")).unwrap();
    std::fs::create_dir_all(dir.path().join("generated")).unwrap();
    std::fs::write(dir.path().join("catalog/tiny.yaml"), TINY).unwrap();
    std::fs::write(
        dir.path().join("README.md"),
        format!(
            "# x\n{}\n{}\n",
            codegen_tools::packaging::install::README_BEGIN,
            codegen_tools::packaging::install::README_END
        ),
    )
    .unwrap();
    dir
}

fn loaded(root: &Path) -> Vec<codegen::load::Loaded> {
    codegen::load_all(&root.join("catalog")).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_packaging_file_carries_the_notice() {
    let repo = temp_repo();
    let files = codegen_tools::generate(&loaded(repo.path()));
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "docs/install.md",
            "packaging/README.md",
            "packaging/mcpb-tiny.manifest.json",
            "packaging/server.json",
        ]
    );
    // JSON has no comments: the packaging JSON files' notice is packaging/README.md.
    for f in files.iter().filter(|f| !f.path.ends_with(".json")) {
        let first = f.contents.lines().next().unwrap();
        assert!(first.contains("do not edit by hand"), "{}: {first}", f.path);
        assert!(
            first.contains("cargo run -p codegen-tools"),
            "{}: {first}",
            f.path
        );
    }
}

#[test]
fn write_then_check_and_each_gate_keeps_to_its_own_files() {
    let repo = temp_repo();
    let root = repo.path();
    let loaded = loaded(root);
    // The catalog compiler first (what `cargo build` does), then the tools.
    let compiled = codegen::generate(&root.join("catalog")).unwrap_or_else(|e| panic!("{e}"));
    codegen::write(&root.join("generated"), &compiled).unwrap();
    let lines = codegen_tools::write(root, &loaded).unwrap();
    assert!(
        lines.contains(&"wrote generated/packaging/server.json".to_string()),
        "{lines:?}"
    );
    assert!(lines.contains(&"wrote README.md".to_string()), "{lines:?}");
    assert!(
        lines.contains(&"wrote catalog/catalog.schema.json".to_string()),
        "{lines:?}"
    );
    let checked = codegen_tools::check(root, &loaded).unwrap();
    assert!(checked.problems.is_empty(), "{:?}", checked.problems);
    // Writing again changes nothing, and neither writer removes the other's files.
    assert!(codegen_tools::write(root, &loaded).unwrap().is_empty());
    let report = codegen::write(&root.join("generated"), &compiled).unwrap();
    assert!(
        report.written.is_empty() && report.removed.is_empty(),
        "{report:?}"
    );
    assert!(root.join("generated/docs/install.md").is_file());
    assert!(root.join("generated/packaging/server.json").is_file());
    assert!(codegen::check(&root.join("generated"), &compiled)
        .unwrap()
        .is_empty());

    // A hand edit and a stray file are reported, naming this crate's command.
    std::fs::write(root.join("generated/packaging/server.json"), "{}\n").unwrap();
    std::fs::write(root.join("generated/packaging/old.manifest.json"), "{}\n").unwrap();
    let problems = codegen_tools::check(root, &loaded).unwrap().problems;
    assert_eq!(
        problems,
        [
            "generated/packaging/server.json is stale (differs from what the catalogs generate); run `cargo run -p codegen-tools`",
            "generated/packaging/old.manifest.json is extra (no catalog generates it); run `cargo run -p codegen-tools`",
        ]
    );
    // The catalog compiler's gate does not look at them.
    assert!(codegen::check(&root.join("generated"), &compiled)
        .unwrap()
        .is_empty());
}
