//! The server's global allocator: glibc's malloc, with two caches of the blocks every request
//! allocates and frees: the small ones (up to 1,032 bytes) each runtime thread keeps for itself
//! ([`super::small`]), and a shared cache of those between 1 and 8 KiB (here).
//!
//! Why (issue 17, `tools/call` ≥ 0.7× a static server): glibc serves blocks up to 1,032 bytes
//! from a per-thread cache in a few dozen instructions, but a larger one goes through the arena's
//! bins (`_int_malloc`, `_int_free`, unsorted-bin sorting, `malloc_consolidate`): hundreds of
//! instructions a block. Each request allocates a handful of such blocks: the boxed futures of
//! the layers that answer it (2–3 KiB each) and hyper's 8 KiB read buffer. mimalloc served them
//! cheaply but held too much memory (see [`super`]); this keeps glibc for everything and only
//! recycles those blocks.
//!
//! How: sizes in (1,024, 8,192] with an alignment malloc already gives are rounded up to a
//! class of 512 bytes; each class keeps up to [`PER_CLASS`] freed blocks (at most 14 × 4 blocks,
//! 266 KiB in all). A class is taken with one atomic swap and never waited for: when another
//! thread holds it, the block goes to (or comes from) malloc as it would without the cache.
//! Blocks the cache cannot keep are freed to malloc, so it bounds what it holds, and a trim
//! ([`super::release_free_memory`]) still returns everything else. Sizes up to 1,032 bytes are
//! the small lists' (a size in (1,024, 1,032] is theirs, not a 512-byte class's).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, Ordering};

use super::small::{self, MALLOC_ALIGN};

/// Blocks up to this size are left to malloc's own per-thread cache.
const FROM: usize = 1024;
/// Blocks above this size are rare (a listing, a large answer): malloc's.
const TO: usize = 8192;
/// The width of a size class.
const STEP: usize = 512;
/// The number of classes in (FROM, TO].
const CLASSES: usize = (TO - FROM) / STEP;
/// Freed blocks kept per class.
const PER_CLASS: usize = 4;

/// glibc's malloc with a cache of freed 1–8 KiB blocks. Declared by the server's binaries:
/// `#[global_allocator] static A: runtime_model::memory::Allocator = Allocator::new();`.
pub struct Allocator {
    classes: [Class; CLASSES],
}

/// The freed blocks of one size class.
struct Class {
    busy: AtomicBool,
    stack: UnsafeCell<Stack>,
}

struct Stack {
    len: usize,
    blocks: [*mut u8; PER_CLASS],
}

// SAFETY: a class's stack is only read or written by the thread that set `busy` from false to
// true (Acquire), until it stores false (Release): one thread at a time.
unsafe impl Sync for Allocator {}

impl Default for Allocator {
    fn default() -> Self {
        Self::new()
    }
}

impl Allocator {
    pub const fn new() -> Self {
        Self {
            classes: [const {
                Class {
                    busy: AtomicBool::new(false),
                    stack: UnsafeCell::new(Stack {
                        len: 0,
                        blocks: [std::ptr::null_mut(); PER_CLASS],
                    }),
                }
            }; CLASSES],
        }
    }

    /// The class of a block of `layout`, when the cache serves it.
    fn class_of(layout: Layout) -> Option<usize> {
        let size = layout.size();
        if size > FROM && size <= TO && layout.align() <= MALLOC_ALIGN {
            Some((size - FROM - 1) / STEP)
        } else {
            None
        }
    }

    /// The size every block of class `c` is allocated with.
    fn class_layout(c: usize) -> Layout {
        // FROM + (c + 1) * STEP is at most TO and MALLOC_ALIGN is a power of two: always valid.
        Layout::from_size_align(FROM + (c + 1) * STEP, MALLOC_ALIGN).unwrap_or(Layout::new::<u8>())
    }

    /// Runs `f` on class `c`'s stack if no other thread holds it.
    fn with_class<R>(&self, c: usize, f: impl FnOnce(&mut Stack) -> R) -> Option<R> {
        let class = &self.classes[c];
        if class.busy.swap(true, Ordering::Acquire) {
            return None;
        }
        // SAFETY: `busy` was false and is now ours: no other thread touches the stack until
        // the store below.
        let r = f(unsafe { &mut *class.stack.get() });
        class.busy.store(false, Ordering::Release);
        Some(r)
    }

    /// How many freed blocks class `c` holds.
    #[cfg(test)]
    fn cached(&self, c: usize) -> usize {
        self.with_class(c, |s| s.len).unwrap_or(0)
    }
}

/// Which cache, if any, serves a layout.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// Up to 1,032 bytes: the freeing thread's own lists ([`small`]).
    Small(usize),
    /// 1–8 KiB: the shared classes above.
    Block(usize),
    /// Anything else: malloc's.
    Malloc,
}

fn kind(layout: Layout) -> Kind {
    if let Some(c) = small::class_of(layout) {
        Kind::Small(c)
    } else if let Some(c) = Allocator::class_of(layout) {
        Kind::Block(c)
    } else {
        Kind::Malloc
    }
}

unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let c = match kind(layout) {
            Kind::Small(c) => return small::alloc(c),
            Kind::Block(c) => c,
            Kind::Malloc => return System.alloc(layout),
        };
        let cached = self.with_class(c, |s| {
            if s.len == 0 {
                return None;
            }
            s.len -= 1;
            Some(s.blocks[s.len])
        });
        match cached.flatten() {
            Some(block) => block,
            None => System.alloc(Self::class_layout(c)),
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match kind(layout) {
            Kind::Small(_) | Kind::Block(_) => {
                let p = self.alloc(layout);
                if !p.is_null() {
                    std::ptr::write_bytes(p, 0, layout.size());
                }
                p
            }
            Kind::Malloc => System.alloc_zeroed(layout),
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let c = match kind(layout) {
            Kind::Small(c) => return small::dealloc(ptr, c),
            Kind::Block(c) => c,
            Kind::Malloc => return System.dealloc(ptr, layout),
        };
        let kept = self.with_class(c, |s| {
            if s.len == PER_CLASS {
                return false;
            }
            s.blocks[s.len] = ptr;
            s.len += 1;
            true
        });
        if kept != Some(true) {
            System.dealloc(ptr, Self::class_layout(c));
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // A valid layout of `new_size` (the caller guarantees it does not overflow when rounded).
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        match (kind(layout), kind(new_layout)) {
            (old, new) if old == new && old != Kind::Malloc => ptr, // it has its class's size
            (Kind::Block(_), _) | (_, Kind::Block(_)) => {
                let moved = self.alloc(new_layout);
                if !moved.is_null() {
                    std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                    self.dealloc(ptr, layout);
                }
                moved
            }
            // Small blocks are malloc's own, sized to their class: malloc moves or resizes
            // them, and a block that becomes small gets its class's full size.
            (old, new) => {
                let old = match old {
                    Kind::Small(c) => small::class_layout(c),
                    _ => layout,
                };
                let size = match new {
                    Kind::Small(c) => small::capacity(c),
                    _ => new_size,
                };
                System.realloc(ptr, old, size)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::memory::test_layout as layout;

    /// Sizes map to the classes whose blocks hold them, and only cacheable layouts are cached.
    #[test]
    fn classes_hold_their_sizes() {
        assert_eq!(Allocator::class_of(layout(1024)), None);
        assert_eq!(Allocator::class_of(layout(1025)), Some(0));
        assert_eq!(Allocator::class_of(layout(1536)), Some(0));
        assert_eq!(Allocator::class_of(layout(1537)), Some(1));
        assert_eq!(Allocator::class_of(layout(8192)), Some(CLASSES - 1));
        assert_eq!(Allocator::class_of(layout(8193)), None);
        assert_eq!(
            Allocator::class_of(Layout::from_size_align(2048, 64).unwrap()),
            None
        );
        for size in (FROM + 1)..=TO {
            let c = Allocator::class_of(layout(size)).unwrap();
            assert!(Allocator::class_layout(c).size() >= size, "{size}");
            assert!(Allocator::class_layout(c).size() < size + STEP, "{size}");
        }
    }

    /// A freed block is served again to the next request of its class, the cache keeps at most
    /// PER_CLASS blocks a class, and contents survive a realloc across classes.
    #[test]
    fn freed_blocks_are_reused_and_bounded() {
        let a = Allocator::new();
        unsafe {
            let p = a.alloc(layout(2000));
            assert!(!p.is_null());
            a.dealloc(p, layout(2000));
            assert_eq!(a.cached(1), 1);
            let q = a.alloc(layout(1600));
            assert_eq!(p, q, "the freed block of the class is reused");
            assert_eq!(a.cached(1), 0);
            a.dealloc(q, layout(1600));

            let blocks: Vec<_> = (0..PER_CLASS + 3).map(|_| a.alloc(layout(3000))).collect();
            for b in &blocks {
                a.dealloc(*b, layout(3000));
            }
            assert_eq!(
                a.cached(Allocator::class_of(layout(3000)).unwrap()),
                PER_CLASS
            );

            let z = a.alloc_zeroed(layout(3000));
            assert!(std::slice::from_raw_parts(z, 3000).iter().all(|b| *b == 0));
            for (i, b) in std::slice::from_raw_parts_mut(z, 3000)
                .iter_mut()
                .enumerate()
            {
                *b = i as u8;
            }
            // Grows into another class, then out of the cache's range, then back in.
            let z = a.realloc(z, layout(3000), 5000);
            let z = a.realloc(z, layout(5000), 20_000);
            let z = a.realloc(z, layout(20_000), 1100);
            let bytes = std::slice::from_raw_parts(z, 1100);
            assert!(bytes.iter().enumerate().all(|(i, b)| *b == i as u8));
            // Within its class, a realloc keeps the block.
            assert_eq!(a.realloc(z, layout(1100), 1500), z);
            a.dealloc(z, layout(1500));
        }
    }

    /// Many threads allocating and freeing at once get distinct, intact blocks.
    #[test]
    fn threads_share_the_cache_safely() {
        static A: Allocator = Allocator::new();
        let threads: Vec<_> = (0..8u8)
            .map(|t| {
                std::thread::spawn(move || {
                    for i in 0..2000usize {
                        let size = 1025 + (i * 37 + t as usize * 101) % 7000;
                        unsafe {
                            let p = A.alloc(layout(size));
                            std::ptr::write_bytes(p, t, size);
                            std::thread::yield_now();
                            let s = std::slice::from_raw_parts(p, size);
                            assert!(s.iter().all(|b| *b == t), "a block was shared");
                            A.dealloc(p, layout(size));
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
    }
}
