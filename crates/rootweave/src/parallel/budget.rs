//! A memory budget in bytes: producers take bytes before they buffer data and give them
//! back once it is written; when the budget is spent they wait (backpressure).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock};

/// A function called each time bytes are given back to a budget.
pub type ReleaseListener = Arc<dyn Fn() + Send + Sync>;

/// A byte budget shared by threads.
pub struct MemoryBudget {
    limit: u64,
    used: Mutex<u64>,
    freed: Condvar,
    peak: AtomicU64,
    /// Counts the releases (changed under `used`'s lock), for waiting on the next one.
    releases: AtomicU64,
    listening: AtomicBool,
    listener: RwLock<Option<ReleaseListener>>,
}

impl std::fmt::Debug for MemoryBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryBudget")
            .field("limit", &self.limit)
            .field("in_use", &self.in_use())
            .field("peak", &self.peak())
            .finish()
    }
}

impl MemoryBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: u64) -> Self {
        MemoryBudget {
            limit,
            used: Mutex::new(0),
            freed: Condvar::new(),
            peak: AtomicU64::new(0),
            releases: AtomicU64::new(0),
            listening: AtomicBool::new(false),
            listener: RwLock::new(None),
        }
    }

    /// Waits until bytes are given back, at most `timeout`; returns whether some were.
    /// For producers that were told the budget is spent without waiting (`try_extend`)
    /// and wait elsewhere than in the writer, to know when to retry.
    pub fn wait_for_release(&self, timeout: std::time::Duration) -> bool {
        let used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        let seen = self.releases.load(Ordering::Relaxed);
        self.wait_while(used, timeout, |_| {
            self.releases.load(Ordering::Relaxed) == seen
        })
        .1
    }

    /// Waits for bytes given back while `blocked` holds of the bytes taken, at most
    /// `timeout`; returns the lock and whether `blocked` stopped holding.
    fn wait_while<'a>(
        &self,
        mut used: MutexGuard<'a, u64>,
        timeout: std::time::Duration,
        mut blocked: impl FnMut(u64) -> bool,
    ) -> (MutexGuard<'a, u64>, bool) {
        let deadline = std::time::Instant::now() + timeout;
        while blocked(*used) {
            let now = std::time::Instant::now();
            if now >= deadline {
                return (used, false);
            }
            used = self
                .freed
                .wait_timeout(used, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        (used, true)
    }

    /// Calls `listener` (on the releasing thread, after the bytes are back) each time bytes
    /// are given back, or no longer calls anything with `None`: a task scheduler's way to
    /// requeue producers that found the budget spent. It must be quick and must not call
    /// the writer or this method. Once this returns, the listener it replaced is no longer
    /// running anywhere.
    pub fn set_release_listener(&self, listener: Option<ReleaseListener>) {
        let mut slot = self.listener.write().unwrap_or_else(|e| e.into_inner());
        self.listening.store(listener.is_some(), Ordering::Release);
        *slot = listener;
    }

    /// The budget.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes taken now.
    pub fn in_use(&self) -> u64 {
        *self.used.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The most bytes ever taken at once.
    pub fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }

    fn take(&self, used: &mut u64, bytes: u64) {
        *used += bytes;
        self.peak.fetch_max(*used, Ordering::Relaxed);
    }

    /// Takes `bytes` if they fit in what is left; returns whether it did.
    pub fn try_acquire(&self, bytes: u64) -> bool {
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        if *used + bytes <= self.limit {
            self.take(&mut used, bytes);
            true
        } else {
            false
        }
    }

    /// Takes `bytes`, waiting until they fit. A request larger than the whole budget waits
    /// until nothing else is taken, so that it cannot wait forever.
    pub fn acquire(&self, bytes: u64) {
        self.acquire_holding(bytes, 0);
    }

    /// Takes `bytes`, waiting until they fit, for a caller that already holds `own` bytes:
    /// it stops waiting once everything taken is its own, since nobody else could then
    /// give bytes back.
    pub fn acquire_holding(&self, bytes: u64, own: u64) {
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        while *used + bytes > self.limit && *used > own {
            used = self.freed.wait(used).unwrap_or_else(|e| e.into_inner());
        }
        self.take(&mut used, bytes);
    }

    /// As [`MemoryBudget::acquire_holding`], waiting at most `timeout`; returns whether it
    /// took the bytes.
    pub fn acquire_holding_within(
        &self,
        bytes: u64,
        own: u64,
        timeout: std::time::Duration,
    ) -> bool {
        let used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        let (mut used, fits) = self.wait_while(used, timeout, |used| {
            used + bytes > self.limit && used > own
        });
        if fits {
            self.take(&mut used, bytes);
        }
        fits
    }

    /// Takes `bytes`, waiting at most `timeout` for them to fit; returns whether it did.
    pub fn acquire_within(&self, bytes: u64, timeout: std::time::Duration) -> bool {
        let used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        let (mut used, fits) = self.wait_while(used, timeout, |used| used + bytes > self.limit);
        if fits {
            self.take(&mut used, bytes);
        }
        fits
    }

    /// Takes `bytes` without waiting, even beyond the budget (for the one producer that
    /// everybody else waits for).
    pub fn force_acquire(&self, bytes: u64) {
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        self.take(&mut used, bytes);
    }

    /// Gives `bytes` back and wakes the waiting producers.
    pub fn release(&self, bytes: u64) {
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        *used = used.saturating_sub(bytes);
        self.releases.fetch_add(1, Ordering::Relaxed);
        drop(used);
        self.freed.notify_all();
        if self.listening.load(Ordering::Acquire) {
            // Called under the read lock, so that once `set_release_listener` returns no
            // call of the listener it replaced is still running.
            let listener = self.listener.read().unwrap_or_else(|e| e.into_inner());
            if let Some(listener) = listener.as_ref() {
                listener();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn waits_until_bytes_are_released() {
        let budget = Arc::new(MemoryBudget::new(100));
        assert!(budget.try_acquire(60));
        assert!(!budget.try_acquire(60));
        let b = budget.clone();
        let waiter = std::thread::spawn(move || {
            b.acquire(60);
            b.in_use()
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert_eq!(
            budget.in_use(),
            60,
            "the waiter must not have taken its bytes yet"
        );
        budget.release(60);
        assert_eq!(waiter.join().unwrap(), 60);
        assert_eq!(budget.peak(), 60);
        budget.release(60);
        // Larger than the budget: granted once nothing else is taken.
        budget.acquire(500);
        assert_eq!(budget.in_use(), 500);
    }

    #[test]
    fn tells_of_releases() {
        let budget = Arc::new(MemoryBudget::new(100));
        assert!(budget.try_acquire(100));
        let calls = Arc::new(AtomicU64::new(0));
        let c = calls.clone();
        budget.set_release_listener(Some(Arc::new(move || {
            c.fetch_add(1, Ordering::Relaxed);
        })));
        // Nothing given back: the wait ends at its timeout.
        assert!(!budget.wait_for_release(std::time::Duration::from_millis(20)));
        let b = budget.clone();
        let waiter =
            std::thread::spawn(move || b.wait_for_release(std::time::Duration::from_secs(30)));
        std::thread::sleep(std::time::Duration::from_millis(20));
        budget.release(40);
        assert!(waiter.join().unwrap());
        assert_eq!(calls.load(Ordering::Relaxed), 1);
        assert!(budget.try_acquire(40));
        budget.set_release_listener(None);
        budget.release(10);
        assert_eq!(calls.load(Ordering::Relaxed), 1);
    }
}
