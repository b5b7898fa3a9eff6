//! How the filler bins values: boost-histogram's regular, variable and integer axes, with
//! or without flow cells, and the axis ROOT stores for each.

use crate::error::{Error, Result};
use crate::objects::Axis;

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

    pub(super) fn bins(&self) -> usize {
        match &self.binning {
            Binning::Regular { bins, .. } => *bins,
            Binning::Variable(edges) => edges.len().saturating_sub(1),
            Binning::Integer { min, max } => (max - min).max(0) as usize,
        }
    }

    pub(super) fn check(&self) -> Result<()> {
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
    #[inline]
    pub(super) fn cell(&self, x: f64) -> usize {
        let n = self.bins();
        let index: i64 = match &self.binning {
            Binning::Regular { min, max, .. } => {
                return regular_cell(x, *min, max - min, n, !self.overflow);
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
    pub(super) fn root_axis(&self, name: &str) -> Axis {
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

/// The cell of `x` (0 below, `bins + 1` above and for NaN) on `bins` equal bins from `min`
/// over `delta`, as boost-histogram's regular axis indexes it; `closed`: no overflow cell,
/// so the upper edge belongs to the last bin.
#[inline]
pub(super) fn regular_cell(x: f64, min: f64, delta: f64, bins: usize, closed: bool) -> usize {
    let z = (x - min) / delta;
    if z < 1.0 {
        if z >= 0.0 {
            ((z * bins as f64) as usize + 1).min(bins + 1)
        } else {
            0
        }
    } else if z == 1.0 && closed {
        bins
    } else {
        bins + 1
    }
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
}
