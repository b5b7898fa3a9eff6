//! Values made per batch of a dataset (partial sums) added in the dataset's order as soon
//! as all before them are in, whatever order the threads finish in: results with the same
//! bits for any number of threads.

use std::collections::{BTreeMap, HashSet};

use super::files::Unit;

/// The values added so far in dataset order, and those waiting for one before them.
#[derive(Debug)]
pub struct InOrder<T> {
    total: Option<T>,
    /// The batch the total needs next: (source, part).
    next: (usize, usize),
    waiting: BTreeMap<(usize, usize), (T, usize)>,
    /// Sources without batches, passed over.
    empty: HashSet<usize>,
}

impl<T> Default for InOrder<T> {
    fn default() -> Self {
        InOrder {
            total: None,
            next: (0, 0),
            waiting: BTreeMap::new(),
            empty: HashSet::new(),
        }
    }
}

impl<T> InOrder<T> {
    /// Takes the value of batch `unit` (a unit of no parts says its source has no batches,
    /// as [`super::Dataset::for_each_unit_of`] tells it), and adds with `add` every value
    /// that is next in order.
    pub fn put(&mut self, unit: &Unit, value: Option<T>, add: impl FnMut(&mut T, T)) {
        match (unit.parts, value) {
            (0, _) => {
                self.empty.insert(unit.source);
            }
            (parts, Some(v)) => {
                self.waiting.insert((unit.source, unit.part), (v, parts));
            }
            (_, None) => return,
        }
        self.drain(add);
    }

    fn drain(&mut self, mut add: impl FnMut(&mut T, T)) {
        loop {
            if self.next.1 == 0 && self.empty.contains(&self.next.0) {
                self.next = (self.next.0 + 1, 0);
                continue;
            }
            let Some((value, parts)) = self.waiting.remove(&self.next) else {
                return;
            };
            match &mut self.total {
                Some(total) => add(total, value),
                None => self.total = Some(value),
            }
            self.next = if self.next.1 + 1 == parts {
                (self.next.0 + 1, 0)
            } else {
                (self.next.0, self.next.1 + 1)
            };
        }
    }

    /// The values added so far.
    pub fn so_far(&self) -> Option<&T> {
        self.total.as_ref()
    }

    /// The sum of every value, in order (any still waiting, behind a source that was never
    /// told, added in order too).
    pub fn finish(mut self, mut add: impl FnMut(&mut T, T)) -> Option<T> {
        for (_, (value, _)) in std::mem::take(&mut self.waiting) {
            match &mut self.total {
                Some(total) => add(total, value),
                None => self.total = Some(value),
            }
        }
        self.total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(source: usize, part: usize, parts: usize) -> Unit {
        Unit {
            source,
            part,
            parts,
            entries: 0..0,
        }
    }

    #[test]
    fn values_are_added_in_dataset_order_past_sources_without_batches() {
        let mut sums: InOrder<String> = InOrder::default();
        let add = |t: &mut String, v: String| t.push_str(&v);
        sums.put(&unit(2, 0, 1), Some("c".into()), add);
        sums.put(&unit(0, 1, 2), Some("b".into()), add);
        assert_eq!(sums.so_far(), None);
        sums.put(&unit(0, 0, 2), Some("a".into()), add);
        assert_eq!(sums.so_far().map(String::as_str), Some("ab"));
        // Source 1 has no batches: source 2's value is added at once.
        sums.put(&unit(1, 0, 0), None, add);
        assert_eq!(sums.so_far().map(String::as_str), Some("abc"));
        sums.put(&unit(3, 1, 2), Some("e".into()), add);
        assert_eq!(sums.finish(add).as_deref(), Some("abce"));
    }
}
