//! One-dimensional histograms whose range comes from the data (RDataFrame's `Histo1D` without
//! a model, or a model whose lower edge is not below its upper one), binned as ROOT's `TH1D`
//! bins them when one thread fills it: the first 1,000 values are held back, the axis is
//! given "nice" limits around their finite values (ROOT's `THLimitsFinder`), and later values
//! beyond the axis double its range, the bins merged two by two, until they fit.

/// The values ROOT holds back before it finds an axis (`TH1::fgBufferSize`).
const BUFFERED: usize = 1000;

/// A filled histogram: its axis, cells (under- and overflow included), squared weights,
/// `TH1::Fill`'s statistics sums (w, w², w x, w x²) and entries.
#[derive(Debug, Clone, PartialEq)]
pub struct Filled {
    /// The axis's bins.
    pub bins: usize,
    /// The axis's lower edge.
    pub min: f64,
    /// The axis's upper edge.
    pub max: f64,
    /// Whether the axis may still grow (a NaN stops it, as ROOT does).
    pub can_extend: bool,
    /// The cells, `bins + 2` of them.
    pub cells: Vec<f64>,
    /// The sums of squared weights per cell, for weighted fills.
    pub sumw2: Option<Vec<f64>>,
    /// Sums of w, w², w x and w x² of the values inside the axis.
    pub stats: [f64; 4],
    /// Every value filled.
    pub entries: f64,
}

/// Fills a histogram of `bins` bins with `xs` (weighted by `ws`) in their order, finding its
/// axis from them as ROOT does.
pub fn fill(bins: usize, xs: &[f64], ws: Option<&[f64]>) -> Filled {
    let mut h = Filled {
        bins,
        min: 0.0,
        max: 0.0,
        can_extend: true,
        cells: vec![0.0; bins + 2],
        sumw2: ws.map(|_| vec![0.0; bins + 2]),
        stats: [0.0; 4],
        entries: 0.0,
    };
    let weight = |i: usize| ws.map_or(1.0, |w| w[i]);
    let held = xs.len().min(BUFFERED);
    if held == 0 {
        return h;
    }
    // The held-back values fix the axis; later ones go in one by one.
    h.find_limits(&xs[..held]);
    for (i, &x) in xs.iter().enumerate() {
        h.put(x, weight(i));
    }
    h
}

impl Filled {
    /// Sets the axis from the finite values held back (`TH1::BufferEmpty`,
    /// `THLimitsFinder::FindGoodLimits`).
    fn find_limits(&mut self, held: &[f64]) {
        let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
        for &x in held.iter().filter(|x| x.is_finite()) {
            if x < low {
                low = x;
            }
            if x > high {
                high = x;
            }
        }
        if low >= high {
            low -= 1.0;
            high += 1.0;
        }
        let (min, max) = optimize_limits(self.bins, low, high);
        self.min = min;
        self.max = max;
    }

    /// Fills one value (`TH1::Fill`): its cell found with the axis grown if it must be.
    fn put(&mut self, x: f64, w: f64) {
        self.entries += 1.0;
        let bin = self.find_growing(x);
        self.cells[bin] += w;
        if let Some(s) = self.sumw2.as_mut() {
            s[bin] += w * w;
        }
        if bin >= 1 && bin <= self.bins {
            self.stats[0] += w;
            self.stats[1] += w * w;
            self.stats[2] += w * x;
            self.stats[3] += w * x * x;
        }
    }

    /// The cell of `x`, the axis grown first if `x` is outside it and it can grow
    /// (`TAxis::FindBin`).
    fn find_growing(&mut self, x: f64) -> usize {
        if (x < self.min || x >= self.max || x.is_nan()) && self.can_extend {
            self.extend(x);
        }
        self.find_fixed(x)
    }

    /// The cell of `x` on the axis as it is (`TAxis::FindFixBin`; NaN in the overflow).
    fn find_fixed(&self, x: f64) -> usize {
        super::actions::regular_bin(x, self.bins, self.min, self.max)
    }

