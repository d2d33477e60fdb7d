//! Texts per locale: a catalog that declares its language is refused while a text lacks a
//! translation (naming the catalog's file, line and key), a malformed table entry is refused
//! naming the table's file and line, and a complete one generates per-locale tables and docs.

const TINY: &str = include_str!("data/tiny.yaml");

/// The tiny catalog, declaring Spanish as its document's language.
fn localized_tiny() -> String {
    TINY.replacen(
        "  api_base_url: https://api.example.test\n",
        "  api_base_url: https://api.example.test\n  locale: es\n",
        1,
    )
}

fn repo(catalog: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("catalog/texts/tiny")).unwrap();
    std::fs::write(dir.path().join("catalog/tiny.yaml"), catalog).unwrap();
    dir
}

/// Every text of a catalog, as the generator finds them.
fn texts_of(catalog: &str) -> Vec<String> {
    let mut v: serde_yaml::Value = serde_yaml::from_str(catalog).unwrap();
    let mut out = Vec::new();
    codegen::texts::visit_texts(&mut v, &mut |_, t| {
        if let Some(s) = t.as_str() {
            if !out.iter().any(|o| o == s) {
                out.push(s.to_string());
            }
        }
    });
    out
}

#[test]
fn a_missing_translation_names_file_line_and_key() {
    let dir = repo(&localized_tiny());
    let err = codegen::load_all(&dir.path().join("catalog"))
        .map(|_| ())
        .expect_err("refused")
        .to_string();
    let title_line = localized_tiny()
        .lines()
        .position(|l| l.trim_start().starts_with("title: Tiny Shop"))
        .unwrap()
        + 1;
    assert!(
        err.contains(&format!(
            "catalog/tiny.yaml:{title_line}:10: error at `product.title`: the text \"Tiny Shop\" has no pt-BR, es and en versions"
        )),
        "{err}"
    );
    assert!(
        err.contains("error at `tools[3].destructive_clause`"),
        "{err}"
    );
    assert!(err.contains("error at `prompts[0].template`"), "{err}");
    assert!(err.contains("error at `toolsets[0].title`"), "{err}");
    assert!(err.contains("error at `toolsets[0].description`"), "{err}");
    // Without `locale` the same catalog speaks its source texts and is accepted.
    let plain = repo(TINY);
    assert!(codegen::load_all(&plain.path().join("catalog")).is_ok());
}

/// A toolset's title and description and a tool's `task_note` are texts; the toolset's name
/// and tool patterns are identifiers.
#[test]
fn toolsets_and_task_notes_are_texts() {
    let catalog = TINY.replacen(
        "toolsets:\n",
        "toolsets:\n  - name: notes\n    title: Notes\n    description: Notes kept.\n    tools: [tiny_notes_*]\n",
        1,
    );
    let with_note =
        "tools:\n  - name: tiny_report\n    task_note: the report takes long to build\n";
    let texts = texts_of(&catalog);
    for t in ["Orders", "Orders and customers.", "Notes", "Notes kept."] {
        assert!(texts.iter().any(|s| s == t), "{t:?} in {texts:?}");
    }
    for id in ["orders", "notes", "tiny_notes_*"] {
        assert!(!texts.iter().any(|s| s == id), "{id:?} in {texts:?}");
    }
    assert_eq!(texts_of(with_note), ["the report takes long to build"]);
}

#[test]
fn a_malformed_or_duplicate_entry_names_the_tables_file_and_line() {
    let dir = repo(&localized_tiny());
    let texts = dir.path().join("catalog/texts/tiny");
    std::fs::write(
        texts.join("a.yaml"),
        "Tiny Shop:\n  en: Tiny Shop\n  pt-BR: Lojinha\n",
    )
    .unwrap();
    std::fs::write(
        texts.join("b.yaml"),
        "# second file\nTiny Shop: {en: Tiny Shop, pt-BR: Lojinha, es: Tiendita}\n",
    )
    .unwrap();
    let err = codegen::load_all(&dir.path().join("catalog"))
        .map(|_| ())
        .expect_err("refused")
        .to_string();
    assert!(
        err.contains("catalog/texts/tiny/a.yaml:1:1: error at `Tiny Shop`: `es` is missing"),
        "{err}"
    );
    std::fs::write(
        texts.join("a.yaml"),
        "Tiny Shop:\n  en: Tiny Shop\n  pt-BR: Lojinha\n  es: Tiendita\n",
    )
    .unwrap();
    let err = codegen::load_all(&dir.path().join("catalog"))
        .map(|_| ())
        .expect_err("refused")
        .to_string();
    assert!(
        err.contains("catalog/texts/tiny/b.yaml:2:1: error at `Tiny Shop`: duplicate key: already translated at catalog/texts/tiny/a.yaml:1"),
        "{err}"
    );
}

#[test]
fn a_complete_table_generates_every_locale() {
    let dir = repo(&localized_tiny());
    // A table translating every text: each version marked with its locale.
    let mut table = String::new();
    for text in texts_of(&localized_tiny()) {
        let key = serde_json::to_string(&text).unwrap();
        let v = |l: &str| serde_json::to_string(&format!("[{l}] {text}")).unwrap();
        table.push_str(&format!(
            "{key}: {{en: {}, pt-BR: {}, es: {}}}\n",
            v("en"),
            v("pt"),
            v("es")
        ));
    }
    std::fs::write(dir.path().join("catalog/texts/tiny/all.yaml"), table).unwrap();
    let files = codegen::generate(&dir.path().join("catalog")).unwrap_or_else(|e| panic!("{e}"));
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    for page in ["docs/tiny.en.md", "docs/tiny.es.md", "docs/tiny.pt-BR.md"] {
        assert!(paths.contains(&page), "{paths:?}");
    }
    let rust = &files
        .iter()
        .find(|f| f.path == "src/tiny.rs")
        .unwrap()
        .contents;
    assert!(rust.contains("default_locale: Locale::Es"));
    assert!(rust.contains("locale: Locale::PtBr"));
    assert!(rust.contains("[pt] List orders"));
    assert!(rust.contains("[es] List orders"));
    // Identifiers stay as they are.
    let es = &files
        .iter()
        .find(|f| f.path == "docs/tiny.es.md")
        .unwrap()
        .contents;
    assert!(es.contains("[es] List orders") && es.contains("tiny_orders_list"));
}

