//! Columns of the analysis layer: a batch's values of one column (a branch, a field or a
//! defined quantity), one per event or a list per event (an `RVec`), typed as C++ types them
//! (`bool`, integers, `float`, `double`, four-vectors), so that arithmetic rounds as
//! RDataFrame's does.

use std::sync::Arc;

use crate::array::Array;

use super::expr::{IntTy, Rank};

pub use super::expr::lorentz::P4;
pub use super::expr::physics_vectors::{VectorClass, Xyzt};

/// Values of one type, one after the other.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// `bool`
    Bool(Vec<bool>),
    /// Integers of one C++ type, each held in an `i64` as [`IntTy`] says.
    Int(IntTy, Vec<i64>),
    /// `int`s that are 0 or 1, a byte each: what `RVec`'s comparisons and logic give
    /// (`RVec<int>`), kept as narrow as the conditions they are.
    IntBool(Vec<bool>),
    /// `float`
    F32(Vec<f32>),
    /// `double`
    F64(Vec<f64>),
    /// `ROOT::Math::PtEtaPhiMVector`
    P4(Vec<P4>),
    /// `TVector2`, `TVector3`, `TLorentzVector`, or a `ROOT::Math` vector held as its
    /// numbers (`XYZVector`, `XYZPoint`, `PxPyPzEVector`, `PtEtaPhiEVector`,
    /// `PxPyPzMVector`): each vector's numbers.
    Vectors(VectorClass, Vec<Xyzt>),
    /// `std::string` (also `TString`): each string's bytes as read, compared
    /// byte by byte as `std::string` compares them.
    Str(Vec<Text>),
}

/// One string's bytes, shared: a string repeated for every item of a list, or a literal
/// for every event, is not copied.
pub type Text = Arc<[u8]>;

impl Values {
    /// The number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::Bool(v) => v.len(),
            Values::Int(_, v) => v.len(),
            Values::IntBool(v) => v.len(),
            Values::F32(v) => v.len(),
            Values::F64(v) => v.len(),
            Values::P4(v) => v.len(),
            Values::Vectors(_, v) => v.len(),
            Values::Str(v) => v.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The C++ name of the type.
    pub fn type_name(&self) -> &'static str {
        match self {
            Values::Bool(_) => "bool",
            Values::Int(t, _) => t.name(),
            Values::IntBool(_) => "int",
            Values::F32(_) => "float",
            Values::F64(_) => "double",
            Values::P4(_) => "PtEtaPhiMVector",
            Values::Vectors(c, _) => c.name(),
            Values::Str(_) => "string",
        }
    }

    /// The values at `index`, in that order.
    pub fn gather(&self, index: &[usize]) -> Values {
        fn pick<T: Clone>(v: &[T], index: &[usize]) -> Vec<T> {
            index.iter().map(|&i| v[i].clone()).collect()
        }
        match self {
            Values::Bool(v) => Values::Bool(pick(v, index)),
            Values::Int(t, v) => Values::Int(*t, pick(v, index)),
            Values::IntBool(v) => Values::IntBool(pick(v, index)),
            Values::F32(v) => Values::F32(pick(v, index)),
            Values::F64(v) => Values::F64(pick(v, index)),
            Values::P4(v) => Values::P4(pick(v, index)),
            Values::Vectors(c, v) => Values::Vectors(*c, pick(v, index)),
            Values::Str(v) => Values::Str(pick(v, index)),
        }
    }

    /// Each value (one per event) repeated for every item of its event's list, the lists
    /// cut at `offsets` (an event's value beside each of its jets).
    pub fn repeat_each(&self, offsets: &[usize]) -> Values {
        match self {
            Values::Bool(v) => Values::Bool(repeat_each(v, offsets)),
            Values::Int(t, v) => Values::Int(*t, repeat_each(v, offsets)),
            Values::IntBool(v) => Values::IntBool(repeat_each(v, offsets)),
            Values::F32(v) => Values::F32(repeat_each(v, offsets)),
            Values::F64(v) => Values::F64(repeat_each(v, offsets)),
            Values::P4(v) => Values::P4(repeat_each(v, offsets)),
            Values::Vectors(c, v) => Values::Vectors(*c, repeat_each(v, offsets)),
            Values::Str(v) => Values::Str(repeat_each(v, offsets)),
        }
    }

    /// The lists `index` of these values cut into lists at `offsets`, in that order, with
    /// their offsets: each list copied as one slice (a jet's event's muons, once per jet).
    pub fn gather_lists(&self, offsets: &[usize], index: &[usize]) -> (Vec<usize>, Values) {
        fn copy<T: Clone>(v: &[T], offsets: &[usize], index: &[usize], n: usize) -> Vec<T> {
            let mut out = Vec::with_capacity(n);
            for &e in index {
                out.extend_from_slice(&v[offsets[e]..offsets[e + 1]]);
            }
            out
        }
        let mut out = Vec::with_capacity(index.len() + 1);
        out.push(0);
        let mut n = 0;
        for &e in index {
            n += offsets[e + 1] - offsets[e];
            out.push(n);
        }
        let values = match self {
            Values::Bool(v) => Values::Bool(copy(v, offsets, index, n)),
            Values::Int(t, v) => Values::Int(*t, copy(v, offsets, index, n)),
            Values::IntBool(v) => Values::IntBool(copy(v, offsets, index, n)),
            Values::F32(v) => Values::F32(copy(v, offsets, index, n)),
            Values::F64(v) => Values::F64(copy(v, offsets, index, n)),
            Values::P4(v) => Values::P4(copy(v, offsets, index, n)),
            Values::Vectors(c, v) => Values::Vectors(*c, copy(v, offsets, index, n)),
            Values::Str(v) => Values::Str(copy(v, offsets, index, n)),
        };
        (out, values)
    }

    /// These values followed by `more`'s, which must be of the same type.
    pub fn append(self, more: Values) -> Result<Values, String> {
        fn join<T>(mut a: Vec<T>, b: Vec<T>) -> Vec<T> {
            a.extend(b);
            a
        }
        Ok(match (self, more) {
            (Values::Bool(a), Values::Bool(b)) => Values::Bool(join(a, b)),
            (Values::Int(s, a), Values::Int(t, b)) if s == t => Values::Int(s, join(a, b)),
            (Values::IntBool(a), Values::IntBool(b)) => Values::IntBool(join(a, b)),
            (Values::F32(a), Values::F32(b)) => Values::F32(join(a, b)),
            (Values::F64(a), Values::F64(b)) => Values::F64(join(a, b)),
            (Values::P4(a), Values::P4(b)) => Values::P4(join(a, b)),
            (Values::Vectors(c, a), Values::Vectors(d, b)) if c == d => {
                Values::Vectors(c, join(a, b))
            }
            (Values::Str(a), Values::Str(b)) => Values::Str(join(a, b)),
            (a, b) => {
                return Err(format!(
                    "values of {} and {} in one column",
                    a.type_name(),
                    b.type_name()
                ))
            }
        })
    }

    /// Room for `additional` more values.
    pub fn reserve(&mut self, additional: usize) {
        match self {
            Values::Bool(v) => v.reserve(additional),
            Values::Int(_, v) => v.reserve(additional),
            Values::IntBool(v) => v.reserve(additional),
            Values::F32(v) => v.reserve(additional),
            Values::F64(v) => v.reserve(additional),
            Values::P4(v) => v.reserve(additional),
            Values::Vectors(_, v) => v.reserve(additional),
            Values::Str(v) => v.reserve(additional),
        }
    }

    /// Each value as a `double` (a number), for filling and reductions.
    pub fn as_f64(&self) -> Option<Vec<f64>> {
        Some(match self {
            Values::Bool(v) | Values::IntBool(v) => v.iter().map(|&b| b as u8 as f64).collect(),
            Values::Int(t, v) => v.iter().map(|&x| t.to_f64(x)).collect(),
            Values::F32(v) => v.iter().map(|&x| x as f64).collect(),
            Values::F64(v) => v.clone(),
            Values::P4(_) | Values::Vectors(..) | Values::Str(_) => return None,
        })
    }
}

