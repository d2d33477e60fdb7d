//! The kobana-mcp generator: YAML catalogs in, checked-in Rust tables and Markdown docs out.
//!
//! The pipeline is [`load_all`] (find and parse every `catalog/*.yaml` and
//! `catalog/fixtures/*.yaml`, merge each one's generated sidecar from `derived/` (see [`derived`]),
//! and validate), [`generate`] (render every output file in memory), then either
//! [`write()`] (update `generated/`, touching only files whose content changed) or [`check`] (the
//! drift gate: report every file of `generated/` that is stale, missing or extra).
//!
//! `generated/build.rs` calls [`build_script`]; the `codegen` binary calls the same functions.
//!
//! This crate is only the catalog compiler: what every server build runs. The OpenAPI importer,
//! the fact files, the coverage gate, the packaging files (`generated/packaging/`,
//! `generated/docs/install.md`), the catalog's editor schema and anything needing `schemars` or
//! `jsonschema` are in `codegen-tools` (`codegen/tools/`), with its own binary and drift check
//! (`cargo run -p codegen-tools -- --check`). The `schema` feature (off for `generated/build.rs`)
//! derives the model's JSON Schema for that crate.

pub mod compact;
pub mod confirmation;
pub mod derived;
pub mod descriptors;
pub mod diag;
pub mod docs;
pub mod listing_report;
pub mod load;
pub mod locate;
pub mod lower;
pub mod model;
pub mod names;
pub mod owner_key;
pub mod reword;
pub mod runtime_texts;
pub mod rust;
pub mod sandbox_gaps;
pub mod texts;
pub mod toolsets;
pub mod validate;
pub mod views;

use std::fmt;
use std::path::{Path, PathBuf};

use diag::{Diagnostic, Diagnostics};
use load::Loaded;

/// The global allocator of the generator's processes: the `codegen` binary and
/// `generated/build.rs` each declare `#[global_allocator] static A: codegen::Allocator =
/// codegen::Allocator;`. A generation allocates millions of small, short-lived values (YAML and
/// JSON trees, tokens, strings), which mimalloc serves in fewer instructions than glibc's malloc.
/// The server keeps glibc (see `runtime_sandbox::memory`): this type is only named by the
/// generator's own binaries.
pub use mimalloc::MiMalloc as Allocator;

/// The command that regenerates the catalog compiler's files, named in its drift reports.
pub const FIX_COMMAND: &str = "cargo run -p codegen";

/// Who writes which files of `generated/`: the drift gate and [`write_owned`] of an owner look at
/// its files only, so the catalog compiler and `codegen-tools` never remove or report each
/// other's outputs.
#[derive(Debug, Clone, Copy)]
pub struct Owner {
    /// (folder of `generated/`, file extension): every such file is the owner's.
    pub kinds: &'static [(&'static str, &'static str)],
    /// Files matching `kinds` that another owner writes.
    pub except: &'static [&'static str],
    /// The command that regenerates the owner's files.
    pub fix: &'static str,
}

/// The files of `generated/` that `codegen-tools` writes although they sit among the catalog
/// compiler's (the install page is a doc page built from the packaging facts).
pub const TOOLS_DOCS: &[&str] = &["docs/install.md"];

/// The catalog compiler's files: the Rust tables, the docs pages and the runtime's texts.
pub const CATALOG_COMPILER: Owner = Owner {
    kinds: &[("src", "rs"), ("docs", "md"), ("runtime", "rs")],
    except: TOOLS_DOCS,
    fix: FIX_COMMAND,
};

/// Where the catalogs and the generated crate are, from the repository root.
#[derive(Debug, Clone)]
pub struct Layout {
    pub catalog_dir: PathBuf,
    pub generated_dir: PathBuf,
}

impl Layout {
    pub fn from_root(root: &Path) -> Layout {
        Layout {
            catalog_dir: root.join("catalog"),
            generated_dir: root.join("generated"),
        }
    }
}

