//! The results a graph can book (RDataFrame's actions) and how each is computed: a partial
//! per batch, partials added in dataset order, a value at the end. Histograms bin as ROOT's
//! `TAxis::FindBin` bins and sum their statistics as `TH1::Fill` does, so that they equal
//! RDataFrame's cell for cell.

use std::sync::Arc;

use super::column::Column;
use super::extreme::Extreme;
use crate::array::Array;
use crate::error::{Error, Result};
use crate::objects::{stat_names, Axis, Graph, Histogram, Statistic};

/// A histogram's axis as RDataFrame's models give it: regular bins or edges.
#[derive(Debug, Clone, PartialEq)]
pub enum AxisModel {
    /// `bins` equal bins from `min` to `max`.
    Regular {
        /// The number of bins.
        bins: usize,
        /// The lower edge.
        min: f64,
        /// The upper edge.
        max: f64,
    },
    /// Bins between ascending edges.
    Variable(Vec<f64>),
    /// `bins` equal bins over a range found from the values (a one-dimensional histogram
    /// only), as ROOT's `TH1D` finds it when its model's lower edge is not below the upper
    /// one (see [`data_range`](super::data_range)).
    FromData {
        /// The number of bins.
        bins: usize,
    },
}

impl AxisModel {
    pub(crate) fn bins(&self) -> usize {
        match self {
            AxisModel::Regular { bins, .. } => *bins,
            AxisModel::Variable(e) => e.len().saturating_sub(1),
            AxisModel::FromData { bins } => *bins,
        }
    }

    /// RDataFrame's reading of a model's axis: regular bins whose lower edge is not below
    /// the upper one take their range from the data.
    pub(crate) fn read_as_root(self) -> AxisModel {
        match self {
            AxisModel::Regular { bins, min, max } if min >= max => AxisModel::FromData { bins },
            other => other,
        }
    }

    fn check(&self) -> Result<()> {
        let ok = match self {
            AxisModel::Regular { bins, min, max } => {
                *bins > 0 && *bins <= 1 << 24 && min.is_finite() && max.is_finite() && min < max
            }
            AxisModel::Variable(e) => {
                e.len() >= 2 && e.len() <= (1 << 24) && e.windows(2).all(|w| w[0] < w[1])
            }
            AxisModel::FromData { bins } => *bins > 0 && *bins <= 1 << 24,
        };
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "axis {self:?}: give bins > 0 and min < max, or ascending edges"
            )));
        }
        Ok(())
    }

    /// The cell of `x` (0 underflow, `bins + 1` overflow), as `TAxis::FindBin` finds it;
    /// NaN goes to the overflow, as ROOT puts it.
    #[inline]
    pub fn find(&self, x: f64) -> usize {
        match self {
            AxisModel::Regular { bins, min, max } => regular_bin(x, *bins, *min, *max),
            AxisModel::Variable(edges) => {
                let n = edges.len() - 1;
                if x < edges[0] {
                    0
                } else if x >= edges[n] || x.is_nan() {
                    n + 1
                } else {
                    // TMath::BinarySearch: the last edge <= x.
                    edges.partition_point(|&e| e <= x)
                }
            }
            // Its values are kept until the range is known (`Partial::Values`), never binned
            // on the model.
            AxisModel::FromData { bins } => bins + 1,
        }
    }

    fn root_axis(&self, name: &str) -> Axis {
        let (bins, min, max, edges) = match self {
            AxisModel::Regular { bins, min, max } => (*bins, *min, *max, None),
            AxisModel::Variable(e) => (e.len() - 1, e[0], e[e.len() - 1], Some(e.clone())),
            AxisModel::FromData { bins } => (*bins, 0.0, 0.0, None),
        };
        Axis {
            name: name.to_string(),
            title: String::new(),
            bins,
            min,
            max,
            edges,
            labels: None,
            can_extend: false,
            range: None,
        }
    }
}

/// What a booked result computes.
#[derive(Debug, Clone, PartialEq)]
pub enum ActionSpec {
    /// `Histo1D/2D/3D`: a `TH1D`, `TH2D` or `TH3D` of one column per axis, weighted by a
    /// column if given.
    Histo {
        /// The histogram's name and title.
        name: String,
        /// Its title.
        title: String,
        /// One axis per dimension.
        axes: Vec<AxisModel>,
        /// One column per axis.
        columns: Vec<String>,
        /// The weights.
        weight: Option<String>,
    },
    /// `Profile1D` / `Profile2D`: the mean of the last column per bin of the others.
    Profile {
        /// Name.
        name: String,
        /// Title.
        title: String,
        /// One axis per dimension (one or two).
        axes: Vec<AxisModel>,
        /// One column per axis, then the values averaged.
        columns: Vec<String>,
        /// The values kept (within `low..=high`, as a model's `ylow`, `yup` keep them; `None`:
        /// all).
        values: Option<(f64, f64)>,
        /// How the profile's errors are computed (its model's option).
        error_mode: crate::objects::ErrorMode,
        /// The weights.
        weight: Option<String>,
    },
    /// `Count()`.
    Count,
    /// `Sum(column)` (in `double`).
    Sum(String),
    /// `Mean(column)`.
    Mean(String),
    /// `Min(column)`.
    Min(String),
    /// `Max(column)`.
    Max(String),
    /// `StdDev(column)` (with `n - 1`).
    StdDev(String),
    /// `Take(column)`: every value, in entry order.
    Take(String),
    /// `Take(column)` of a dataset's column whose values expressions do not take (lists of
    /// lists, objects): its values as read, in entry order, as [`ResultValue::Array`].
    /// [`Frame::book`](super::Frame::book) books a `Take` of such a column as this.
    TakeAsRead(String),
    /// `Report()`: the cut flow of the named filters above.
    Report,
    /// `Stats(value, weight)`: a `TStatistic` of the values (lists' items, each with its
    /// event's weight or its own).
    Stats {
        /// The values.
        value: String,
        /// The weights.
        weight: Option<String>,
    },
    /// `Graph(x, y)`: a `TGraph` of a point per pair of values, in entry order (both
    /// columns numbers, or both lists of one length per event); `GraphAsymmErrors(x, y,
    /// exl, exh, eyl, eyh)`: a `TGraphAsymmErrors`, its errors from four more columns.
    Graph {
        /// The graph's name (RDataFrame's: `y_vs_x`).
        name: String,
        /// The abscissas' column.
        x: String,
        /// The ordinates' column.
        y: String,
        /// The errors' columns (x low, x high, y low, y high), or none.
        errors: Vec<String>,
    },
    /// `Sum`, `Mean`, `Min`, `Max` or `StdDev` left unfinished: the numbers of its partial
    /// (see [`ResultValue::Parts`]), for a run over a part of the dataset whose parts are
    /// added elsewhere, in the dataset's order, by [`ActionSpec::merge_parts`] (a distributed
    /// run).
    Parts(Box<ActionSpec>),
}

