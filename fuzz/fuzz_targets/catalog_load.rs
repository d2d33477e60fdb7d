//! The catalog loader (YAML text → model → validation → rendering).
//!
//! Properties: no text makes the loader, the validator or the generator panic; every problem is
//! reported at a line of the file (or line 0 for the whole file); a catalog the validator passes
//! always renders.
#![no_main]

use std::path::PathBuf;

use codegen::load::{self, SourceFile};
use codegen::validate;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let lines = text.lines().count() + 1;
    let source = SourceFile {
        display: "catalog/fuzz.yaml".into(),
        path: PathBuf::from("/nonexistent/catalog/fuzz.yaml"),
        stem: "fuzz".into(),
        in_fixtures: false,
        text: text.to_string(),
    };
    let loaded = match load::parse(source) {
        Ok(l) => l,
        Err(d) => {
            assert!(d.line <= lines, "diagnostic past the end: {d:?}");
            return;
        }
    };
    let mut problems = validate::validate(&loaded);
    let all = [loaded];
    problems.extend(validate::validate_set(&all));
    for d in &problems {
        assert!(d.line <= lines, "diagnostic past the end: {d:?}");
    }
    if problems.is_empty() {
        if let Err(e) = codegen::generate_from(&all) {
            panic!("a validated catalog does not render: {e:?}");
        }
    }
});