/// The nearest folder at or above the current one with `catalog/` and `generated/`; else the
/// repository this crate was built from. The default `--root` of the `codegen` and `codegen-tools`
/// binaries.
pub fn find_root() -> PathBuf {
    if let Ok(mut dir) = std::env::current_dir() {
        loop {
            if dir.join("catalog").is_dir() && dir.join("generated").is_dir() {
                return dir;
            }
            if !dir.pop() {
                break;
            }
        }
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// One output file: its path relative to `generated/` (`src/banking.rs`, `docs/README.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    pub path: String,
    pub contents: String,
}

/// Why nothing was generated.
#[derive(Debug)]
pub enum GenerateError {
    /// The catalogs have problems; each names file, line, column and key.
    Catalog(Diagnostics),
    /// The catalog folder cannot be read.
    Io(PathBuf, std::io::Error),
    /// A docs template failed to render (a bug in `codegen/templates/`).
    Template(String),
}

impl fmt::Display for GenerateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenerateError::Catalog(d) => write!(f, "{d}"),
            GenerateError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            GenerateError::Template(e) => write!(f, "docs template: {e}"),
        }
    }
}

impl std::error::Error for GenerateError {}

impl GenerateError {
    /// The diagnostics, when the error is about the catalogs.
    pub fn diagnostics(&self) -> Option<&Diagnostics> {
        match self {
            GenerateError::Catalog(d) => Some(d),
            _ => None,
        }
    }
}

/// Finds, parses and validates every catalog. All problems of all files come back together.
pub fn load_all(catalog_dir: &Path) -> Result<Vec<Loaded>, GenerateError> {
    let files =
        load::discover(catalog_dir).map_err(|e| GenerateError::Io(catalog_dir.to_path_buf(), e))?;
    // Each file on its own (on every core); the problems come out in file order.
    let read = map_on_cores(
        &files,
        |path| std::fs::metadata(path).map_or(0, |m| m.len() as usize),
        |path| match load::read(catalog_dir, path).and_then(load::parse) {
            Ok(mut l) => {
                let mut own = load::attach_output_schemas(&mut l);
                own.extend(validate::validate(&l));
                own.extend(views::validate(&l));
                if own.is_empty() {
                    own.extend(localize(catalog_dir, &mut l));
                }
                (Some(l), own)
            }
            Err(d) => (None, vec![d]),
        },
    );
    let mut problems: Vec<Diagnostic> = Vec::new();
    let mut loaded = Vec::new();
    for (l, own) in read {
        problems.extend(own);
        loaded.extend(l);
    }
    problems.extend(validate::validate_set(&loaded));
    if problems.is_empty() {
        Ok(loaded)
    } else {
        Err(GenerateError::Catalog(Diagnostics(problems)))
    }
}

/// Whether the catalog says the language of its document (`product.locale`): then its texts are
/// checked in every locale and it gets a docs page per locale.
fn declares_locale(l: &Loaded) -> bool {
    l.value
        .get("product")
        .and_then(|p| p.get("locale"))
        .is_some()
}