/// `v[e]` for every item of event `e`'s list, the lists cut at `offsets`.
pub fn repeat_each<T: Clone>(v: &[T], offsets: &[usize]) -> Vec<T> {
    let mut out = Vec::with_capacity(offsets.last().copied().unwrap_or(0));
    for (x, w) in v.iter().zip(offsets.windows(2)) {
        out.resize(out.len() + (w[1] - w[0]), x.clone());
    }
    out
}

/// The event of every item of lists cut at `offsets`: the number of lists that start at or
/// before the item after the first, counted as a running sum of list starts (two loops
/// without a branch per list, where most lists hold a few items).
pub fn item_events(offsets: &[usize]) -> Vec<usize> {
    let items = offsets.last().copied().unwrap_or(0);
    let mut out = vec![0usize; items + 1];
    for &start in offsets
        .get(1..offsets.len().saturating_sub(1))
        .unwrap_or(&[])
    {
        out[start.min(items)] += 1;
    }
    out.truncate(items);
    let mut event = 0;
    for o in &mut out {
        event += *o;
        *o = event;
    }
    out
}

/// Gathers of columns by one index of events that share, per shape of lists, where each
/// item of the gathered lists comes from: a jet's event's muons' `eta`, `phi` and `pt`
/// then cost one index for the three and a copy each.
#[derive(Default)]
pub struct Gatherer {
    /// One per shape of lists seen.
    plans: Vec<ListPlan>,
}

/// The offsets that cut the source lists, the offsets of the lists gathered by an index,
/// and the source item of each gathered item.
type ListPlan = (Arc<Vec<usize>>, Arc<Vec<usize>>, Vec<usize>);

impl Gatherer {
    /// `column`'s events at `index` (always the same index for one gatherer), as
    /// [`Column::gather`] gives them.
    pub fn gather(&mut self, column: &Column, index: &[usize]) -> Column {
        match column {
            Column::Jagged(offsets, values) => {
                let found = self
                    .plans
                    .iter()
                    .position(|(o, ..)| Arc::ptr_eq(o, offsets) || o == offsets);
                let at = found.unwrap_or_else(|| {
                    self.plans.push(list_plan(offsets, index));
                    self.plans.len() - 1
                });
                let (_, gathered, items) = &self.plans[at];
                Column::Jagged(gathered.clone(), values.gather(items).into())
            }
            Column::Tuple(parts) => {
                Column::Tuple(parts.iter().map(|p| self.gather(p, index)).collect())
            }
            flat => flat.gather(index),
        }
    }
}

/// Gathers of read columns' events straight from a batch's arrays: the events a filter
/// keeps, without converting the others first (a column read for every event and then
/// narrowed to the few a filter keeps was mostly converted for nothing). Lists of one shape
/// (the columns of one counter) share their offsets and the index of their items, as
/// [`Gatherer`]'s do.
#[derive(Default)]
pub struct ArrayGatherer<'a> {
    /// One per shape of lists seen.
    plans: Vec<ArrayPlan<'a>>,
}

/// The array's offsets for the batch's events, the offsets of the lists gathered from them,
/// and the array item of each gathered item.
type ArrayPlan<'a> = (&'a [u64], Arc<Vec<usize>>, Vec<usize>);