impl ActionSpec {
    /// The columns it reads.
    pub fn columns(&self) -> Vec<String> {
        match self {
            ActionSpec::Histo {
                columns, weight, ..
            } => columns.iter().chain(weight).cloned().collect(),
            ActionSpec::Profile {
                columns, weight, ..
            } => columns.iter().chain(weight).cloned().collect(),
            ActionSpec::Count | ActionSpec::Report => Vec::new(),
            ActionSpec::Stats { value, weight } => {
                [value].into_iter().chain(weight).cloned().collect()
            }
            ActionSpec::Sum(c)
            | ActionSpec::Mean(c)
            | ActionSpec::Min(c)
            | ActionSpec::Max(c)
            | ActionSpec::StdDev(c)
            | ActionSpec::Take(c)
            | ActionSpec::TakeAsRead(c) => vec![c.clone()],
            ActionSpec::Graph { x, y, errors, .. } => {
                [x, y].into_iter().chain(errors).cloned().collect()
            }
            ActionSpec::Parts(of) => of.columns(),
        }
    }

    /// The action computed in variation `variation` (`name:tag`): a histogram, profile or
    /// graph named `<name>_<variation>`, colons made underscores, as RDataFrame names them.
    pub(crate) fn in_variation(&self, variation: &str) -> ActionSpec {
        let mut spec = self.clone();
        let suffix = variation.replace(':', "_");
        match &mut spec {
            ActionSpec::Histo { name, .. }
            | ActionSpec::Profile { name, .. }
            | ActionSpec::Graph { name, .. } => *name = format!("{name}_{suffix}"),
            _ => {}
        }
        spec
    }

    pub(crate) fn check(&self) -> Result<()> {
        match self {
            ActionSpec::Histo { axes, columns, .. } => {
                let from_data = axes.iter().any(|a| matches!(a, AxisModel::FromData { .. }));
                if from_data && axes.len() != 1 {
                    return Err(Error::InvalidArgument(
                        "an axis whose range comes from the data: Histo1D only".into(),
                    ));
                }
                if !(1..=3).contains(&axes.len()) || axes.len() != columns.len() {
                    return Err(Error::InvalidArgument(format!(
                        "a histogram of {} columns and {} axes: one column per axis, 1 to 3",
                        columns.len(),
                        axes.len()
                    )));
                }
                check_axes(axes)
            }
            ActionSpec::Profile { axes, columns, .. } => {
                if axes.iter().any(|a| matches!(a, AxisModel::FromData { .. })) {
                    return Err(Error::InvalidArgument(
                        "a profile's axis needs its range (one from the data: Histo1D only)".into(),
                    ));
                }
                if !(1..=2).contains(&axes.len()) || columns.len() != axes.len() + 1 {
                    return Err(Error::InvalidArgument(format!(
                        "a profile of {} columns and {} axes: one column per axis (1 or 2), then the values",
                        columns.len(),
                        axes.len()
                    )));
                }
                check_axes(axes)
            }
            ActionSpec::Parts(of) => match **of {
                ActionSpec::Sum(_)
                | ActionSpec::Mean(_)
                | ActionSpec::Min(_)
                | ActionSpec::Max(_)
                | ActionSpec::StdDev(_) => Ok(()),
                _ => Err(Error::InvalidArgument(format!(
                    "the parts of {of:?}: only Sum, Mean, Min, Max and StdDev have them"
                ))),
            },
            _ => Ok(()),
        }
    }

    /// Whether this is a `Max` (or its parts): `Min` and `Max` share their partial.
    fn is_max(&self) -> bool {
        match self {
            ActionSpec::Parts(of) => of.is_max(),
            spec => matches!(spec, ActionSpec::Max(_)),
        }
    }

    /// The value of this `Sum`, `Mean`, `Min`, `Max` or `StdDev` from the [`ResultValue::Parts`] of
    /// consecutive parts of the dataset, in its order: their partials added as one run adds
    /// its batches' partials, so that parts of one batch each give the bits of one run.
    pub fn merge_parts(&self, parts: &[Vec<f64>]) -> Result<ResultValue> {
        let spec = match self {
            ActionSpec::Parts(of) => of,
            _ => self,
        };
        let mut total = Partial::new(spec, 0);
        for (k, numbers) in parts.iter().enumerate() {
            let part = match (spec, numbers.as_slice()) {
                (ActionSpec::Sum(_) | ActionSpec::Mean(_), &[sum, carry, n])
                    if n >= 0.0 && n.fract() == 0.0 =>
                {
                    Partial::Sum {
                        sum,
                        carry,
                        n: n as u64,
                    }
                }
                (ActionSpec::StdDev(_), &[n, mean, m2]) => Partial::Moments { n, mean, m2 },
                (ActionSpec::Min(_) | ActionSpec::Max(_), numbers) => {
                    match Extreme::from_parts(numbers) {
                        Some(run) => Partial::Extreme(run),
                        None => {
                            return Err(Error::InvalidArgument(format!(
                                "parts {numbers:?} are not those of {spec:?}"
                            )))
                        }
                    }
                }
                _ => {
                    return Err(Error::InvalidArgument(format!(
                        "parts {numbers:?} are not those of {spec:?}"
                    )))
                }
            };
            match k {
                0 => total = part,
                _ => total.add(part, spec),
            }
        }
        total.finish(spec, &[])
    }
}