/// Builds the catalog of `l` in each locale from its translation table and inline texts. In a
/// catalog that declares `product.locale` (every Kobana product must), a text without a
/// translation is an error naming the catalog's file, line and key (a warning in
/// [`texts::LENIENT_PRODUCTS`]); a catalog that declares none (fixtures, test catalogs) speaks its
/// source texts in every locale. A malformed table entry names the table's file and line.
fn localize(catalog_dir: &Path, l: &mut Loaded) -> Vec<Diagnostic> {
    let product = l.catalog.product.name.clone();
    let dir = texts::table_dir(catalog_dir, &product);
    let (table, mut problems) =
        texts::load_table(&dir, &format!("catalog/{}/{product}", texts::TEXTS_DIR));
    // A translation of a text the catalog no longer says is dead weight that looks alive: refused,
    // naming the table entry (below, with the text that took its place when one is alike).
    let unused = texts::unused(&l.value, &table);
    // Entries moved to a reworded text and not yet checked: served, and warned about.
    for t in table.entries.values().filter(|t| t.review) {
        l.reviews.push(Diagnostic {
            file: t.file.clone(),
            line: t.line,
            column: 1,
            path: String::new(),
            message: "marked `review: true`: check its versions against the reworded text".into(),
            hint: Some("then remove the `review` line".into()),
        });
    }
    let mut localized = Vec::new();
    let mut rewords: Vec<String> = Vec::new();
    for locale in runtime_model::locale::Locale::ALL {
        // Only the first locale's gaps are reported, and only for a catalog that declares its
        // language.
        let reported = locale == runtime_model::locale::Locale::ALL[0] && declares_locale(l);
        let (value, missing) = if reported {
            texts::localize(&l.value, locale, &table)
        } else {
            (
                texts::localize_quietly(&l.value, locale, &table),
                Vec::new(),
            )
        };
        if reported {
            let lenient = texts::LENIENT_PRODUCTS.contains(&product.as_str());
            // A new text alike an unused entry's is one rewording: one problem naming both.
            let pairs = reword::pair(&missing, &unused);
            for r in &pairs {
                let m = &missing[r.missing];
                rewords.push(r.old.to_string());
                problems.push(l.at_value(
                    &m.path,
                    format!(
                        "did you reword `{}` to `{}`? The translation of the old text is at {}:{}",
                        reword::shown(r.old),
                        reword::shown(&m.text),
                        r.entry.file,
                        r.entry.line
                    ),
                    Some(format!(
                        "run `{FIX_COMMAND} -- texts --rekey` to move it to the new text (marked `review: true` for its versions to be checked)"
                    )),
                ));
            }
            let paired: Vec<&str> = pairs
                .iter()
                .map(|r| missing[r.missing].text.as_str())
                .collect();
            for m in missing
                .iter()
                .filter(|m| !paired.contains(&m.text.as_str()))
            {
                let mut shown: String = m.text.chars().take(60).collect();
                if shown.len() < m.text.len() {
                    shown.push('…');
                }
                let d = l.at_value(
                    &m.path,
                    format!("the text {shown:?} has no pt-BR, es and en versions"),
                    Some(format!(
                        "add it to a table of catalog/{}/{product}/ (`<source text>: {{en: …, pt-BR: …, es: …}}`), or write it inline as {{en: …, pt-BR: …, es: …}}",
                        texts::TEXTS_DIR
                    )),
                );
                if lenient {
                    l.warnings.push(d);
                } else {
                    problems.push(d);
                }
            }
        }
        match load::catalog_from_value(value) {
            Ok(mut catalog) => {
                // The derived output schemas (the sidecar) carry no texts: the same in every
                // locale. Hand-written ones are in the catalog, translated with it.
                for (t, base) in catalog.tools.iter_mut().zip(&l.catalog.tools) {
                    if t.output_schema.is_none() {
                        t.output_schema.clone_from(&base.output_schema);
                    }
                }
                localized.push(texts::Localized { locale, catalog });
            }
            Err(e) => problems.push(l.at_value(
                "",
                format!("the catalog in {locale} does not read as a catalog: {e}"),
                Some("a translation replaced a text by something that is not one".into()),
            )),
        }
    }
    l.localized = localized;
    for (text, t) in unused
        .iter()
        .filter(|(text, _)| !rewords.iter().any(|r| r == text))
    {
        let shown: String = text.chars().take(60).collect();
        problems.push(Diagnostic {
            file: t.file.clone(),
            line: t.line,
            column: 1,
            path: String::new(),
            message: format!(
                "translates `{shown}`, which no text of the catalog says (left from a removed or reworded text)"
            ),
            hint: Some("remove the entry, or translate the text as the catalog now writes it".into()),
        });
    }
    problems
}

/// A summary of the texts still without translations (products in
/// [`texts::LENIENT_PRODUCTS`]): one line per product and its first few places; then every
/// translation marked for review ([`reword`]).
pub fn translation_warnings(loaded: &[Loaded]) -> Vec<String> {
    let mut out = Vec::new();
    for l in loaded.iter().filter(|l| !l.warnings.is_empty()) {
        out.push(format!(
            "warning: {} texts of {} have no translation yet (served in their source language); first:",
            l.warnings.len(),
            l.source.display
        ));
        for d in l.warnings.iter().take(3) {
            out.push(format!("  {d}"));
        }
    }
    for l in loaded.iter().filter(|l| !l.reviews.is_empty()) {
        out.push(format!(
            "warning: {} translations of {} were moved to a reworded text and await review:",
            l.reviews.len(),
            l.source.display
        ));
        out.extend(l.reviews.iter().map(|d| format!("  {d}")));
    }
    out
}

/// Renders every file of `generated/` from the catalogs in `catalog_dir`, in a fixed order.
pub fn generate(catalog_dir: &Path) -> Result<Vec<GeneratedFile>, GenerateError> {
    let loaded = load_all(catalog_dir)?;
    with_runtime_texts(catalog_dir, generate_from(&loaded)?)
}

