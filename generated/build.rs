//! Regenerates `src/` and `docs/` from `../catalog/*.yaml` (see the `codegen` crate).

/// See `codegen::Allocator`: the generator's processes only, never the server.
#[global_allocator]
static ALLOCATOR: codegen::Allocator = codegen::Allocator;

fn main() {
    let dir = std::path::PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    if let Err(e) = codegen::build_script(&dir) {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
