//! Histograms filled from a dataset on the reader's threads, the same to the last bit for
//! any number of threads and any run: each batch (a fixed run of whole clusters, never
//! chosen by thread count) fills a partial histogram of its own, and the partials are
//! added in dataset order, each as soon as all before it are in (so that few wait in
//! memory). Values are binned as boost-histogram bins them, so that the result equals a
//! `hist` filled with the same values; the statistics ROOT keeps (`fEntries`, `fTsumw`,
//! `fTsumwx`, ...) are summed from the values themselves, as ROOT's `Fill` sums them.

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::array::Array;
use crate::dataset::{Dataset, Unit};
use crate::error::{Error, Result};
use crate::objects::{stat_names, Axis, Histogram};

/// How one axis bins values, as boost-histogram's axes do.
#[derive(Debug, Clone, PartialEq)]
pub enum Binning {
    /// `bins` equal bins from `min` to `max`.
    Regular {
        /// The number of bins.
        bins: usize,
        /// The lower edge of the first bin.
        min: f64,
        /// The upper edge of the last bin.
        max: f64,
    },
    /// Bins between ascending edges.
    Variable(Vec<f64>),
    /// One bin per integer from `min` to `max - 1` (values rounded down).
    Integer {
        /// The first integer.
        min: i64,
        /// One past the last integer.
        max: i64,
    },
}

/// An axis to fill: its binning, and whether values beyond its range are kept in flow
/// cells (without an overflow cell, a value at the upper edge goes into the last bin, as
/// boost-histogram places it).
#[derive(Debug, Clone, PartialEq)]
pub struct FillAxis {
    /// How values are binned.
    pub binning: Binning,
    /// Whether values below the range are kept.
    pub underflow: bool,
    /// Whether values above the range are kept.
    pub overflow: bool,
}

impl FillAxis {
    /// An axis with both flow cells.
    pub fn new(binning: Binning) -> Self {
        FillAxis {
            binning,
            underflow: true,
            overflow: true,
        }
    }

    fn bins(&self) -> usize {
        match &self.binning {
            Binning::Regular { bins, .. } => *bins,
            Binning::Variable(edges) => edges.len().saturating_sub(1),
            Binning::Integer { min, max } => (max - min).max(0) as usize,
        }
    }

    fn check(&self) -> Result<()> {
        let bad = |why: &str| Err(Error::InvalidArgument(format!("axis {self:?}: {why}")));
        match &self.binning {
            Binning::Regular { bins, min, max } => {
                if *bins == 0
                    || min.partial_cmp(max) != Some(std::cmp::Ordering::Less)
                    || !min.is_finite()
                    || !max.is_finite()
                {
                    return bad("a regular axis needs bins and finite edges min < max");
                }
            }
            Binning::Variable(edges) => {
                if edges.len() < 2
                    || edges
                        .windows(2)
                        .any(|w| w[0].partial_cmp(&w[1]) != Some(std::cmp::Ordering::Less))
                {
                    return bad("variable edges must be at least two, strictly ascending");
                }
            }
            Binning::Integer { min, max } => {
                if min >= max {
                    return bad("an integer axis needs min < max");
                }
            }
        }
        if self.bins() > 1 << 24 {
            return bad("more than 2^24 bins");
        }
        Ok(())
    }

    /// The cell of `x` among the axis's `bins + 2` (0 below the range, `bins + 1` above
    /// it and for NaN), as boost-histogram indexes it.
    fn cell(&self, x: f64) -> usize {
        let n = self.bins();
        let index: i64 = match &self.binning {
            Binning::Regular { min, max, .. } => {
                let z = (x - min) / (max - min);
                if z < 1.0 {
                    if z >= 0.0 {
                        (z * n as f64) as i64
                    } else {
                        -1
                    }
                } else if z == 1.0 && !self.overflow {
                    n as i64 - 1
                } else {
                    n as i64
                }
            }
            Binning::Variable(edges) => {
                if x == edges[n] && !self.overflow {
                    n as i64 - 1
                } else {
                    // NaN compares with nothing: past every edge, into the overflow.
                    edges.partition_point(|e| x.partial_cmp(e) != Some(std::cmp::Ordering::Less))
                        as i64
                        - 1
                }
            }
            Binning::Integer { min, .. } => {
                let z = x.floor() - *min as f64;
                if z >= 0.0 && z < n as f64 {
                    z as i64
                } else if z < 0.0 {
                    -1
                } else {
                    n as i64
                }
            }
        };
        (index + 1).clamp(0, n as i64 + 1) as usize
    }

    /// The axis as ROOT stores it (`name` `xaxis`, `yaxis` or `zaxis`).
    fn root_axis(&self, name: &str) -> Axis {
        let (min, max, edges) = match &self.binning {
            Binning::Regular { min, max, .. } => (*min, *max, None),
            Binning::Variable(e) => (e[0], e[e.len() - 1], Some(e.clone())),
            Binning::Integer { min, max } => (*min as f64, *max as f64, None),
        };
        Axis {
            name: name.to_string(),
            title: String::new(),
            bins: self.bins(),
            min,
            max,
            edges,
            labels: None,
            can_extend: false,
            range: None,
        }
    }
}