impl<'a> ArrayGatherer<'a> {
    /// Events `events` (ascending positions among the `count` events from `start`) of
    /// `array`, as [`Column::from_array`] of all `count` events gathered at `events` gives
    /// them; `None` for layouts expressions do not take.
    pub fn gather(
        &mut self,
        array: &'a Array,
        start: usize,
        count: usize,
        events: &[usize],
    ) -> Option<Column> {
        if let Some((offsets, values)) = list_parts(array) {
            let cut = &offsets[start..=start + count];
            let found = self
                .plans
                .iter()
                .position(|(o, ..)| std::ptr::eq(*o, cut) || *o == cut);
            let at = found.unwrap_or_else(|| {
                let (gathered, items) = array_plan(cut, events);
                self.plans.push((cut, Arc::new(gathered), items));
                self.plans.len() - 1
            });
            let (_, gathered, items) = &self.plans[at];
            let values = values.at(At(items.iter().copied()))?;
            return Some(Column::Jagged(gathered.clone(), values.into()));
        }
        match array {
            Array::Fixed { .. } => {
                let (size, values) = fixed_numbers(array)?;
                let offsets = (0..=events.len()).map(|k| k * size).collect();
                let items = events
                    .iter()
                    .flat_map(|&e| (start + e) * size..(start + e + 1) * size);
                let values = numbers_at(values, At(items))?;
                Some(Column::Jagged(Arc::new(offsets), values.into()))
            }
            flat => {
                let values = numbers_at(flat, At(events.iter().map(|&e| start + e)))?;
                Some(Column::Flat(values.into()))
            }
        }
    }
}

/// The lists `events` of lists cut at `cut`: their offsets and the array item of each of
/// their items.
fn array_plan(cut: &[u64], events: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let mut out = Vec::with_capacity(events.len() + 1);
    out.push(0);
    let mut n = 0;
    for &e in events {
        n += (cut[e + 1] - cut[e]) as usize;
        out.push(n);
    }
    let mut items = vec![0usize; n];
    for (&e, w) in events.iter().zip(out.windows(2)) {
        for (slot, item) in items[w[0]..w[1]].iter_mut().zip(cut[e] as usize..) {
            *slot = item;
        }
    }
    (out, items)
}

/// Whether expressions take the values of `array`: numbers or strings (not records or
/// lists).
pub fn numbers(array: &Array) -> bool {
    numbers_at(array, 0..0).is_some()
}

/// Which items of an array a column takes: a run of them ([`Range`](std::ops::Range)), or
/// positions in order ([`At`]).
trait Picks {
    /// `f` of each item taken from `v`, in order.
    fn map<T: Copy, U>(self, v: &[T], f: impl Fn(T) -> U) -> Vec<U>;

    /// The positions of the items taken, in order.
    fn positions(self) -> impl Iterator<Item = usize>;
}

impl Picks for std::ops::Range<usize> {
    fn map<T: Copy, U>(self, v: &[T], f: impl Fn(T) -> U) -> Vec<U> {
        v[self].iter().map(|&x| f(x)).collect()
    }

    fn positions(self) -> impl Iterator<Item = usize> {
        self
    }
}

/// Items at positions, in the order given.
struct At<I>(I);

impl<I: Iterator<Item = usize>> Picks for At<I> {
    fn map<T: Copy, U>(self, v: &[T], f: impl Fn(T) -> U) -> Vec<U> {
        self.0.map(|i| f(v[i])).collect()
    }

    fn positions(self) -> impl Iterator<Item = usize> {
        self.0
    }
}

/// Numbers `at` of an array as the analysis types them (integers widened to `int64`,
/// `float` kept), or strings; `None` for other layouts.
fn numbers_at(array: &Array, at: impl Picks) -> Option<Values> {
    Some(match array {
        Array::Bool(v) => Values::Bool(at.map(v, |x| x)),
        Array::Int8(v) => Values::Int(IntTy::of_width(8, false), at.map(v, i64::from)),
        Array::Int16(v) => Values::Int(IntTy::of_width(16, false), at.map(v, i64::from)),
        Array::Int32(v) => Values::Int(IntTy::INT, at.map(v, i64::from)),
        Array::Int64(v) => Values::Int(IntTy::LONG64, at.map(v, |x| x)),
        Array::UInt8(v) => Values::Int(IntTy::of_width(8, true), at.map(v, i64::from)),
        Array::UInt16(v) => Values::Int(IntTy::of_width(16, true), at.map(v, i64::from)),
        Array::UInt32(v) => Values::Int(IntTy::UINT, at.map(v, i64::from)),
        Array::UInt64(v) => Values::Int(IntTy::ULONG64, at.map(v, |x| x as i64)),
        Array::Float32(v) => Values::F32(at.map(v, |x| x)),
        Array::Float64(v) => Values::F64(at.map(v, |x| x)),
        Array::String { offsets, bytes } => Values::Str(
            at.positions()
                .map(|i| Text::from(&bytes[offsets[i] as usize..offsets[i + 1] as usize]))
                .collect(),
        ),
        Array::Record { .. } => match stored_vectors(array) {
            Some((class, parts)) => Values::Vectors(class, held_at(&parts, at)),
            None => return Items::FourVectors(stored_p4(array)?).at(at),
        },
        _ => return None,
    })
}

/// The items of the lists of a list column: an array of them, or the coordinates of the
/// four-vectors of a split collection of them (`PtEtaPhiMVector`s, or the numbers of
/// another `ROOT::Math` four-vector class).
enum Items<'a> {
    Array(&'a Array),
    FourVectors([&'a [f64]; 4]),
    /// The members of another `ROOT::Math` class's `fCoordinates`, in the order held.
    Held(VectorClass, Vec<&'a [f64]>),
}

impl Items<'_> {
    /// The items `at`, as [`numbers_at`] gives an array's.
    fn at(&self, at: impl Picks) -> Option<Values> {
        match self {
            Items::Array(a) => numbers_at(a, at),
            Items::FourVectors([pt, eta, phi, m]) => Some(Values::P4(
                at.positions()
                    .map(|i| P4::stored(pt[i], eta[i], phi[i], m[i]))
                    .collect(),
            )),
            Items::Held(class, parts) => Some(Values::Vectors(*class, held_at(parts, at))),
        }
    }
}

/// The offsets and items of a list column: a list array's, or those of a split
/// `std::vector` of stored `ROOT::Math` vectors, which a TTree's reader gives as a
/// record of a list per member (`v.fCoordinates.fPt`, ..., of the same lengths).
fn list_parts(array: &Array) -> Option<(&[u64], Items<'_>)> {
    match array {
        Array::List { offsets, values } => Some((offsets, Items::Array(values))),
        Array::Record { fields, .. } => {
            let a = fields.first()?;
            let offsets = match &a.1 {
                Array::List { offsets, .. } => offsets.as_slice(),
                _ => return None,
            };
            fn member<'a>(
                (name, list): &'a (String, Array),
                want: &str,
                offsets: &[u64],
            ) -> Option<&'a [f64]> {
                let Array::List { offsets: o, values } = list else {
                    return None;
                };
                let Array::Float64(v) = values.as_ref() else {
                    return None;
                };
                let named = name.ends_with(&format!("fCoordinates.{want}"));
                (named && o.as_slice() == offsets).then_some(v.as_slice())
            }
            let held = |names: &[&str]| -> Option<Vec<&[f64]>> {
                (fields.len() == names.len()).then_some(())?;
                fields
                    .iter()
                    .zip(names)
                    .map(|(f, want)| member(f, want, offsets))
                    .collect()
            };
            for class in HELD_CLASSES {
                if let Some(parts) = held(held_members(class)) {
                    return Some((offsets, Items::Held(class, parts)));
                }
            }
            let [pt, eta, phi, m] = held(&["fPt", "fEta", "fPhi", "fM"])?[..] else {
                return None;
            };
            Some((offsets, Items::FourVectors([pt, eta, phi, m])))
        }
        _ => None,
    }
}

