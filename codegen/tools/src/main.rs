//! `codegen-tools`: write or check the outputs beside the catalog compiler's, or run the OpenAPI
//! tools.
//!
//! ```text
//! cargo run -p codegen-tools                   # write the packaging files, the README's install
//!                                              # section and catalog/catalog.schema.json
//! cargo run -p codegen-tools -- --check        # fail if any of them is stale (CI drift gate)
//! cargo run -p codegen-tools -- import-openapi SPEC… [--catalog PATH]
//! cargo run -p codegen-tools -- coverage
//! cargo run -p codegen-tools -- output-schemas [--catalog PATH] [--write] [--only T,…] [--skip T,…]
//! cargo run -p codegen-tools -- facts --check|--write [--allow-missing]
//! ```
//! `generated/`'s Rust tables and docs are the catalog compiler's: `cargo run -p codegen`.
//! Every command takes `--root DIR` (the repository root; by default the nearest folder above the
//! current one holding `catalog/` and `generated/`) and `--help`. The command line is declared
//! with clap below.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};
use codegen::Layout;
use codegen_tools::FIX_COMMAND;

/// See [`codegen::Allocator`]: the generator's processes only, never the server.
#[global_allocator]
static ALLOCATOR: codegen::Allocator = codegen::Allocator;

/// Writes the packaging files and the catalog schema (with no command), or runs an OpenAPI tool.
#[derive(Debug, Parser)]
#[command(
    name = "codegen-tools",
    about = "kobana-mcp's catalog tools: packaging files, the catalog schema, OpenAPI import and coverage, fact files",
    long_about = "With no command: load and validate the catalogs, then write generated/packaging/, \
generated/docs/install.md, the README's install section and catalog/catalog.schema.json, touching \
only files whose content changed. generated/'s Rust tables and docs are written by \
`cargo run -p codegen` (and `cargo build`).",
    after_help = "KOBANA_SPECS_DIR names the folder holding kobana-openapi/ (default ../shared beside the repository)."
)]
struct Cli {
    /// The repository root (default: the nearest folder above the current one holding catalog/ and
    /// generated/)
    #[arg(long, global = true, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Write nothing; fail naming every stale, missing or extra packaging file, a stale README
    /// install section or catalog/catalog.schema.json, an input schema that does not compile as
    /// JSON Schema 2020-12, or a catalog/derived/*.output-schemas.yaml that differs from what
    /// `output-schemas --write` gives (that last check is skipped, saying so, when the OpenAPI
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
            "`--check` checks the tools' outputs and takes no command; run it alone",
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

fn run_outputs(root: &Path, layout: &Layout, check: bool) -> Result<(), String> {
    let loaded = codegen::load_all(&layout.catalog_dir).map_err(|e| e.to_string())?;
    if check {
        let checked = codegen_tools::check(root, &loaded)?;
        for skipped in &checked.skipped {
            println!("codegen-tools: {skipped}");
        }
        if checked.problems.is_empty() {
            println!(
                "codegen-tools: the packaging files ({}), the README's install section and {} are up to date; every input schema compiles as JSON Schema 2020-12; output-schema sidecars checked against the OpenAPI specs: {}",
                checked.files,
                codegen_tools::schema::SCHEMA_PATH,
                if checked.sidecars.is_empty() {
                    "none".to_string()
                } else {
                    checked.sidecars.join(", ")
                }
            );
            return Ok(());
        }
        return Err(format!(
            "{}\nthe tools' outputs are out of date with catalog/: run `{FIX_COMMAND}` and commit the result",
            checked.problems.join("\n")
        ));
    }
    let lines = codegen_tools::write(root, &loaded)?;
    for l in &lines {
        println!("{l}");
    }
    println!(
        "codegen-tools: catalogs valid; {} file(s) written",
        lines.iter().filter(|l| l.starts_with("wrote ")).count()
    );
    Ok(())
}

fn run(cli: Cli) -> Result<(), String> {
    let root = cli.root.unwrap_or_else(codegen::find_root);
    let layout = Layout::from_root(&root);
    match cli.command {
        None => run_outputs(&root, &layout, cli.check),
        Some(Command::ImportOpenapi { specs, catalog }) => {
            let catalog = catalog.unwrap_or_else(|| layout.catalog_dir.join("banking.yaml"));
            let text = codegen_tools::openapi::import_openapi(&catalog, &specs)
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
            let selection = codegen_tools::openapi::fill::Selection {
                only: names(only),
                skip: names(skip),
            };
            let catalog = catalog.unwrap_or_else(|| layout.catalog_dir.join("banking.yaml"));
            let (verdicts, summary) =
                codegen_tools::openapi::fill::run(&catalog, &root, &selection, write)
                    .map_err(|e| format!("output-schemas: {e:#}"))?;
            let mut usable = 0;
            for v in &verdicts {
                match &v.verdict {
                    codegen_tools::openapi::output::Verdict::Usable { status, .. } => {
                        usable += 1;
                        println!("usable    {}  {} ({status})", v.tool, v.operation);
                    }
                    codegen_tools::openapi::output::Verdict::Unusable(why) => {
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
            for l in codegen_tools::facts::run(&root, &args)? {
                println!("{l}");
            }
            Ok(())
        }
        Some(Command::Coverage) => {
            let lines = codegen_tools::openapi::coverage(&layout.catalog_dir, &root)
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
        parse_cli(std::iter::once("codegen-tools").chain(args.iter().copied()))
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
