//! RDataFrame's actions on a [`Frame`]: each books a result and returns its handle; none
//! reads anything until a result is asked for, and then every result booked so far is
//! computed in the same pass.

use super::actions::{ActionSpec, AxisModel};
use super::graph::{Booked, Frame};
use crate::error::Result;
use crate::objects::ErrorMode;

/// A histogram model, as RDataFrame's `TH1DModel` gives it: name, title, axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// The histogram's name.
    pub name: String,
    /// Its title.
    pub title: String,
    /// Its axes (one to three).
    pub axes: Vec<AxisModel>,
}

/// A profile's model, as RDataFrame's `TProfile1DModel` and `TProfile2DModel` give it: a
/// histogram's model, the range of the values kept, and the option choosing its errors.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileModel {
    /// Name, title and axes.
    pub model: Model,
    /// The values kept: those from `low` to `high` (`ylow`, `yup`; `zlow`, `zup` in 2D),
    /// `None` (or an empty range) for all.
    pub values: Option<(f64, f64)>,
    /// The errors' option (`""`, `"s"`, `"i"`, `"g"`).
    pub error_mode: ErrorMode,
}

impl From<Model> for ProfileModel {
    fn from(model: Model) -> ProfileModel {
        ProfileModel {
            model,
            values: None,
            error_mode: ErrorMode::Mean,
        }
    }
}

impl ProfileModel {
    /// The model keeping the values from `low` to `high` only (none kept out of it; ROOT
    /// keeps all when `low == high`).
    pub fn with_values(mut self, low: f64, high: f64) -> ProfileModel {
        self.values = (low != high).then_some((low, high));
        self
    }

    /// The model with the errors of ROOT's option `option` (`""`: of the mean, `"s"`: the
    /// spread, `"i"`, `"g"`); another option is an error.
    pub fn with_option(mut self, option: &str) -> Result<ProfileModel> {
        self.error_mode = match option.to_ascii_lowercase().as_str() {
            "" => ErrorMode::Mean,
            "s" => ErrorMode::Spread,
            "i" => ErrorMode::SpreadI,
            "g" => ErrorMode::SpreadG,
            other => {
                return Err(crate::error::Error::InvalidArgument(format!(
                    "a profile's option is \"\", \"s\", \"i\" or \"g\", not \"{other}\""
                )))
            }
        };
        Ok(self)
    }
}

impl Model {
    /// A one-dimensional model of `bins` regular bins from `min` to `max`.
    pub fn regular(name: &str, title: &str, bins: usize, min: f64, max: f64) -> Model {
        Model {
            name: name.into(),
            title: title.into(),
            axes: vec![AxisModel::Regular { bins, min, max }],
        }
    }

    /// The model RDataFrame's `Histo1D(column)` and `Histo1D(column, weight)` make: 128 bins
    /// over a range found from the data, named and titled after the columns (the title
    /// gives the axes theirs, as `"title;x;y"` does).
    pub fn for_column(column: &str, weight: Option<&str>) -> Model {
        // The axes titled as RDataFrame titles them: the column, and `count` (times the
        // weight).
        let (name, title) = match weight {
            Some(w) => (
                format!("{column}_weighted_{w}"),
                format!("{column}, weights: {w};{column};count * {w}"),
            ),
            None => (column.to_string(), format!("{column};{column};count")),
        };
        Model {
            name,
            title,
            axes: vec![AxisModel::FromData { bins: 128 }],
        }
    }
}

impl Frame {
    /// `Histo1D(model, column, weight)`: a `TH1D` (lists filled item by item).
    pub fn histo1d(&self, model: Model, column: &str, weight: Option<&str>) -> Result<Booked> {
        self.histo(model, &[column], weight)
    }

    /// `Histo1D/2D/3D`: a `TH1D`, `TH2D` or `TH3D` of one column per axis of `model`. A
    /// one-dimensional model of regular bins whose lower edge is not below the upper one
    /// takes its range from the data, as RDataFrame's does: its values are kept (8 bytes
    /// each, 16 with weights) until the end of the run, then binned as ROOT bins them when
    /// one thread fills (see [`AxisModel::FromData`]).
    pub fn histo(&self, model: Model, columns: &[&str], weight: Option<&str>) -> Result<Booked> {
        let axes = model
            .axes
            .into_iter()
            .map(AxisModel::read_as_root)
            .collect();
        self.book(ActionSpec::Histo {
            name: model.name,
            title: model.title,
            axes,
            columns: columns.iter().map(|c| c.to_string()).collect(),
            weight: weight.map(str::to_string),
        })
    }