/// The components of ROOT's physics vectors as the readers give them: `TVector2`'s and
/// `TVector3`'s records of the doubles `fX`, `fY` (, `fZ`), `TLorentzVector`'s of a
/// `TVector3 fP` and the double `fE` (their `TObject` members not read). Only those classes
/// are records of those members alone, so their values are vectors expressions take.
fn stored_vectors(array: &Array) -> Option<(VectorClass, Vec<&[f64]>)> {
    let Array::Record { fields, .. } = array else {
        return None;
    };
    fn doubles<'a>(fields: &'a [(String, Array)], names: &[&str]) -> Option<Vec<&'a [f64]>> {
        (fields.len() == names.len()).then_some(())?;
        fields
            .iter()
            .zip(names)
            .map(|((name, values), want)| match values {
                Array::Float64(v) if name == want => Some(v.as_slice()),
                _ => None,
            })
            .collect()
    }
    if let [(
        p,
        Array::Record {
            fields: spatial, ..
        },
    ), (e, Array::Float64(energy))] = fields.as_slice()
    {
        (p == "fP" && e == "fE").then_some(())?;
        let mut parts = doubles(spatial, &["fX", "fY", "fZ"])?;
        parts.push(energy);
        return Some((VectorClass::Lorentz, parts));
    }
    // A `ROOT::Math` vector held as numbers: its `fCoordinates` (the TTree reader's
    // names keep the member's path), whose members name the class (`fX fY fZ`: an
    // `XYZVector`'s, and an `XYZPoint`'s, which the column's declared type tells apart).
    if let [(outer, Array::Record { fields: inner, .. })] = fields.as_slice() {
        (outer == "fCoordinates").then_some(())?;
        return HELD_CLASSES.into_iter().find_map(|class| {
            (inner.len() == held_members(class).len()).then_some(())?;
            let parts = inner
                .iter()
                .zip(held_members(class))
                .map(|((name, values), want)| match values {
                    Array::Float64(v)
                        if name.strip_prefix("fCoordinates.").unwrap_or(name) == *want =>
                    {
                        Some(v.as_slice())
                    }
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()?;
            Some((class, parts))
        });
    }
    if let Some(parts) = doubles(fields, &["fX", "fY", "fZ"]) {
        return Some((VectorClass::Vector3, parts));
    }
    Some((VectorClass::Vector2, doubles(fields, &["fX", "fY"])?))
}

/// The coordinates of stored `ROOT::Math::PtEtaPhiMVector`s (`LorentzVector<PtEtaPhiM4D<double>>`):
/// records of one member `fCoordinates`, a record of the doubles `fPt`, `fEta`, `fPhi`, `fM`
/// (named so in an RNTuple, `fCoordinates.fPt`, ... as a TTree's split branches are read).
/// Only that class has those members, so its values are four-vectors expressions take.
fn stored_p4(array: &Array) -> Option<[&[f64]; 4]> {
    let Array::Record { fields, .. } = array else {
        return None;
    };
    let [(outer, Array::Record { fields, .. })] = fields.as_slice() else {
        return None;
    };
    let [a, b, c, d] = fields.as_slice() else {
        return None;
    };
    fn coordinate<'a>((name, values): &'a (String, Array), want: &str) -> Option<&'a [f64]> {
        match values {
            Array::Float64(v) if name.strip_prefix("fCoordinates.").unwrap_or(name) == want => {
                Some(v)
            }
            _ => None,
        }
    }
    (outer == "fCoordinates").then_some(())?;
    Some([
        coordinate(a, "fPt")?,
        coordinate(b, "fEta")?,
        coordinate(c, "fPhi")?,
        coordinate(d, "fM")?,
    ])
}

/// The lists `index` of lists cut at `offsets`: their offsets and the source item of each
/// of their items.
fn list_plan(offsets: &Arc<Vec<usize>>, index: &[usize]) -> ListPlan {
    let mut out = Vec::with_capacity(index.len() + 1);
    out.push(0);
    let mut n = 0;
    for &e in index {
        n += offsets[e + 1] - offsets[e];
        out.push(n);
    }
    // Each list's items written in place (most lists hold a few: no growth check per item).
    let mut items = vec![0usize; n];
    for (&e, w) in index.iter().zip(out.windows(2)) {
        for (slot, item) in items[w[0]..w[1]].iter_mut().zip(offsets[e]..) {
            *slot = item;
        }
    }
    (offsets.clone(), Arc::new(out), items)
}

/// A column's values for the events of a batch (after the filters above it). Its parts are
/// shared: a column is cloned wherever an expression names it, without copying its values.
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    /// One value per event.
    Flat(Arc<Values>),
    /// A list per event: `offsets` (events + 1) into the values.
    Jagged(Arc<Vec<usize>>, Arc<Values>),
    /// Several lists per event of the same lengths (what `Combinations` returns: the
    /// indices of the first, second, ... item of every combination).
    Tuple(Vec<Column>),
}

