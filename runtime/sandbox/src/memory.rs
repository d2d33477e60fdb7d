//! How the server process gives memory back to the system: glibc malloc settings made once at
//! start, a trim after seeding a scope, and a periodic trim while serving.
//!
//! The server's own allocations go to mimalloc (`ALLOCATOR` in the binary's `main.rs`); what
//! still allocates with glibc's malloc is C code, above all SQLite (its page caches, one per
//! connection, and the statements it prepares). These calls bound what glibc keeps of that once
//! it is freed:
//!
//! - glibc creates up to 8 malloc arenas per core, one per thread that finds the others busy,
//!   and an arena keeps the memory freed into it. One arena per core keeps every core
//!   allocating without waiting for another, and bounds what freed memory can pile up
//!   (measured for issue 17, when every allocation went to glibc: ~38 MiB of arenas under 32
//!   connections).
//! - Seeding a scope builds megabytes of records that are freed once written; glibc returns the
//!   top of a heap only, so without a trim much of it stays resident for the life of the process.
//!
//! mimalloc keeps pages per thread, so the threads allocating at once must stay few: the
//! sandbox's store work runs on at most one blocking thread per store connection
//! (`Sandbox`'s lanes). Measured for issue 34 (`kobana-mcp serve billing`, 32 connections of
//! `billing_invoices_list`, RSS after the run): glibc 24.7 MiB, mimalloc with lanes 30.3 MiB
//! (without lanes, issue 17 had measured 53–57 MiB); idle `serve all` 24.7 and 25.8 MiB.
//!
//! The memory targets (issue 34: idle RSS at most 30 MiB, loaded at most 40 MiB) are measured by
//! the benchmarks (`scripts/bench_scale.sh`, `scripts/bench_http.sh`), never asserted by a test.
//!
//! Only glibc is tuned (musl has no arenas to bound; elsewhere these do nothing).

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
