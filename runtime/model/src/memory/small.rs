//! The small blocks (up to 1,032 bytes) a thread frees, kept by that thread for its next
//! allocations: a list per size class, in thread-local storage, bounded in bytes.
//!
//! Why (issue 17, `tools/call` ≥ 0.7× a static server): a `tools/call` allocates and frees some
//! 30 small blocks (the request's strings and maps, the answer's buffers, hyper's and tokio's
//! bookkeeping). glibc serves them from its own per-thread cache (tcache), but through its
//! general entry points: about 60 instructions a `malloc` and 100 a `free` (chunk checks, the
//! double-free probe, arena bookkeeping), 5–6K instructions a call. Popping and pushing a list
//! head here is a tenth of that.
//!
//! Which threads: only those that asked for it ([`cache_this_thread`], the async runtime's
//! threads, from its `on_thread_start`), and each gives its blocks back to malloc when it stops
//! ([`release_this_thread`], from `on_thread_stop`). So a thread's cache never outlives it and
//! nothing in the allocator has to run at thread exit. Every other thread (the main thread
//! before the runtime, threads a library starts) uses malloc as before.
//!
//! Bounds: a thread holds at most [`THREAD_BUDGET`] bytes of freed blocks; a block that would
//! exceed it goes to `free`. With the sandbox's ~40 blocking threads under load that is
//! 40 × 16 KiB at worst, beside a resident set of ~20 MiB. Blocks stay glibc's own: the cache
//! only delays their `free`, so a block cached by one thread may have been allocated by another,
//! and `realloc` works on any of them.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The alignment malloc gives every block on 64-bit Linux (and at least 8 everywhere): both
/// caches (these lists and [`super::blocks`]'s) serve only layouts that need no more. It lives
/// here, in the module the other cache already imports, so that no two files import each other.
pub(super) const MALLOC_ALIGN: usize = 16;

/// The largest size served: glibc's own per-thread cache stops here too.
pub(super) const MAX: usize = 1032;
/// Classes of capacity 16·k + 8 bytes, k = 1..=64: exactly the usable sizes of glibc's chunks,
/// so rounding a request up to its class costs no memory malloc would not have spent.
const CLASSES: usize = 64;
/// The bytes of freed blocks one thread may hold.
const THREAD_BUDGET: usize = 16 * 1024;

/// One thread's freed small blocks. Each list links its blocks through their first word.
struct Lists {
    on: Cell<bool>,
    /// Bytes held in all lists.
    held: Cell<usize>,
    heads: [Cell<*mut u8>; CLASSES],
}

thread_local! {
    // A `const` initializer and no destructor: plain thread-local storage, which the allocator
    // may touch at any point of a thread's life (nothing is registered, nothing is allocated).
    static LISTS: Lists = const {
        Lists {
            on: Cell::new(false),
            held: Cell::new(0),
            heads: [const { Cell::new(std::ptr::null_mut()) }; CLASSES],
        }
    };
}

/// The class (0-based) of a layout, when small blocks serve it.
#[inline]
pub(super) fn class_of(layout: Layout) -> Option<usize> {
    let size = layout.size();
    if size <= MAX && layout.align() <= MALLOC_ALIGN {
        // Capacity 16·k + 8 ≥ size: k = ⌈(size − 8) / 16⌉, at least 1.
        Some(size.saturating_sub(9) / 16)
    } else {
        None
    }
}

/// The size every block of class `c` is allocated with.
#[inline]
pub(super) fn capacity(c: usize) -> usize {
    16 * (c + 1) + 8
}

/// The layout a block of class `c` is allocated (and freed) with.
#[inline]
pub(super) fn class_layout(c: usize) -> Layout {
    // At most 1,032 bytes, aligned to a power of two: always valid.
    Layout::from_size_align(capacity(c), MALLOC_ALIGN).unwrap_or(Layout::new::<u8>())
}

