//! Explicitly opting out of tests that need something outside the repository.
//!
//! Tests that need Redis (`REDIS_URL`), the Python MCP SDK (`KOBANA_TEST_PYTHON`), Kobana's
//! real OpenAPI specs (`KOBANA_SPECS_DIR`, default `../shared`) or Node (the views' chart data,
//! in `codegen/tests/views.rs`) fail when it is missing, naming it in the first line of the
//! failure, unless the caller lists it in `KOBANA_TEST_SKIP=redis,python,specs,node`; a test that fills a disk mounts a small tmpfs (root) unless
//! `mount` is listed. A skipped test writes one line saying what it skipped
//! and why, straight to stderr (past the test harness's output capture), so a skip is never
//! silent. Included with `#[path = "support/skip.rs"] mod skip;`.

// Each test crate uses part of this module.
#![allow(dead_code)]

use std::io::Write;

/// The variable that lists what the caller opts out of.
pub const SKIP_ENV: &str = "KOBANA_TEST_SKIP";

/// Whether `KOBANA_TEST_SKIP` names `what`; if so, writes `SKIPPED <test>: <why>`.
pub fn opted_out(what: &str, test: &str, why: &str) -> bool {
    let list = std::env::var(SKIP_ENV).unwrap_or_default();
    let skip = list.split(',').map(str::trim).any(|w| w == what);
    if skip {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {test}: {why} ({SKIP_ENV}={list})"
        );
    }
    skip
}
