//! Sequence order for parallel writers: each unit of output (a cluster, a set of baskets)
//! carries a sequence number, for example the index of the chunk of input it holds, and
//! units leave the queue strictly in sequence order, whichever thread made them first.
//! The output's entry order then depends on neither the thread count nor the timing.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::{Error, Result};

/// Units waiting for their turn, and the sequence numbers declared never to come.
#[derive(Debug)]
pub(crate) struct SequenceQueue<T> {
    next: u64,
    parked: BTreeMap<u64, T>,
    skipped: BTreeSet<u64>,
}

impl<T> Default for SequenceQueue<T> {
    fn default() -> Self {
        SequenceQueue {
            next: 0,
            parked: BTreeMap::new(),
            skipped: BTreeSet::new(),
        }
    }
}

impl<T> SequenceQueue<T> {
    /// True if `sequence` was already parked, skipped or passed.
    pub(crate) fn is_used(&self, sequence: u64) -> bool {
        sequence < self.next
            || self.parked.contains_key(&sequence)
            || self.skipped.contains(&sequence)
    }

    /// Parks `unit` under `sequence`; gives it back if that number was already used.
    pub(crate) fn park(&mut self, sequence: u64, unit: T) -> Result<(), T> {
        if self.is_used(sequence) {
            return Err(unit);
        }
        self.parked.insert(sequence, unit);
        Ok(())
    }

    /// Declares that `sequence` will never come; false if it was already used.
    pub(crate) fn skip(&mut self, sequence: u64) -> bool {
        if self.is_used(sequence) {
            return false;
        }
        self.skipped.insert(sequence)
    }

    /// Parks `unit` under `sequence` and removes the units now at the head of the queue;
    /// an error (and `unit` back) if that number was already used.
    pub(crate) fn park_ready(
        &mut self,
        sequence: u64,
        unit: T,
    ) -> std::result::Result<Vec<T>, (Error, T)> {
        match self.park(sequence, unit) {
            Ok(()) => Ok(self.take_ready()),
            Err(unit) => Err((used(sequence), unit)),
        }
    }

    /// Declares that `sequence` will never come and removes the units now at the head of
    /// the queue; an error if that number was already used.
    pub(crate) fn skip_ready(&mut self, sequence: u64) -> Result<Vec<T>> {
        if !self.skip(sequence) {
            return Err(used(sequence));
        }
        Ok(self.take_ready())
    }

    /// The sequence number whose turn it is.
    pub(crate) fn next(&self) -> u64 {
        self.next
    }

    /// Removes every parked unit, in sequence order across any gaps (at close, when the
    /// missing numbers will not come).
    pub(crate) fn drain_all(&mut self) -> Vec<T> {
        std::mem::take(&mut self.parked).into_values().collect()
    }

    /// Removes the units now at the head of the queue, in sequence order.
    pub(crate) fn take_ready(&mut self) -> Vec<T> {
        let mut ready = Vec::new();
        loop {
            if self.skipped.remove(&self.next) {
                self.next += 1;
            } else if let Some(unit) = self.parked.remove(&self.next) {
                self.next += 1;
                ready.push(unit);
            } else {
                return ready;
            }
        }
    }
}

/// The error of a sequence number given twice.
pub(crate) fn used(sequence: u64) -> Error {
    Error::InvalidArgument(format!("sequence number {sequence} was already used"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_leave_in_sequence_order_past_skipped_numbers() {
        let mut q = SequenceQueue::default();
        q.park(2, "c").unwrap();
        q.park(1, "b").unwrap();
        assert!(q.take_ready().is_empty(), "0 has not come");
        assert!(q.skip(0));
        assert_eq!(q.take_ready(), ["b", "c"]);
        q.park(4, "e").unwrap();
        assert!(q.take_ready().is_empty());
        assert!(q.skip(3));
        assert_eq!(q.take_ready(), ["e"]);
    }

    #[test]
    fn a_number_is_used_once() {
        let mut q = SequenceQueue::default();
        q.park(0, 'a').unwrap();
        assert_eq!(q.park(0, 'b'), Err('b'));
        assert!(!q.skip(0));
        assert!(q.skip(1));
        assert!(!q.skip(1), "skipped twice");
        assert_eq!(q.park(1, 'c'), Err('c'));
        assert_eq!(q.take_ready(), ['a']);
        assert_eq!(q.park(0, 'd'), Err('d'), "passed");
        assert_eq!(q.next(), 2);
        q.park(5, 'f').unwrap();
        q.park(3, 'e').unwrap();
        assert_eq!(q.drain_all(), ['e', 'f']);
    }
}
