//! The analysis layer's expressions (RDataFrame's `Define` and `Filter` strings): the bytes
//! are parsed as an expression and, when it parses, evaluated over a small batch of
//! columns of every kind the dialect reads, with edge values in them (empty lists, NaN,
//! infinities, -0, the extremes of each integer type, empty and non-ASCII strings).
//! Errors are the expected outcome of most inputs: only a panic, a hang or a huge
//! allocation is a finding.

use std::collections::HashMap;
use std::sync::Arc;

use rootweave::analysis::column::{Column, Values};
use rootweave::analysis::expr::{Expression, IntTy, Rank, Scope};

/// The longest input taken as an expression (the parser refuses longer text anyway).
const MAX_BYTES: usize = 4096;

/// Events in the batch.
const EVENTS: usize = 5;

/// Parses `data` as an expression and evaluates it over the batch; returns 1 when it gave
/// a value, 0 otherwise.
pub fn analysis_expression(data: &[u8]) -> usize {
    let text = String::from_utf8_lossy(&data[..data.len().min(MAX_BYTES)]);
    let Ok(expression) = Expression::parse(&text) else {
        return 0;
    };
    usize::from(expression.evaluate(&mut batch()).is_ok())
}

/// Columns by name, as a `Scope` hands them to an expression.
struct Batch(HashMap<&'static str, Column>);

impl Scope for Batch {
    fn column(&mut self, name: &str) -> Result<Column, String> {
        self.0
            .get(name)
            .cloned()
            .ok_or_else(|| format!("no column {name}"))
    }

    fn events(&self) -> usize {
        EVENTS
    }
}

/// A list per event from `lists` (one per event).
fn jagged<T: Clone>(lists: [&[T]; EVENTS], values: impl Fn(Vec<T>) -> Values) -> Column {
    let mut offsets = vec![0];
    let mut items = Vec::new();
    for list in lists {
        items.extend_from_slice(list);
        offsets.push(items.len());
    }
    Column::Jagged(Arc::new(offsets), values(items).into())
}

fn flat(values: Values) -> Column {
    Column::Flat(values.into())
}

/// NanoAOD-like columns of five events: jets (four of them, none, one, two, four),
/// muons, tracks (up to 64), counts, MET, flags, integers of several widths and strings.
fn batch() -> Batch {
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    let f32s = Values::F32;
    let mut m = HashMap::new();
    m.insert(
        "Jet_pt",
        jagged(
            [
                &[50.0, 20.0, 45.0, 20.0],
                &[],
                &[35.0],
                &[0.0, -0.0],
                &[nan, inf, 1e30, 1e-30],
            ],
            f32s,
        ),
    );
    m.insert(
        "Jet_eta",
        jagged(
            [
                &[0.5, -2.0, 1.5, 9.0],
                &[],
                &[-0.2],
                &[0.0, 1e4],
                &[-inf, nan, 0.1, -3.0],
            ],
            f32s,
        ),
    );
    m.insert(
        "Jet_phi",
        jagged(
            [
                &[0.1, 3.0, -3.0, 7.0],
                &[],
                &[1.0],
                &[3.2, -3.2],
                &[0.0, inf, nan, 1.0],
            ],
            f32s,
        ),
    );
    m.insert(
        "Jet_mass",
        jagged(
            [
                &[5.0, 0.0, -1.0, 3.0],
                &[],
                &[2.0],
                &[0.0, 1e20],
                &[nan, 1.0, inf, 0.5],
            ],
            f32s,
        ),
    );
    let uchar = IntTy::new(Rank::Char, true);
    m.insert(
        "Jet_id",
        jagged([&[6, 2, 0, 255], &[], &[1], &[2, 2], &[0, 6, 6, 4]], |v| {
            Values::Int(uchar, v)
        }),
    );
    m.insert("nJet", flat(Values::Int(IntTy::UINT, vec![4, 0, 1, 2, 4])));
    m.insert(
        "Muon_pt",
        jagged(
            [&[30.0, 10.0], &[25.0], &[], &[40.0, 40.0, 5.0], &[1e38]],
            f32s,
        ),
    );
    m.insert(
        "Muon_charge",
        jagged(
            [&[1, -1], &[-1], &[], &[1, 1, -1], &[i32::MIN as i64]],
            |v| Values::Int(IntTy::INT, v),
        ),
    );
    // Lists longer than the sorts' short paths (16 items for std::sort, runs of 7 merged
    // for std::stable_sort), with ties and NaN.
    let long: Vec<f32> = (0..64u16)
        .map(|i| if i % 5 == 0 { nan } else { f32::from(i % 7) })
        .collect();
    let nans = [nan; 20];
    m.insert(
        "Track_pt",
        jagged([&long, &[], &[nan], &nans, &[3.0, -0.0, 0.0]], f32s),
    );
    m.insert("MET_pt", flat(Values::F32(vec![10.5, 0.0, -0.0, inf, nan])));
    m.insert(
        "weight",
        flat(Values::F64(vec![1.0, -1e308, 1e-310, f64::MAX, f64::NAN])),
    );
    m.insert(
        "event",
        flat(Values::Int(
            IntTy::ULONG64,
            vec![0, 1, -1, i64::MAX, i64::MIN],
        )),
    );
    m.insert(
        "run",
        flat(Values::Int(
            IntTy::LONG64,
            vec![0, -1, i64::MIN, i64::MAX, 7],
        )),
    );
    m.insert(
        "pass",
        flat(Values::Bool(vec![true, false, true, false, false])),
    );
    m.insert(
        "Jet_good",
        jagged(
            [
                &[true, false, true, true],
                &[],
                &[false],
                &[true, true],
                &[false; 4],
            ],
            Values::Bool,
        ),
    );
    let text = |s: &str| -> Arc<[u8]> { s.as_bytes().into() };
    m.insert(
        "name",
        flat(Values::Str(vec![
            text("HLT_Mu"),
            text(""),
            text("café"),
            text("a\0b"),
            text("Zed"),
        ])),
    );
    m.insert(
        "paths",
        jagged(
            [
                &[text("HLT_Mu"), text("")],
                &[],
                &[text("x")],
                &[text("é"), text("é")],
                &[text("Zed"), text("a"), text("b"), text("c")],
            ],
            Values::Str,
        ),
    );
    Batch(m)
}
