//! The cells of unweighted histograms kept per slot of the event loop, as RDataFrame keeps
//! a histogram per thread: a batch fills its slot's cells in place instead of a fresh
//! copy of every histogram, so a graph of many large histograms holds one set of cells
//! per thread (not one per batch in flight and per batch waiting for those before it).
//! Unweighted cells are whole numbers below 2^53, which add exactly in any order: the
//! slots' sums have the bits of the batches' sums added in dataset order. Statistics
//! (sums of `x`, `x^2`, ...) depend on the order and stay in the batches' partials.

use std::sync::Mutex;

use super::actions::{ActionSpec, AxisModel, Partial};

/// Per slot, the cells of each result kept this way (empty until the slot fills it).
pub struct SlotCells {
    /// Per pending result, its number of cells if its cells are kept per slot.
    sizes: Vec<Option<usize>>,
    slots: Vec<Mutex<Vec<Vec<f64>>>>,
}

impl SlotCells {
    /// The kept cells of results `specs` (those of unweighted histograms of fixed axes) for
    /// an event loop of `slots` slots.
    pub fn new<'s>(specs: impl Iterator<Item = &'s ActionSpec>, slots: usize) -> SlotCells {
        let sizes: Vec<Option<usize>> = specs.map(kept_cells).collect();
        let per_slot = || Mutex::new(vec![Vec::new(); sizes.len()]);
        let slots = match sizes.iter().any(Option::is_some) {
            true => (0..slots.max(1)).map(|_| per_slot()).collect(),
            false => Vec::new(),
        };
        SlotCells { sizes, slots }
    }

    /// Whether result `k`'s cells are kept per slot (its partials hold no cells).
    pub fn keeps(&self, k: usize) -> bool {
        self.sizes[k].is_some()
    }

    /// Runs `fill` on the batch's `partials` with the kept results' cells of `slot` in
    /// them, then takes those cells back.
    pub fn fill_in<T>(
        &self,
        slot: usize,
        partials: &mut [Partial],
        fill: impl FnOnce(&mut [Partial]) -> T,
    ) -> T {
        if self.slots.is_empty() {
            return fill(partials);
        }
        // A slot is used by one batch at a time; the lock only keeps a live view out.
        let mut kept = self.slots[slot % self.slots.len()]
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        for (k, size) in self.sizes.iter().enumerate() {
            if let (Some(size), Some(cells)) = (size, partials[k].cells_mut()) {
                if kept[k].is_empty() {
                    kept[k] = vec![0.0; *size];
                }
                std::mem::swap(cells, &mut kept[k]);
            }
        }
        let out = fill(partials);
        for (k, size) in self.sizes.iter().enumerate() {
            if let (Some(_), Some(cells)) = (size, partials[k].cells_mut()) {
                std::mem::swap(cells, &mut kept[k]);
            }
        }
        out
    }

    /// Result `k`'s cells so far: every slot's added (a copy, for a live view).
    pub fn merged(&self, k: usize) -> Vec<f64> {
        let mut total = vec![0.0; self.sizes[k].unwrap_or(0)];
        for slot in &self.slots {
            let kept = slot.lock().unwrap_or_else(|p| p.into_inner());
            add_into(&mut total, &kept[k]);
        }
        total
    }

    /// Result `k`'s cells at the end of the run, taken out of the slots (the first slot's
    /// buffer receives the others', so no third copy is made).
    pub fn take(&self, k: usize) -> Vec<f64> {
        let mut total: Vec<f64> = Vec::new();
        for slot in &self.slots {
            let cells = std::mem::take(&mut slot.lock().unwrap_or_else(|p| p.into_inner())[k]);
            if total.is_empty() {
                total = cells;
            } else {
                add_into(&mut total, &cells);
            }
        }
        if total.is_empty() {
            total = vec![0.0; self.sizes[k].unwrap_or(0)];
        }
        total
    }
}

/// The cells of `spec`, if they are kept per slot: an unweighted histogram of fixed axes.
fn kept_cells(spec: &ActionSpec) -> Option<usize> {
    match spec {
        ActionSpec::Histo {
            axes, weight: None, ..
        } if !axes.iter().any(|a| matches!(a, AxisModel::FromData { .. })) => {
            Some(axes.iter().map(|a| a.bins() + 2).product())
        }
        _ => None,
    }
}

fn add_into(total: &mut [f64], cells: &[f64]) {
    total.iter_mut().zip(cells).for_each(|(t, c)| *t += c);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn histo(weight: Option<&str>) -> ActionSpec {
        ActionSpec::Histo {
            name: "h".into(),
            title: String::new(),
            axes: vec![AxisModel::Regular {
                bins: 4,
                min: 0.0,
                max: 4.0,
            }],
            columns: vec!["x".into()],
            weight: weight.map(str::to_string),
        }
    }

    #[test]
    fn slots_fill_in_place_and_add_up_at_the_end() {
        let specs = [histo(None), histo(Some("w")), ActionSpec::Count];
        let cells = SlotCells::new(specs.iter(), 2);
        assert!(cells.keeps(0) && !cells.keeps(1) && !cells.keeps(2));
        for (slot, bin) in [(0, 1), (1, 2), (0, 1), (3, 4)] {
            let mut partials = vec![
                Partial::kept(&specs[0]),
                Partial::new(&specs[1], 0),
                Partial::new(&specs[2], 0),
            ];
            cells.fill_in(slot, &mut partials, |p| {
                p[0].cells_mut().unwrap()[bin] += 1.0;
                p[1].cells_mut().unwrap()[bin] += 0.5;
            });
            // The batch's partial keeps no cells of the first; the second's are its own.
            assert_eq!(partials[0].cells_mut().map(|c| c.len()), Some(0));
            assert_eq!(partials[1].cells_mut().unwrap()[bin], 0.5);
        }
        let want = vec![0.0, 2.0, 1.0, 0.0, 1.0, 0.0];
        assert_eq!(cells.merged(0), want);
        assert_eq!(cells.take(0), want);
        assert_eq!(cells.take(0), vec![0.0; 6]);
    }
}
