//! Handing freed memory back to the operating system.
//!
//! A writer's producers run on several threads, and glibc's allocator gives each thread
//! its own arena: memory that one producer's cluster freed stays mapped in that thread's
//! arena, where another producer cannot reuse it. The memory budget counts what is live,
//! so without this a process could stay resident with the sum of every thread's own
//! peak instead of the budget (with four threads filling 1000 columns under a 256 MiB
//! budget: about 300 MiB resident instead of 260). After enough bytes are freed, the
//! allocator is asked to return its free pages (`malloc_trim`).

use std::sync::atomic::{AtomicU64, Ordering};

/// Counts bytes freed by a writer and returns free memory to the system each time
/// `threshold` bytes more were freed.
#[derive(Debug)]
pub struct FreedMemory {
    since_trim: AtomicU64,
    threshold: u64,
}

impl FreedMemory {
    /// Returns memory after every `threshold` freed bytes.
    pub fn new(threshold: u64) -> Self {
        FreedMemory {
            since_trim: AtomicU64::new(0),
            threshold: threshold.max(1),
        }
    }

    /// Notes that `bytes` were freed; gives the allocator's free pages back to the system
    /// if `threshold` bytes were freed since it last did.
    pub fn freed(&self, bytes: u64) {
        let before = self.since_trim.fetch_add(bytes, Ordering::Relaxed);
        if before + bytes >= self.threshold
            && self
                .since_trim
                .compare_exchange(before + bytes, 0, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            return_free_pages();
        }
    }
}

/// How the program's allocator returns free pages, if it is not glibc's (see
/// [`set_return_free_pages`]).
static RETURN_FREE_PAGES: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// Makes the writers hand freed memory back with `f` instead of glibc's `malloc_trim`: a
/// program that installs another global allocator says how that one returns free pages.
/// Only the first call counts.
pub fn set_return_free_pages(f: fn()) {
    let _ = RETURN_FREE_PAGES.set(f);
}

/// Asks the allocator to return its free pages to the system.
fn return_free_pages() {
    match RETURN_FREE_PAGES.get() {
        Some(f) => f(),
        None => trim_glibc(),
    }
}

/// Asks glibc's allocator to return the free pages of all its arenas to the system.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim_glibc() {
    // SAFETY: malloc_trim has no preconditions: it takes each arena's lock and only
    // advises the kernel about pages that hold no live allocation, so no memory that Rust
    // (or anything else) still uses changes.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Other allocators return memory on their own terms.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim_glibc() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_towards_the_threshold_and_starts_again() {
        let freed = FreedMemory::new(100);
        freed.freed(60);
        assert_eq!(freed.since_trim.load(Ordering::Relaxed), 60);
        freed.freed(50);
        assert_eq!(
            freed.since_trim.load(Ordering::Relaxed),
            0,
            "trimmed at 110"
        );
        freed.freed(10);
        assert_eq!(freed.since_trim.load(Ordering::Relaxed), 10);
    }

    #[test]
    fn a_program_can_say_how_its_allocator_returns_free_pages() {
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        fn count() {
            CALLS.fetch_add(1, Ordering::Relaxed);
        }
        set_return_free_pages(count);
        let before = CALLS.load(Ordering::Relaxed);
        FreedMemory::new(10).freed(20);
        assert!(CALLS.load(Ordering::Relaxed) > before);
    }
}