/// A block of class `c`: this thread's last freed one, else malloc's.
#[inline]
pub(super) unsafe fn alloc(c: usize) -> *mut u8 {
    let cached = LISTS.with(|l| {
        if !l.on.get() {
            return std::ptr::null_mut();
        }
        let head = l.heads[c].get();
        if !head.is_null() {
            // SAFETY: a listed block is a freed block of at least 24 bytes whose first word
            // holds the next block of the list (written by `dealloc`).
            l.heads[c].set(unsafe { *(head as *mut *mut u8) });
            l.held.set(l.held.get() - capacity(c));
        }
        head
    });
    if cached.is_null() {
        System.alloc(class_layout(c))
    } else {
        cached
    }
}

/// Keeps a freed block of class `c` for this thread, or frees it when the thread keeps none or
/// holds its budget.
#[inline]
pub(super) unsafe fn dealloc(ptr: *mut u8, c: usize) {
    let kept = LISTS.with(|l| {
        let held = l.held.get() + capacity(c);
        if !l.on.get() || held > THREAD_BUDGET {
            return false;
        }
        // SAFETY: the caller frees `ptr`, a block of class `c` (at least 24 bytes, aligned to
        // 16): its first word is ours to link the list through.
        unsafe { *(ptr as *mut *mut u8) = l.heads[c].get() };
        l.heads[c].set(ptr);
        l.held.set(held);
        true
    });
    if !kept {
        System.dealloc(ptr, class_layout(c));
    }
}

/// Lets the calling thread keep the small blocks it frees (see the module's doc). Call from
/// the thread's start; pair with [`release_this_thread`] at its end.
pub fn cache_this_thread() {
    LISTS.with(|l| l.on.set(true));
}

/// Gives every block the calling thread keeps back to malloc, and stops keeping them.
pub fn release_this_thread() {
    LISTS.with(|l| {
        l.on.set(false);
        for (c, head) in l.heads.iter().enumerate() {
            let mut p = head.replace(std::ptr::null_mut());
            while !p.is_null() {
                // SAFETY: as in `alloc`: a listed block's first word is the next one.
                let next = unsafe { *(p as *mut *mut u8) };
                // SAFETY: a listed block was allocated by malloc with its class's layout.
                unsafe { System.dealloc(p, class_layout(c)) };
                p = next;
            }
        }
        l.held.set(0);
    });
}