/// `files` (what [`generate_from`] rendered) plus the runtime's text table
/// (`generated/runtime/texts.rs`, see [`runtime_texts`]), when `catalog_dir` holds one; its
/// problems name the table's file, line and key.
pub fn with_runtime_texts(
    catalog_dir: &Path,
    mut files: Vec<GeneratedFile>,
) -> Result<Vec<GeneratedFile>, GenerateError> {
    let runtime = runtime_texts::render_table(catalog_dir)
        .map_err(|d| GenerateError::Catalog(Diagnostics(d)))?;
    files.extend(runtime.map(|contents| GeneratedFile {
        path: runtime_texts::OUTPUT.into(),
        contents,
    }));
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// The catalog of `l` in its product's own language (what a client naming none gets); the source
/// catalog when it declares no language.
pub fn in_default_locale(l: &Loaded) -> &model::Catalog {
    let own = runtime_model::locale::Locale::from_tag(&l.catalog.product.locale);
    own.and_then(|o| l.localized.iter().find(|lc| lc.locale == o))
        .map_or(&l.catalog, |lc| &lc.catalog)
}

/// The language a catalog declares (`product.locale`), `None` for one that declares none: its
/// docs then have no per-locale pages to link.
fn own_locale(l: &Loaded) -> Option<runtime_model::locale::Locale> {
    declares_locale(l)
        .then(|| runtime_model::locale::Locale::from_tag(&l.catalog.product.locale))
        .flatten()
}

/// A product's own files, and the listing its docs measured (the index reuses it).
struct ProductFiles {
    files: Vec<GeneratedFile>,
    sized: descriptors::Listing,
}

/// `generated/src/<product>.rs` and the product's docs pages.
fn product_files(l: &Loaded) -> Result<ProductFiles, GenerateError> {
    let listings = descriptors::Listings::default();
    let module = &l.catalog.product.name;
    let source = &l.source.display;
    let mut files = vec![
        GeneratedFile {
            path: format!("src/{module}.rs"),
            contents: rust::product_module(&l.catalog, &l.localized, source, &listings),
        },
        // In the language the server speaks to a client that names none.
        GeneratedFile {
            path: format!("docs/{module}.md"),
            contents: docs::product_page(
                in_default_locale(l),
                in_default_locale(l),
                source,
                &listings,
                &docs::language_links(module, own_locale(l), None),
            )
            .map_err(|e| GenerateError::Template(format!("{e:#}")))?,
        },
    ];
    // One page per locale for the catalogs that speak several (fixtures and test catalogs
    // speak their source texts only).
    if declares_locale(l) {
        for lc in &l.localized {
            files.push(GeneratedFile {
                path: format!("docs/{module}.{}.md", lc.locale.tag()),
                contents: docs::product_page(
                    &lc.catalog,
                    &lc.catalog,
                    source,
                    &listings,
                    &docs::language_links(module, own_locale(l), Some(lc.locale)),
                )
                .map_err(|e| GenerateError::Template(format!("{e:#}")))?,
            });
        }
    }
    let sized = (*listings.of(in_default_locale(l))).clone();
    Ok(ProductFiles { files, sized })
}

/// `f` of every item, in order, spread over the machine's cores: each worker takes the next item
/// not yet taken, the largest first, and every result lands in its item's place, so the outcome
/// never depends on which worker ran what.
fn map_on_cores<T: Sync, R: Send>(
    items: &[T],
    weight: impl Fn(&T) -> usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    if workers <= 1 {
        return items.iter().map(f).collect();
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(weight(&items[i])));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<Vec<Option<R>>> =
        std::sync::Mutex::new(items.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&i) = order.get(k) else { break };
                let r = f(&items[i]);
                if let Ok(mut results) = results.lock() {
                    results[i] = Some(r);
                }
            });
        }
    });
    // A worker that panicked has re-raised its panic at the end of the scope; every place is set.
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .flatten()
        .collect()
}

