//! Histograms as ROOT stores them (`TH1`, `TH2`, `TH3` of every bin type, `TProfile`,
//! `TProfile2D`, `TProfile3D`): axes, the cells' sums (under- and overflow included, in
//! ROOT's order, x fastest), the statistics sums, and bin contents and errors computed
//! as ROOT's `GetBinContent` and `GetBinError` compute them.

use super::{Object, Value};

/// `TAxis::kAxisRange`: the axis was restricted to `fFirst`..`fLast`.
const AXIS_RANGE: i64 = 1 << 11;

/// One axis (`TAxis`).
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// `fName` (`xaxis`, `yaxis`, `zaxis`).
    pub name: String,
    /// `fTitle`.
    pub title: String,
    /// Bins between the under- and the overflow bin.
    pub bins: usize,
    /// Lower edge of the first bin.
    pub min: f64,
    /// Upper edge of the last bin.
    pub max: f64,
    /// The edges of a variable-width axis (`bins + 1` of them), `None` for a regular one.
    pub edges: Option<Vec<f64>>,
    /// Bin labels, `bins` of them ("" for a bin without one), `None` when the axis has
    /// none (ROOT ties each label to its bin by the label's unique ID).
    pub labels: Option<Vec<String>>,
    /// Whether ROOT may add bins when filling beyond the range (`TAxis::kCanExtend`, set
    /// on axes of labels that grow).
    pub can_extend: bool,
    /// The bins (first, last) the axis was restricted to (`TAxis::SetRange`, stored as the
    /// `kAxisRange` bit with `fFirst` and `fLast`), which ROOT's statistics keep to.
    pub range: Option<(usize, usize)>,
}

impl Axis {
    /// The axis of a `TAxis` object.
    pub fn from_object(o: &Object) -> Result<Axis, String> {
        let bins = o.int("fNbins").ok_or_else(|| o.why_missing("fNbins"))?;
        if !(1..=1 << 30).contains(&bins) {
            return Err(format!("axis of {bins} bins"));
        }
        let bins = bins as usize;
        let min = float(o, "fXmin")?;
        let max = float(o, "fXmax")?;
        let edges = o.numbers("fXbins").filter(|e| !e.is_empty());
        if let Some(e) = &edges {
            if e.len() != bins + 1 {
                return Err(format!("{} edges for {bins} bins", e.len()));
            }
        }
        let labels = match o.objects("fLabels") {
            Some(list) if !list.is_empty() => {
                let mut labels = vec![String::new(); bins];
                for label in list.iter().flatten() {
                    let bin = label.int("fUniqueID").unwrap_or(0);
                    if (1..=bins as i64).contains(&bin) {
                        labels[bin as usize - 1] = label.str("fString").unwrap_or("").to_string();
                    }
                }
                Some(labels)
            }
            _ => None,
        };
        Ok(Axis {
            name: o.str("fName").unwrap_or("").to_string(),
            title: o.str("fTitle").unwrap_or("").to_string(),
            bins,
            min,
            max,
            edges,
            labels,
            can_extend: o.int("fBits2").unwrap_or(0) & 2 != 0,
            range: (o.int("fBits").unwrap_or(0) & AXIS_RANGE != 0).then(|| {
                let first = o.int("fFirst").unwrap_or(1).clamp(0, bins as i64 + 1) as usize;
                let last = o
                    .int("fLast")
                    .unwrap_or(bins as i64)
                    .clamp(0, bins as i64 + 1) as usize;
                (first, last)
            }),
        })
    }

    /// The lower edge of bin `bin` (1 to `bins`), as `TAxis::GetBinLowEdge`.
    pub fn low_edge(&self, bin: usize) -> f64 {
        match &self.edges {
            Some(e) if (1..=self.bins).contains(&bin) => e[bin - 1],
            _ => self.min + (bin as f64 - 1.0) * ((self.max - self.min) / self.bins as f64),
        }
    }

    /// The upper edge of bin `bin` (1 to `bins`), as `TAxis::GetBinUpEdge`.
    pub fn up_edge(&self, bin: usize) -> f64 {
        match &self.edges {
            Some(e) if (1..=self.bins).contains(&bin) => e[bin],
            _ => self.min + bin as f64 * ((self.max - self.min) / self.bins as f64),
        }
    }

    /// The centre of bin `bin` (0 to `bins + 1`), as `TAxis::GetBinCenter`.
    pub fn center(&self, bin: usize) -> f64 {
        match &self.edges {
            Some(e) if (1..=self.bins).contains(&bin) => (e[bin - 1] + e[bin]) / 2.0,
            _ => {
                let width = (self.max - self.min) / self.bins as f64;
                self.min + (bin as f64 - 0.5) * width
            }
        }
    }

