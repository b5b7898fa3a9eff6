//! A memory budget in bytes: producers take bytes before they buffer data and give them
//! back once it is written; when the budget is spent they wait (backpressure).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};

/// A byte budget shared by threads.
#[derive(Debug)]
pub struct MemoryBudget {
    limit: u64,
    used: Mutex<u64>,
    freed: Condvar,
    peak: AtomicU64,
}

impl MemoryBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: u64) -> Self {
        MemoryBudget {
            limit,
            used: Mutex::new(0),
            freed: Condvar::new(),
            peak: AtomicU64::new(0),
        }
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
        let deadline = std::time::Instant::now() + timeout;
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        while *used + bytes > self.limit && *used > own {
            let now = std::time::Instant::now();
            if now >= deadline {
                return false;
            }
            used = self
                .freed
                .wait_timeout(used, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        self.take(&mut used, bytes);
        true
    }

    /// Takes `bytes`, waiting at most `timeout` for them to fit; returns whether it did.
    pub fn acquire_within(&self, bytes: u64, timeout: std::time::Duration) -> bool {
        let deadline = std::time::Instant::now() + timeout;
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        while *used + bytes > self.limit {
            let now = std::time::Instant::now();
            if now >= deadline {
                return false;
            }
            used = self
                .freed
                .wait_timeout(used, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        self.take(&mut used, bytes);
        true
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
        drop(used);
        self.freed.notify_all();
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
}