/// Renders the outputs of already validated catalogs. The products render in parallel (each
/// one's files depend on its catalog alone); the files come out in a fixed order.
pub fn generate_from(loaded: &[Loaded]) -> Result<Vec<GeneratedFile>, GenerateError> {
    let rendered = map_on_cores(loaded, |l| l.catalog.tools.len(), product_files);
    let listings = descriptors::Listings::default();
    let mut files = Vec::new();
    let mut entries = Vec::new();
    for (l, r) in loaded.iter().zip(rendered) {
        let r = r?;
        files.extend(r.files);
        listings.insert(in_default_locale(l), r.sized);
        entries.push(rust::ModuleEntry {
            module: l.catalog.product.name.clone(),
            fixture: l.catalog.product.fixture,
        });
    }
    let all: Vec<&model::Catalog> = loaded.iter().map(|l| &l.catalog).collect();
    files.push(GeneratedFile {
        path: "src/views.rs".into(),
        contents: views::module(&all),
    });
    let in_order: Vec<&model::Catalog> = products_in_order(loaded)
        .into_iter()
        .map(|l| &l.catalog)
        .collect();
    files.extend(views::docs_page(&in_order).map(|contents| GeneratedFile {
        path: "docs/views.md".into(),
        contents,
    }));
    files.push(GeneratedFile {
        path: "src/lib.rs".into(),
        contents: rust::lib_module(&entries),
    });
    let products = products_in_order(loaded);
    let mut fixtures: Vec<&Loaded> = loaded
        .iter()
        .filter(|l| l.catalog.product.fixture)
        .collect();
    fixtures.sort_by_key(|l| product_rank(l));
    // Sizes are what a client gets by default: the listing in the product's own language.
    let languages: Vec<Vec<serde_json::Value>> = products
        .iter()
        .map(|l| docs::language_links(&l.catalog.product.name, own_locale(l), None))
        .collect();
    let products: Vec<&model::Catalog> = products.iter().map(|l| in_default_locale(l)).collect();
    let fixtures: Vec<&model::Catalog> = fixtures.iter().map(|l| &l.catalog).collect();
    files.push(GeneratedFile {
        path: "docs/README.md".into(),
        contents: docs::index_page(&products, &languages, &fixtures, &listings)
            .map_err(|e| GenerateError::Template(format!("{e:#}")))?,
    });
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// The products of validated catalogs (fixtures left out), in the canonical order
/// ([`rust::PRODUCT_ORDER`], then by name): the order of the docs index and of every packaging
/// file.
pub fn products_in_order(loaded: &[Loaded]) -> Vec<&Loaded> {
    let mut products: Vec<&Loaded> = loaded
        .iter()
        .filter(|l| !l.catalog.product.fixture)
        .collect();
    products.sort_by_key(|l| product_rank(l));
    products
}

/// The sort key of a product: its place in [`rust::PRODUCT_ORDER`] (unknown ones last), then its
/// name.
fn product_rank(l: &Loaded) -> (usize, String) {
    let name = l.catalog.product.name.as_str();
    let r = rust::PRODUCT_ORDER
        .iter()
        .position(|p| *p == name)
        .unwrap_or(rust::PRODUCT_ORDER.len());
    (r, name.to_string())
}

/// Files under `generated/` that `owner` owns (see [`Owner`]).
fn owned_files(owner: &Owner, generated_dir: &Path) -> std::io::Result<Vec<String>> {
    let mut out = Vec::new();
    for &(sub, ext) in owner.kinds {
        let dir = generated_dir.join(sub);
        if !dir.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_file() && path.extension().and_then(|e| e.to_str()) == Some(ext) {
                if let Some(name) = path.file_name().and_then(|n| n.to_str()) {
                    let rel = format!("{sub}/{name}");
                    if !owner.except.contains(&rel.as_str()) {
                        out.push(rel);
                    }
                }
            }
        }
    }
    out.sort();
    Ok(out)
}

/// What [`write()`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct WriteReport {
    pub written: Vec<String>,
    pub unchanged: usize,
    pub removed: Vec<String>,
}

/// Writes the files whose content changed and removes the catalog compiler's files no catalog
/// produces any more. Unchanged files are not touched, so their timestamps do not trigger
/// rebuilds.
pub fn write(generated_dir: &Path, files: &[GeneratedFile]) -> std::io::Result<WriteReport> {
    write_owned(&CATALOG_COMPILER, generated_dir, files)
}

/// [`write()`] for the files of `owner`.
pub fn write_owned(
    owner: &Owner,
    generated_dir: &Path,
    files: &[GeneratedFile],
) -> std::io::Result<WriteReport> {
    let mut report = WriteReport::default();
    for f in files {
        let path = generated_dir.join(&f.path);
        match std::fs::read_to_string(&path) {
            Ok(existing) if existing == f.contents => report.unchanged += 1,
            _ => {
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                write_atomically(&path, &f.contents)?;
                report.written.push(f.path.clone());
            }
        }
    }
    for owned in owned_files(owner, generated_dir)? {
        if !files.iter().any(|f| f.path == owned) {
            std::fs::remove_file(generated_dir.join(&owned))?;
            report.removed.push(owned);
        }
    }
    Ok(report)
}