/// A computed result.
#[derive(Debug, Clone, PartialEq)]
pub enum ResultValue {
    /// A histogram or profile.
    Histogram(Box<Histogram>),
    /// `Count`.
    Count(u64),
    /// `Sum`, `Mean`, `Min`, `Max`, `StdDev`.
    Number(f64),
    /// `Take`: the values, one per event (or a list per event).
    Column(Column),
    /// `Take` of a column expressions do not take (see [`ActionSpec::TakeAsRead`]): its
    /// values as the dataset holds them.
    Array(Array),
    /// `Report`: per named filter, its name, the events it passed and those it saw.
    Report(Vec<(String, u64, u64)>),
    /// `Stats`: the statistic of the values.
    Statistic(Box<Statistic>),
    /// `Graph`, `GraphAsymmErrors`: the points, named `y_vs_x` and titled `y vs x` as
    /// RDataFrame names them.
    Graph(Box<Graph>),
    /// [`ActionSpec::Parts`]: a sum's or mean's `[sum, carry, n]` (Neumaier's compensated
    /// sum and the number of values), a standard deviation's `[n, mean, m2]` (Welford's),
    /// a minimum's or maximum's effect on the running value (`[]` none, `[m]` a step to
    /// `m`, `[m, 1]` values with a NaN, after which the running value is `m`).
    Parts(Vec<f64>),
}

/// A batch's (or the batches' so far) share of a result.
#[derive(Debug, Clone)]
pub enum Partial {
    /// Histogram cells, squared weights, statistics sums, entries.
    Histo {
        cells: Vec<f64>,
        sumw2: Option<Vec<f64>>,
        stats: Vec<f64>,
        entries: f64,
    },
    /// A profile's sums per cell: of `w y`, of `w y^2`, of `w`, of `w^2`; stats; entries.
    Profile {
        wy: Vec<f64>,
        wy2: Vec<f64>,
        w: Vec<f64>,
        w2: Vec<f64>,
        stats: Vec<f64>,
        entries: f64,
    },
    /// Events counted.
    Count(u64),
    /// A compensated sum (Neumaier) and the number of values.
    Sum { sum: f64, carry: f64, n: u64 },
    /// A `Min`'s or `Max`'s effect on the running value.
    Extreme(Extreme),
    /// Welford's count, mean and sum of squared deviations.
    Moments { n: f64, mean: f64, m2: f64 },
    /// Taken values, in entry order.
    Taken(Vec<Column>),
    /// A graph's points (abscissas, ordinates, then any errors), in entry order.
    Points(Vec<Vec<f64>>),
    /// Values taken as read ([`ActionSpec::TakeAsRead`]), in entry order.
    TakenAsRead(Vec<Array>),
    /// The values (and weights) of a histogram whose range comes from them, in entry order.
    Values { xs: Vec<f64>, ws: Option<Vec<f64>> },
    /// Per named filter above: passed, seen.
    Report(Vec<(u64, u64)>),
    /// A statistic: the values folded into it so far, then a batch's values and weights,
    /// folded in when it is merged in dataset order. `TStatistic::Fill` drops a value that
    /// brings the sum of weights to zero, which depends on every weight before it: folding
    /// them in order gives ROOT's one-thread statistic, for any thread count.
    Statistic {
        folded: Statistic,
        points: Vec<(f64, f64)>,
    },
}

impl Partial {
    /// An empty partial of `spec`; `filters` named filters for a report.
    pub fn new(spec: &ActionSpec, filters: usize) -> Partial {
        match spec {
            ActionSpec::Parts(of) => Partial::new(of, filters),
            ActionSpec::Histo { axes, weight, .. }
                if matches!(axes[..], [AxisModel::FromData { .. }]) =>
            {
                Partial::Values {
                    xs: Vec::new(),
                    ws: weight.as_ref().map(|_| Vec::new()),
                }
            }
            ActionSpec::Histo { axes, weight, .. } => {
                let cells = cell_count(axes);
                Partial::Histo {
                    cells: vec![0.0; cells],
                    sumw2: weight.as_ref().map(|_| vec![0.0; cells]),
                    stats: vec![0.0; stat_names(axes.len(), false).len()],
                    entries: 0.0,
                }
            }
            ActionSpec::Profile { axes, .. } => {
                let cells = cell_count(axes);
                Partial::Profile {
                    wy: vec![0.0; cells],
                    wy2: vec![0.0; cells],
                    w: vec![0.0; cells],
                    w2: vec![0.0; cells],
                    stats: vec![0.0; stat_names(axes.len(), true).len()],
                    entries: 0.0,
                }
            }
            ActionSpec::Count => Partial::Count(0),
            ActionSpec::Sum(_) | ActionSpec::Mean(_) => Partial::Sum {
                sum: 0.0,
                carry: 0.0,
                n: 0,
            },
            ActionSpec::Min(_) | ActionSpec::Max(_) => Partial::Extreme(Extreme::Nothing),
            ActionSpec::StdDev(_) => Partial::Moments {
                n: 0.0,
                mean: 0.0,
                m2: 0.0,
            },
            ActionSpec::Take(_) => Partial::Taken(Vec::new()),
            ActionSpec::TakeAsRead(_) => Partial::TakenAsRead(Vec::new()),
            ActionSpec::Report => Partial::Report(vec![(0, 0); filters]),
            ActionSpec::Stats { .. } => Partial::Statistic {
                folded: Statistic::default(),
                points: Vec::new(),
            },
            ActionSpec::Graph { errors, .. } => Partial::Points(vec![Vec::new(); 2 + errors.len()]),
        }
    }

