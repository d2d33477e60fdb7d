//! `codegen`: regenerate `generated/` from `catalog/`, check it for drift, or run the OpenAPI tools.
//!
//! ```text
//! cargo run -p codegen                         # validate the catalogs and write generated/
//! cargo run -p codegen -- --check              # fail if generated/ is stale (CI drift gate)
//! cargo run -p codegen -- import-openapi SPEC… [--catalog PATH]
//! cargo run -p codegen -- coverage
//! cargo run -p codegen -- sandbox-gaps
//! cargo run -p codegen -- output-schemas [--catalog PATH] [--write] [--only T,…] [--skip T,…]
//! ```
//! Every command takes `--root DIR` (the repository root; by default the nearest folder above the
//! current one holding `catalog/` and `generated/`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use codegen::{Layout, FIX_COMMAND};

const USAGE: &str = "usage: codegen [--root DIR] [--check]
       codegen [--root DIR] import-openapi SPEC... [--catalog PATH]
       codegen [--root DIR] coverage
       codegen [--root DIR] sandbox-gaps
       codegen [--root DIR] output-schemas [--catalog PATH] [--write] [--only TOOL,...] [--skip TOOL,...]

  (no command)    validate catalog/*.yaml and catalog/fixtures/*.yaml, write generated/ and
                  catalog/catalog.schema.json (only files whose content changed)
  --check         write nothing; fail naming every stale, missing or extra file of generated/
                  (and a stale catalog/catalog.schema.json)
  CODEGEN_TIMINGS=1 in the environment prints how long loading and rendering took
  import-openapi  propose catalog entries for OpenAPI operations the catalog does not map
  coverage        check every OpenAPI operation is mapped or excluded
  sandbox-gaps    list, per product, the tools the sandbox cannot execute; fail if there is one
  output-schemas  derive each HTTP-bound tool's output schema from its operation's 2xx answer
                  and report which are usable (default catalog: catalog/banking.yaml); --write
                  inserts/refreshes the generated `output_schema:` blocks in the catalog";

enum Command {
    Generate {
        check: bool,
    },
    ImportOpenapi {
        specs: Vec<PathBuf>,
        catalog: Option<PathBuf>,
    },
    Coverage,
    SandboxGaps,
    OutputSchemas {
        catalog: Option<PathBuf>,
        write: bool,
        selection: codegen::openapi::fill::Selection,
    },
    Help,
}

struct Args {
    root: Option<PathBuf>,
    command: Command,
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut root = None;
    let mut check = false;
    let mut sub: Option<String> = None;
    let mut positional = Vec::new();
    let mut catalog = None;
    let mut write = false;
    let mut selection = codegen::openapi::fill::Selection::default();
    let names = |v: Option<String>, flag: &str| -> Result<Vec<String>, String> {
        let v = v.ok_or(format!("{flag} needs a comma-separated list of tool names"))?;
        Ok(v.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect())
    };
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--root" => root = Some(PathBuf::from(it.next().ok_or("--root needs a folder")?)),
            "--check" => check = true,
            "--catalog" => {
                catalog = Some(PathBuf::from(it.next().ok_or("--catalog needs a file")?))
            }
            "--write" => write = true,
            "--only" => selection.only.extend(names(it.next(), "--only")?),
            "--skip" => selection.skip.extend(names(it.next(), "--skip")?),
            "-h" | "--help" | "help" => {
                return Ok(Args {
                    root,
                    command: Command::Help,
                })
            }
            "import-openapi" | "coverage" | "output-schemas" | "sandbox-gaps" if sub.is_none() => {
                sub = Some(a)
            }
            s if s.starts_with('-') => return Err(format!("unknown option `{s}`")),
            _ if sub.is_some() => positional.push(PathBuf::from(a)),
            s => return Err(format!("unknown command `{s}`")),
        }
    }
    let command = match sub.as_deref() {
        None => Command::Generate { check },
        Some("import-openapi") => {
            if positional.is_empty() {
                return Err("import-openapi needs at least one OpenAPI spec".into());
            }
            Command::ImportOpenapi {
                specs: positional,
                catalog,
            }
        }
        Some("output-schemas") => {
            if !positional.is_empty() {
                return Err("output-schemas takes no positional arguments".into());
            }
            Command::OutputSchemas {
                catalog,
                write,
                selection,
            }
        }
        Some("sandbox-gaps") => {
            if !positional.is_empty() {
                return Err("sandbox-gaps takes no arguments".into());
            }
            Command::SandboxGaps
        }
        Some(_) => {
            if !positional.is_empty() {
                return Err("coverage takes no arguments".into());
            }
            Command::Coverage
        }
    };
    if write && !matches!(command, Command::OutputSchemas { .. }) {
        return Err("--write is an option of output-schemas".into());
    }
    Ok(Args { root, command })
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
    let files = codegen::generate_from(&loaded).map_err(|e| e.to_string())?;
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
        if lines.is_empty() {
            println!(
                "codegen: generated/ and {} are up to date ({} files)",
                codegen::schema::SCHEMA_PATH,
                files.len() + 1
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

fn run(args: Args) -> Result<(), String> {
    let root = args.root.unwrap_or_else(find_root);
    let layout = Layout::from_root(&root);
    match args.command {
        Command::Help => {
            println!("{USAGE}");
            Ok(())
        }
        Command::Generate { check } => run_generate(&root, &layout, check),
        Command::ImportOpenapi { specs, catalog } => {
            let catalog = catalog.unwrap_or_else(|| layout.catalog_dir.join("banking.yaml"));
            let text = codegen::openapi::import_openapi(&catalog, &specs)
                .map_err(|e| format!("import-openapi: {e:#}"))?;
            print!("{text}");
            Ok(())
        }
        Command::OutputSchemas {
            catalog,
            write,
            selection,
        } => {
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
                "output-schemas: {usable}/{} HTTP-bound tools have a usable schema; {} {} inserted, {} replaced, {} unchanged, {} removed, {} skipped, {} hand-written kept",
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
        Command::SandboxGaps => {
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
                Err("sandbox-gaps: give each tool above an `operation:` (or a handler)".into())
            }
        }
        Command::Coverage => {
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
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("codegen: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(args) {
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

    fn parse(args: &[&str]) -> Result<Args, String> {
        parse_args(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn commands_parse() {
        assert!(matches!(
            parse(&[]).unwrap().command,
            Command::Generate { check: false }
        ));
        assert!(matches!(
            parse(&["--check"]).unwrap().command,
            Command::Generate { check: true }
        ));
        match parse(&["import-openapi", "a.json", "b.json", "--catalog", "c.yaml"])
            .unwrap()
            .command
        {
            Command::ImportOpenapi { specs, catalog } => {
                assert_eq!(specs.len(), 2);
                assert_eq!(catalog, Some(PathBuf::from("c.yaml")));
            }
            _ => panic!("expected import-openapi"),
        }
        assert!(matches!(
            parse(&["coverage"]).unwrap().command,
            Command::Coverage
        ));
        assert!(parse(&["--chek"]).is_err());
        assert!(parse(&["import-openapi"]).is_err());
        assert!(parse(&["frobnicate"]).is_err());
    }
}
