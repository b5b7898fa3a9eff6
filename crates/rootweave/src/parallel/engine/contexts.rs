//! The fill contexts a parallel writer has handed out, whichever the format: a producer
//! short of budget commits the clusters of contexts that no thread is using right now
//! (their owners are busy elsewhere, for example many contexts on few threads), and
//! `close` commits what every context still holds; and the failures of producers, which
//! `close` reports after it has written a complete file.

use std::sync::{Arc, Mutex, MutexGuard, Weak};

use crate::error::{Error, Result};

/// Locks `m`, also if a thread panicked while holding it: the writers' state stays
/// consistent across a producer's panic (its unfinished cluster is dropped whole).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What producers failed at (a panic, a commit that could not be written), in order.
#[derive(Default)]
pub(crate) struct Failures(Mutex<Vec<String>>);

impl Failures {
    /// Records one failure.
    pub(crate) fn record(&self, message: String) {
        lock(&self.0).push(message);
    }

    /// `Ok(value)` if no producer failed; else an error saying what was closed (`closed`,
    /// for example "the file was closed with 10 entries") and every failure.
    pub(crate) fn result<T>(&self, value: T, closed: &str) -> Result<T> {
        let failures = lock(&self.0);
        if failures.is_empty() {
            Ok(value)
        } else {
            Err(Error::InvalidArgument(format!(
                "{closed}, but producers failed: {}",
                failures.join("; ")
            )))
        }
    }
}

/// How long a producer waits for budget before it looks again for idle contexts to
/// flush (unordered mode), or before it overdraws (ordered mode: the next sequence number
/// may belong to a thread that is waiting itself).
pub(crate) const BUDGET_WAIT: std::time::Duration = std::time::Duration::from_millis(20);

/// Weak handles to the states of the contexts handed out.
pub(crate) struct ContextList<S> {
    list: Mutex<Vec<Weak<Mutex<S>>>>,
}

impl<S> Default for ContextList<S> {
    fn default() -> Self {
        ContextList {
            list: Mutex::new(Vec::new()),
        }
    }
}

impl<S> ContextList<S> {
    /// Adds a context's state (and forgets the contexts dropped since).
    pub(crate) fn add(&self, state: &Arc<Mutex<S>>) {
        let mut list = lock(&self.list);
        list.retain(|c| c.strong_count() > 0);
        list.push(Arc::downgrade(state));
    }

    /// The states of the contexts still alive.
    pub(crate) fn alive(&self) -> Vec<Arc<Mutex<S>>> {
        let list = lock(&self.list);
        list.iter().filter_map(Weak::upgrade).collect()
    }

    /// Calls `f` with the state of every context that no thread is using right now (the
    /// caller's own context is in use, so it is skipped).
    pub(crate) fn for_each_idle(&self, mut f: impl FnMut(&mut S)) {
        for context in self.alive() {
            if let Ok(mut state) = context.try_lock() {
                f(&mut state);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_contexts_are_visited_and_busy_ones_skipped() {
        let list = ContextList::default();
        let (a, b) = (Arc::new(Mutex::new(1)), Arc::new(Mutex::new(2)));
        list.add(&a);
        list.add(&b);
        {
            let c = Arc::new(Mutex::new(3));
            list.add(&c);
        }
        assert_eq!(list.alive().len(), 2, "a dropped context is forgotten");
        let busy = b.lock().unwrap();
        let mut seen = Vec::new();
        list.for_each_idle(|s| seen.push(*s));
        assert_eq!(seen, [1]);
        drop(busy);
    }

    #[test]
    fn failures_make_close_an_error() {
        let failures = Failures::default();
        assert_eq!(failures.result(7, "closed").unwrap(), 7);
        failures.record("a producer panicked".into());
        failures.record("disk full".into());
        let err = failures.result(7, "closed with 7 entries").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid argument: closed with 7 entries, but producers failed: a producer panicked; disk full"
        );
    }
}