    /// An empty partial of `spec` without cells, for a histogram whose cells are kept per
    /// slot (see [`SlotCells`](super::slot_cells::SlotCells)): a batch's statistics only.
    pub fn kept(spec: &ActionSpec) -> Partial {
        match spec {
            ActionSpec::Histo { axes, .. } => Partial::Histo {
                cells: Vec::new(),
                sumw2: None,
                stats: vec![0.0; stat_names(axes.len(), false).len()],
                entries: 0.0,
            },
            other => Partial::new(other, 0),
        }
    }

    /// A histogram's cells.
    pub fn cells_mut(&mut self) -> Option<&mut Vec<f64>> {
        match self {
            Partial::Histo { cells, .. } => Some(cells),
            _ => None,
        }
    }

    /// Adds `later` (the batches after these) to this partial.
    pub fn add(&mut self, later: Partial, spec: &ActionSpec) {
        match (self, later) {
            (
                Partial::Histo {
                    cells,
                    sumw2,
                    stats,
                    entries,
                },
                Partial::Histo {
                    cells: c,
                    sumw2: s,
                    stats: t,
                    entries: e,
                },
            ) => {
                add_all(cells, &c);
                if let (Some(a), Some(b)) = (sumw2.as_mut(), s) {
                    add_all(a, &b);
                }
                add_all(stats, &t);
                *entries += e;
            }
            (
                Partial::Profile {
                    wy,
                    wy2,
                    w,
                    w2,
                    stats,
                    entries,
                },
                Partial::Profile {
                    wy: a,
                    wy2: b,
                    w: c,
                    w2: d,
                    stats: t,
                    entries: e,
                },
            ) => {
                add_all(wy, &a);
                add_all(wy2, &b);
                add_all(w, &c);
                add_all(w2, &d);
                add_all(stats, &t);
                *entries += e;
            }
            (Partial::Count(a), Partial::Count(b)) => *a += b,
            (
                Partial::Sum { sum, carry, n },
                Partial::Sum {
                    sum: s,
                    carry: c,
                    n: m,
                },
            ) => {
                neumaier(sum, carry, s);
                neumaier(sum, carry, c);
                *n += m;
            }
            (Partial::Extreme(a), Partial::Extreme(b)) => a.then(spec.is_max(), b),
            (
                Partial::Moments { n, mean, m2 },
                Partial::Moments {
                    n: nb,
                    mean: mb,
                    m2: m2b,
                },
            ) => {
                if nb > 0.0 {
                    let total = *n + nb;
                    let delta = mb - *mean;
                    *mean += delta * nb / total;
                    *m2 += m2b + delta * delta * *n * nb / total;
                    *n = total;
                }
            }
            (Partial::Taken(a), Partial::Taken(b)) => a.extend(b),
            (
                Partial::Statistic { folded, points },
                Partial::Statistic {
                    folded: more,
                    points: more_points,
                },
            ) => {
                fold_points(folded, points);
                folded.merge(&more);
                fold_points(folded, &mut { more_points });
            }
            (Partial::Points(a), Partial::Points(b)) => {
                a.iter_mut().zip(b).for_each(|(a, b)| a.extend(b));
            }
            (Partial::TakenAsRead(a), Partial::TakenAsRead(b)) => a.extend(b),
            (Partial::Values { xs, ws }, Partial::Values { xs: x, ws: w }) => {
                xs.extend(x);
                if let (Some(a), Some(b)) = (ws.as_mut(), w) {
                    a.extend(b);
                }
            }
            (Partial::Report(a), Partial::Report(b)) => {
                for (x, y) in a.iter_mut().zip(b) {
                    x.0 += y.0;
                    x.1 += y.1;
                }
            }
            _ => unreachable!("partials of one result have one kind"),
        }
    }