impl Column {
    /// This column of a dataset's integers typed as C++'s `long` or `unsigned long` (a
    /// `Long_t` leaf, an RNTuple's `std::uint64_t`) rather than `long long` if they have 64
    /// bits, as `signed char` (an RNTuple's `std::int8_t`) rather than `char` (`Char_t`) if
    /// they are signed and have 8: the type RDataFrame gives them, and so expressions of them,
    /// have. The same values.
    pub fn into_long_or_signed_char(self) -> Column {
        fn respelled(mut v: Arc<Values>) -> Arc<Values> {
            let to = match &*v {
                Values::Int(t, _) if t.rank == Rank::LongLong => Rank::Long,
                Values::Int(t, _) if t.rank == Rank::Char && !t.unsigned => Rank::SignedChar,
                _ => return v,
            };
            if let Values::Int(t, _) = Arc::make_mut(&mut v) {
                t.rank = to;
            }
            v
        }
        match self {
            Column::Flat(v) => Column::Flat(respelled(v)),
            Column::Jagged(o, v) => Column::Jagged(o, respelled(v)),
            Column::Tuple(parts) => Column::Tuple(
                parts
                    .into_iter()
                    .map(Column::into_long_or_signed_char)
                    .collect(),
            ),
        }
    }

    /// This column of a dataset's `XYZVector`s as the `XYZPoint`s its declared type says
    /// they are (both classes' members are `fCoordinates {fX, fY, fZ}`). The same values.
    pub fn into_points(self) -> Column {
        fn points(mut v: Arc<Values>) -> Arc<Values> {
            if !matches!(*v, Values::Vectors(VectorClass::Cartesian3, _)) {
                return v;
            }
            if let Values::Vectors(class, _) = Arc::make_mut(&mut v) {
                *class = VectorClass::CartesianPoint;
            }
            v
        }
        match self {
            Column::Flat(v) => Column::Flat(points(v)),
            Column::Jagged(o, v) => Column::Jagged(o, points(v)),
            tuple => tuple,
        }
    }

    /// The values of a column of one value per event.
    pub fn flat(&self) -> Option<&Values> {
        match self {
            Column::Flat(v) => Some(v),
            _ => None,
        }
    }

    /// The offsets and values of a column of lists.
    pub fn jagged(&self) -> Option<(&Arc<Vec<usize>>, &Values)> {
        match self {
            Column::Jagged(o, v) => Some((o, v)),
            _ => None,
        }
    }

    /// The number of events.
    pub fn events(&self) -> usize {
        match self {
            Column::Flat(v) => v.len(),
            Column::Jagged(offsets, _) => offsets.len() - 1,
            Column::Tuple(parts) => parts.first().map_or(0, Column::events),
        }
    }

    /// The C++ type (`float`, `RVec<float>`, ...).
    pub fn type_name(&self) -> String {
        match self {
            Column::Flat(v) => v.type_name().to_string(),
            Column::Jagged(_, v) => format!("RVec<{}>", v.type_name()),
            Column::Tuple(parts) => format!(
                "RVec<RVec<{}>>",
                parts.first().map_or("int".to_string(), |p| match p {
                    Column::Jagged(_, v) => v.type_name().to_string(),
                    other => other.type_name(),
                })
            ),
        }
    }

    /// The events at `index` (positions in this column's events), in that order.
    pub fn gather(&self, index: &[usize]) -> Column {
        match self {
            Column::Flat(v) => Column::Flat(v.gather(index).into()),
            Column::Jagged(offsets, v) => {
                let (offsets, values) = v.gather_lists(offsets, index);
                Column::Jagged(Arc::new(offsets), values.into())
            }
            Column::Tuple(parts) => Column::Tuple(parts.iter().map(|p| p.gather(index)).collect()),
        }
    }

    /// Columns of consecutive events (chunks of a batch) as one column.
    pub fn concat(parts: Vec<Column>) -> Result<Column, String> {
        let mut iter = parts.into_iter();
        let Some(first) = iter.next() else {
            return Ok(Column::Flat(Values::F64(Vec::new()).into()));
        };
        let rest: Vec<Column> = iter.collect();
        let first = first.with_room_for(&rest);
        rest.into_iter().try_fold(first, |a, b| a.followed_by(b))
    }

    /// This column owned, with room for the events of `more` after it: a batch's chunks
    /// joined into one column are copied once, not again each time the vectors grow.
    fn with_room_for(self, more: &[Column]) -> Column {
        if more.is_empty() {
            return self;
        }
        match self {
            Column::Flat(x) => {
                let mut x = Arc::unwrap_or_clone(x);
                x.reserve(more.iter().map(|m| m.values_len()).sum());
                Column::Flat(x.into())
            }
            Column::Jagged(o, x) => {
                let mut o = Arc::unwrap_or_clone(o);
                let mut x = Arc::unwrap_or_clone(x);
                o.reserve(more.iter().map(Column::events).sum());
                x.reserve(more.iter().map(|m| m.values_len()).sum());
                Column::Jagged(o.into(), x.into())
            }
            Column::Tuple(parts) => Column::Tuple(
                parts
                    .into_iter()
                    .enumerate()
                    .map(|(k, p)| {
                        let more: Vec<Column> = more
                            .iter()
                            .filter_map(|m| match m {
                                Column::Tuple(q) => q.get(k).cloned(),
                                _ => None,
                            })
                            .collect();
                        p.with_room_for(&more)
                    })
                    .collect(),
            ),
        }
    }

    /// The number of values a flat or jagged column holds (0 for a tuple).
    fn values_len(&self) -> usize {
        match self {
            Column::Flat(v) | Column::Jagged(_, v) => v.len(),
            Column::Tuple(_) => 0,
        }
    }

