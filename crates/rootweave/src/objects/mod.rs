//! Every keyed object of a file, by path: read through the file's StreamerInfo into a
//! generic [`Object`] (its members by name, base classes' members first), and typed views
//! of the common classes built from it ([`Histogram`] for `TH1`/`TH2`/`TH3` of every bin
//! type and the profiles); graphs of points written as `TGraph`s ([`Graph`]),
//! statistics of weighted values as `TStatistic`s ([`Statistic`]).

mod copy;
mod graph_write;
mod hist;
mod hist_stats;
mod hist_write;
mod layouts;
mod statistic;
pub(crate) mod traced;
mod write_string;

pub use copy::copy_object;
pub use graph_write::{write_graph, Graph};
pub(crate) use hist::cells_array;
pub use hist::{is_histogram_class, Axis, ErrorMode, Histogram, Profile};
pub use hist_stats::stat_names;
pub use hist_write::write_histogram;
pub use statistic::{write_statistic, Statistic};
pub use write_string::write_string;

pub use crate::streamer::{Name, Object, Value};

use crate::container::{KeyInfo, RootFile};
use crate::error::{Error, Result};
use crate::streamer::{Cursor, ObjectReader, StreamerSet};

/// The key at `path`: names of the directories down to it, then its own name (each
/// `name` or `name;cycle`, the highest cycle when none is given). Path components are
/// taken as they are, so names holding `/` or `:` can be reached.
pub fn find_key(file: &RootFile, path: &[&str]) -> Result<KeyInfo> {
    let not_found = || Error::NotFound {
        file: file.name().to_string(),
        name: path.join("/"),
    };
    let (last, dirs) = path.split_last().ok_or_else(not_found)?;
    let mut keys = file.keys().to_vec();
    for dir in dirs {
        let key = cycle_of(&keys, dir).ok_or_else(not_found)?;
        keys = file.directory_keys(&key)?;
    }
    cycle_of(&keys, last).ok_or_else(not_found)
}

/// The key named `name` (`name;cycle`, or the highest cycle) among `keys`.
fn cycle_of(keys: &[KeyInfo], name: &str) -> Option<KeyInfo> {
    let (base, cycle) = match name.rsplit_once(';') {
        Some((n, c)) if c.parse::<u16>().is_ok() => (n, c.parse::<u16>().ok()),
        _ => (name, None),
    };
    keys.iter()
        .filter(|k| k.name == base && cycle.is_none_or(|c| k.cycle == c))
        .max_by_key(|k| k.cycle)
        .cloned()
}

/// Reads the object behind `key` through the file's class layouts (a `std::string` or an
/// STL container as an object of one member, `value`).
pub fn read_object(file: &RootFile, streamers: &StreamerSet, key: &KeyInfo) -> Result<Object> {
    let (what, base) = key.record_label(&format!("{} '{}'", key.class_name, key.name));
    let payload = file.read_object(key)?;
    let mut c = Cursor::new(&payload, base, file.name(), &what, key.keylen as u32);
    ObjectReader { streamers }.read_keyed(&mut c, &key.class_name)
}