    /// The result's value.
    pub fn finish(self, spec: &ActionSpec, filter_names: &[String]) -> Result<ResultValue> {
        Ok(match (self, spec) {
            (Partial::Sum { sum, carry, n }, ActionSpec::Parts(_)) => {
                ResultValue::Parts(vec![sum, carry, n as f64])
            }
            (Partial::Moments { n, mean, m2 }, ActionSpec::Parts(_)) => {
                ResultValue::Parts(vec![n, mean, m2])
            }
            (Partial::Extreme(run), ActionSpec::Parts(_)) => ResultValue::Parts(run.parts()),
            (
                Partial::Histo {
                    cells,
                    sumw2,
                    stats,
                    entries,
                },
                ActionSpec::Histo {
                    name, title, axes, ..
                },
            ) => {
                let names = stat_names(axes.len(), false);
                ResultValue::Histogram(Box::new(root_titles(Histogram {
                    class: format!("TH{}D", axes.len()),
                    name: name.clone(),
                    title: title.clone(),
                    content_title: String::new(),
                    axes: root_axes(axes),
                    cells,
                    sumw2,
                    entries,
                    stats: names.iter().map(|n| n.to_string()).zip(stats).collect(),
                    profile: None,
                })))
            }
            (Partial::Values { xs, ws }, ActionSpec::Histo { name, title, .. }) => {
                let bins = match spec {
                    ActionSpec::Histo { axes, .. } => axes[0].bins(),
                    _ => unreachable!("values are a histogram's"),
                };
                let h = super::data_range::fill(bins, &xs, ws.as_deref());
                let names = stat_names(1, false);
                ResultValue::Histogram(Box::new(root_titles(Histogram {
                    class: "TH1D".into(),
                    name: name.clone(),
                    title: title.clone(),
                    content_title: String::new(),
                    axes: vec![Axis {
                        min: h.min,
                        max: h.max,
                        can_extend: h.can_extend,
                        ..AxisModel::FromData { bins }.root_axis("xaxis")
                    }],
                    cells: h.cells,
                    sumw2: h.sumw2,
                    entries: h.entries,
                    stats: names.iter().map(|n| n.to_string()).zip(h.stats).collect(),
                    profile: None,
                })))
            }
            (
                Partial::Profile {
                    wy,
                    wy2,
                    w,
                    w2,
                    stats,
                    entries,
                },
                ActionSpec::Profile {
                    name,
                    title,
                    axes,
                    values,
                    error_mode,
                    ..
                },
            ) => {
                let names = stat_names(axes.len(), true);
                ResultValue::Histogram(Box::new(root_titles(Histogram {
                    class: match axes.len() {
                        1 => "TProfile".into(),
                        n => format!("TProfile{n}D"),
                    },
                    name: name.clone(),
                    title: title.clone(),
                    content_title: String::new(),
                    axes: root_axes(axes),
                    cells: wy,
                    sumw2: None,
                    entries,
                    stats: names.iter().map(|n| n.to_string()).zip(stats).collect(),
                    profile: Some(crate::objects::Profile {
                        bin_entries: w,
                        sum_wy2: wy2,
                        bin_sumw2: Some(w2),
                        error_mode: *error_mode,
                        value_min: values.map_or(0.0, |v| v.0),
                        value_max: values.map_or(0.0, |v| v.1),
                    }),
                })))
            }
            (Partial::Count(n), _) => ResultValue::Count(n),
            (Partial::Sum { sum, carry, n }, ActionSpec::Mean(_)) => {
                ResultValue::Number(if n == 0 {
                    0.0
                } else {
                    (sum + carry) / n as f64
                })
            }
            (Partial::Sum { sum, carry, .. }, _) => ResultValue::Number(sum + carry),
            (Partial::Extreme(x), spec) => ResultValue::Number(x.value(spec.is_max())),
            (Partial::Moments { n, m2, .. }, _) => ResultValue::Number(if n < 2.0 {
                0.0
            } else {
                (m2 / (n - 1.0)).sqrt()
            }),
            (Partial::Taken(parts), _) => ResultValue::Column(
                Column::concat(parts).map_err(|e| Error::InvalidArgument(format!("Take: {e}")))?,
            ),
            // None yet: a run's results so far before its first batch.
            (Partial::TakenAsRead(parts), _) if parts.is_empty() => {
                ResultValue::Array(Array::Float64(Vec::new()))
            }
            (Partial::TakenAsRead(parts), _) => ResultValue::Array(
                crate::array::concat(parts)
                    .map_err(|e| Error::InvalidArgument(format!("Take: {e}")))?,
            ),
            (Partial::Points(mut values), ActionSpec::Graph { name, x, y, .. }) => {
                let errors: Vec<Vec<f64>> = values.drain(2..).collect();
                let ys = values.pop().unwrap_or_default();
                let xs = values.pop().unwrap_or_default();
                ResultValue::Graph(Box::new(Graph {
                    name: name.clone(),
                    title: format!("{y} vs {x}"),
                    x: xs,
                    y: ys,
                    errors: errors.try_into().ok(),
                }))
            }
            (
                Partial::Statistic {
                    mut folded,
                    mut points,
                },
                _,
            ) => {
                fold_points(&mut folded, &mut points);
                ResultValue::Statistic(Box::new(folded))
            }
            (Partial::Report(counts), _) => ResultValue::Report(
                filter_names
                    .iter()
                    .zip(counts)
                    .map(|(n, (pass, all))| (n.clone(), pass, all))
                    .collect(),
            ),
            _ => unreachable!("partials match their results"),
        })
    }
}

/// `h` with its title split as ROOT's `TH1::SetTitle` splits a model's: `"title;x;y;z"` is
/// the histogram's title and its axes' (the one after the last dimension is the contents'),
/// `#;` a semicolon in a title.
fn root_titles(mut h: Histogram) -> Histogram {
    let mut parts: Vec<String> = Vec::new();
    let mut rest = h.title.as_str();
    while let Some(at) = find_separator(rest) {
        parts.push(rest[..at].replace("#;", ";"));
        rest = &rest[at + 1..];
    }
    parts.push(rest.replace("#;", ";"));
    let mut parts = parts.into_iter();
    h.title = parts.next().unwrap_or_default();
    let dims = h.axes.len();
    for (i, part) in parts.enumerate().take(3) {
        match h.axes.get_mut(i) {
            Some(axis) => axis.title = part,
            None if i == dims => h.content_title = part,
            None => {}
        }
    }
    h
}

/// The first `;` of `title` not written as `#;`.
fn find_separator(title: &str) -> Option<usize> {
    let bytes = title.as_bytes();
    (0..bytes.len()).find(|&i| bytes[i] == b';' && (i == 0 || bytes[i - 1] != b'#'))
}

fn add_all(a: &mut [f64], b: &[f64]) {
    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
}

/// Neumaier's compensated addition of `x` to `sum` (the lost low bits in `carry`).
fn neumaier(sum: &mut f64, carry: &mut f64, x: f64) {
    let t = *sum + x;
    if sum.abs() >= x.abs() {
        *carry += (*sum - t) + x;
    } else {
        *carry += (x - t) + *sum;
    }
    *sum = t;
}