    /// This column's events followed by `more`'s (of the same shape and type).
    pub fn followed_by(self, more: Column) -> Result<Column, String> {
        Ok(match (self, more) {
            (Column::Flat(x), Column::Flat(y)) => Column::Flat(
                Arc::unwrap_or_clone(x)
                    .append(Arc::unwrap_or_clone(y))?
                    .into(),
            ),
            (Column::Jagged(oa, x), Column::Jagged(ob, y)) => {
                let base = *oa.last().unwrap_or(&0);
                let mut offsets = Arc::unwrap_or_clone(oa);
                offsets.extend(ob.iter().skip(1).map(|o| o + base));
                let values = Arc::unwrap_or_clone(x).append(Arc::unwrap_or_clone(y))?;
                Column::Jagged(Arc::new(offsets), values.into())
            }
            (Column::Tuple(a), Column::Tuple(b)) if a.len() == b.len() => Column::Tuple(
                a.into_iter()
                    .zip(b)
                    .map(|(x, y)| x.followed_by(y))
                    .collect::<Result<_, _>>()?,
            ),
            (a, b) => {
                return Err(format!(
                    "a column that is a {} in some events and a {} in others",
                    a.type_name(),
                    b.type_name()
                ))
            }
        })
    }

    /// Events `events` of a column read from a file: numbers one per event, or lists of
    /// numbers; `None` for other layouts (records, strings, nested lists).
    pub fn from_array(array: &Array, events: std::ops::Range<usize>) -> Option<Column> {
        if let Some((offsets, values)) = list_parts(array) {
            let base = offsets[events.start];
            let items = base as usize..offsets[events.end] as usize;
            let offsets: Vec<usize> = offsets[events.start..=events.end]
                .iter()
                .map(|&o| (o - base) as usize)
                .collect();
            return Some(Column::Jagged(Arc::new(offsets), values.at(items)?.into()));
        }
        match array {
            Array::Fixed { .. } => {
                let (size, values) = fixed_numbers(array)?;
                let offsets = (0..=events.len()).map(|k| k * size).collect();
                let items = events.start * size..events.end * size;
                Some(Column::Jagged(
                    Arc::new(offsets),
                    numbers_at(values, items)?.into(),
                ))
            }
            flat => Some(Column::Flat(numbers_at(flat, events)?.into())),
        }
    }
}

/// A fixed-size array (`x[3]/F`, `m[2][2]/I`, `std::array`) as RDataFrame reads it, an
/// `RVec` of all its numbers (the dimensions flattened): how many there are per entry, and
/// the array of them; `None` for other layouts and items that are not numbers.
fn fixed_numbers(array: &Array) -> Option<(usize, &Array)> {
    let mut size = 1usize;
    let mut at = array;
    while let Array::Fixed { size: n, values } = at {
        size = size.checked_mul(*n)?;
        at = values;
    }
    numbers(at).then_some((size, at))
}

impl Column {
    /// The column as an [`Array`]: numbers as they are typed (integers as `int64`), lists
    /// as lists, four-vectors as records `{pt, eta, phi, mass}`, combinations as lists of
    /// records `{"0", "1", ...}` of indices.
    pub fn into_array(self) -> Array {
        match self {
            Column::Flat(v) => values_array(Arc::unwrap_or_clone(v)),
            Column::Jagged(offsets, v) => Array::List {
                offsets: offsets.iter().map(|&o| o as u64).collect(),
                values: Box::new(values_array(Arc::unwrap_or_clone(v))),
            },
            Column::Tuple(parts) => {
                let offsets = match parts.first() {
                    Some(Column::Jagged(o, _)) => o.iter().map(|&o| o as u64).collect(),
                    _ => vec![0],
                };
                let len = *offsets.last().unwrap_or(&0) as usize;
                let fields = parts
                    .into_iter()
                    .enumerate()
                    .map(|(i, p)| match p.into_array() {
                        Array::List { values, .. } => (i.to_string(), *values),
                        other => (i.to_string(), other),
                    })
                    .collect();
                Array::List {
                    offsets,
                    values: Box::new(Array::Record { len, fields }),
                }
            }
        }
    }
}

/// Integers of type `t` as the array of its width and signedness.
fn int_array(t: IntTy, v: Vec<i64>) -> Array {
    match (t.bits(), t.unsigned) {
        (8, false) => Array::Int8(v.into_iter().map(|x| x as i8).collect()),
        (8, true) => Array::UInt8(v.into_iter().map(|x| x as u8).collect()),
        (16, false) => Array::Int16(v.into_iter().map(|x| x as i16).collect()),
        (16, true) => Array::UInt16(v.into_iter().map(|x| x as u16).collect()),
        (32, false) => Array::Int32(v.into_iter().map(|x| x as i32).collect()),
        (32, true) => Array::UInt32(v.into_iter().map(|x| x as u32).collect()),
        (_, false) => Array::Int64(v),
        (_, true) => Array::UInt64(v.into_iter().map(|x| x as u64).collect()),
    }
}

fn values_array(v: Values) -> Array {
    match v {
        Values::Bool(v) => Array::Bool(v),
        Values::Int(t, v) => int_array(t, v),
        Values::IntBool(v) => Array::Int32(v.into_iter().map(i32::from).collect()),
        Values::F32(v) => Array::Float32(v),
        Values::F64(v) => Array::Float64(v),
        Values::Str(v) => Array::strings(&v),
        Values::Vectors(class, v) => vectors_array(class, &v),
        Values::P4(v) => Array::Record {
            len: v.len(),
            fields: vec![
                ("pt".into(), Array::Float64(v.iter().map(P4::pt).collect())),
                (
                    "eta".into(),
                    Array::Float64(v.iter().map(P4::eta).collect()),
                ),
                (
                    "phi".into(),
                    Array::Float64(v.iter().map(P4::phi).collect()),
                ),
                ("mass".into(), Array::Float64(v.iter().map(P4::m).collect())),
            ],
        },
    }
}

