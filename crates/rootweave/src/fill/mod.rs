//! Histograms filled from a dataset on the reader's threads, the same to the last bit for
//! any number of threads and any run: each batch (a fixed run of whole clusters, never
//! chosen by thread count) fills a partial histogram of its own, and the partials are
//! added in dataset order, each as soon as all before it are in (so that few wait in
//! memory). Values are binned as boost-histogram bins them, so that the result equals a
//! `hist` filled with the same values; the statistics ROOT keeps (`fEntries`, `fTsumw`,
//! `fTsumwx`, ...) are summed from the values themselves, as ROOT's `Fill` sums them.

use std::sync::Mutex;

use crate::dataset::{Dataset, InOrder};
use crate::error::{Error, Result};
use crate::objects::{stat_names, Histogram};

mod batch;
mod binning;
mod one_axis;

use batch::fill_batch;
pub use binning::{Binning, FillAxis};

/// What one batch (or the batches added so far) filled.
#[derive(Debug, Clone)]
pub(super) struct Partial {
    pub(super) cells: Vec<f64>,
    pub(super) sumw2: Option<Vec<f64>>,
    /// ROOT's statistics sums, in [`stat_names`] order.
    pub(super) stats: Vec<f64>,
    pub(super) entries: f64,
}

impl Partial {
    pub(super) fn new(cells: usize, weighted: bool, stats: usize) -> Self {
        Partial {
            cells: vec![0.0; cells],
            sumw2: weighted.then(|| vec![0.0; cells]),
            stats: vec![0.0; stats],
            entries: 0.0,
        }
    }

    /// Adds `more` (the batches after these) to these sums.
    fn add(&mut self, more: &Partial) {
        self.cells
            .iter_mut()
            .zip(&more.cells)
            .for_each(|(a, b)| *a += b);
        if let (Some(a), Some(b)) = (self.sumw2.as_mut(), more.sumw2.as_ref()) {
            a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
        }
        self.stats
            .iter_mut()
            .zip(&more.stats)
            .for_each(|(a, b)| *a += b);
        self.entries += more.entries;
    }
}

/// The most cells a filled histogram may have (2 GiB of sums, 4 with squared weights).
pub const MAX_CELLS: usize = 1 << 28;

/// The number of entries of each batch (whole clusters of at least this many): fixed, so
/// that the partial sums, and with them the last bits of the result, never depend on the
/// number of threads.
pub const FILL_STEP: u64 = 100_000;

/// Fills a histogram of `fields` (one per axis; lists of values flattened, each value one
/// fill) from every entry of `dataset`, weighted by field `weight` if given (one weight
/// per entry, given to each of its values, or one per value). Returns a `TH1D`, `TH2D` or
/// `TH3D` with sums of squared weights when weighted, and the statistics of the values
/// filled.
pub fn fill_histogram(
    dataset: &Dataset,
    fields: &[&str],
    weight: Option<&str>,
    axes: &[FillAxis],
) -> Result<Histogram> {
    if fields.len() != axes.len() || !(1..=3).contains(&axes.len()) {
        return Err(Error::InvalidArgument(format!(
            "{} fields for {} axes: give one field per axis, 1 to 3 of them",
            fields.len(),
            axes.len()
        )));
    }
    for axis in axes {
        axis.check()?;
    }
    let dims = axes.len();
    let cells = axes
        .iter()
        .try_fold(1usize, |n, a| n.checked_mul(a.bins() + 2))
        .filter(|&n| n <= MAX_CELLS)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "axes of more than {MAX_CELLS} cells (flow cells included)"
            ))
        })?;
    let stat_count = stat_names(dims, false).len();
    let mut read: Vec<&str> = fields.to_vec();
    if let Some(w) = weight {
        read.push(w);
    }
    let ordered: Mutex<InOrder<Partial>> = Mutex::new(InOrder::default());
    let add = |total: &mut Partial, p: Partial| total.add(&p);
    dataset.for_each_unit_of(
        |_| crate::dataset::Fields::needed(&read),
        FILL_STEP,
        |_, unit, arrays| {
            let partial = match unit.parts {
                // A file without batches: the ones after it are not kept waiting for it.
                0 => None,
                _ => {
                    let mut partial = Partial::new(cells, weight.is_some(), stat_count);
                    fill_batch(&mut partial, axes, arrays, weight.is_some())?;
                    Some(partial)
                }
            };
            ordered
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .put(&unit, partial, add);
            Ok(())
        },
    )?;
    let total = ordered
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .finish(add)
        .unwrap_or_else(|| Partial::new(cells, weight.is_some(), stat_count));
    let names = stat_names(dims, false);
    Ok(Histogram {
        class: format!("TH{dims}D"),
        name: fields.join("_"),
        title: String::new(),
        content_title: String::new(),
        axes: axes
            .iter()
            .zip(["xaxis", "yaxis", "zaxis"])
            .map(|(a, n)| a.root_axis(n))
            .collect(),
        cells: total.cells,
        sumw2: total.sumw2,
        entries: total.entries,
        stats: names
            .iter()
            .map(|n| n.to_string())
            .zip(total.stats)
            .collect(),
        profile: None,
    })
}