/// Fills a partial from the columns of one batch (already at the node's events), given as
/// columns or references to them.
pub fn fill<C: std::borrow::Borrow<Column>>(
    partial: &mut Partial,
    spec: &ActionSpec,
    cols: &[C],
) -> std::result::Result<(), String> {
    let cols: Vec<&Column> = cols.iter().map(|c| c.borrow()).collect();
    match (partial, spec) {
        (Partial::Count(n), _) => {
            // Count takes the events through the node's event count, given as a column.
            *n += cols.first().map_or(0, |c| c.events() as u64);
        }
        (
            Partial::Histo {
                cells,
                sumw2,
                stats,
                entries,
            },
            ActionSpec::Histo { axes, weight, .. },
        ) => {
            let dims = axes.len();
            let (values, weights) =
                fill_values(&cols[..dims], weight.as_ref().map(|_| cols[dims]))?;
            if dims == 1 {
                fill_1d(cells, sumw2, stats, entries, &axes[0], &values[0], weights);
                return Ok(());
            }
            let strides = strides(axes);
            for i in 0..values[0].len() {
                let w = weights.as_ref().map_or(1.0, |w| w[i]);
                let mut cell = 0;
                let mut inside = true;
                for (d, axis) in axes.iter().enumerate() {
                    let bin = axis.find(values[d][i]);
                    inside &= bin >= 1 && bin <= axis.bins();
                    cell += bin * strides[d];
                }
                cells[cell] += w;
                if let Some(s) = sumw2.as_mut() {
                    s[cell] += w * w;
                }
                *entries += 1.0;
                if inside {
                    add_stats(
                        stats,
                        dims,
                        w,
                        &[
                            values[0][i],
                            values.get(1).map_or(0.0, |v| v[i]),
                            values.get(2).map_or(0.0, |v| v[i]),
                        ],
                    );
                }
            }
        }
        (
            Partial::Profile {
                wy,
                wy2,
                w: sw,
                w2,
                stats,
                entries,
            },
            ActionSpec::Profile {
                axes,
                weight,
                values: kept,
                ..
            },
        ) => {
            let dims = axes.len();
            let (values, weights) =
                fill_values(&cols[..=dims], weight.as_ref().map(|_| cols[dims + 1]))?;
            let strides = strides(axes);
            // The sums of the values averaged follow the axes' own statistics, as
            // `TProfile::Fill` and `TProfile2D::Fill` keep them (fTsumwy or fTsumwz).
            let own = stat_names(dims, false).len();
            for i in 0..values[0].len() {
                let w = weights.as_ref().map_or(1.0, |w| w[i]);
                let (mut cell, mut inside) = (0, true);
                for (d, axis) in axes.iter().enumerate() {
                    let bin = axis.find(values[d][i]);
                    inside &= bin >= 1 && bin <= axis.bins();
                    cell += bin * strides[d];
                }
                let v = values[dims][i];
                // `TProfile::Fill` drops a value outside the model's range (and NaN) first.
                if kept.is_some_and(|(low, high)| !(v >= low && v <= high)) {
                    continue;
                }
                wy[cell] += w * v;
                wy2[cell] += w * v * v;
                sw[cell] += w;
                w2[cell] += w * w;
                *entries += 1.0;
                if inside {
                    let y = if dims > 1 { values[1][i] } else { 0.0 };
                    add_stats(stats, dims, w, &[values[0][i], y, 0.0]);
                    stats[own] += w * v;
                    stats[own + 1] += w * v * v;
                }
            }
        }
        (Partial::Sum { sum, carry, n }, _) => {
            for x in flat_f64(cols[0])? {
                neumaier(sum, carry, x);
                *n += 1;
            }
        }
        (Partial::Extreme(run), spec) => {
            let max = spec.is_max();
            for x in flat_f64(cols[0])? {
                run.push(max, x);
            }
        }
        (Partial::Moments { n, mean, m2 }, _) => {
            for x in flat_f64(cols[0])? {
                *n += 1.0;
                let delta = x - *mean;
                *mean += delta / *n;
                *m2 += delta * (x - *mean);
            }
        }
        (Partial::Taken(parts), _) => parts.push(cols[0].clone()),
        (Partial::Statistic { points, .. }, ActionSpec::Stats { weight, .. }) => {
            let (values, weights) = fill_values(&cols[..1], weight.as_ref().map(|_| cols[1]))?;
            match weights {
                Some(w) => points.extend(values[0].iter().copied().zip(w)),
                None => points.extend(values[0].iter().map(|&v| (v, 1.0))),
            }
        }
        (Partial::Points(values), _) => {
            for (v, column) in values.iter_mut().zip(graph_points(&cols)?) {
                v.extend(column);
            }
        }
        (Partial::Values { xs, ws }, ActionSpec::Histo { weight, .. }) => {
            let (values, weights) = fill_values(&cols[..1], weight.as_ref().map(|_| cols[1]))?;
            xs.extend_from_slice(&values[0]);
            if let (Some(ws), Some(w)) = (ws.as_mut(), weights) {
                ws.extend(w);
            }
        }
        (Partial::Report(_), _) => {}
        _ => unreachable!("partials match their results"),
    }
    Ok(())
}

/// Fills `statistic` with `points` (value, weight), in order, as `TStatistic::Fill` would,
/// and empties them.
fn fold_points(statistic: &mut Statistic, points: &mut Vec<(f64, f64)>) {
    for (v, w) in points.drain(..) {
        statistic.fill(v, w);
    }
}

/// `TH1::Fill`'s statistics of an in-range value: sums of w, w^2, w x, w x^2 (and for more
/// axes w y, w y^2, w x y, w z, w z^2, w x z, w y z).
/// A one-dimensional histogram's fills, as the general loop makes them (the same sums in
/// the same order), with its statistics kept in registers: the common case of a graph of
/// many histograms.
fn fill_1d(
    cells: &mut [f64],
    sumw2: &mut Option<Vec<f64>>,
    stats: &mut [f64],
    entries: &mut f64,
    axis: &AxisModel,
    xs: &[f64],
    weights: Option<Vec<f64>>,
) {
    let bins = axis.bins();
    let [mut sw, mut sw2, mut swx, mut swx2] = [stats[0], stats[1], stats[2], stats[3]];
    for (i, &x) in xs.iter().enumerate() {
        let w = weights.as_ref().map_or(1.0, |w| w[i]);
        let bin = axis.find(x);
        cells[bin] += w;
        if let Some(s) = sumw2.as_mut() {
            s[bin] += w * w;
        }
        if bin >= 1 && bin <= bins {
            sw += w;
            sw2 += w * w;
            swx += w * x;
            swx2 += w * x * x;
        }
    }
    // Counts below 2^53 add exactly: one sum for the batch has the bits of one per fill.
    *entries += xs.len() as f64;
    stats[..4].copy_from_slice(&[sw, sw2, swx, swx2]);
}

