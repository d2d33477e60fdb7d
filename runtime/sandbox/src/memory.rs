//! How the server process gives memory back to the system: glibc malloc settings made once at
//! start, a trim after seeding a scope, and a periodic trim while serving. The server allocates
//! with the system allocator; these calls only bound what glibc keeps once it is freed.
//!
//! Here because the sandbox is what needs them (the `kobana-mcp` binary calls
//! [`tune_allocator`] and [`spawn_periodic_trim`]; [`crate::Sandbox`] trims after seeding):
//!
//! - glibc creates up to 8 malloc arenas per core, one per thread that finds the others busy,
//!   and an arena keeps the memory freed into it. Under 32 connections the sandbox's reads run
//!   on some 40 blocking threads, so a server that holds a few megabytes of live data kept
//!   ~38 MiB of arenas (60 MiB RSS, measured for issue 17). One arena per core keeps every core
//!   allocating without waiting for another, and bounds what freed memory can pile up.
//! - Seeding a scope builds ~5 MiB of records that are freed once written; glibc returns the
//!   top of a heap only, so without a trim most of it stayed resident for the life of the
//!   process.
//!
//! The memory targets (issue 34: idle RSS at most 30 MiB, loaded at most 40 MiB) are measured by
//! the benchmarks (`scripts/bench_scale.sh`, `scripts/bench_http.sh`), never asserted by a test.
//!
//! Only glibc is tuned (musl has no arenas to bound; elsewhere these do nothing). Why not
//! mimalloc for the server (measured for issue 17): it cut a `tools/call` from 73K to 63K
//! instructions, but it keeps pages per thread: with the sandbox's reads on ~32 blocking
//! threads, the RSS under 32 connections of `billing_invoices_list` rose from 29.6 to
//! 53–57 MiB, and its transparent huge pages alone took the idle RSS from 15.6 to 28 MiB.

use std::time::Duration;

/// Sets the malloc arena limit to one arena per core (at least 2). Call once, first thing in
/// `main`, before the runtime starts its threads: arenas already created stay.
pub fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get().max(2));
        let arenas = libc::c_int::try_from(cores).unwrap_or(libc::c_int::MAX);
        // SAFETY: mallopt only changes allocator parameters; M_ARENA_MAX takes any positive
        // count. It returns 0 on failure, which leaves glibc's default (harmless).
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, arenas);
        }
    }
}

/// Returns the free memory of every malloc arena to the operating system (glibc's
/// `malloc_trim(0)`: the free pages inside a heap too, not just its top). A few milliseconds;
/// call after a burst, not per request.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointers and is safe to call from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// How often a serving process gives back what its allocator holds free: a burst of concurrent
/// requests (32 connections) leaves ~5 MiB free in the arenas once it is over.
pub const TRIM_EVERY: Duration = Duration::from_secs(10);

/// Runs [`release_free_memory`] every `every` on the current tokio runtime (on a blocking
/// thread: a trim walks every arena), for as long as the runtime runs.
pub fn spawn_periodic_trim(every: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tick.tick().await; // the first tick is immediate: nothing to give back yet
        loop {
            tick.tick().await;
            let _ = tokio::task::spawn_blocking(release_free_memory).await;
        }
    })
}