/// What one batch (or the batches added so far) filled.
#[derive(Debug, Clone)]
struct Partial {
    cells: Vec<f64>,
    sumw2: Option<Vec<f64>>,
    /// ROOT's statistics sums, in [`stat_names`] order.
    stats: Vec<f64>,
    entries: f64,
}

impl Partial {
    fn new(cells: usize, weighted: bool, stats: usize) -> Self {
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

/// The partials added so far in dataset order, and those waiting for one before them.
struct Ordered {
    total: Option<Partial>,
    /// The unit the total needs next: (source, part).
    next: (usize, usize),
    waiting: BTreeMap<(usize, usize), (Partial, usize)>,
}

impl Ordered {
    /// Takes the partial of `unit`, and adds every waiting partial that is next in order.
    fn put(&mut self, unit: &Unit, partial: Partial) {
        self.waiting
            .insert((unit.source, unit.part), (partial, unit.parts));
        while let Some((partial, parts)) = self.waiting.remove(&self.next) {
            self.push(partial);
            self.next = if self.next.1 + 1 == parts {
                (self.next.0 + 1, 0)
            } else {
                (self.next.0, self.next.1 + 1)
            };
        }
    }

    fn push(&mut self, partial: Partial) {
        match &mut self.total {
            Some(total) => total.add(&partial),
            None => self.total = Some(partial),
        }
    }

    /// The sum of every partial, in order (those left waiting behind a source that had no
    /// batches are added in order too).
    fn finish(mut self) -> Option<Partial> {
        let waiting = std::mem::take(&mut self.waiting);
        for (_, (partial, _)) in waiting {
            self.push(partial);
        }
        self.total
    }
}

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
    let cells: usize = axes.iter().map(|a| a.bins() + 2).product();
    let stat_count = stat_names(dims, false).len();
    let mut read: Vec<&str> = fields.to_vec();
    if let Some(w) = weight {
        read.push(w);
    }
    let ordered = Mutex::new(Ordered {
        total: None,
        next: (0, 0),
        waiting: BTreeMap::new(),
    });
    dataset.for_each_unit(&read, FILL_STEP, |_, unit, arrays| {
        let mut partial = Partial::new(cells, weight.is_some(), stat_count);
        fill_batch(&mut partial, axes, arrays, weight.is_some())?;
        ordered
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .put(&unit, partial);
        Ok(())
    })?;
    let total = ordered
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .finish()
        .unwrap_or_else(|| Partial::new(cells, weight.is_some(), stat_count));
    let names = stat_names(dims, false);
    Ok(Histogram {
        class: format!("TH{dims}D"),
        name: fields.join("_"),
        title: String::new(),
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

/// The values of a field flattened, and for each entry where its values start (`len + 1`
/// offsets), `None` for a field of one value per entry.
fn flatten(array: &Array) -> Result<(Vec<f64>, Option<Vec<usize>>)> {
    fn leaf<'a>(a: &'a Array, offsets: &mut Option<Vec<usize>>) -> Result<&'a Array> {
        let (inner_offsets, values): (Vec<usize>, &Array) = match a {
            Array::List { offsets, values } | Array::Optional { offsets, values } => {
                (offsets.iter().map(|&o| o as usize).collect(), values)
            }
            Array::Fixed { size, values } => {
                let n = values.len() / (*size).max(1);
                ((0..=n).map(|i| i * size).collect(), values)
            }
            other => return Ok(other),
        };
        *offsets = Some(match offsets.take() {
            Some(outer) => outer.iter().map(|&o| inner_offsets[o]).collect(),
            None => inner_offsets,
        });
        leaf(values, offsets)
    }
    let mut offsets = None;
    let values = leaf(array, &mut offsets)?;
    let numbers: Vec<f64> = match values {
        Array::Bool(v) => v.iter().map(|&x| f64::from(u8::from(x))).collect(),
        Array::Int8(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Array::Int16(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Array::Int32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Array::Int64(v) => v.iter().map(|&x| x as f64).collect(),
        Array::UInt8(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Array::UInt16(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Array::UInt32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Array::UInt64(v) => v.iter().map(|&x| x as f64).collect(),
        Array::Float32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Array::Float64(v) => v.clone(),
        _ => {
            return Err(Error::InvalidArgument(
                "only numbers and lists of numbers fill histograms, not strings, records or \
                 variants"
                    .into(),
            ))
        }
    };
    Ok((numbers, offsets))
}

/// Fills `partial` with one batch: `arrays` holds the fields, then the weight if any.
fn fill_batch(
    partial: &mut Partial,
    axes: &[FillAxis],
    arrays: &[(String, Array)],
    weighted: bool,
) -> Result<()> {
    let dims = axes.len();
    let mut values = Vec::with_capacity(dims);
    let mut shape: Option<Option<Vec<usize>>> = None;
    for (name, array) in &arrays[..dims] {
        let (v, offsets) = flatten(array)?;
        match &shape {
            None => shape = Some(offsets),
            Some(first) if *first != offsets => {
                return Err(Error::InvalidArgument(format!(
                    "field '{name}' has another number of values per entry than '{}'",
                    arrays[0].0
                )))
            }
            Some(_) => {}
        }
        values.push(v);
    }
    let offsets = shape.flatten();
    let count = values[0].len();
    let weights: Option<Vec<f64>> = if weighted {
        let (name, array) = &arrays[dims];
        let (w, w_offsets) = flatten(array)?;
        Some(match (&offsets, w_offsets) {
            (_, Some(wo)) if Some(&wo) == offsets.as_ref() => w,
            (Some(o), None) => o
                .windows(2)
                .zip(&w)
                .flat_map(|(span, &x)| std::iter::repeat_n(x, span[1] - span[0]))
                .collect(),
            (None, None) => w,
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "weight '{name}' is neither one value per entry nor one per value filled"
                )))
            }
        })
    } else {
        None
    };
    let strides = [
        1,
        axes[0].bins() + 2,
        (axes[0].bins() + 2) * axes.get(1).map_or(1, |a| a.bins() + 2),
    ];
    let p = partial;
    for i in 0..count {
        let w = weights.as_ref().map_or(1.0, |w| w[i]);
        let mut cell = 0;
        let mut inside = true;
        let mut xs = [0.0; 3];
        for d in 0..dims {
            let x = values[d][i];
            let c = axes[d].cell(x);
            inside &= c != 0 && c != axes[d].bins() + 1;
            cell += c * strides[d];
            xs[d] = x;
        }
        p.entries += 1.0;
        p.cells[cell] += w;
        if let Some(s) = p.sumw2.as_mut() {
            s[cell] += w * w;
        }
        if !inside {
            continue;
        }
        let s = &mut p.stats;
        let [x, y, z] = xs;
        s[0] += w;
        s[1] += w * w;
        s[2] += w * x;
        s[3] += w * x * x;
        if dims >= 2 {
            s[4] += w * y;
            s[5] += w * y * y;
            s[6] += w * x * y;
        }
        if dims == 3 {
            s[7] += w * z;
            s[8] += w * z * z;
            s[9] += w * x * z;
            s[10] += w * y * z;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_boost_histograms() {
        let regular = FillAxis::new(Binning::Regular {
            bins: 4,
            min: 0.0,
            max: 1.0,
        });
        let cells: Vec<usize> = [-0.1, 0.0, 0.25, 0.999, 1.0, f64::NAN]
            .iter()
            .map(|&x| regular.cell(x))
            .collect();
        assert_eq!(cells, [0, 1, 2, 4, 5, 5]);
        let closed = FillAxis {
            overflow: false,
            ..regular
        };
        assert_eq!(closed.cell(1.0), 4);
        let variable = FillAxis::new(Binning::Variable(vec![0.0, 1.0, 10.0]));
        let cells: Vec<usize> = [-1.0, 0.0, 1.0, 9.9, 10.0, f64::NAN]
            .iter()
            .map(|&x| variable.cell(x))
            .collect();
        assert_eq!(cells, [0, 1, 2, 2, 3, 3]);
        let integer = FillAxis::new(Binning::Integer { min: -2, max: 3 });
        let cells: Vec<usize> = [-3.0, -2.0, 2.0, 3.0, -1.5]
            .iter()
            .map(|&x| integer.cell(x))
            .collect();
        assert_eq!(cells, [0, 1, 5, 6, 1]);
    }

    #[test]
    fn lists_flatten_and_weights_spread_over_their_values() {
        let list = Array::List {
            offsets: vec![0, 2, 2, 3],
            values: Box::new(Array::Float32(vec![0.5, 1.5, 2.5])),
        };
        let (values, offsets) = flatten(&list).unwrap();
        assert_eq!(values, [0.5, 1.5, 2.5]);
        assert_eq!(offsets, Some(vec![0, 2, 2, 3]));
        let axis = FillAxis::new(Binning::Regular {
            bins: 3,
            min: 0.0,
            max: 3.0,
        });
        let mut p = Partial::new(5, true, 4);
        let arrays = vec![
            ("pt".to_string(), list),
            ("w".to_string(), Array::Float64(vec![2.0, 5.0, 3.0])),
        ];
        fill_batch(&mut p, &[axis], &arrays, true).unwrap();
        assert_eq!(p.cells, [0.0, 2.0, 2.0, 3.0, 0.0]);
        assert_eq!(p.sumw2.unwrap(), [0.0, 4.0, 4.0, 9.0, 0.0]);
        assert_eq!(p.entries, 3.0);
        assert_eq!(
            p.stats,
            [
                7.0,
                17.0,
                0.5 * 2.0 + 1.5 * 2.0 + 2.5 * 3.0,
                0.5 + 4.5 + 18.75
            ]
        );
        let strings = Array::String {
            offsets: vec![0, 1],
            bytes: b"a".to_vec(),
        };
        assert!(flatten(&strings).is_err());
    }
}