/// Writes through a temporary file and a rename, so that a compiler reading the file meanwhile
/// (two cargo commands running `build.rs` at once) never sees it half written.
fn write_atomically(path: &Path, contents: &str) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, contents)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// How a file of `generated/` differs from what the catalogs produce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DriftKind {
    /// The content differs (edited by hand, or the catalog changed).
    Stale,
    /// Not generated yet.
    Missing,
    /// No catalog produces it any more.
    Extra,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drift {
    /// Path relative to `generated/`.
    pub path: String,
    pub kind: DriftKind,
    /// The command that regenerates it (its [`Owner`]'s).
    pub fix: &'static str,
}

impl fmt::Display for Drift {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            DriftKind::Stale => "is stale (differs from what the catalogs generate)",
            DriftKind::Missing => "is missing",
            DriftKind::Extra => "is extra (no catalog generates it)",
        };
        write!(f, "generated/{} {what}; run `{}`", self.path, self.fix)
    }
}

/// The drift gate: every file of the catalog compiler in `generated/` that differs from `files`.
pub fn check(generated_dir: &Path, files: &[GeneratedFile]) -> std::io::Result<Vec<Drift>> {
    check_owned(&CATALOG_COMPILER, generated_dir, files)
}

/// [`check`] for the files of `owner`.
pub fn check_owned(
    owner: &Owner,
    generated_dir: &Path,
    files: &[GeneratedFile],
) -> std::io::Result<Vec<Drift>> {
    let fix = owner.fix;
    let mut drift = Vec::new();
    for f in files {
        match std::fs::read_to_string(generated_dir.join(&f.path)) {
            Ok(existing) if existing == f.contents => {}
            Ok(_) => drift.push(Drift {
                path: f.path.clone(),
                kind: DriftKind::Stale,
                fix,
            }),
            Err(_) => drift.push(Drift {
                path: f.path.clone(),
                kind: DriftKind::Missing,
                fix,
            }),
        }
    }
    for owned in owned_files(owner, generated_dir)? {
        if !files.iter().any(|f| f.path == owned) {
            drift.push(Drift {
                path: owned,
                kind: DriftKind::Extra,
                fix,
            });
        }
    }
    Ok(drift)
}

/// The body of `generated/build.rs`: regenerate, and tell cargo what to watch.
///
/// `manifest_dir` is the `generated` crate's folder; the catalogs are in `../catalog`. Watching
/// `generated/src` and `generated/docs` too means a hand edit is overwritten by the next build.
pub fn build_script(manifest_dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let root = manifest_dir.parent().unwrap_or(manifest_dir);
    let layout = Layout::from_root(root);
    println!("cargo:rerun-if-changed={}", layout.catalog_dir.display());
    let fixtures = layout.catalog_dir.join(load::FIXTURES_DIR);
    for dir in [
        fixtures.clone(),
        layout.catalog_dir.join(derived::DERIVED_DIR),
        fixtures.join(derived::DERIVED_DIR),
    ] {
        if dir.is_dir() {
            println!("cargo:rerun-if-changed={}", dir.display());
        }
    }
    if let Ok(files) = load::discover(&layout.catalog_dir) {
        for f in files {
            println!("cargo:rerun-if-changed={}", f.display());
            let sidecar = derived::output_schemas_path(&f);
            if sidecar.is_file() {
                println!("cargo:rerun-if-changed={}", sidecar.display());
            }
        }
    }
    println!(
        "cargo:rerun-if-changed={}",
        root.join("codegen/templates").display()
    );
    // The translation tables: the folder (a new product) and each product's folder and files.
    let texts_dir = layout.catalog_dir.join(texts::TEXTS_DIR);
    if texts_dir.is_dir() {
        println!("cargo:rerun-if-changed={}", texts_dir.display());
        for product in std::fs::read_dir(&texts_dir)
            .into_iter()
            .flatten()
            .flatten()
        {
            println!("cargo:rerun-if-changed={}", product.path().display());
            for f in std::fs::read_dir(product.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                println!("cargo:rerun-if-changed={}", f.path().display());
            }
        }
    }
    for sub in ["src", "docs", "runtime"] {
        println!(
            "cargo:rerun-if-changed={}",
            layout.generated_dir.join(sub).display()
        );
    }
    let loaded = load_all(&layout.catalog_dir)?;
    for line in translation_warnings(&loaded) {
        println!("cargo:warning={line}");
    }
    let files = with_runtime_texts(&layout.catalog_dir, generate_from(&loaded)?)?;
    write(&layout.generated_dir, &files)?;
    Ok(())
}
