//! `codegen`: regenerate `generated/` from `catalog/`, check it for drift, or run the OpenAPI tools.
//!
//! ```text
//! cargo run -p codegen                         # validate the catalogs and write generated/
//! cargo run -p codegen -- --check              # fail if generated/ is stale (CI drift gate)
//! cargo run -p codegen -- import-openapi SPEC… [--catalog PATH]
//! cargo run -p codegen -- coverage
//! cargo run -p codegen -- sandbox-gaps
//! cargo run -p codegen -- output-schemas [--catalog PATH] [--write] [--only T,…] [--skip T,…]
//! cargo run -p codegen -- facts --check|--write [--allow-missing]
//! cargo run -p codegen -- listing-report [--name-budget N]
//! ```
//! Every command takes `--root DIR` (the repository root; by default the nearest folder above the
//! current one holding `catalog/` and `generated/`) and `--help`. The command line is declared
//! with clap below.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};
use codegen::{Layout, FIX_COMMAND};

/// See [`codegen::Allocator`]: the generator's processes only, never the server.
#[global_allocator]
static ALLOCATOR: codegen::Allocator = codegen::Allocator;

/// Validates the catalogs and writes generated/ (with no command), or runs an OpenAPI tool.
#[derive(Debug, Parser)]
#[command(
    name = "codegen",
    about = "Validate kobana-mcp's catalogs and generate the Rust tables and Markdown docs",
    long_about = "With no command: validate catalog/*.yaml and catalog/fixtures/*.yaml (with their \
generated sidecars under derived/), then write generated/ and catalog/catalog.schema.json, touching \
only files whose content changed.",
    after_help = "CODEGEN_TIMINGS=1 in the environment prints how long loading and rendering took.\n\
KOBANA_SPECS_DIR names the folder holding kobana-openapi/ (default ../shared beside the repository)."
)]
struct Cli {
    /// The repository root (default: the nearest folder above the current one holding catalog/ and
    /// generated/)
    #[arg(long, global = true, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Write nothing; fail naming every stale, missing or extra file of generated/, a stale
    /// catalog/catalog.schema.json, or a catalog/derived/*.output-schemas.yaml that differs from
    /// what `output-schemas --write` gives (that last check is skipped, saying so, when the OpenAPI
    /// specs are absent)
    #[arg(long)]
    check: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Propose catalog entries (YAML, on stdout) for OpenAPI operations the catalog does not map
    ImportOpenapi {
        /// The OpenAPI specs (JSON)
        #[arg(required = true, value_name = "SPEC")]
        specs: Vec<PathBuf>,
        /// The catalog to compare with (default: catalog/banking.yaml)
        #[arg(long, value_name = "PATH")]
        catalog: Option<PathBuf>,
    },
    /// Check that every OpenAPI operation is mapped to a tool or excluded with a reason
    Coverage,
    /// List, per product, the tools the sandbox cannot execute; fail if there is one
    SandboxGaps,
    /// Derive each HTTP-bound tool's output schema from its operation's 2xx answer and report which
    /// are usable; --write writes them to the generated catalog/derived/<product>.output-schemas.yaml
    OutputSchemas {
        /// The catalog (default: catalog/banking.yaml)
        #[arg(long, value_name = "PATH")]
        catalog: Option<PathBuf>,
        /// Write the sidecar (without it, a dry run that reports what would change)
        #[arg(long)]
        write: bool,
        /// Change only these tools' entries
        #[arg(long, value_name = "TOOL,...", value_delimiter = ',')]
        only: Vec<String>,
        /// Never change these tools' entries
        #[arg(long, value_name = "TOOL,...", value_delimiter = ',')]
        skip: Vec<String>,
    },
    /// Print, per product, the bytes of its full tools/list by descriptor part, the portability
    /// findings by rule and the tool names over the name budget
    ListingReport {
        /// Report tool names longer than this (default: each catalog's product.tool_name_budget,
        /// else 48)
        #[arg(long, value_name = "N")]
        name_budget: Option<usize>,
    },
    /// Check (--check) or refresh (--write) the fact files under catalog/facts/ against the OpenAPI
    /// specs and product documents in $KOBANA_SPECS_DIR (default ../shared); without the sources
    /// --check fails unless --allow-missing
    Facts {
        /// Fail naming every stale, missing or extra fact file
        #[arg(long, conflicts_with = "write", required_unless_present = "write")]
        check: bool,
        /// Rewrite the fact files from the sources
        #[arg(long)]
        write: bool,
        /// With --check: succeed (saying NOT VERIFIED) when the sources are absent
        #[arg(long, requires = "check")]
        allow_missing: bool,
    },
}

/// Parses the command line; `--check` belongs to generation and takes no command.
fn parse_cli<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = Cli::try_parse_from(args)?;
    if cli.check && cli.command.is_some() {
        return Err(Cli::command().error(
            clap::error::ErrorKind::ArgumentConflict,
            "`--check` checks generated/ and takes no command; run it alone",
        ));
    }
    Ok(cli)
}