    /// Doubles the axis's range towards `x` until it holds it, merging the bins two by two
    /// (`TH1::ExtendAxis`): the contents move by their bins' centres, those of the under-
    /// and overflow are dropped, as ROOT drops them. A NaN stops the axis from growing; a
    /// value 64 doublings away leaves it as it is.
    fn extend(&mut self, x: f64) {
        if x.is_nan() {
            self.can_extend = false;
            return;
        }
        if self.min >= self.max || self.bins == 0 {
            return;
        }
        let Some((min, max)) = grown_limits(self.min, self.max, x) else {
            return;
        };
        let cells = std::mem::replace(&mut self.cells, vec![0.0; self.bins + 2]);
        let sumw2 = self
            .sumw2
            .as_mut()
            .map(|s| std::mem::replace(s, vec![0.0; s.len()]));
        let width = (self.max - self.min) / self.bins as f64;
        let old_min = self.min;
        self.min = min;
        self.max = max;
        for bin in 1..=self.bins {
            let content = cells[bin];
            if content == 0.0 {
                continue;
            }
            let centre = old_min + (bin - 1) as f64 * width + 0.5 * width;
            let to = self.find_fixed(centre);
            self.cells[to] += content;
            if let (Some(new), Some(was)) = (self.sumw2.as_mut(), sumw2.as_ref()) {
                new[to] += was[bin];
            }
        }
    }
}

/// The axis range doubled, as many times as needed, towards `x` (`TH1::FindNewAxisLimits`);
/// `None` after 65 doublings.
fn grown_limits(mut min: f64, mut max: f64, x: f64) -> Option<(f64, f64)> {
    let mut range = max - min;
    let mut times = 0;
    while x < min {
        times += 1;
        if times > 65 {
            return None;
        }
        min -= range;
        range *= 2.0;
    }
    while x >= max {
        times += 1;
        if times > 65 {
            return None;
        }
        max += range;
        range *= 2.0;
    }
    Some((min, max))
}

/// `THLimitsFinder::OptimizeLimits` for a plain axis of `bins` bins: the range of
/// `low..high` widened by a tenth, rounded to a whole number of "nice" bin widths, and at
/// least a hundredth wider than the values on each side. The number of bins stays.
fn optimize_limits(bins: usize, low: f64, high: f64) -> (f64, f64) {
    let dx = 0.1 * (high - low);
    let mut umin = low - dx;
    let mut umax = high + dx;
    if umin < 0.0 && low >= 0.0 {
        umin = 0.0;
    }
    if umax > 0.0 && high <= 0.0 {
        umax = 0.0;
    }
    let (bin_low, bin_high, width) = nice_limits(umin, umax, bins as i64);
    if width <= 0.0 || width > 1e39 {
        return (-1.0, 1.0);
    }
    let delta = 0.01 * (high - low);
    // std::min and std::max, as ROOT calls them.
    let below = low - delta;
    let above = high + delta;
    let min = if below < bin_low { below } else { bin_low };
    let max = if bin_high < above { above } else { bin_high };
    (min, max)
}