/// Physics vectors as the readers give them (see [`stored_vectors`]), so that a defined
/// vector is written, taken and shown as a read one.
fn vectors_array(class: VectorClass, v: &[Xyzt]) -> Array {
    let part = |k: usize| Array::Float64(v.iter().map(|c| c[k]).collect());
    let record = |fields: Vec<(String, Array)>| Array::Record {
        len: v.len(),
        fields,
    };
    let spatial = |n: usize| {
        ["fX", "fY", "fZ"][..n]
            .iter()
            .enumerate()
            .map(|(k, name)| (name.to_string(), part(k)))
            .collect()
    };
    match class {
        VectorClass::Vector2 => record(spatial(2)),
        VectorClass::Vector3 => record(spatial(3)),
        VectorClass::Lorentz => record(vec![
            ("fP".into(), record(spatial(3))),
            ("fE".into(), part(3)),
        ]),
        held => {
            let members = held_members(held)
                .iter()
                .enumerate()
                .map(|(k, name)| (name.to_string(), part(k)))
                .collect();
            record(vec![("fCoordinates".into(), record(members))])
        }
    }
}

/// The `ROOT::Math` classes held as their numbers (but `PtEtaPhiMVector`, whose values are
/// [`Values::P4`]): the four-vectors and `XYZVector` (read `XYZPoint`s are its records too).
const HELD_CLASSES: [VectorClass; 4] = [
    VectorClass::CartesianLorentz,
    VectorClass::PtEtaPhiE,
    VectorClass::PxPyPzM,
    VectorClass::Cartesian3,
];

/// The members of the `fCoordinates` of such a class, in the order its numbers are held:
/// each class's names are its own (and not `PtEtaPhiM4D`'s `fPt fEta fPhi fM`).
fn held_members(class: VectorClass) -> &'static [&'static str] {
    match class {
        VectorClass::PtEtaPhiE => &["fPt", "fEta", "fPhi", "fE"],
        VectorClass::PxPyPzM => &["fX", "fY", "fZ", "fM"],
        VectorClass::Cartesian3 | VectorClass::CartesianPoint => &["fX", "fY", "fZ"],
        _ => &["fX", "fY", "fZ", "fT"],
    }
}