fn add_stats(stats: &mut [f64], dims: usize, w: f64, v: &[f64; 3]) {
    let [x, y, z] = *v;
    stats[0] += w;
    stats[1] += w * w;
    stats[2] += w * x;
    stats[3] += w * x * x;
    if dims >= 2 {
        stats[4] += w * y;
        stats[5] += w * y * y;
        stats[6] += w * x * y;
    }
    if dims == 3 {
        stats[7] += w * z;
        stats[8] += w * z * z;
        stats[9] += w * x * z;
        stats[10] += w * y * z;
    }
}

/// The step between neighbouring cells along each axis (flow cells included, x fastest).
fn strides(axes: &[AxisModel]) -> Vec<usize> {
    axes.iter()
        .scan(1usize, |s, a| {
            let here = *s;
            *s *= a.bins() + 2;
            Some(here)
        })
        .collect()
}

/// The cells of a histogram of `axes`, flow cells included.
fn cell_count(axes: &[AxisModel]) -> usize {
    axes.iter().map(|a| a.bins() + 2).product()
}

/// The cell of `x` on `bins` equal bins from `min` to `max` (0 underflow, `bins + 1`
/// overflow and NaN), as ROOT 6.40's `TAxis::FindFixBin` finds it: the bin from the scaled
/// distance, then moved by one where rounding put `x` outside that bin's edges as
/// `GetBinLowEdge` computes them (`min + (bin - 1) * width`), so that a value just below an
/// edge stays below it (-1e-45 on two bins from -1000 to 1000 is in the first).
#[inline]
pub(crate) fn regular_bin(x: f64, bins: usize, min: f64, max: f64) -> usize {
    if x < min {
        return 0;
    }
    if x >= max || x.is_nan() {
        return bins + 1;
    }
    let guess = 1 + (bins as f64 * (x - min) / (max - min)) as usize;
    let width = (max - min) / bins as f64;
    let mut bin = guess;
    if min + guess as f64 * width <= x {
        bin += 1;
    }
    if min + (guess - 1) as f64 * width > x {
        bin -= 1;
    }
    bin.min(bins + 1)
}

/// Checks each axis, and refuses axes of more cells than a histogram may hold.
fn check_axes(axes: &[AxisModel]) -> Result<()> {
    axes.iter().try_for_each(AxisModel::check)?;
    let cells = axes
        .iter()
        .try_fold(1usize, |n, a| n.checked_mul(a.bins() + 2));
    if cells.is_none_or(|c| c > crate::fill::MAX_CELLS) {
        return Err(Error::InvalidArgument(
            "a histogram of too many cells".into(),
        ));
    }
    Ok(())
}

/// ROOT's axes of a histogram's models, named `xaxis`, `yaxis`, `zaxis`.
fn root_axes(axes: &[AxisModel]) -> Vec<Axis> {
    axes.iter()
        .zip(["xaxis", "yaxis", "zaxis"])
        .map(|(a, n)| a.root_axis(n))
        .collect()
}

/// Every value of a column (lists flattened) as `double`.
fn flat_f64(c: &Column) -> std::result::Result<Vec<f64>, String> {
    match c {
        Column::Flat(v) | Column::Jagged(_, v) => v
            .as_f64()
            .ok_or_else(|| format!("a column of {} is not a number", c.type_name())),
        Column::Tuple(_) => Err("a list of combinations is not a number".into()),
    }
}

/// A graph's values from its columns (abscissas, ordinates, any errors), as RDataFrame's
/// `Graph` and `GraphAsymmErrors` take them: a point per event's numbers, or per item of
/// lists of one length.
fn graph_points<C: std::borrow::Borrow<Column>>(
    cols: &[C],
) -> std::result::Result<Vec<Vec<f64>>, String> {
    let offsets = |c: &Column| match c {
        Column::Jagged(o, _) => Some(o.clone()),
        _ => None,
    };
    let first = offsets(cols[0].borrow());
    for c in &cols[1..] {
        match (offsets(c.borrow()), &first) {
            (Some(a), Some(b)) if a.as_slice() != b.as_slice() => {
                return Err("a graph of lists of different lengths in one event".into());
            }
            (Some(_), Some(_)) | (None, None) => {}
            _ => return Err("a graph of lists and numbers: all or none must be lists".into()),
        }
    }
    cols.iter().map(|c| flat_f64(c.borrow())).collect()
}