/// `THLimitsFinder::Optimize` for a plain (not time) axis of `nold` bins over `a1..a2`: the
/// lowest and highest edges and the width of bins of a width 1, 2 or 5 times a power of
/// ten, the edges moved in by a bin where they stand out by more than 1/10,000 of one.
fn nice_limits(a1: f64, a2: f64, nold: i64) -> (f64, f64, f64) {
    let (mut bin_low, mut bin_high, mut width) = (0.0f64, 0.0f64, 0.0f64);
    let al = if a1 <= a2 { a1 } else { a2 };
    let mut ah = if a1 >= a2 { a1 } else { a2 };
    if al == ah {
        ah = al + 1.0;
    }
    let mut ntemp = nold.max(2);
    loop {
        let awidth = (ah - al) / ntemp as f64;
        if awidth >= f32::MAX as f64 || awidth <= 0.0 {
            break;
        }
        let mut jlog = awidth.log10() as i64;
        if !(-200..=200).contains(&jlog) {
            return (0.0, 1.0, 0.01);
        }
        if awidth <= 1.0 {
            jlog -= 1;
        }
        // Less a little, so that a mantissa of exactly 1, 2 or 5 rounds to itself.
        let sigfig = awidth * 10f64.powf(-jlog as f64) - 1e-10;
        let siground = if sigfig <= 1.0 {
            1.0
        } else if sigfig <= 2.0 {
            2.0
        } else if sigfig <= 5.0 {
            5.0
        } else {
            jlog += 1;
            1.0
        };
        width = siground * 10f64.powf(jlog as f64);
        let alb = al / width;
        if alb.abs() > 1e9 {
            return (al, ah, width);
        }
        let mut lwid = alb as i64;
        if alb < 0.0 {
            lwid -= 1;
        }
        bin_low = width * lwid as f64;
        let alb = ah / width + 1.00001;
        let mut kwid = alb as i64;
        if alb < 0.0 {
            kwid -= 1;
        }
        bin_high = width * kwid as f64;
        let nbins = kwid - lwid;
        if nold <= 5 {
            if nold <= 1 && nbins != 1 {
                width *= 2.0;
            }
            break;
        }
        if 2 * nbins == nold {
            ntemp += 1;
            continue;
        }
        break;
    }
    let (old_low, old_high) = (bin_low, bin_high);
    let atest = width * 0.0001;
    if al - bin_low >= atest {
        bin_low += width;
    }
    if bin_high - ah >= atest {
        bin_high -= width;
    }
    if bin_low >= bin_high {
        bin_low = old_low;
        bin_high = old_high;
    }
    (bin_low, bin_high, width)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ranges ROOT 6.40's RDataFrame gives `Histo1D` without a model (128 bins; 64 for the
    /// last), found by running it.
    #[test]
    fn limits_are_root_s() {
        let ramp = |n: u64, f: &dyn Fn(u64) -> f64| (0..n).map(f).collect::<Vec<f64>>();
        let cases: Vec<(usize, Vec<f64>, f64, f64)> = vec![
            (
                128,
                ramp(10_000, &|i| (i % 1000) as f64 * 0.37 + 1.5),
                -2.1963,
                405.0,
            ),
            (
                128,
                ramp(1500, &|i| (i % 300) as f64 * 0.37 + 1.5),
                0.0,
                123.0,
            ),
            (
                64,
                ramp(1500, &|i| (i % 300) as f64 * 0.37 + 1.5),
                0.0,
                122.0,
            ),
            (
                128,
                ramp(3000, &|i| {
                    if i < 1000 {
                        (i % 10) as f64
                    } else {
                        (i % 100) as f64
                    }
                }),
                -0.09,
                159.75000000000003,
            ),
            (
                128,
                ramp(3000, &|i| {
                    if i < 1000 {
                        (i % 10) as f64 + 0.5
                    } else {
                        -((i % 100) as f64)
                    }
                }),
                -156.00000000000003,
                10.4,
            ),
        ];
        for (bins, xs, min, max) in cases {
            let h = fill(bins, &xs, None);
            assert_eq!((h.min, h.max), (min, max), "{:?}", &xs[..3]);
            assert_eq!(h.entries, xs.len() as f64);
            assert_eq!(h.cells.iter().sum::<f64>(), xs.len() as f64);
        }
        assert_eq!(fill(128, &[], None).max, 0.0);
        // NaN and infinities: the first NaN stops the axis growing, later values beyond it
        // go to the overflow (ROOT: -8.98 to 1090, 934 in the overflow, 1066 inside).
        let xs = ramp(2000, &|i| match i {
            _ if i % 97 == 0 => f64::NAN,
            _ if i % 89 == 0 => f64::INFINITY,
            _ => i as f64,
        });
        let h = fill(128, &xs, None);
        assert_eq!((h.min, h.max, h.can_extend), (-8.98, 1090.0, false));
        assert_eq!(
            (h.cells[129], h.cells[1..=128].iter().sum::<f64>()),
            (934.0, 1066.0)
        );
    }
}
