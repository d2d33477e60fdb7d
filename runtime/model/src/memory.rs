//! How the process gives memory back: glibc malloc settings made once at start, and a trim after
//! the few bursts that allocate megabytes for a moment (seeding a sandbox scope).
//!
//! Why (issue 17, "loaded RSS under 30 MB"): glibc creates up to 8 malloc arenas per core, one
//! per thread that finds the others busy, and an arena keeps the memory freed into it. Under 32
//! connections the sandbox's reads run on some 40 blocking threads, so a server that holds a
//! few megabytes of live data kept ~38 MiB of arenas (60 MiB RSS). One arena per core keeps
//! every core allocating without waiting for another, and bounds what freed memory can pile up.
//! Seeding a scope builds ~5 MiB of records that are freed once written; glibc returns the top
//! of a heap only, so without a trim most of it stayed resident for the life of the process.
//!
//! Only glibc is tuned (musl and other allocators have no arenas to bound); with a Rust global
//! allocator such as mimalloc these calls still tune the C allocator that SQLite uses.
//!
//! Why glibc and not mimalloc for Rust's allocations (measured for issue 17): mimalloc 3 cut a
//! `tools/call` from 73K to 63K instructions (`scripts/bench_instructions.sh`), but it keeps
//! pages per thread: with the sandbox's reads on ~32 blocking threads, the RSS under 32
//! connections of `billing_invoices_list` rose from 29.6 to 53–57 MiB (and its transparent huge
//! pages alone took the idle RSS from 15.6 to 28 MiB), past the 30 MB bound. What glibc does
//! slowly for a request, [`Allocator`] does itself with bounded caches: the 1–8 KiB blocks past
//! glibc's per-thread cache, and the small blocks each runtime thread frees, kept by that thread
//! up to 16 KiB ([`cache_runtime_threads`]).

mod blocks;
mod small;

/// A layout of `size` bytes with the alignment of most Rust allocations (the caches' tests).
#[cfg(test)]
fn test_layout(size: usize) -> std::alloc::Layout {
    std::alloc::Layout::from_size_align(size, 8).unwrap()
}

pub use blocks::Allocator;
pub use small::{cache_this_thread, release_this_thread};

/// Lets the threads of the runtime `builder` makes keep the small blocks they free
/// ([`cache_this_thread`]), each giving them back to malloc when it stops: what the server's
/// binaries, which declare [`Allocator`], do with their runtime.
pub fn cache_runtime_threads(
    builder: &mut tokio::runtime::Builder,
) -> &mut tokio::runtime::Builder {
    builder
        .on_thread_start(cache_this_thread)
        .on_thread_stop(release_this_thread)
}

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
pub const TRIM_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// Runs [`release_free_memory`] every `every` on the current tokio runtime (on a blocking
/// thread: a trim walks every arena), for as long as the runtime runs.
pub fn spawn_periodic_trim(every: std::time::Duration) -> tokio::task::JoinHandle<()> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Freed memory goes back to the OS: after a burst of small allocations is freed, a trim
    /// leaves the process's resident set smaller than before the trim.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn trim_returns_freed_memory() {
        fn rss_kib() -> u64 {
            let status = std::fs::read_to_string("/proc/self/status").unwrap();
            let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
            line.split_whitespace().nth(1).unwrap().parse().unwrap()
        }
        // In a thread of its own: the test harness's other threads allocate concurrently.
        std::thread::spawn(|| {
            // 40 MiB in 64 KiB blocks (below the mmap threshold: they come from an arena),
            // with one small block kept after each, so the arena's top cannot simply shrink.
            let mut keep = Vec::new();
            let mut burst = Vec::new();
            for _ in 0..640 {
                // Written, not zeroed: calloc'd fresh pages would never become resident.
                burst.push(vec![1u8; 64 * 1024]);
                keep.push(vec![1u8; 16]);
            }
            drop(burst);
            let before = rss_kib();
            release_free_memory();
            let after = rss_kib();
            assert!(
                after + 16 * 1024 < before,
                "RSS {before} KiB before the trim, {after} KiB after"
            );
            drop(keep);
        })
        .join()
        .unwrap();
    }
}