/// The bytes of freed blocks the calling thread holds.
#[cfg(test)]
pub(super) fn held() -> usize {
    LISTS.with(|l| l.held.get())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Allocator;

    use crate::memory::test_layout as layout;

    /// Every size up to 1,032 bytes has a class whose blocks hold it and waste nothing malloc
    /// would not (glibc rounds a chunk to 16 bytes); larger or over-aligned layouts have none.
    #[test]
    fn classes_hold_their_sizes() {
        for size in 1..=MAX {
            let c = class_of(layout(size)).expect("a small size has a class");
            assert!(c < CLASSES, "{size}");
            assert!(capacity(c) >= size, "{size}");
            assert!(capacity(c) < size.max(24) + 16, "{size}");
        }
        assert_eq!(class_of(layout(24)), class_of(layout(1)));
        assert_ne!(class_of(layout(25)), class_of(layout(24)));
        assert_eq!(class_of(layout(MAX + 1)), None);
        assert_eq!(class_of(Layout::from_size_align(64, 32).unwrap()), None);
    }

    /// A thread that keeps its blocks reuses the last one freed, holds no more than its budget,
    /// and gives everything back when released; a thread that did not ask keeps nothing.
    #[test]
    fn a_thread_reuses_its_blocks_within_its_budget() {
        let a = Allocator::new();
        unsafe {
            let p = a.alloc(layout(100));
            a.dealloc(p, layout(100));
            assert_eq!(held(), 0, "a thread keeps nothing until it asks");

            cache_this_thread();
            let p = a.alloc(layout(100));
            a.dealloc(p, layout(100));
            assert_eq!(held(), capacity(class_of(layout(100)).unwrap()));
            let q = a.alloc(layout(97));
            assert_eq!(p, q, "the block freed last is served again in its class");
            assert_eq!(held(), 0);
            let r = a.alloc(layout(200));
            assert_ne!(r, q);
            a.dealloc(q, layout(97));
            a.dealloc(r, layout(200));

            let blocks: Vec<_> = (0..200).map(|i| a.alloc(layout(8 + i * 5))).collect();
            for (i, b) in blocks.iter().enumerate() {
                std::ptr::write_bytes(*b, i as u8, 8 + i * 5);
            }
            for (i, b) in blocks.iter().enumerate() {
                let s = std::slice::from_raw_parts(*b, 8 + i * 5);
                assert!(s.iter().all(|x| *x == i as u8), "blocks are distinct");
                a.dealloc(*b, layout(8 + i * 5));
            }
            assert!(held() <= THREAD_BUDGET, "{} held", held());
            assert!(
                held() > THREAD_BUDGET - 2 * MAX,
                "the budget is used: {}",
                held()
            );

            release_this_thread();
            assert_eq!(held(), 0);
            let p = a.alloc(layout(100));
            a.dealloc(p, layout(100));
            assert_eq!(held(), 0, "a released thread keeps nothing");
        }
    }

    /// Zeroed and resized small blocks: zeroes from a reused block, contents kept across
    /// classes, into the 1–8 KiB classes, past them and back.
    #[test]
    fn small_blocks_are_zeroed_and_resized_intact() {
        let a = Allocator::new();
        cache_this_thread();
        unsafe {
            let p = a.alloc(layout(300));
            std::ptr::write_bytes(p, 0xAB, 300);
            a.dealloc(p, layout(300));
            let z = a.alloc_zeroed(layout(300));
            assert_eq!(z, p, "the dirty block is reused");
            assert!(std::slice::from_raw_parts(z, 300).iter().all(|b| *b == 0));
            for (i, b) in std::slice::from_raw_parts_mut(z, 300)
                .iter_mut()
                .enumerate()
            {
                *b = i as u8;
            }
            assert_eq!(a.realloc(z, layout(300), 310), z, "within its class");
            let mut size = 300;
            let mut p = z;
            for next in [20, 700, 1032, 5000, 3000, 40_000, 900, 1033, 64] {
                p = a.realloc(p, layout(size), next);
                assert!(!p.is_null());
                let kept = size.min(next).min(300);
                let s = std::slice::from_raw_parts(p, kept.min(20));
                assert!(
                    s.iter().enumerate().all(|(i, b)| *b == i as u8),
                    "{size} -> {next}"
                );
                size = next;
            }
            a.dealloc(p, layout(size));
        }
        release_this_thread();
    }

    /// Blocks allocated by one thread and freed by another are kept by the freeing thread and
    /// never handed to two owners at once.
    #[test]
    fn threads_keep_blocks_others_allocated() {
        static A: Allocator = Allocator::new();
        let (tx, rx) = std::sync::mpsc::channel::<(usize, usize)>();
        let freer = std::thread::spawn(move || {
            cache_this_thread();
            for (p, size) in rx {
                unsafe { A.dealloc(p as *mut u8, layout(size)) };
            }
            let kept = held();
            release_this_thread();
            kept
        });
        let workers: Vec<_> = (0..4u8)
            .map(|t| {
                let tx = tx.clone();
                std::thread::spawn(move || {
                    cache_this_thread();
                    for i in 0..3000usize {
                        let size = 1 + (i * 37 + t as usize * 101) % MAX;
                        unsafe {
                            let p = A.alloc(layout(size));
                            std::ptr::write_bytes(p, t, size);
                            std::thread::yield_now();
                            let s = std::slice::from_raw_parts(p, size);
                            assert!(s.iter().all(|b| *b == t), "a block was shared");
                            if i % 3 == 0 {
                                tx.send((p as usize, size)).unwrap();
                            } else {
                                A.dealloc(p, layout(size));
                            }
                        }
                    }
                    release_this_thread();
                })
            })
            .collect();
        drop(tx);
        for w in workers {
            w.join().unwrap();
        }
        let kept = freer.join().unwrap();
        assert!(kept > 0 && kept <= THREAD_BUDGET, "{kept}");
    }
}