    /// The `bins + 1` edges: each bin's lower edge, then the last bin's upper edge.
    pub fn all_edges(&self) -> Vec<f64> {
        (1..=self.bins)
            .map(|b| self.low_edge(b))
            .chain([self.up_edge(self.bins)])
            .collect()
    }
}

/// How a profile's bin errors are computed (`TProfile::SetErrorOption`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorMode {
    /// The error of the mean (the default, option "").
    Mean,
    /// The spread (option "s").
    Spread,
    /// The spread, or 1/sqrt(12) for integer values without one (option "i").
    SpreadI,
    /// 1/sqrt(sum of weights), for weights that are 1/sigma^2 (option "g").
    SpreadG,
}

/// The sums a profile keeps besides the sum of weight times value (the cells).
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// Sum of weights per cell (`fBinEntries`).
    pub bin_entries: Vec<f64>,
    /// Sum of weight times value squared per cell (`fSumw2`).
    pub sum_wy2: Vec<f64>,
    /// Sum of squared weights per cell (`fBinSumw2`), if kept.
    pub bin_sumw2: Option<Vec<f64>>,
    /// How errors are computed.
    pub error_mode: ErrorMode,
    /// The range of values filled (`fYmin`, `fYmax` of a `TProfile`; both 0: any value).
    pub value_min: f64,
    /// See `value_min`.
    pub value_max: f64,
}

/// A histogram or profile of 1-3 dimensions.
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    /// The class (`TH1F`, `TProfile2D`, ...).
    pub class: String,
    /// `fName`.
    pub name: String,
    /// `fTitle`.
    pub title: String,
    /// One axis per dimension.
    pub axes: Vec<Axis>,
    /// The title of the axis after the last dimension (a 1D histogram's y axis, a 2D one's
    /// z axis; none for 3D), which ROOT draws the contents along: a model titled
    /// `"title;x;count"` gives it `count`.
    pub content_title: String,
    /// The cells as stored (a profile's: sum of weight times value), flow cells included,
    /// x fastest.
    pub cells: Vec<f64>,
    /// Sum of squared weights per cell (`fSumw2`), if kept (not for profiles).
    pub sumw2: Option<Vec<f64>>,
    /// `fEntries`.
    pub entries: f64,
    /// The statistics sums (`fTsumw`, `fTsumw2`, `fTsumwx`, ...), in stored order.
    pub stats: Vec<(String, f64)>,
    /// The profile's other sums.
    pub profile: Option<Profile>,
}

/// True for the histogram classes [`Histogram`] reads.
pub fn is_histogram_class(class: &str) -> bool {
    let bins = |rest: &str| matches!(rest, "F" | "D" | "I" | "S" | "C" | "L");
    matches!(class, "TProfile" | "TProfile2D" | "TProfile3D")
        || ["TH1", "TH2", "TH3"]
            .iter()
            .any(|p| class.strip_prefix(p).is_some_and(bins))
}