/// The values to fill, per axis, and their weights: lists filled item by item (all axes'
/// lists of one length per event), a weight per event given to each of its items.
#[allow(clippy::type_complexity)]
fn fill_values(
    axes: &[&Column],
    weight: Option<&Column>,
) -> std::result::Result<(Vec<Vec<f64>>, Option<Vec<f64>>), String> {
    let offsets: Option<&Arc<Vec<usize>>> = axes.iter().find_map(|c| match c {
        Column::Jagged(o, _) => Some(o),
        _ => None,
    });
    let expand = |c: &Column| -> std::result::Result<Vec<f64>, String> {
        match (c, offsets) {
            (Column::Flat(v), Some(o)) => {
                let v = v
                    .as_f64()
                    .ok_or("a column of four-vectors cannot be filled")?;
                Ok(super::column::repeat_each(&v, o))
            }
            (Column::Jagged(o, _), Some(first))
                if o.len() != first.len() || o.as_slice() != first.as_slice() =>
            {
                Err("the columns of a histogram have lists of different lengths".into())
            }
            _ => flat_f64(c),
        }
    };
    let values = axes
        .iter()
        .map(|c| expand(c))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let weights = weight.map(expand).transpose()?;
    if let Some(w) = &weights {
        if w.len() != values[0].len() {
            return Err("the weights and the values of a histogram differ in number".into());
        }
    }
    Ok((values, weights))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model's title gives the axes theirs, as ROOT's `TH1::SetTitle` splits it.
    /// Bins as ROOT 6.40's `TAxis::FindFixBin` gives them (each case checked there): values
    /// next to an edge fall on the side of the edge as `GetBinLowEdge` computes it.
    #[test]
    fn regular_bins_as_root_finds_them() {
        let below = |x: f64| f64::from_bits(x.to_bits() - 1); // of a positive x
        let cases = [
            (2, -1000.0, 1000.0, -1.401298464324817e-45, 1),
            (2, -1000.0, 1000.0, -0.0, 2),
            (3, -1000.0, 1000.0, 999.9999999999999, 3),
            (50, -1000.0, 1000.0, 999.9999999999999, 50),
            (7, -5.0, 5.0, 4.999999999999999, 7),
            (20, -5.0, 5.0, below(5.0), 20),
            (20, -5.0, 5.0, 5.0, 21),
            (20, -5.0, 5.0, -5.0, 1),
            (20, -5.0, 5.0, -5.000000000000001, 0),
            (20, -5.0, 5.0, f64::NAN, 21),
            (4, 0.0, 1.0, 0.5, 3),
            (4, 0.0, 1.0, below(0.5), 2),
        ];
        for (bins, min, max, x, want) in cases {
            assert_eq!(
                regular_bin(x, bins, min, max),
                want,
                "{x:e} on {bins} bins {min}..{max}"
            );
        }
    }

    #[test]
    fn titles_split_as_root_splits_them() {
        let histogram = |dims: usize, title: &str| {
            let axis = AxisModel::Regular {
                bins: 1,
                min: 0.0,
                max: 1.0,
            };
            root_titles(Histogram {
                class: format!("TH{dims}D"),
                name: "h".into(),
                title: title.into(),
                axes: vec![axis.root_axis("xaxis"); dims],
                content_title: String::new(),
                cells: Vec::new(),
                sumw2: None,
                entries: 0.0,
                stats: Vec::new(),
                profile: None,
            })
        };
        let titles = |h: &Histogram| {
            let mut t = vec![h.title.clone()];
            t.extend(h.axes.iter().map(|a| a.title.clone()));
            t.push(h.content_title.clone());
            t
        };
        assert_eq!(titles(&histogram(1, "t;x;y;z")), ["t", "x", "y"]);
        assert_eq!(titles(&histogram(2, "t;x;y;z")), ["t", "x", "y", "z"]);
        assert_eq!(titles(&histogram(3, "t;x;y;z")), ["t", "x", "y", "z", ""]);
        assert_eq!(titles(&histogram(1, "a #; b;x#;")), ["a ; b", "x;", ""]);
        assert_eq!(titles(&histogram(1, "plain")), ["plain", "", ""]);
        assert_eq!(titles(&histogram(2, ";;y")), ["", "", "y", ""]);
    }

    /// Parts of consecutive batches, merged, give the bits of the batches added in one run.
    #[test]
    fn merged_parts_equal_partials_added_in_order() {
        let batches: Vec<Vec<f64>> = vec![
            (0..1000).map(|i| 0.1 * i as f64 + 1e8).collect(),
            vec![],
            (0..777).map(|i| (i as f64).sqrt() - 3.3).collect(),
        ];
        // A NaN inside a batch restarts Min and Max from the values after it.
        let mut with_nan = batches.clone();
        with_nan[2][100] = f64::NAN;
        let x = || "x".to_string();
        for (spec, batches) in [
            (ActionSpec::Sum(x()), &batches),
            (ActionSpec::Mean(x()), &batches),
            (ActionSpec::StdDev(x()), &batches),
            (ActionSpec::Min(x()), &batches),
            (ActionSpec::Max(x()), &batches),
            (ActionSpec::Min(x()), &with_nan),
            (ActionSpec::Max(x()), &with_nan),
        ] {
            let raw = ActionSpec::Parts(Box::new(spec.clone()));
            let mut total: Option<Partial> = None;
            let mut parts = Vec::new();
            for b in batches {
                let col = [Column::Flat(
                    crate::analysis::column::Values::F64(b.clone()).into(),
                )];
                let mut p = Partial::new(&spec, 0);
                fill(&mut p, &spec, &col).unwrap();
                let mut q = Partial::new(&raw, 0);
                fill(&mut q, &raw, &col).unwrap();
                let ResultValue::Parts(numbers) = q.finish(&raw, &[]).unwrap() else {
                    panic!("parts are numbers")
                };
                parts.push(numbers);
                match total.as_mut() {
                    None => total = Some(p),
                    Some(t) => t.add(p, &spec),
                }
            }
            let ResultValue::Number(one) = total.unwrap().finish(&spec, &[]).unwrap() else {
                panic!("{spec:?} is a number")
            };
            for merged in [spec.merge_parts(&parts), raw.merge_parts(&parts)] {
                let ResultValue::Number(merged) = merged.unwrap() else {
                    panic!("{spec:?} merges into a number")
                };
                assert_eq!(merged.to_bits(), one.to_bits(), "{spec:?}");
            }
        }
        // The maximum of the values after the NaN (the last batch's last), not of them all.
        let max = ActionSpec::Max(x());
        let parts: Vec<Vec<f64>> = with_nan
            .iter()
            .map(|b| {
                let mut run = Extreme::Nothing;
                b.iter().for_each(|&v| run.push(true, v));
                run.parts()
            })
            .collect();
        let want = ResultValue::Number(with_nan[2][776]);
        assert_eq!(max.merge_parts(&parts).unwrap(), want);
        assert!(max.merge_parts(&[vec![1.0, 2.0]]).is_err());
        assert!(ActionSpec::Parts(Box::new(ActionSpec::Count))
            .check()
            .is_err());
        assert!(ActionSpec::Mean("x".into())
            .merge_parts(&[vec![1.0]])
            .is_err());
    }
}