#[test]
fn a_translation_of_a_text_the_catalog_no_longer_says_is_refused() {
    let dir = repo(&localized_tiny());
    let mut table = String::new();
    for text in texts_of(&localized_tiny()) {
        let key = serde_json::to_string(&text).unwrap();
        table.push_str(&format!("{key}: {{en: {key}, pt-BR: {key}, es: {key}}}\n"));
    }
    std::fs::write(dir.path().join("catalog/texts/tiny/all.yaml"), &table).unwrap();
    assert!(codegen::load_all(&dir.path().join("catalog")).is_ok());
    // A record's text removed from the catalog leaves its translation behind.
    table.push_str("A text nobody says any more.: {en: a, pt-BR: b, es: c}\n");
    std::fs::write(dir.path().join("catalog/texts/tiny/all.yaml"), &table).unwrap();
    let err = codegen::load_all(&dir.path().join("catalog"))
        .map(|_| ())
        .expect_err("refused")
        .to_string();
    let line = table.lines().count();
    assert!(
        err.contains(&format!(
            "catalog/texts/tiny/all.yaml:{line}:1: error: translates `A text nobody says any more.`"
        )),
        "{err}"
    );
}

#[test]
fn a_reworded_text_is_one_problem_naming_both_places_and_one_command_moves_its_translation() {
    let catalog = localized_tiny();
    let dir = repo(&catalog);
    std::fs::create_dir_all(dir.path().join("generated")).unwrap();
    let mut table = String::new();
    for text in texts_of(&catalog) {
        let key = serde_json::to_string(&text).unwrap();
        let v = |l: &str| serde_json::to_string(&format!("[{l}] {text}")).unwrap();
        table.push_str(&format!(
            "{key}: {{en: {}, pt-BR: {}, es: {}}}\n",
            v("en"),
            v("pt"),
            v("es")
        ));
    }
    let table_path = dir.path().join("catalog/texts/tiny/all.yaml");
    std::fs::write(&table_path, &table).unwrap();
    let entry_line = table
        .lines()
        .position(|l| l.starts_with("\"List orders\":"))
        .unwrap()
        + 1;
    // The editor rewords one title.
    let reworded = catalog.replacen("title: List orders\n", "title: List the orders\n", 1);
    assert_ne!(reworded, catalog);
    std::fs::write(dir.path().join("catalog/tiny.yaml"), &reworded).unwrap();
    let title_line = reworded
        .lines()
        .position(|l| l.ends_with("title: List the orders"))
        .unwrap()
        + 1;
    let err = codegen::load_all(&dir.path().join("catalog"))
        .map(|_| ())
        .expect_err("refused")
        .to_string();
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(lines.len(), 1, "one problem, not two:\n{err}");
    assert!(
        lines[0].starts_with(&format!("catalog/tiny.yaml:{title_line}:"))
            && lines[0].contains(&format!(
                "did you reword `List orders` to `List the orders`? The translation of the old text is at catalog/texts/tiny/all.yaml:{entry_line}"
            )),
        "{err}"
    );
    assert!(err.contains("texts --rekey"), "{err}");

    // One command moves the entry, marked for review.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_codegen"))
        .arg("--root")
        .arg(dir.path())
        .args(["texts", "--rekey"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!(
            "catalog/texts/tiny/all.yaml:{entry_line}: moved the translation of `List orders` to `List the orders`, marked `review: true`"
        )),
        "{stdout}"
    );
    let moved: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(&table_path).unwrap()).unwrap();
    assert!(moved.get("List orders").is_none());
    assert_eq!(
        moved["List the orders"]["pt-BR"].as_str(),
        Some("[pt] List orders")
    );
    assert_eq!(moved["List the orders"]["review"].as_bool(), Some(true));
    // The catalog generates again, with the old versions served and the entry warned about.
    let loaded = codegen::load_all(&dir.path().join("catalog")).unwrap_or_else(|e| panic!("{e}"));
    let warnings = codegen::translation_warnings(&loaded).join("\n");
    assert!(
        warnings.contains("await review") && warnings.contains("catalog/texts/tiny/all.yaml:"),
        "{warnings}"
    );
    let files = codegen::generate_from(&loaded).unwrap_or_else(|e| panic!("{e}"));
    let rust = &files
        .iter()
        .find(|f| f.path == "src/tiny.rs")
        .unwrap()
        .contents;
    assert!(rust.contains("[pt] List orders") && rust.contains("List the orders"));
    // An unrelated new text is still its own problem.
    let other = reworded.replacen("title: List the orders\n", "title: Webhook deliveries\n", 1);
    std::fs::write(dir.path().join("catalog/tiny.yaml"), &other).unwrap();
    let err = codegen::load_all(&dir.path().join("catalog"))
        .map(|_| ())
        .expect_err("refused")
        .to_string();
    assert!(!err.contains("did you reword"), "{err}");
    assert!(
        err.contains("has no pt-BR, es and en versions")
            && err.contains("translates `List the orders`"),
        "{err}"
    );
}
