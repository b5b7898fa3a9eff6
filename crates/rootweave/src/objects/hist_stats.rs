//! A histogram's statistics as ROOT's `GetStats` gives them (the stored sums, or sums over
//! the bins when none are stored or an axis is restricted to a range), and the mean,
//! standard deviation and effective entries ROOT computes from them.

use super::hist::Histogram;

/// The names of the statistics sums of a histogram of `dims` dimensions (a profile's
/// sums of values after them), in the order of ROOT's `GetStats` array.
pub fn stat_names(dims: usize, profile: bool) -> &'static [&'static str] {
    const NAMES: [&str; 13] = [
        "fTsumw", "fTsumw2", "fTsumwx", "fTsumwx2", "fTsumwy", "fTsumwy2", "fTsumwxy", "fTsumwz",
        "fTsumwz2", "fTsumwxz", "fTsumwyz", "fTsumwt", "fTsumwt2",
    ];
    match (dims, profile) {
        (1, false) => &NAMES[..4],
        (1, true) | (2, false) => &NAMES[..if profile { 6 } else { 7 }],
        (2, true) => &NAMES[..9],
        (_, false) => &NAMES[..11],
        (_, true) => &NAMES,
    }
}

impl Histogram {
    /// The statistics sums as `GetStats` gives them, named as [`stat_names`] orders
    /// them: the stored ones, or (when the sum of weights stored is 0 but there are
    /// entries, or an axis is restricted to a range) sums over the bins in range, at
    /// their centres. Sums along an axis of labels that can extend are 0.
    pub fn statistics(&self) -> Vec<f64> {
        let names = stat_names(self.axes.len(), self.profile.is_some());
        let ranged = self.axes.iter().any(|a| a.range.is_some());
        let recompute = match &self.profile {
            Some(_) => self.stat("fTsumw") == 0.0 || ranged,
            None => (self.stat("fTsumw") == 0.0 && self.entries > 0.0) || ranged,
        };
        if !recompute {
            return names.iter().map(|n| self.stat(n)).collect();
        }
        self.sums_over_bins(names.len())
    }

    /// Sums over the bins in range, in ROOT's loop order (z outermost, x innermost).
    fn sums_over_bins(&self, n: usize) -> Vec<f64> {
        let mut s = vec![0.0; n];
        let range = |d: usize| -> (usize, usize) {
            match self.axes.get(d) {
                Some(a) => a.range.unwrap_or((1, a.bins)),
                None => (0, 0),
            }
        };
        let numeric = |d: usize| {
            self.axes
                .get(d)
                .is_some_and(|a| !(a.labels.is_some() && a.can_extend))
        };
        let (nx, ny) = (
            self.axes[0].bins + 2,
            self.axes.get(1).map_or(1, |a| a.bins + 2),
        );
        let ((x0, x1), (y0, y1), (z0, z1)) = (range(0), range(1), range(2));
        let (lx, ly, lz) = (numeric(0), numeric(1), numeric(2));
        let dims = self.axes.len();
        for bz in z0..=z1 {
            let z = self.axes.get(2).map_or(0.0, |a| a.center(bz));
            for by in y0..=y1 {
                let y = self.axes.get(1).map_or(0.0, |a| a.center(by));
                for bx in x0..=x1 {
                    let cell = bx + nx * (by + ny * bz);
                    let x = self.axes[0].center(bx);
                    let (w, w2) = match &self.profile {
                        Some(p) => {
                            let w = p.bin_entries[cell];
                            (w, p.bin_sumw2.as_ref().map_or(w, |v| v[cell]))
                        }
                        None => (self.cells[cell], self.error(cell).abs().powi(2)),
                    };
                    s[0] += w;
                    s[1] += w2;
                    if lx {
                        s[2] += w * x;
                        s[3] += w * x * x;
                    }
                    if dims >= 2 {
                        if ly {
                            s[4] += w * y;
                            s[5] += w * y * y;
                        }
                        if lx && ly {
                            s[6] += w * x * y;
                        }
                    }
                    if dims == 3 {
                        if lz {
                            s[7] += w * z;
                            s[8] += w * z * z;
                        }
                        if lx && lz {
                            s[9] += w * x * z;
                        }
                        if ly && lz {
                            s[10] += w * y * z;
                        }
                    }
                    if let Some(p) = &self.profile {
                        let v = 2
                            + 2 * dims
                            + if dims >= 2 { 1 } else { 0 }
                            + if dims == 3 { 2 } else { 0 };
                        s[v] += self.cells[cell];
                        s[v + 1] += p.sum_wy2[cell];
                    }
                }
            }
        }
        s
    }

    /// The mean along axis `axis` (0: x, 1: y, 2: z; a profile's values are the axis after
    /// its last), as `GetMean`.
    pub fn mean(&self, axis: usize) -> f64 {
        let s = self.statistics();
        match Self::sum_index(axis).filter(|&i| i < s.len()) {
            Some(i) if s[0] != 0.0 => s[i] / s[0],
            _ => 0.0,
        }
    }

    /// The standard deviation along `axis` (as for [`Histogram::mean`]), as `GetStdDev`
    /// (0 where negative weights make the variance negative).
    pub fn std_dev(&self, axis: usize) -> f64 {
        let s = self.statistics();
        match Self::sum_index(axis).filter(|&i| i + 1 < s.len()) {
            Some(i) if s[0] != 0.0 => {
                let mean = s[i] / s[0];
                (s[i + 1] / s[0] - mean * mean).max(0.0).sqrt()
            }
            _ => 0.0,
        }
    }

    /// The effective number of entries, (sum of weights)^2 / (sum of squared weights), as
    /// `GetEffectiveEntries`.
    pub fn total_effective_entries(&self) -> f64 {
        let s = self.statistics();
        if s[1] != 0.0 {
            s[0] * s[0] / s[1]
        } else {
            s[0].abs()
        }
    }

    /// Where the sum of weight times axis `axis` sits in the statistics.
    fn sum_index(axis: usize) -> Option<usize> {
        [2, 4, 7, 11].get(axis).copied()
    }

    /// Sets the statistics sums from the bins (as ROOT's `ResetStats` does, for a
    /// histogram made from bin contents alone, without the values filled) and the
    /// entries: `entries` if given, else as `ResetStats` counts them over every cell,
    /// flow cells included: the sum of weights, or the effective entries (sum of
    /// weights)^2 / (sum of squared weights) where squared weights are kept.
    pub fn reset_statistics(&mut self, entries: Option<f64>) {
        let names = stat_names(self.axes.len(), self.profile.is_some());
        let s = self.sums_over_bins(names.len());
        self.stats = names.iter().map(|n| n.to_string()).zip(s).collect();
        self.entries = entries.unwrap_or_else(|| {
            let (mut sum_w, mut sum_w2) = (0.0, 0.0);
            for cell in 0..self.cells.len() {
                let (w, w2) = match &self.profile {
                    Some(p) => {
                        let w = p.bin_entries[cell];
                        (w, p.bin_sumw2.as_ref().map_or(w, |v| v[cell]))
                    }
                    None => (self.cells[cell], self.variance(cell)),
                };
                sum_w += w;
                sum_w2 += w2;
            }
            let squares_kept = match &self.profile {
                Some(p) => p.bin_sumw2.is_some(),
                None => self.sumw2.is_some(),
            };
            if squares_kept && sum_w > 0.0 && sum_w2 > 0.0 {
                sum_w * sum_w / sum_w2
            } else {
                sum_w.abs()
            }
        });
    }
}