    /// `Profile1D(model, x, y, weight)`: a `TProfile` of the mean of `y` per bin of `x`.
    pub fn profile1d(
        &self,
        model: impl Into<ProfileModel>,
        x: &str,
        y: &str,
        weight: Option<&str>,
    ) -> Result<Booked> {
        self.profile(model, &[x, y], weight)
    }

    /// `Profile2D(model, x, y, z, weight)`: a `TProfile2D` of the mean of `z` per cell of
    /// `x` and `y` (a model of two axes).
    pub fn profile2d(
        &self,
        model: impl Into<ProfileModel>,
        [x, y, z]: [&str; 3],
        weight: Option<&str>,
    ) -> Result<Booked> {
        self.profile(model, &[x, y, z], weight)
    }

    /// A profile of the last of `columns` over the axes of the others.
    fn profile(
        &self,
        model: impl Into<ProfileModel>,
        columns: &[&str],
        weight: Option<&str>,
    ) -> Result<Booked> {
        let ProfileModel {
            model,
            values,
            error_mode,
        } = model.into();
        self.book(ActionSpec::Profile {
            name: model.name,
            title: model.title,
            axes: model.axes,
            columns: columns.iter().map(|c| c.to_string()).collect(),
            weight: weight.map(str::to_string),
            values,
            error_mode,
        })
    }

    /// `Count()`: the events that pass the filters above.
    pub fn count(&self) -> Result<Booked> {
        self.book(ActionSpec::Count)
    }

    /// `Sum(column)`: of every value (lists' items included), as `double`.
    pub fn sum(&self, column: &str) -> Result<Booked> {
        self.book(ActionSpec::Sum(column.into()))
    }

    /// `Mean(column)`.
    pub fn mean(&self, column: &str) -> Result<Booked> {
        self.book(ActionSpec::Mean(column.into()))
    }

    /// `Min(column)`.
    pub fn min(&self, column: &str) -> Result<Booked> {
        self.book(ActionSpec::Min(column.into()))
    }

    /// `Max(column)`.
    pub fn max(&self, column: &str) -> Result<Booked> {
        self.book(ActionSpec::Max(column.into()))
    }

    /// `StdDev(column)`: the sample standard deviation.
    pub fn std_dev(&self, column: &str) -> Result<Booked> {
        self.book(ActionSpec::StdDev(column.into()))
    }

    /// `Take(column)`: every value, one per event in entry order.
    pub fn take(&self, column: &str) -> Result<Booked> {
        self.book(ActionSpec::Take(column.into()))
    }

    /// `Graph(x, y)`: a `TGraph` (`y_vs_x`, titled `y vs x`) of a point per event's pair of
    /// values, or per pair of items of two lists of one length, in entry order at any
    /// number of threads (RDataFrame's order is its threads' when it runs on several).
    pub fn graph(&self, x: &str, y: &str) -> Result<Booked> {
        self.book(ActionSpec::Graph {
            name: format!("{y}_vs_{x}"),
            x: x.into(),
            y: y.into(),
            errors: Vec::new(),
        })
    }

    /// `GraphAsymmErrors(x, y, exl, exh, eyl, eyh)`: a `TGraphAsymmErrors`, a [`graph`]
    /// whose points have errors below and above in x and y, from four more columns.
    ///
    /// [`graph`]: Frame::graph
    pub fn graph_asymm_errors(&self, x: &str, y: &str, errors: [&str; 4]) -> Result<Booked> {
        self.book(ActionSpec::Graph {
            name: format!("{y}_vs_{x}"),
            x: x.into(),
            y: y.into(),
            errors: errors.iter().map(|e| e.to_string()).collect(),
        })
    }

    /// `Stats(value, weight)`: a `TStatistic` of the values (a list's items, each with its
    /// event's weight, or with its own from a list of weights of one length), filled in
    /// entry order within each batch, batches merged in dataset order as ROOT merges its
    /// threads' statistics.
    pub fn stats(&self, value: &str, weight: Option<&str>) -> Result<Booked> {
        self.book(ActionSpec::Stats {
            value: value.into(),
            weight: weight.map(str::to_string),
        })
    }

    /// `Report()`: how many events each named filter above saw and passed.
    pub fn report(&self) -> Result<Booked> {
        self.book(ActionSpec::Report)
    }
}