/// The vectors `at` of a class held as `parts` (a slice per member), unused numbers zero.
fn held_at(parts: &[&[f64]], at: impl Picks) -> Vec<Xyzt> {
    at.positions()
        .map(|i| {
            let mut v = [0.0; 4];
            for (c, part) in v.iter_mut().zip(parts) {
                *c = part[i];
            }
            v
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{ArrayGatherer, Column, Gatherer, IntTy, Values};
    use crate::array::Array;

    /// A fixed-size array of two dimensions is one list of its numbers per entry, read for
    /// a run of entries or gathered at some.
    #[test]
    fn fixed_size_arrays_are_lists_of_all_their_numbers() {
        let m = Array::Fixed {
            size: 2,
            values: Box::new(Array::Fixed {
                size: 2,
                values: Box::new(Array::Int32((0..12).collect())),
            }),
        };
        let lists = |offsets: Vec<usize>, v: Vec<i64>| {
            Column::Jagged(Arc::new(offsets), Values::Int(IntTy::INT, v).into())
        };
        assert_eq!(
            Column::from_array(&m, 1..3),
            Some(lists(vec![0, 4, 8], (4..12).collect()))
        );
        let gathered = ArrayGatherer::default().gather(&m, 1, 2, &[1]);
        assert_eq!(gathered, Some(lists(vec![0, 4], (8..12).collect())));
        let records = Array::Fixed {
            size: 1,
            values: Box::new(Array::Record {
                len: 1,
                fields: Vec::new(),
            }),
        };
        assert_eq!(Column::from_array(&records, 0..1), None);
    }

    /// `XYZVector`s as an RNTuple's reader gives them (`fCoordinates {fX, fY, fZ}`) and as a
    /// TTree's gives a split `vector` of them (a list per member) are vectors; a point's
    /// declared type makes them points, and a record of other members is not taken.
    #[test]
    fn spatial_vectors_are_read_from_their_coordinates() {
        use super::VectorClass::{Cartesian3, CartesianPoint};
        let doubles = |v: &[f64]| Array::Float64(v.to_vec());
        let named = |prefix: &str, arrays: [Array; 3]| {
            let names = ["fX", "fY", "fZ"].map(|n| format!("{prefix}{n}"));
            names.into_iter().zip(arrays).collect::<Vec<_>>()
        };
        let one = Array::Record {
            len: 2,
            fields: vec![(
                "fCoordinates".into(),
                Array::Record {
                    len: 2,
                    fields: named("", [1.0, 4.0, 7.0].map(|x| doubles(&[x, x + 1.0]))),
                },
            )],
        };
        let vectors = Values::Vectors(Cartesian3, vec![[2.0, 5.0, 8.0, 0.0]]);
        let read = Column::from_array(&one, 1..2);
        assert_eq!(read, Some(Column::Flat(vectors.into())));
        let points = Values::Vectors(CartesianPoint, vec![[2.0, 5.0, 8.0, 0.0]]);
        assert_eq!(read.unwrap().into_points(), Column::Flat(points.into()));
        let list = |v: &[f64]| Array::List {
            offsets: vec![0, 2, 3],
            values: Box::new(doubles(v)),
        };
        let split = Array::Record {
            len: 2,
            fields: named(
                "v.fCoordinates.",
                [
                    list(&[1.0, 2.0, 3.0]),
                    list(&[4.0, 5.0, 6.0]),
                    list(&[7.0, 8.0, 9.0]),
                ],
            ),
        };
        let items = vec![
            [1.0, 4.0, 7.0, 0.0],
            [2.0, 5.0, 8.0, 0.0],
            [3.0, 6.0, 9.0, 0.0],
        ];
        let jagged = Column::Jagged(
            Arc::new(vec![0, 2, 3]),
            Values::Vectors(Cartesian3, items).into(),
        );
        assert_eq!(Column::from_array(&split, 0..2), Some(jagged));
        let Array::Record { mut fields, .. } = split else {
            unreachable!()
        };
        fields[2].0 = "v.fCoordinates.fT".into();
        let other = Array::Record { len: 2, fields };
        assert_eq!(Column::from_array(&other, 0..2), None);
    }

    #[test]
    fn each_event_s_value_repeats_for_its_items() {
        let offsets = [0, 2, 2, 5, 6];
        assert_eq!(super::item_events(&offsets), [0, 0, 2, 2, 2, 3]);
        assert_eq!(
            Values::Int(IntTy::INT, vec![7, 8, 9, 10]).repeat_each(&offsets),
            Values::Int(IntTy::INT, vec![7, 7, 9, 9, 9, 10])
        );
        assert_eq!(super::item_events(&[0]), Vec::<usize>::new());
    }

    fn lists(offsets: &Arc<Vec<usize>>, values: Values) -> Column {
        Column::Jagged(offsets.clone(), values.into())
    }

    #[test]
    fn gathers_share_their_plan_and_equal_column_gather() {
        let a = Arc::new(vec![0, 2, 2, 5, 6]);
        let a_again = Arc::new(a.as_ref().clone());
        let b = Arc::new(vec![0, 1, 2, 3, 3]);
        let columns = [
            lists(&a, Values::F32(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])),
            lists(&a, Values::Int(IntTy::INT, vec![10, 20, 30, 40, 50, 60])),
            lists(
                &a_again,
                Values::Bool(vec![true, false, true, true, false, true]),
            ),
            lists(&b, Values::F64(vec![0.5, 1.5, 2.5])),
            Column::Flat(Values::F32(vec![7.0, 8.0, 9.0, 10.0]).into()),
            Column::Tuple(vec![lists(&b, Values::Int(IntTy::INT, vec![0, 1, 2]))]),
        ];
        // Items of a Map repeat their event; a subset skips some.
        for index in [vec![0, 0, 2, 2, 2, 3], vec![1, 3], vec![]] {
            let mut g = Gatherer::default();
            let got: Vec<Column> = columns.iter().map(|c| g.gather(c, &index)).collect();
            for (c, got) in columns.iter().zip(&got) {
                assert_eq!(*got, c.gather(&index), "{index:?}");
            }
            let offsets = |c: &Column| c.jagged().map(|(o, _)| o.clone()).unwrap();
            // One plan per shape: the offsets of `a`'s columns gathered once.
            assert!(Arc::ptr_eq(&offsets(&got[0]), &offsets(&got[1])));
            assert!(Arc::ptr_eq(&offsets(&got[0]), &offsets(&got[2])));
            assert_eq!(g.plans.len(), 2);
        }
    }

    #[test]
    fn chunks_join_into_one_column_copied_once() {
        let a = Arc::new(vec![0, 2, 3]);
        let b = Arc::new(vec![0, 0, 1]);
        let chunk = |o: &Arc<Vec<usize>>, v: Vec<f32>, flat: Vec<i64>| {
            Column::Tuple(vec![
                lists(o, Values::F32(v)),
                Column::Flat(Values::Int(IntTy::INT, flat).into()),
            ])
        };
        let parts = vec![
            chunk(&a, vec![1.0, 2.0, 3.0], vec![7, 8]),
            chunk(&b, vec![4.0], vec![9, 10]),
            chunk(&a, vec![5.0, 6.0, 7.0], vec![11, 12]),
        ];
        let joined = Column::concat(parts).unwrap();
        let Column::Tuple(joined) = joined else {
            panic!("{joined:?}")
        };
        let (offsets, values) = joined[0].jagged().unwrap();
        assert_eq!(**offsets, [0, 2, 3, 3, 4, 6, 7]);
        assert_eq!(
            *values,
            Values::F32(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0])
        );
        // The first chunk's vectors were made large enough for all: no growth after.
        assert!(offsets.capacity() == 7, "{}", offsets.capacity());
        assert_eq!(
            joined[1].flat(),
            Some(&Values::Int(IntTy::INT, vec![7, 8, 9, 10, 11, 12]))
        );
        let mixed = vec![
            Column::Flat(Values::F32(vec![1.0]).into()),
            Column::Flat(Values::Int(IntTy::INT, vec![2]).into()),
        ];
        assert!(Column::concat(mixed).unwrap_err().contains("float and"));
    }

    #[test]
    fn read_columns_gathered_from_their_arrays_equal_those_narrowed_after() {
        // Five events of a batch, from the second: lists of two columns of one counter
        // (equal offsets, not the same vector), a flat integer column, a record.
        let offsets = vec![0u64, 1, 3, 3, 4, 7, 8];
        let list = |values: Array| Array::List {
            offsets: offsets.clone(),
            values: Box::new(values),
        };
        let pt = list(Array::Float32((0..8).map(|x| x as f32).collect()));
        let charge = list(Array::Int32(vec![1, -1, 1, 1, -1, -1, 1, -1]));
        let n = Array::UInt16(vec![1, 2, 0, 1, 3, 1]);
        let record = Array::Record {
            len: 6,
            fields: vec![("x".into(), Array::Float64(vec![0.0; 6]))],
        };
        let (start, count) = (1, 5);
        for events in [vec![0, 3, 4], vec![2], vec![], vec![0, 1, 2, 3, 4]] {
            let mut picks = ArrayGatherer::default();
            let mut narrowed = Gatherer::default();
            let mut got = Vec::new();
            for array in [&pt, &charge, &n] {
                let all = Column::from_array(array, start..start + count).unwrap();
                let picked = picks.gather(array, start, count, &events).unwrap();
                assert_eq!(picked, narrowed.gather(&all, &events), "{events:?}");
                got.push(picked);
            }
            // The two lists share their offsets and one index of their items.
            let offsets = |c: &Column| c.jagged().map(|(o, _)| o.clone()).unwrap();
            assert!(Arc::ptr_eq(&offsets(&got[0]), &offsets(&got[1])));
            assert_eq!(picks.plans.len(), 1);
            assert!(picks.gather(&record, start, count, &events).is_none());
        }
    }
}
