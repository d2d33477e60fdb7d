//! `kobana-mcp doctor`: checks what `serve` would use, with the same flags, environment and
//! config file, and says what is wrong in one line each. The checks are `serve`'s own
//! (`crate::preflight`, on the settings of `crate::settings`), so a setup `doctor` passes is one
//! `serve` starts; `doctor` adds probes of what `serve` waits for once running (the upstream API,
//! the identity service). Exit code 1 when any check fails.

use crate::preflight::{self, Purpose, Report};
use crate::settings::{Inputs, Settings};

/// Runs every check; `true` when all passed.
pub async fn run(inputs: &Inputs) -> bool {
    let settings = Settings::resolve_all(inputs);
    let mut report = Report::printing();
    if let Some(ready) = preflight::run(&settings, Purpose::Doctor, &mut report).await {
        if let Some(t) = ready.telemetry {
            crate::preflight::stop_telemetry(t).await;
        }
    }
    let failed = report.failures().len();
    if failed == 0 {
        println!("all checks passed");
        true
    } else {
        println!("{failed} check(s) failed");
        false
    }
}
