//! `codegen`: regenerate `generated/` from `catalog/`, check it for drift, or report on the catalogs.
//!
//! ```text
//! cargo run -p codegen                         # validate the catalogs and write generated/
//! cargo run -p codegen -- --check              # fail if generated/ is stale (CI drift gate)
//! cargo run -p codegen -- sandbox-gaps
//! cargo run -p codegen -- listing-report [--name-budget N]
//! cargo run -p codegen -- texts --rekey        # move the translations of reworded texts
//! ```
//! The OpenAPI tools, the fact files, the coverage gate, the packaging files and the catalog's
//! editor schema are `codegen-tools`' (`cargo run -p codegen-tools -- --help`).
//! Every command takes `--root DIR` (the repository root; by default the nearest folder above the
//! current one holding `catalog/` and `generated/`) and `--help`. The command line is declared
//! with clap below.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};
use codegen::{Layout, FIX_COMMAND};

/// See [`codegen::Allocator`]: the generator's processes only, never the server.
#[global_allocator]
static ALLOCATOR: codegen::Allocator = codegen::Allocator;

/// Validates the catalogs and writes generated/ (with no command), or reports on the catalogs.
#[derive(Debug, Parser)]
#[command(
    name = "codegen",
    about = "Validate kobana-mcp's catalogs and generate the Rust tables and Markdown docs",
    long_about = "With no command: validate catalog/*.yaml and catalog/fixtures/*.yaml (with their \
generated sidecars under derived/), then write generated/ (the Rust tables, the docs and the \
runtime's texts), touching only files whose content changed. The packaging files, the README's \
install section and catalog/catalog.schema.json are written by `cargo run -p codegen-tools`.",
    after_help = "CODEGEN_TIMINGS=1 in the environment prints how long loading and rendering took."
)]
struct Cli {
    /// The repository root (default: the nearest folder above the current one holding catalog/ and
    /// generated/)
    #[arg(long, global = true, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Write nothing; fail naming every stale, missing or extra file of generated/ this command
    /// writes (`cargo run -p codegen-tools -- --check` checks the others)
    #[arg(long)]
    check: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List, per product, the tools the sandbox cannot execute; fail if there is one
    SandboxGaps,
    /// Print, per product, the bytes of its full tools/list by descriptor part, the portability
    /// findings by rule and the tool names over the name budget
    ListingReport {
        /// Report tool names longer than this (default: each catalog's product.tool_name_budget,
        /// else 48)
        #[arg(long, value_name = "N")]
        name_budget: Option<usize>,
    },
    /// The products' translation tables (catalog/texts/<product>/)
    Texts {
        /// Move each translation the generator paired with a reworded text ("did you reword …?")
        /// to the new text, marked `review: true` where its versions may need rewording
        #[arg(long, required = true)]
        rekey: bool,
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

fn run_generate(layout: &Layout, check: bool) -> Result<(), String> {
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
        let lines: Vec<String> = drift.iter().map(|d| d.to_string()).collect();
        if lines.is_empty() {
            println!(
                "codegen: generated/ is up to date ({} files; the packaging files are checked by `cargo run -p codegen-tools -- --check`)",
                files.len()
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
    println!(
        "codegen: catalogs valid; {} written, {} unchanged, {} removed",
        report.written.len(),
        report.unchanged,
        report.removed.len()
    );
    Ok(())
}

fn run(cli: Cli) -> Result<(), String> {
    let root = cli.root.unwrap_or_else(codegen::find_root);
    let layout = Layout::from_root(&root);
    match cli.command {
        None => run_generate(&layout, cli.check),
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
        Some(Command::Texts { rekey: _ }) => {
            let moved = codegen::reword::rekey(&layout.catalog_dir)?;
            for m in &moved {
                let review = if m.review {
                    ", marked `review: true`: check its versions, then remove the marker"
                } else {
                    ""
                };
                println!(
                    "{}:{}: moved the translation of `{}` to `{}`{review}",
                    m.file,
                    m.line,
                    codegen::reword::shown(&m.old),
                    codegen::reword::shown(&m.new)
                );
            }
            println!("texts --rekey: {} translation(s) moved", moved.len());
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
        assert!(matches!(
            parse(&["sandbox-gaps"]).unwrap().command,
            Some(Command::SandboxGaps)
        ));
        assert!(matches!(
            parse(&["texts", "--rekey"]).unwrap().command,
            Some(Command::Texts { rekey: true })
        ));
        assert!(parse(&["texts"]).is_err(), "texts does one thing: --rekey");
        match parse(&["--root", "/r", "listing-report", "--name-budget", "40"]).unwrap() {
            Cli {
                root: Some(root),
                command: Some(Command::ListingReport { name_budget }),
                ..
            } => {
                assert_eq!(root, PathBuf::from("/r"));
                assert_eq!(name_budget, Some(40));
            }
            other => panic!("expected listing-report, got {other:?}"),
        }
    }

    #[test]
    fn mistakes_are_refused_with_the_reason() {
        let err = |args: &[&str]| parse(args).unwrap_err().to_string();
        assert!(err(&["--chek"]).contains("--check"), "a did-you-mean");
        assert!(err(&["frobnicate"]).contains("frobnicate"));
        assert!(err(&["--write"]).contains("--write"));
        assert!(err(&["--check", "sandbox-gaps"]).contains("takes no command"));
        assert!(err(&["sandbox-gaps", "extra"]).contains("extra"));
    }
}