impl Histogram {
    /// The histogram of an object of a histogram class.
    pub fn from_object(o: &Object) -> Result<Histogram, String> {
        if !is_histogram_class(&o.class) {
            return Err(format!("{} is not a histogram class", o.class));
        }
        let dims = if o.class.starts_with("TH2") || o.class == "TProfile2D" {
            2
        } else if o.class.starts_with("TH3") || o.class == "TProfile3D" {
            3
        } else {
            1
        };
        let axes = ["fXaxis", "fYaxis", "fZaxis"][..dims]
            .iter()
            .map(|name| {
                let axis = o.object(name).ok_or_else(|| o.why_missing(name))?;
                Axis::from_object(axis).map_err(|e| format!("{name}: {e}"))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let content_title = ["fYaxis", "fZaxis"]
            .get(dims - 1)
            .and_then(|name| o.object(name)?.str("fTitle"))
            .unwrap_or("")
            .to_string();
        let cells_expected = axes
            .iter()
            .try_fold(1usize, |n, a| n.checked_mul(a.bins + 2))
            .ok_or("too many cells")?;
        let cells = o.numbers("fArray").ok_or_else(|| o.why_missing("fArray"))?;
        if cells.len() != cells_expected {
            return Err(format!(
                "{} cells for axes of {cells_expected}",
                cells.len()
            ));
        }
        let sized = |name: &str| -> Result<Option<Vec<f64>>, String> {
            match o.numbers(name).filter(|v| !v.is_empty()) {
                Some(v) if v.len() != cells_expected => {
                    Err(format!("{name} of {} for {cells_expected} cells", v.len()))
                }
                v => Ok(v),
            }
        };
        let profile = if o.class.starts_with("TProfile") {
            let error_mode = match o.int("fErrorMode").unwrap_or(0) {
                1 => ErrorMode::Spread,
                2 => ErrorMode::SpreadI,
                3 => ErrorMode::SpreadG,
                _ => ErrorMode::Mean,
            };
            Some(Profile {
                bin_entries: sized("fBinEntries")?.unwrap_or_else(|| vec![0.0; cells_expected]),
                sum_wy2: sized("fSumw2")?.unwrap_or_else(|| vec![0.0; cells_expected]),
                bin_sumw2: sized("fBinSumw2")?,
                error_mode,
                value_min: ["fYmin", "fZmin", "fTmin"]
                    .iter()
                    .find_map(|n| o.get(n).and_then(as_float))
                    .unwrap_or(0.0),
                value_max: ["fYmax", "fZmax", "fTmax"]
                    .iter()
                    .find_map(|n| o.get(n).and_then(as_float))
                    .unwrap_or(0.0),
            })
        } else {
            None
        };
        let sumw2 = if profile.is_some() {
            None
        } else {
            sized("fSumw2")?
        };
        let stats = o
            .members
            .iter()
            .filter(|(name, _)| name.starts_with("fTsumw"))
            .filter_map(|(name, v)| Some((name.to_string(), as_float(v)?)))
            .collect();
        Ok(Histogram {
            class: o.class.clone(),
            name: o.str("fName").unwrap_or("").to_string(),
            title: o.str("fTitle").unwrap_or("").to_string(),
            axes,
            content_title,
            cells,
            sumw2,
            entries: o.get("fEntries").and_then(as_float).unwrap_or(0.0),
            stats,
            profile,
        })
    }

    /// The content of cell `cell` (a global bin number), as `GetBinContent`: a profile's
    /// is the mean of its values.
    pub fn content(&self, cell: usize) -> f64 {
        match &self.profile {
            Some(p) => {
                if p.bin_entries[cell] == 0.0 {
                    0.0
                } else {
                    self.cells[cell] / p.bin_entries[cell]
                }
            }
            None => self.cells[cell],
        }
    }

    /// The error of cell `cell`, as `GetBinError` (symmetric errors).
    pub fn error(&self, cell: usize) -> f64 {
        let Some(p) = &self.profile else {
            return match &self.sumw2 {
                Some(w2) => w2[cell].sqrt(),
                None => self.cells[cell].abs().sqrt(),
            };
        };
        let sum_wy = self.cells[cell];
        let sum_w = p.bin_entries[cell];
        let sum_wy2 = p.sum_wy2[cell];
        let neff = self.effective_entries(cell);
        if sum_w == 0.0 {
            return 0.0;
        }
        if p.error_mode == ErrorMode::SpreadG {
            return 1.0 / sum_w.sqrt();
        }
        let mean = sum_wy / sum_w;
        let spread = (sum_wy2 / sum_w - mean * mean).abs().sqrt();
        match p.error_mode {
            ErrorMode::SpreadI if spread == 0.0 => 1.0 / (12.0 * neff).sqrt(),
            ErrorMode::SpreadI => spread / neff.sqrt(),
            ErrorMode::Spread => spread,
            _ => spread / neff.sqrt(),
        }
    }

    /// The variance of cell `cell`: the stored sum of squared weights of a histogram
    /// that keeps them, else the content's magnitude (counts: ROOT's `GetBinError` is
    /// `sqrt(|content|)` then, also for a negative content); a profile's error squared.
    pub fn variance(&self, cell: usize) -> f64 {
        match (&self.profile, &self.sumw2) {
            (Some(_), _) => self.error(cell).powi(2),
            (None, Some(w2)) => w2[cell],
            (None, None) => self.cells[cell].abs(),
        }
    }

    /// A profile cell's effective entries, as `GetBinEffectiveEntries`: (sum of
    /// weights)^2 / sum of squared weights, or the sum of weights when those are not
    /// kept; a histogram's content.
    pub fn effective_entries(&self, cell: usize) -> f64 {
        let Some(p) = &self.profile else {
            return self.cells[cell];
        };
        let sum_w = p.bin_entries[cell];
        match &p.bin_sumw2 {
            None => sum_w,
            Some(w2) if w2[cell] > 0.0 => sum_w * sum_w / w2[cell],
            Some(_) => 0.0,
        }
    }

    /// The statistics sum `name` (`fTsumw`, ...), 0 when not stored.
    pub fn stat(&self, name: &str) -> f64 {
        self.stats
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0.0, |(_, v)| *v)
    }
}

/// The member `name` as a number.
fn float(o: &Object, name: &str) -> Result<f64, String> {
    o.get(name)
        .and_then(as_float)
        .ok_or_else(|| o.why_missing(name))
}

fn as_float(v: &Value) -> Option<f64> {
    match v {
        Value::Float(f) => Some(*f),
        Value::Int(i) => Some(*i as f64),
        Value::UInt(u) => Some(*u as f64),
        _ => None,
    }
}

impl Histogram {
    /// Adds `other` (of the same binning) to this histogram, as `hadd` adds histograms:
    /// cells, sums of squared weights (a histogram without them adds its contents, as
    /// unit weights give), a profile's sums (its squared weights likewise from its sums
    /// of weights), entries and the statistics sums by name. An error, and nothing added,
    /// when the binnings differ.
    pub fn add(&mut self, other: &Histogram) -> Result<(), String> {
        if self.axes.len() != other.axes.len() {
            return Err(format!("{} axes and {}", self.axes.len(), other.axes.len()));
        }
        for (i, (a, b)) in self.axes.iter().zip(&other.axes).enumerate() {
            let same = a.bins == b.bins && a.min == b.min && a.max == b.max && a.edges == b.edges;
            if !same {
                return Err(format!(
                    "a different binning ({})",
                    ["fXaxis", "fYaxis", "fZaxis"][i]
                ));
            }
        }
        if self.cells.len() != other.cells.len()
            || self.profile.is_some() != other.profile.is_some()
        {
            return Err("the bin count differs".into());
        }
        add_squares(
            &mut self.sumw2,
            &self.cells,
            other.sumw2.as_deref(),
            &other.cells,
        );
        add_to(&mut self.cells, &other.cells);
        if let (Some(mine), Some(theirs)) = (&mut self.profile, &other.profile) {
            add_squares(
                &mut mine.bin_sumw2,
                &mine.bin_entries,
                theirs.bin_sumw2.as_deref(),
                &theirs.bin_entries,
            );
            add_to(&mut mine.bin_entries, &theirs.bin_entries);
            add_to(&mut mine.sum_wy2, &theirs.sum_wy2);
        }
        self.entries += other.entries;
        for (name, total) in &mut self.stats {
            *total += other.stat(name);
        }
        Ok(())
    }
}

/// Adds sums of squared weights: `theirs` (or, where the other histogram keeps none, its
/// sums of weights `their_weights`, as unit weights give) to `mine` (started from this
/// histogram's `weights` when it kept none). Nothing is kept when neither keeps any.
fn add_squares(
    mine: &mut Option<Vec<f64>>,
    weights: &[f64],
    theirs: Option<&[f64]>,
    their_weights: &[f64],
) {
    if mine.is_none() && theirs.is_none() {
        return;
    }
    let total = mine.get_or_insert_with(|| weights.to_vec());
    add_to(total, theirs.unwrap_or(their_weights));
}

/// Adds `more` to `into`, cell by cell (both of the histogram's cell count).
fn add_to(into: &mut [f64], more: &[f64]) {
    into.iter_mut().zip(more).for_each(|(a, b)| *a += b);
}

/// A `TArray` of a histogram's cells (its count, then each value) in the bin type of
/// `class` (`TH1F`: float, `TH1I`: int, ...; a profile's and `TH*D`'s double), integers
/// rounded and kept in range as adding whole counts gives.
pub(crate) fn cells_array(class: &str, values: &[f64]) -> Vec<u8> {
    let mut out = (values.len() as i32).to_be_bytes().to_vec();
    let kind = if class.starts_with("TProfile") {
        'D'
    } else {
        class.chars().last().unwrap_or('D')
    };
    for &v in values {
        let r = v.round();
        match kind {
            'F' => out.extend_from_slice(&(v as f32).to_be_bytes()),
            'L' => out.extend_from_slice(&(r as i64).to_be_bytes()),
            'I' => out.extend_from_slice(&(r as i32).to_be_bytes()),
            'S' => out.extend_from_slice(&(r as i16).to_be_bytes()),
            'C' => out.extend_from_slice(&(r as i8).to_be_bytes()),
            _ => out.extend_from_slice(&v.to_be_bytes()),
        }
    }
    out
}