/// Tool names of `--only`/`--skip`, without blanks.
fn names(list: Vec<String>) -> std::collections::BTreeSet<String> {
    list.into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The nearest folder at or above the current one with `catalog/` and `generated/`; else the
/// repository this binary was built from.
fn find_root() -> PathBuf {
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

fn run_generate(root: &Path, layout: &Layout, check: bool) -> Result<(), String> {
    let started = std::time::Instant::now();
    let loaded = codegen::load_all(&layout.catalog_dir).map_err(|e| e.to_string())?;
    let loaded_at = started.elapsed();
    for line in codegen::translation_warnings(&loaded) {
        eprintln!("{line}");
    }
    let files = codegen::generate_from(&loaded)
        .and_then(|files| codegen::with_runtime_texts(&layout.catalog_dir, files))
        .map_err(|e| e.to_string())?;
    if std::env::var_os("CODEGEN_TIMINGS").is_some() {
        eprintln!(
            "codegen timings: load+validate {:.3} s, render {:.3} s",
            loaded_at.as_secs_f64(),
            (started.elapsed() - loaded_at).as_secs_f64()
        );
    }
    if check {
        let drift = codegen::check(&layout.generated_dir, &files)
            .map_err(|e| format!("{}: {e}", layout.generated_dir.display()))?;
        let mut lines: Vec<String> = drift.iter().map(|d| d.to_string()).collect();
        lines.extend(codegen::schema::check_schema(root));
        lines.extend(codegen::packaging::check_readme(root, &loaded));
        let derived = codegen::openapi::fill::check(&layout.catalog_dir, root)
            .map_err(|e| format!("output schemas: {e:#}"))?;
        lines.extend(derived.drift);
        for skipped in &derived.skipped {
            println!("codegen: {skipped}");
        }
        if lines.is_empty() {
            println!(
                "codegen: generated/ and {} are up to date ({} files); output-schema sidecars checked against the OpenAPI specs: {}",
                codegen::schema::SCHEMA_PATH,
                files.len() + 1,
                if derived.current.is_empty() {
                    "none".to_string()
                } else {
                    derived.current.join(", ")
                }
            );
            return Ok(());
        }
        return Err(format!(
            "{}\ngenerated/ is out of date with catalog/: run `{FIX_COMMAND}` (or `cargo build`) and commit the result",
            lines.join("\n")
        ));
    }
    let report = codegen::write(&layout.generated_dir, &files)
        .map_err(|e| format!("{}: {e}", layout.generated_dir.display()))?;
    for w in &report.written {
        println!("wrote generated/{w}");
    }
    for r in &report.removed {
        println!("removed generated/{r}");
    }
    if codegen::packaging::write_readme(root, &loaded)? {
        println!("wrote {}", codegen::packaging::install::README_PATH);
    }
    let schema_written = codegen::schema::write_schema(root)
        .map_err(|e| format!("{}: {e}", codegen::schema::SCHEMA_PATH))?;
    if schema_written {
        println!("wrote {}", codegen::schema::SCHEMA_PATH);
    }
    println!(
        "codegen: catalogs valid; {} written, {} unchanged, {} removed",
        report.written.len(),
        report.unchanged,
        report.removed.len()
    );
    Ok(())
}

fn run(cli: Cli) -> Result<(), String> {
    let root = cli.root.unwrap_or_else(find_root);
    let layout = Layout::from_root(&root);
    match cli.command {
        None => run_generate(&root, &layout, cli.check),
        Some(Command::ImportOpenapi { specs, catalog }) => {
            let catalog = catalog.unwrap_or_else(|| layout.catalog_dir.join("banking.yaml"));
            let text = codegen::openapi::import_openapi(&catalog, &specs)
                .map_err(|e| format!("import-openapi: {e:#}"))?;
            print!("{text}");
            Ok(())
        }
        Some(Command::OutputSchemas {
            catalog,
            write,
            only,
            skip,
        }) => {
            let selection = codegen::openapi::fill::Selection {
                only: names(only),
                skip: names(skip),
            };
            let catalog = catalog.unwrap_or_else(|| layout.catalog_dir.join("banking.yaml"));
            let (verdicts, summary) =
                codegen::openapi::fill::run(&catalog, &root, &selection, write)
                    .map_err(|e| format!("output-schemas: {e:#}"))?;
            let mut usable = 0;
            for v in &verdicts {
                match &v.verdict {
                    codegen::openapi::output::Verdict::Usable { status, .. } => {
                        usable += 1;
                        println!("usable    {}  {} ({status})", v.tool, v.operation);
                    }
                    codegen::openapi::output::Verdict::Unusable(why) => {
                        println!("none      {}  {}: {why}", v.tool, v.operation);
                    }
                }
            }
            println!(
                "output-schemas: {usable}/{} HTTP-bound tools have a usable schema; {} {} inserted, {} replaced, {} unchanged, {} removed, {} skipped, {} hand-written in the catalog (left out)",
                verdicts.len(),
                if write { "written:" } else { "would be (dry run, --write to apply):" },
                summary.inserted,
                summary.replaced,
                summary.unchanged,
                summary.removed,
                summary.skipped,
                summary.hand_written.len()
            );
            Ok(())
        }
        Some(Command::Facts {
            check,
            write,
            allow_missing,
        }) => {
            let mut args = Vec::new();
            for (on, flag) in [
                (check, "--check"),
                (write, "--write"),
                (allow_missing, "--allow-missing"),
            ] {
                if on {
                    args.push(flag.to_string());
                }
            }
            for l in codegen::facts::run(&root, &args)? {
                println!("{l}");
            }
            Ok(())
        }
        Some(Command::ListingReport { name_budget }) => {
            let loaded = codegen::load_all(&layout.catalog_dir).map_err(|e| e.to_string())?;
            for l in loaded.iter().filter(|l| !l.catalog.product.fixture) {
                let budget = name_budget.unwrap_or_else(|| codegen::names::budget(l));
                let tools = codegen::listing_report::descriptors_of(&l.catalog);
                let report =
                    codegen::listing_report::measure(&l.catalog.product.name, &tools, budget);
                for line in report.lines() {
                    println!("{line}");
                }
                let documented = codegen::names::documented(l);
                for n in &report.long_names {
                    let why = if documented.contains(n) {
                        " (kept: the product documents name it)"
                    } else {
                        ""
                    };
                    println!("  name over {budget} characters: {n}{why}");
                }
                for t in &l.catalog.tools {
                    for a in &t.aliases {
                        println!("  alias (called, not listed): {a} -> {}", t.name);
                    }
                }
            }
            Ok(())
        }
        Some(Command::SandboxGaps) => {
            let loaded = codegen::load_all(&layout.catalog_dir).map_err(|e| e.to_string())?;
            let gaps = codegen::sandbox_gaps::report(&loaded);
            for (product, tools) in &gaps {
                println!(
                    "{product}: {} tool(s) without sandbox behaviour",
                    tools.len()
                );
                for t in tools {
                    println!("  {t}");
                }
            }
            if gaps.is_empty() {
                println!("sandbox-gaps: every tool of every product has sandbox behaviour");
                Ok(())
            } else {
                Err("sandbox-gaps: some tools have no sandbox behaviour (give them an `operation:`)".into())
            }
        }
        Some(Command::Coverage) => {
            let lines = codegen::openapi::coverage(&layout.catalog_dir, &root)
                .map_err(|e| format!("coverage: {e:#}"))?;
            for l in lines {
                println!("{l}");
            }
            Ok(())
        }
    }
}

fn main() -> ExitCode {
    // clap prints usage errors (exit 2) and --help itself.
    let cli = parse_cli(std::env::args_os()).unwrap_or_else(|e| e.exit());
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        parse_cli(std::iter::once("codegen").chain(args.iter().copied()))
    }

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn commands_parse() {
        let cli = parse(&[]).unwrap();
        assert!(cli.command.is_none() && !cli.check);
        assert!(parse(&["--check"]).unwrap().check);
        match parse(&["import-openapi", "a.json", "b.json", "--catalog", "c.yaml"])
            .unwrap()
            .command
        {
            Some(Command::ImportOpenapi { specs, catalog }) => {
                assert_eq!(specs.len(), 2);
                assert_eq!(catalog, Some(PathBuf::from("c.yaml")));
            }
            other => panic!("expected import-openapi, got {other:?}"),
        }
        assert!(matches!(
            parse(&["coverage"]).unwrap().command,
            Some(Command::Coverage)
        ));
        match parse(&[
            "--root",
            "/r",
            "output-schemas",
            "--write",
            "--only",
            "a, b,",
            "--skip",
            "c",
        ])
        .unwrap()
        {
            Cli {
                root: Some(root),
                command:
                    Some(Command::OutputSchemas {
                        write, only, skip, ..
                    }),
                ..
            } => {
                assert_eq!(root, PathBuf::from("/r"));
                assert!(write);
                assert_eq!(names(only).into_iter().collect::<Vec<_>>(), ["a", "b"]);
                assert_eq!(names(skip).into_iter().collect::<Vec<_>>(), ["c"]);
            }
            other => panic!("expected output-schemas, got {other:?}"),
        }
    }

    #[test]
    fn mistakes_are_refused_with_the_reason() {
        let err = |args: &[&str]| parse(args).unwrap_err().to_string();
        assert!(err(&["--chek"]).contains("--check"), "a did-you-mean");
        assert!(err(&["import-openapi"]).contains("<SPEC>"));
        assert!(err(&["frobnicate"]).contains("frobnicate"));
        assert!(err(&["--write"]).contains("--write"));
        assert!(err(&["--check", "coverage"]).contains("takes no command"));
        assert!(err(&["coverage", "extra"]).contains("extra"));
    }
}
