//! Expressions evaluated over small hand-made batches, against what C++ and `RVec` give.

use std::collections::HashMap;
use std::sync::Arc;

use super::{Expression, IntTy, Scope};
use crate::analysis::column::{Column, Values};

/// A batch of named columns.
pub(super) struct Batch(pub HashMap<&'static str, Column>, pub usize);

impl Scope for Batch {
    fn column(&mut self, name: &str) -> Result<Column, String> {
        self.0
            .get(name)
            .cloned()
            .ok_or_else(|| format!("no column {name}"))
    }
    fn events(&self) -> usize {
        self.1
    }
}

fn jagged(lists: &[&[f32]]) -> Column {
    let mut offsets = vec![0];
    let mut values = Vec::new();
    for l in lists {
        values.extend_from_slice(l);
        offsets.push(values.len());
    }
    Column::Jagged(Arc::new(offsets), Values::F32(values).into())
}

/// Three events: jets (pt, eta, phi), a number of jets, MET.
pub(super) fn batch() -> Batch {
    let mut m = HashMap::new();
    m.insert("Jet_pt", jagged(&[&[50.0, 20.0, 45.0], &[], &[35.0]]));
    m.insert("Jet_eta", jagged(&[&[0.5, -2.0, 1.5], &[], &[-0.2]]));
    m.insert("Jet_phi", jagged(&[&[0.1, 3.0, -3.0], &[], &[1.0]]));
    m.insert(
        "nJet",
        Column::Flat(Values::Int(IntTy::UINT, vec![3, 0, 1]).into()),
    );
    let ids = Values::Int(IntTy::new(super::Rank::Char, true), vec![200, 100, 1, 255]);
    m.insert(
        "Jet_id",
        Column::Jagged(Arc::new(vec![0, 3, 3, 4]), ids.into()),
    );
    m.insert(
        "MET_pt",
        Column::Flat(Values::F32(vec![10.5, 20.25, 30.0]).into()),
    );
    Batch(m, 3)
}

fn eval(text: &str) -> Result<Column, String> {
    evaluated(text, &mut batch())
}

/// `text` evaluated over `batch`, or its error as "position: message".
pub(super) fn evaluated(text: &str, batch: &mut Batch) -> Result<Column, String> {
    let e = Expression::parse(text).map_err(|e| format!("{}: {}", e.pos, e.message))?;
    e.evaluate(batch)
        .map_err(|e| format!("{}: {}", e.pos, e.message))
}

fn f32s(c: Column) -> Vec<f32> {
    match c.flat() {
        Some(Values::F32(v)) => v.clone(),
        _ => panic!("{c:?}"),
    }
}

/// The values of a column of integers and their C++ type's name.
fn typed_ints(c: Column) -> (&'static str, Vec<i64>) {
    match c.flat() {
        Some(v @ Values::Int(_, x)) => (v.type_name(), x.clone()),
        _ => panic!("{c:?}"),
    }
}

#[test]
fn integers_convert_wrap_and_compare_as_cpp_s() {
    // Each type and value as ROOT 6.40's RDataFrame gives them (`nJet` is a `UInt_t`:
    // 3, 0, 1 jets; `Jet_id` `UChar_t`s).
    let u32max = u32::MAX as i64;
    let cases: &[(&str, &str, &[i64])] = &[
        ("nJet - 1", "unsigned int", &[2, u32max, 0]),
        ("-nJet", "unsigned int", &[u32max - 2, 0, u32max]),
        ("nJet + 1ll", "Long64_t", &[4, 1, 2]),
        (
            "nJet - 2 * 2",
            "unsigned int",
            &[u32max, u32max - 3, u32max - 2],
        ),
        ("nJet / 2u", "unsigned int", &[1, 0, 0]),
        ("Jet_pt.size() - 2", "unsigned long", &[1, -2, -1]),
        ("Sum(Jet_id)", "unsigned char", &[45, 0, 255]),
        ("Sum(Jet_pt > 40) - 3", "int", &[-1, -3, -3]),
        ("Sum(Jet_pt > 40 && Jet_pt < 50)", "int", &[1, 0, 0]),
        ("Sum(Jet_id + Jet_id)", "int", &[602, 0, 510]),
        ("0xFFFFFFFF + nJet", "unsigned int", &[2, u32max, 0]),
        // Octal, as C++ reads a leading 0; a floating-point number stays decimal.
        ("010 + nJet", "unsigned int", &[11, 8, 9]),
        ("nJet * 0 + 0777ll", "Long64_t", &[511; 3]),
        ("nJet * 0u + 037777777777", "unsigned int", &[u32max; 3]),
        ("Sum(Jet_pt > 010.5) + 00", "int", &[3, 0, 1]),
        // A list made of another's items, converted.
        (
            "Sum(ROOT::VecOps::RVec<int>(Jet_pt * 0.1f))",
            "int",
            &[11, 0, 3],
        ),
        ("Sum(ROOT::RVecU(Jet_id))", "unsigned int", &[301, 0, 255]),
        (
            "3000000000 + nJet",
            "long",
            &[3_000_000_003, 3_000_000_000, 3_000_000_001],
        ),
        ("-7 / 2 + nJet * 0", "unsigned int", &[u32max - 2; 3]),
        (
            "18446744073709551615ull / 2 - nJet",
            "ULong64_t",
            &[i64::MAX - 3, i64::MAX, i64::MAX - 1],
        ),
    ];
    for (text, ty, values) in cases {
        let got = typed_ints(eval(text).unwrap());
        assert_eq!(got, (*ty, values.to_vec()), "{text}");
    }
    let truths: &[(&str, [bool; 3])] = &[
        ("nJet - 1 > 2", [false, true, false]),
        ("nJet > -1", [false; 3]),
        ("Jet_pt.size() - 4 > 0", [true; 3]),
        ("Sum(Jet_pt > 40) - 3 < 0", [true; 3]),
        ("18446744073709551615ull > nJet", [true; 3]),
        ("-1 < 0u", [false; 3]),
        ("-1 < 0ll + nJet", [true; 3]),
    ];
    for (text, want) in truths {
        let c = eval(text).unwrap();
        let got = match c.flat() {
            Some(Values::Bool(b)) if b.len() == 3 => b.clone(),
            _ => panic!("{text}: {c:?}"),
        };
        assert_eq!(got, want, "{text}");
    }
    // A `UInt_t` in floating point is its unsigned value; a `ULong64_t`'s too.
    assert_eq!(
        eval("(nJet - 1) * 1.0").unwrap(),
        Column::Flat(Values::F64(vec![2.0, u32::MAX as f64, 0.0]).into())
    );
    assert_eq!(
        eval("18446744073709551615ull * 1.0f + nJet * 0").unwrap(),
        Column::Flat(Values::F32(vec![u64::MAX as f32; 3]).into())
    );
}

#[test]
fn conversions_and_typed_lambda_parameters_convert_as_cpp_s() {
    let cases: &[(&str, &str, &[i64])] = &[
        ("static_cast<int>(nJet) - 1", "int", &[2, -1, 0]),
        ("(int)nJet - 1", "int", &[2, -1, 0]),
        ("(Long64_t) nJet * -1", "Long64_t", &[-3, 0, -1]),
        ("int(MET_pt)", "int", &[10, 20, 30]),
        (
            "static_cast<unsigned char>(300 + nJet)",
            "unsigned char",
            &[47, 44, 45],
        ),
        (
            "static_cast<std::size_t>(-1) + nJet * 0",
            "unsigned long",
            &[-1, -1, -1],
        ),
        ("UInt_t(MET_pt) + 0 * nJet", "unsigned int", &[10, 20, 30]),
    ];
    for (text, ty, values) in cases {
        assert_eq!(
            typed_ints(eval(text).unwrap()),
            (*ty, values.to_vec()),
            "{text}"
        );
    }
    assert_eq!(
        eval("(float)nJet / 2").unwrap(),
        Column::Flat(Values::F32(vec![1.5, 0.0, 0.5]).into())
    );
    assert_eq!(
        eval("(bool)(nJet - 1)").unwrap(),
        Column::Flat(Values::Bool(vec![true, true, false]).into())
    );
    // A lambda's typed parameter converts each item it is given, inlined or not.
    let mut b = batch();
    let (plain, fast, _) = both_ways("Map(Jet_pt, [](int pt) { return pt / 10; })", &mut b);
    let tens = Values::Int(IntTy::INT, vec![5, 2, 4, 3]);
    assert_eq!(
        plain,
        Column::Jagged(Arc::new(vec![0, 3, 3, 4]), tens.into())
    );
    assert_eq!(plain, fast);
    let (plain, fast, _) = both_ways(
        "Map(Jet_pt, [&](const double &x) { return x * 0.1f; })",
        &mut b,
    );
    let tenths: Vec<f64> = [50.0f32, 20.0, 45.0, 35.0]
        .iter()
        .map(|&x| x as f64 * (0.1f32 as f64))
        .collect();
    assert_eq!(
        plain,
        Column::Jagged(Arc::new(vec![0, 3, 3, 4]), Values::F64(tenths).into())
    );
    assert_eq!(plain, fast);
    let e = Expression::parse("static_cast<RVecF>(Jet_pt)").unwrap_err();
    assert!(e.message.contains("static_cast to 'RVecF'"), "{e:?}");
    // A parenthesized column is no conversion.
    assert_eq!(eval("(nJet) + 0").unwrap(), eval("nJet + 0").unwrap());
}

#[test]
fn more_rvec_functions_and_tmath_are_root_s() {
    let floats = |text: &str| f32s(eval(text).unwrap());
    assert_eq!(floats("Product(Jet_pt)"), [45_000.0, 1.0, 35.0]);
    assert_eq!(
        typed_ints(eval("Product(Jet_id)").unwrap()),
        ("unsigned char", vec![32, 1, 255])
    );
    assert_eq!(floats("Dot(Jet_pt, Jet_eta)"), [52.5, 0.0, -7.0]);
    assert_eq!(
        typed_ints(eval("Dot(Jet_id, Jet_id)").unwrap()),
        ("int", vec![50_001, 0, 65_025])
    );
    // Var: the sums in the items' type, the rest in double; 0 below two items.
    let (sq, s) = (50f32 * 50.0 + 20.0 * 20.0 + 45.0 * 45.0, 115f32);
    let var = 1.0 / 2.0 * (sq as f64 - (s * s) as f64 / 3.0);
    assert_eq!(
        eval("Var(Jet_pt)").unwrap(),
        Column::Flat(Values::F64(vec![var, 0.0, 0.0]).into())
    );
    assert_eq!(
        eval("StdDev(Jet_pt)").unwrap(),
        Column::Flat(Values::F64(vec![var.sqrt(), 0.0, 0.0]).into())
    );
    // Nonzero's indices count from each event's own first item.
    assert_eq!(
        eval("Nonzero(Jet_pt < 40)").unwrap(),
        Column::Jagged(
            Arc::new(vec![0, 1, 1, 2]),
            Values::Int(IntTy::SIZE, vec![1, 0]).into()
        )
    );
    assert_eq!(
        eval("Drop(Jet_pt, Nonzero(Jet_pt < 40))").unwrap(),
        jagged(&[&[50.0, 45.0], &[], &[]])
    );
    assert_eq!(
        eval("Intersect(Jet_pt, Jet_pt[Jet_pt > 40])").unwrap(),
        jagged(&[&[50.0, 45.0], &[], &[]])
    );
    assert_eq!(
        eval("StableSort(Jet_pt)").unwrap(),
        jagged(&[&[20.0, 45.0, 50.0], &[], &[35.0]])
    );
    let range = eval("Range(nJet)").unwrap();
    assert_eq!(range.type_name(), "RVec<unsigned long>");
    assert_eq!(
        eval("Sum(Range(nJet))").unwrap(),
        eval("nJet * (nJet - 1ul) / 2").unwrap()
    );
    assert_eq!(
        eval("Jet_pt.empty()").unwrap(),
        Column::Flat(Values::Bool(vec![false, true, false]).into())
    );
    assert_eq!(floats("nJet > 0 ? Jet_pt.front() : 0.f"), [50.0, 0.0, 35.0]);
    assert_eq!(floats("nJet > 0 ? Jet_pt.back() : 0.f"), [45.0, 0.0, 35.0]);
    assert_eq!(floats("nJet > 1 ? Jet_pt.at(1) : -1.f"), [20.0, -1.0, -1.0]);
    assert!(eval("Jet_pt.front()")
        .unwrap_err()
        .contains("front() of an empty RVec (event 1"));
    // TMath: a float argument is converted to double, and so is the result.
    let met = [10.5f32, 20.25, 30.0].map(f64::from);
    assert_eq!(
        eval("TMath::Sqrt(MET_pt)").unwrap(),
        Column::Flat(Values::F64(met.map(f64::sqrt).to_vec()).into())
    );
    assert_eq!(
        eval("TMath::Power(MET_pt, 2)").unwrap(),
        Column::Flat(Values::F64(met.map(|x| x.powf(2.0)).to_vec()).into())
    );
    assert_eq!(floats("TMath::Abs(-MET_pt)"), [10.5, 20.25, 30.0]);
    assert_eq!(floats("TMath::Max(MET_pt, 20.f)"), [20.0, 20.25, 30.0]);
    assert_eq!(
        eval("TMath::TwoPi() + nJet * 0").unwrap(),
        Column::Flat(Values::F64(vec![2.0 * std::f64::consts::PI; 3]).into())
    );
    let e = Expression::parse("TMath::Sqrt(MET_pt, 2)").unwrap_err();
    assert!(e.message.contains("Sqrt takes 1 arguments, not 2"), "{e:?}");
}

#[test]
fn bitwise_operators_have_cpp_s_types_and_precedence() {
    let u32max = u32::MAX as i64;
    let cases: &[(&str, &str, &[i64])] = &[
        ("Sum(Jet_id & 6)", "int", &[4, 0, 6]),
        ("nJet | 8", "unsigned int", &[11, 8, 9]),
        ("nJet ^ 1u", "unsigned int", &[2, 1, 0]),
        ("~nJet", "unsigned int", &[u32max - 3, u32max, u32max - 1]),
        ("1 << nJet", "int", &[8, 1, 2]),
        ("nJet << 31", "unsigned int", &[1 << 31, 0, 1 << 31]),
        ("(-8 >> 1) * (int)nJet", "int", &[-12, 0, -4]),
        (
            "18446744073709551615ull >> 60 ^ nJet",
            "ULong64_t",
            &[12, 15, 14],
        ),
        // C++'s precedence: `&` below comparisons, `^` below `&`, `|` below `^`.
        ("nJet & 2 > 0", "unsigned int", &[1, 0, 1]),
        ("nJet & 1 == 1", "unsigned int", &[1, 0, 1]),
        ("1 | 2 ^ 3 & 4 + nJet * 0", "unsigned int", &[3, 3, 3]),
    ];
    for (text, ty, values) in cases {
        assert_eq!(
            typed_ints(eval(text).unwrap()),
            (*ty, values.to_vec()),
            "{text}"
        );
    }
    assert!(eval("MET_pt & 1")
        .unwrap_err()
        .contains("'&' needs integers"));
    assert!(eval("~MET_pt")
        .unwrap_err()
        .contains("'~' needs an integer"));
    // `>>` still closes two template argument lists.
    assert!(Expression::parse("ROOT::RVec<ROOT::RVec<float>>{{MET_pt}}").is_ok());
}

#[test]
fn arithmetic_keeps_cpp_s_types() {
    // float * int is float; float * double is double; int / int truncates.
    assert_eq!(
        eval("MET_pt * 2").unwrap(),
        Column::Flat(Values::F32(vec![21.0, 40.5, 60.0]).into())
    );
    assert_eq!(
        eval("MET_pt * 0.1").unwrap(),
        Column::Flat(Values::F64(vec![10.5f32 as f64 * 0.1, 20.25 * 0.1, 30.0 * 0.1]).into())
    );
    assert_eq!(
        eval("nJet / 2").unwrap(),
        Column::Flat(Values::Int(IntTy::UINT, vec![1, 0, 0]).into())
    );
    assert_eq!(
        eval("1.5f + 1").unwrap(),
        Column::Flat(Values::F32(vec![2.5; 3]).into())
    );
    assert_eq!(
        eval("sqrt(MET_pt)").unwrap(),
        Column::Flat(Values::F32(vec![10.5f32.sqrt(), 4.5, 30f32.sqrt()]).into())
    );
    assert!(eval("nJet / 0").unwrap_err().contains("division by zero"));
}

#[test]
fn masks_indices_and_reductions_are_rvec_s() {
    assert_eq!(
        eval("Jet_pt[abs(Jet_eta) < 1]").unwrap(),
        jagged(&[&[50.0], &[], &[35.0]])
    );
    assert_eq!(
        eval("Sum(Jet_pt > 40)").unwrap(),
        Column::Flat(Values::Int(IntTy::INT, vec![2, 0, 0]).into())
    );
    assert_eq!(f32s(eval("Sum(Jet_pt)").unwrap()), [115.0, 0.0, 35.0]);
    assert_eq!(
        eval("Jet_pt.size()").unwrap(),
        Column::Flat(Values::Int(IntTy::SIZE, vec![3, 0, 1]).into())
    );
    // `size_t` meets `int`: the -1 is converted to `unsigned long`, as C++ converts it.
    assert_eq!(
        eval("nJet > 0 ? ArgMax(Jet_eta) : -1").unwrap(),
        Column::Flat(Values::Int(IntTy::SIZE, vec![2, -1, 0]).into())
    );
    // An empty list's `ArgMin` is 0, as `std::min_element` makes it; its `Min` has none.
    assert_eq!(
        eval("ArgMin(Jet_pt)").unwrap(),
        Column::Flat(Values::Int(IntTy::SIZE, vec![1, 0, 0]).into())
    );
    assert!(eval("Min(Jet_pt)")
        .unwrap_err()
        .contains("Min of an empty RVec (event 1"));
    assert_eq!(
        eval("Mean(Jet_pt)").unwrap(),
        Column::Flat(Values::F64(vec![115.0 / 3.0, 0.0, 35.0]).into())
    );
    // Indexing past a list's end is an error naming the event; `&&` keeps it from
    // happening, as in C++.
    assert!(eval("Jet_pt[0]")
        .unwrap_err()
        .contains("index 0 of an RVec of 0 items (event 1"));
    assert_eq!(
        eval("nJet > 0 && Jet_pt[0] > 40").unwrap(),
        Column::Flat(Values::Bool(vec![true, false, false]).into())
    );
    assert_eq!(
        f32s(eval("nJet > 0 ? Jet_pt[0] : -1.f").unwrap()),
        [50.0, -1.0, 35.0]
    );
    assert!(eval("Max(Jet_pt)")
        .unwrap_err()
        .contains("Max of an empty RVec (event 1"));
    assert_eq!(
        eval("Take(Jet_pt, Argsort(-Jet_pt))").unwrap(),
        jagged(&[&[50.0, 45.0, 20.0], &[], &[35.0]])
    );
    assert_eq!(eval("Take(Jet_pt, 1 - 2)").unwrap_err(), "0: 1 elements requested from Take but input contains only 0 elements (event 1 of the batch)");
    // The smallest `long long` (-inf made an integer) has no negation of its type.
    assert_eq!(eval("Take(Jet_pt, 1/ -0.f)").unwrap_err(), "0: 9223372036854775808 elements requested from Take but input contains only 3 elements (event 0 of the batch)");
    assert_eq!(
        eval("Where(Jet_pt > 40, Jet_pt, 0.f)").unwrap(),
        jagged(&[&[50.0, 0.0, 45.0], &[], &[0.0]])
    );
}

#[test]
fn combinations_list_every_choice_in_order() {
    let mut b = batch();
    b.0.insert(
        "Jet_pt",
        jagged(&[&[50.0, 20.0, 45.0], &[7.0, 8.0], &[35.0, 1.0]]),
    );
    let c = eval_in("Combinations(Jet_pt, 2)", &mut b);
    let Column::Tuple(parts) = c else { panic!() };
    let ints = |c: &Column| match c.jagged() {
        Some((o, Values::Int(_, v))) => (o.to_vec(), v.clone()),
        _ => panic!("{c:?}"),
    };
    assert_eq!(ints(&parts[0]), (vec![0, 3, 4, 5], vec![0, 0, 1, 0, 0]));
    assert_eq!(ints(&parts[1]), (vec![0, 3, 4, 5], vec![1, 2, 2, 1, 1]));
    let pair_pt = eval_in(
        "Take(Jet_pt, Combinations(Jet_pt, 2)[0]) + Take(Jet_pt, Combinations(Jet_pt, 2)[1])",
        &mut b,
    );
    assert_eq!(pair_pt, jagged(&[&[70.0, 95.0, 65.0], &[15.0], &[36.0]]));
    // A list shorter than the choice: ROOT's `Combinations` throws, with this message.
    assert_eq!(
        eval("Combinations(Jet_pt, 2)").unwrap_err(),
        "0: Cannot make unique combinations of size 2 from vector of size 0"
    );
    // The tests' index lists where every list is long enough: Combinations' own.
    assert_eq!(
        eval_in("Combinations(Jet_pt, 2)", &mut b),
        choices(&[3, 2, 2], 2)
    );
    b.0.insert(
        "Jet_pt",
        jagged(&[&[1.0, 2.0, 3.0, 4.0], &[5.0; 3], &[6.0; 5]]),
    );
    assert_eq!(
        eval_in("Combinations(Jet_pt, 3)", &mut b),
        choices(&[4, 3, 5], 3)
    );
    // Choices of one and of four items (the general loop beside pairs' and triples').
    b.0.insert("Jet_pt", jagged(&[&[1.0; 4], &[2.0; 6], &[3.0; 5]]));
    for n in [1, 4] {
        assert_eq!(
            eval_in(&format!("Combinations(Jet_pt, {n})"), &mut b),
            choices(&[4, 6, 5], n)
        );
    }
}

/// Index lists `c[0]`, ..., `c[n - 1]` of every choice of `n` items of lists of these
/// sizes, in `Combinations`' order, and none for a list shorter than `n` (where ROOT's
/// `Combinations` throws): an index column for tests of what takes one.
fn choices(sizes: &[usize], n: usize) -> Column {
    fn push(len: usize, n: usize, from: usize, idx: &mut Vec<usize>, parts: &mut [Vec<i64>]) {
        if idx.len() == n {
            parts
                .iter_mut()
                .zip(idx.iter())
                .for_each(|(p, &i)| p.push(i as i64));
            return;
        }
        for i in from..len {
            idx.push(i);
            push(len, n, i + 1, idx, parts);
            idx.pop();
        }
    }
    let mut parts = vec![Vec::new(); n];
    let mut offsets = vec![0];
    for &len in sizes {
        push(len, n, 0, &mut Vec::new(), &mut parts);
        offsets.push(parts[0].len());
    }
    let offsets = Arc::new(offsets);
    Column::Tuple(
        parts
            .into_iter()
            .map(|p| Column::Jagged(offsets.clone(), Values::Int(IntTy::SIZE, p).into()))
            .collect(),
    )
}

#[test]
fn angles_and_masses_are_roots_formulas() {
    // DeltaPhi: v2 - v1 in float, wrapped into [-pi, pi] in double, back to float.
    let d = f32s(eval("nJet > 0 ? DeltaPhi(Jet_phi[0], 3.f) : 0.f").unwrap());
    assert_eq!(d, [3.0f32 - 0.1, 0.0, 3.0 - 1.0]);
    let wrapped = f32s(eval("DeltaPhi(MET_pt * 0.f + 3.f, -3.f)").unwrap());
    let c = std::f32::consts::PI as f64;
    assert_eq!(wrapped[0], ((-6.0f32) as f64 + 2.0 * c) as f32);
    let r = eval("nJet > 0 ? DeltaR(Jet_eta[0], 0.f, Jet_phi[0], 0.f) : 0.f").unwrap();
    let expect = (0.5f32 * 0.5 + 0.1 * 0.1).sqrt();
    assert_eq!(f32s(r)[0], expect);
    // Two back-to-back massless particles of 45 GeV: 90 GeV.
    let mut b = batch();
    b.0.insert("pt", jagged(&[&[45.0, 45.0], &[], &[]]));
    b.0.insert("eta", jagged(&[&[0.0, 0.0], &[], &[]]));
    b.0.insert("phi", jagged(&[&[0.0, std::f32::consts::PI], &[], &[]]));
    b.0.insert("m", jagged(&[&[0.0, 0.0], &[], &[]]));
    let m = Expression::parse("InvariantMass(pt, eta, phi, m)")
        .unwrap()
        .evaluate(&mut b)
        .unwrap();
    assert!((f32s(m)[0] - 90.0).abs() < 1e-3);
    let p4 = Expression::parse(
        "(PtEtaPhiMVector(pt[0], eta[0], phi[0], m[0]) + PtEtaPhiMVector(pt[1], eta[1], phi[1], m[1])).M()",
    )
    .unwrap();
    let mut two = Batch(b.0.clone(), 3);
    two.0
        .insert("pt", jagged(&[&[45.0, 45.0], &[45.0, 45.0], &[45.0, 45.0]]));
    two.0
        .insert("eta", jagged(&[&[0.0, 0.0], &[0.0, 0.0], &[0.0, 0.0]]));
    two.0
        .insert("phi", jagged(&[&[0.0, 3.0], &[0.0, 3.0], &[0.0, 3.0]]));
    two.0
        .insert("m", jagged(&[&[0.0, 0.0], &[0.0, 0.0], &[0.0, 0.0]]));
    let mass = p4.evaluate(&mut two).unwrap();
    let Some(Values::F64(mass)) = mass.flat() else {
        panic!()
    };
    let expect = (2.0 * 45.0 * 45.0 * (1.0 - (3.0f32 as f64).cos())).sqrt();
    assert!((mass[0] - expect).abs() < 1e-9, "{mass:?} {expect}");
}

#[test]
fn unknown_functions_and_columns_are_errors_with_positions() {
    let e = Expression::parse("Summ(Jet_pt) > 2").unwrap_err();
    assert_eq!(
        (e.pos, e.message.as_str()),
        (0, "no function Summ in the dialect")
    );
    let e = Expression::parse("1 + DeltaR(a, b, c)").unwrap_err();
    assert_eq!(
        (e.pos, e.message.as_str()),
        (4, "function DeltaR takes 2 or 4 arguments, not 3")
    );
    assert_eq!(eval("MET_pt + nope").unwrap_err(), "9: no column nope");
    assert!(eval("Jet_pt + Jet_pt[Jet_pt > 40]")
        .unwrap_err()
        .contains("RVecs of different sizes"));
}

#[test]
fn map_evaluates_a_lambda_per_item_with_its_event_s_columns() {
    assert_eq!(
        eval("Map(Jet_pt, Jet_eta, [&](float pt, float eta) { return pt * eta; })").unwrap(),
        jagged(&[&[25.0, -40.0, 67.5], &[], &[-7.0]])
    );
    // Other columns are the item's event's: MET_pt per event, Jet_pt's whole list.
    assert_eq!(
        eval("Map(Jet_pt, [](const float& pt) -> bool { return pt > MET_pt + 15 && Sum(Jet_pt > pt) == 0; })").unwrap(),
        Column::Jagged(Arc::new(vec![0, 3, 3, 4]), Values::Bool(vec![true, false, false, false]).into())
    );
    assert_eq!(
        eval("Enumerate(Jet_pt)").unwrap(),
        Column::Jagged(
            Arc::new(vec![0, 3, 3, 4]),
            Values::Int(IntTy::SIZE, vec![0, 1, 2, 0]).into()
        )
    );
    let e = Expression::parse("Map(Jet_pt, Jet_eta, [](float pt) { return pt; })").unwrap_err();
    assert_eq!(e.message, "Map of 2 lists with a lambda of 1 parameters");
    let e = Expression::parse("Sum([](float x) { return x; })").unwrap_err();
    assert_eq!(
        (e.pos, e.message.as_str()),
        (4, "Sum takes no lambda (Map does)")
    );
    assert_eq!(
        Expression::parse("Map(Jet_pt, [](float pt) { return pt * MET_pt; })")
            .unwrap()
            .columns(),
        ["Jet_pt", "MET_pt"]
    );
}

#[test]
fn combinations_beyond_a_bound_are_errors_not_allocations() {
    let mut b = batch();
    b.0.insert(
        "many",
        Column::Jagged(
            Arc::new(vec![0, 200, 206, 212]),
            Values::F32(vec![1.0; 212]).into(),
        ),
    );
    let e = Expression::parse("Combinations(many, 6)")
        .unwrap()
        .evaluate(&mut b)
        .unwrap_err();
    assert!(
        e.message.contains("would make 82408626302 combinations"),
        "{}",
        e.message
    );
    let pairs = Expression::parse("Combinations(many, many)")
        .unwrap()
        .evaluate(&mut b)
        .unwrap();
    assert_eq!(pairs.events(), 3);
}

#[test]
fn concatenate_joins_each_event_s_lists_in_their_common_type() {
    // float with float stays float; a mask (int) with float is float.
    let both = eval("Concatenate(Jet_pt, Jet_eta)").unwrap();
    let expect = jagged(&[&[50.0, 20.0, 45.0, 0.5, -2.0, 1.5], &[], &[35.0, -0.2]]);
    assert_eq!(both, expect);
    let mixed = eval("Concatenate(Jet_pt > 40, Jet_pt)").unwrap();
    assert_eq!(
        mixed,
        jagged(&[&[1.0, 0.0, 1.0, 50.0, 20.0, 45.0], &[], &[0.0, 35.0]])
    );
    // Two masks: ROOT's comparisons of RVecs give RVec<int>, and so does their join.
    let ints = eval("Concatenate(Jet_pt > 40, Jet_pt > 30)").unwrap();
    let Some((offsets, Values::IntBool(v))) = ints.jagged() else {
        panic!("{ints:?}")
    };
    assert_eq!(offsets.to_vec(), [0, 6, 6, 8]);
    assert_eq!(*v, [true, false, true, true, false, true, false, true]);
    assert_eq!(ints.type_name(), "RVec<int>");
}

/// `text` evaluated as written (no rewrite) and as the optimizer rewrote it.
fn both_ways(text: &str, batch: &mut Batch) -> (Column, Column, super::Node) {
    let optimized = Expression::parse(text).unwrap();
    let plain = Expression {
        text: text.to_string(),
        tree: super::parse::parse(text).unwrap(),
    };
    let a = plain.evaluate(batch).unwrap();
    let b = optimized.evaluate(batch).unwrap();
    (a, b, optimized.tree)
}

/// `text`'s optimized tree, after checking that it gives the values of the plain one.
fn same_both_ways(text: &str, batch: &mut Batch) -> super::Node {
    let (plain, fast, tree) = both_ways(text, batch);
    assert_eq!(plain, fast, "{text}");
    tree
}

/// Whether `node` calls `name` (or has a shared part, for `"shared"`).
fn calls(node: &super::Node, name: &str) -> bool {
    node.any(&|n| match &n.kind {
        super::Kind::Call(f, _) => f == name,
        super::Kind::Shared(..) => name == "shared",
        _ => false,
    })
}

#[test]
fn rewritten_pair_masses_have_the_bits_of_the_lambda_s() {
    // Four jets in the first event (six pairs), none, one.
    let mut b = batch();
    b.0.insert("Jet_pt", jagged(&[&[50.0, 20.0, 45.0, 71.5], &[], &[35.0]]));
    b.0.insert("Jet_eta", jagged(&[&[0.5, -2.0, 1.5, 0.25], &[], &[-0.2]]));
    b.0.insert("Jet_phi", jagged(&[&[0.1, 3.0, -3.0, 1.9], &[], &[1.0]]));
    b.0.insert("Jet_mass", jagged(&[&[5.0, 3.5, 7.25, 0.0], &[], &[4.0]]));
    let take = |k: usize| {
        ["pt", "eta", "phi", "mass"]
            .map(|c| format!("Take(Jet_{c}, c[{k}])"))
            .join(", ")
    };
    let p4 = "ROOT::Math::PtEtaPhiMVector";
    b.0.insert("c", choices(&[4, 0, 1], 2));
    let pair = format!(
        "Map({}, {}, [](float pt1, float eta1, float phi1, float m1, float pt2, float eta2, \
         float phi2, float m2) {{ return ({p4}(pt1, eta1, phi1, m1) + {p4}(pt2, eta2, phi2, m2)).M(); }})",
        take(0),
        take(1)
    );
    let (plain, fast, tree) = both_ways(&pair, &mut b);
    assert_eq!(plain, fast);
    let Some((offsets, Values::F64(m))) = fast.jagged() else {
        panic!("{fast:?}")
    };
    assert_eq!(**offsets, [0, 6, 6, 6]);
    assert!(m.iter().all(|&x| x > 0.0), "{m:?}");
    // The lambda is gone, the vectors are made of whole lists and made once, and added
    // where they are.
    assert!(!calls(&tree, "Map") && calls(&tree, "shared"), "{tree:?}");
    assert!(calls(&tree, super::take_sums::SUM_OF_TAKES), "{tree:?}");
    // Trijets: sums of sums, masses and transverse momenta.
    b.0.insert("c", choices(&[4, 0, 1], 3));
    let vector = |k: usize| format!("Construct<{p4}>({})", take(k));
    let trijet = format!("{} + {} + {}", vector(0), vector(1), vector(2));
    for text in [
        format!("Map({trijet}, [](const {p4}& t) {{ return t.M(); }})"),
        format!("Map({trijet}, [](const {p4}& t) {{ return t.Pt(); }})"),
        format!("Map({trijet}, [](const {p4}& t) {{ return t.Eta() * t.Phi() + t.E(); }})"),
    ] {
        let tree = same_both_ways(&text, &mut b);
        assert!(!calls(&tree, "Map"), "{tree:?}");
        assert!(calls(&tree, super::take_sums::SUM_OF_TAKES), "{tree:?}");
    }
}

#[test]
fn sums_of_takes_fail_and_fall_back_as_the_sums_written() {
    let mut b = batch();
    b.0.insert("c", choices(&[3, 0, 1], 2));
    b.0.insert("far", jagged(&[&[0.0, 1.0, 2.0], &[], &[0.0]]));
    let v = "Construct<PtEtaPhiMVector>(Jet_pt, Jet_eta, Jet_phi, Jet_pt * 0)";
    let error = |text: &str| {
        let optimized = Expression::parse(text).unwrap();
        assert!(
            calls(&optimized.tree, super::take_sums::SUM_OF_TAKES),
            "{text}"
        );
        let plain = Expression {
            text: text.to_string(),
            tree: super::parse::parse(text).unwrap(),
        };
        let (a, b) = (
            plain.evaluate(&mut batch_with(&b)).unwrap_err(),
            optimized.evaluate(&mut batch_with(&b)).unwrap_err(),
        );
        assert_eq!(a, b, "{text}");
        b
    };
    // An index past its event's list: Take's error, at the Take of that index.
    let text = format!("Take({v}, c[0]) + Take({v}, Nonzero(far) + 1)");
    let e = error(&text);
    assert_eq!(e.pos, text.rfind("Take").unwrap());
    assert!(e.message.contains("Take of index 3 from 3 items"), "{e:?}");
    // Index lists of other shapes: the sum's own error.
    error(&format!("Take({v}, c[0]) + Take({v}, Nonzero(far))"));
    // Lists of numbers: summed as written.
    let tree = same_both_ways(
        "Take(Jet_pt, c[0]) + Take(Jet_pt, c[1]) + Take(Jet_pt, c[1])",
        &mut b,
    );
    assert!(calls(&tree, super::take_sums::SUM_OF_TAKES), "{tree:?}");
    // A term of another list ends the sum of takes: its first two terms are one.
    let tree = same_both_ways(
        "Take(Jet_pt, c[0]) + Take(Jet_pt, c[1]) + Take(Jet_eta, c[0])",
        &mut b,
    );
    let super::Kind::Binary(_, first_two, _) = &tree.kind else {
        panic!("{tree:?}")
    };
    assert!(
        matches!(&first_two.kind, super::Kind::Call(f, _) if f == super::take_sums::SUM_OF_TAKES)
    );
}

/// A batch of the same columns as `b`.
fn batch_with(b: &Batch) -> Batch {
    Batch(b.0.clone(), b.1)
}

/// `text`'s value over `batch`.
fn eval_in(text: &str, batch: &mut Batch) -> Column {
    Expression::parse(text).unwrap().evaluate(batch).unwrap()
}

#[test]
fn lambdas_that_are_not_item_by_item_are_kept() {
    let mut b = batch();
    for text in [
        // Another column (a value per event), a reduction, an index, `?:`.
        "Map(Jet_pt, [](float pt) { return pt * MET_pt; })",
        "Map(Jet_pt, [](float pt) { return Sum(Jet_pt > pt); })",
        "Map(Jet_pt, Jet_eta, [](float pt, float eta) { return pt > 40 ? pt : eta; })",
        // A division the left side of `&&` guards, a parameter left unused.
        "Map(nJet * 0 + Jet_pt, [](float x) { return x > 30 && 60 / x > 1; })",
        "Map(Jet_pt, Jet_eta, [](float pt, float eta) { return pt * 2; })",
    ] {
        let tree = same_both_ways(text, &mut b);
        assert!(calls(&tree, "Map"), "{text}: {tree:?}");
    }
    // Item by item: inlined, the same values.
    let tree = same_both_ways(
        "Map(Jet_pt, Jet_eta, [&](float pt, float eta) { return pt > 40 && abs(eta) < 1; })",
        &mut b,
    );
    assert!(!calls(&tree, "Map"));
}

#[test]
fn shared_parts_are_computed_once_per_scope() {
    // A part repeated on both sides of `&&` and of `?:`, whose right sides see fewer events.
    let mut b = batch();
    for text in [
        "Sum(Jet_pt * 2) > 0 && Sum(Jet_pt * 2) < 200",
        "nJet > 1 ? Sum(Jet_pt * 2) + Max(Jet_pt * 2) : Sum(Jet_pt * 2) * 1.f",
        "Sum(Jet_pt * 2) + Sum(Jet_pt * 2)",
    ] {
        let tree = same_both_ways(text, &mut b);
        assert!(calls(&tree, "shared"), "{text}: {tree:?}");
    }
    let (plain, fast, _) = both_ways("nJet > 0 ? Jet_pt[0] * 2 : MET_pt", &mut b);
    assert_eq!(plain, fast);
    assert_eq!(fast, f32_column(&[100.0, 20.25, 70.0]));
}

fn f32_column(v: &[f32]) -> Column {
    Column::Flat(Values::F32(v.to_vec()).into())
}

#[test]
fn logic_guards_what_could_fail_and_computes_the_rest_whole() {
    // The right sides that cannot fail are computed for every event, the others only for
    // the events the left side leaves open: the same values either way.
    let mut b = batch();
    for text in [
        "MET_pt > 15 && DeltaR(MET_pt, 1.f, MET_pt, 2.f) < 40.f",
        "MET_pt > 15 || MET_pt * 2 > 70",
        "nJet > 0 && Jet_pt[0] > 40",
        "nJet == 0 || Max(Jet_pt) > 40",
    ] {
        same_both_ways(text, &mut b);
    }
    assert_eq!(
        eval("nJet > 0 && Jet_pt[0] > 40").unwrap(),
        Column::Flat(Values::Bool(vec![true, false, false]).into())
    );
    assert_eq!(
        eval("MET_pt > 15 && MET_pt * 2 < 50").unwrap(),
        Column::Flat(Values::Bool(vec![false, true, false]).into())
    );
    // A list on the right of a value is an error, whether computed whole or not.
    for text in ["MET_pt > 15 && Jet_pt > 1", "nJet > 5 && Jet_pt > 1"] {
        assert!(
            eval(text).unwrap_err().contains("of a value and an RVec"),
            "{text}"
        );
    }
}

#[test]
fn logic_with_most_events_open_computes_them_whole_or_falls_back() {
    // Three of four events open: the right side is computed for all four at once; where
    // that fails on the event the left side decides, for the open ones only.
    let mut m = HashMap::new();
    m.insert("Jet_pt", jagged(&[&[50.0, 20.0], &[10.0], &[], &[45.0]]));
    m.insert(
        "nJet",
        Column::Flat(Values::Int(IntTy::INT, vec![2, 1, 0, 1]).into()),
    );
    m.insert("MET_pt", f32_column(&[5.0, 50.0, 60.0, 70.0]));
    let mut b = Batch(m, 4);
    let bools = |v: &[bool]| Column::Flat(Values::Bool(v.to_vec()).into());
    for (text, want) in [
        ("nJet > 0 && Jet_pt[0] > 40", [true, false, false, true]),
        ("nJet == 0 || Jet_pt[0] > 40", [true, false, true, true]),
        (
            "MET_pt > 10 && Sum(Jet_pt) > 40",
            [false, false, false, true],
        ),
        (
            "MET_pt < 10 || Sum(Jet_pt) > 40",
            [true, false, false, true],
        ),
    ] {
        let e = Expression::parse(text).unwrap();
        assert_eq!(e.evaluate(&mut b).unwrap(), bools(&want), "{text}");
    }
    // The error of an open event is still the error.
    let e = Expression::parse("MET_pt > 10 && Jet_pt[0] > 40").unwrap();
    assert!(e.evaluate(&mut b).unwrap_err().message.contains("index 0"));
}

#[test]
fn reductions_add_each_event_s_items_in_order() {
    // In float, 1e8 + 1 is 1e8: only the order of std::accumulate gives 0 for the first
    // event. Empty lists sum to 0, are not Any and are All.
    let mut m = HashMap::new();
    m.insert(
        "x",
        jagged(&[&[1e8, 1.0, -1e8], &[], &[1.0, 1e8, -1e8], &[0.5]]),
    );
    let mut b = Batch(m, 4);
    let run = |text: &str, b: &mut Batch| Expression::parse(text).unwrap().evaluate(b).unwrap();
    assert_eq!(f32s(run("Sum(x)", &mut b)), [0.0, 0.0, 0.0, 0.5]);
    let bools = |v: &[bool]| Column::Flat(Values::Bool(v.to_vec()).into());
    assert_eq!(
        run("Any(x > 0.75f)", &mut b),
        bools(&[true, false, true, false])
    );
    assert_eq!(
        run("All(x > 0.75f)", &mut b),
        bools(&[false, true, false, false])
    );
    assert_eq!(
        run("Sum(x > 0)", &mut b),
        Column::Flat(Values::Int(IntTy::INT, vec![2, 0, 2, 1]).into())
    );
}

#[test]
fn take_names_the_first_index_out_of_its_list() {
    // Argsort of event 0 (50, 20, 45) is (1, 2, 0): one more is 3 of 3 items there.
    let err = eval("Take(Jet_pt, Argsort(Jet_pt) + 1)").unwrap_err();
    assert!(
        err.contains("Take of index 3 from 3 items (event 0 of the batch)"),
        "{err}"
    );
    let err = eval("Take(Jet_pt, Argsort(Jet_pt) - 1)").unwrap_err();
    assert!(err.contains("index -1 from 3 items (event 0"), "{err}");
    // Event 2's one jet, index 1 (event 0 has three): the event's own length counts.
    let err = eval("Take(Jet_pt, Argsort(Jet_pt) * 0 + 1)").unwrap_err();
    assert!(err.contains("index 1 from 1 items (event 2"), "{err}");
}

/// An error of a part computed for some events (the right side of `||`, a side of `?:`) or
/// for the items of `Map`'s lists names the event of the whole expression.
#[test]
fn errors_of_parts_name_the_expression_s_event() {
    let mut b = batch();
    // Event 0 decides `||`; event 1, the first left open, has no jets.
    for text in ["nJet > 2 || Jet_pt[1] > 0", "nJet > 2 ? 1.f : Jet_pt[1]"] {
        let err = evaluated(text, &mut b).unwrap_err();
        assert!(
            err.ends_with("index 1 of an RVec of 0 items (event 1 of the batch)"),
            "{text}: {err}"
        );
    }
    // Item 3 of the jets is event 2's one jet.
    let err = evaluated(
        "Map(Jet_pt, [](float x) { return Jet_eta[2] * x; })",
        &mut b,
    )
    .unwrap_err();
    assert!(
        err.ends_with("index 2 of an RVec of 1 items (event 2 of the batch)"),
        "{err}"
    );
    assert_eq!(
        super::rename_events(
            "Max of an empty RVec (event 12 of the batch), event 3",
            |k| Some(format!("entry {}", 100 + k))
        ),
        "Max of an empty RVec (entry 112), event 3"
    );
}

/// `Take(v, which)[i]` takes only the item `i` chooses: the values of the `Take` indexed, an
/// error for an index it chooses past its list, none for one it leaves out.
#[test]
fn an_item_of_a_take_is_the_item_at_the_chosen_index() {
    let mut b = batch();
    b.0.insert(
        "Jet_pt",
        jagged(&[&[50.0, 20.0, 45.0], &[7.0, 8.0], &[35.0, 1.0]]),
    );
    b.0.insert(
        "best",
        Column::Flat(Values::Int(IntTy::INT, vec![2, 0, 1]).into()),
    );
    let flat = |v: &[f32]| Column::Flat(Values::F32(v.to_vec()).into());
    // Argsort(-pt): (0, 2, 1), (1, 0), (0, 1).
    assert_eq!(
        eval_in("Take(Jet_pt, Argsort(-Jet_pt))[best]", &mut b),
        flat(&[20.0, 8.0, 1.0])
    );
    assert_eq!(
        eval_in("Take(Jet_pt, Argsort(-Jet_pt))[1]", &mut b),
        flat(&[45.0, 7.0, 1.0])
    );
    // Argsort(pt) + 1: (2, 3, 1), (1, 2), (2, 1); `best` leaves out the 3 and both 2s past
    // their lists.
    assert_eq!(
        eval_in("Take(Jet_pt, Argsort(Jet_pt) + 1)[best]", &mut b),
        flat(&[20.0, 8.0, 1.0])
    );
    let err = evaluated("Take(Jet_pt, Argsort(Jet_pt) + 1)[0]", &mut b).unwrap_err();
    assert_eq!(
        err,
        "0: Take of index 2 from 2 items (event 2 of the batch)"
    );
    let err = evaluated("Take(Jet_pt, Argsort(Jet_pt))[2]", &mut b).unwrap_err();
    assert!(
        err.contains("index 2 of an RVec of 2 items (event 1 of the batch)"),
        "{err}"
    );
    // A mask: the items of the whole `Take` it keeps.
    assert_eq!(
        eval_in("Take(Jet_pt, Argsort(Jet_pt))[Jet_pt > 10]", &mut b),
        jagged(&[&[20.0, 45.0, 50.0], &[], &[1.0]])
    );
}

/// A scope whose list `l` can be sized without being computed, as a defined `Concatenate`
/// not computed yet is; asking for its items is an error.
struct SizedOnly(Batch);

impl Scope for SizedOnly {
    fn column(&mut self, name: &str) -> Result<Column, String> {
        match name {
            "l" => Err("l computed".into()),
            _ => self.0.column(name),
        }
    }
    fn events(&self) -> usize {
        3
    }
    fn sizes(&mut self, name: &str) -> Result<Option<Column>, String> {
        Ok((name == "l").then(|| Column::Flat(Values::Int(IntTy::SIZE, vec![2, 0, 5]).into())))
    }
}

#[test]
fn sizes_of_concatenations_and_sized_columns_need_no_items() {
    let eval = |text: &str| {
        Expression::parse(text)
            .unwrap()
            .evaluate(&mut SizedOnly(batch()))
            .map_err(|e| e.message)
    };
    let ints = |v: Vec<i64>| Column::Flat(Values::Int(IntTy::SIZE, v).into());
    assert_eq!(eval("l.size() >= 2").unwrap(), {
        Column::Flat(Values::Bool(vec![true, false, true]).into())
    });
    assert_eq!(eval("size(l) + 1").unwrap(), ints(vec![3, 1, 6]));
    // Jets: 3, 0 and 1 per event; a read column is counted from its lists.
    assert_eq!(
        eval("Concatenate(l, Jet_pt).size()").unwrap(),
        ints(vec![5, 0, 6])
    );
    assert_eq!(
        eval("Concatenate(Jet_eta, Concatenate(Jet_pt, Jet_phi)).size()").unwrap(),
        ints(vec![9, 0, 3])
    );
    // Whatever else needs the items computes them.
    assert_eq!(eval("l[0]").unwrap_err(), "l computed");
    assert_eq!(eval("Sum(l)").unwrap_err(), "l computed");
    // A size of what is not a list stays an error.
    assert!(eval("Concatenate(MET_pt, Jet_pt).size()").is_err());
}

#[test]
fn random_token_strings_are_values_or_errors_never_panics() {
    // Strings of the dialect's tokens in random order: each parses to an expression whose
    // evaluation gives a column or an error, or is a parse error.
    const WORDS: &[&str] = &[
        "nJet",
        "Jet_pt",
        "Jet_eta",
        "Jet_id",
        "MET_pt",
        "1",
        "2u",
        "-1",
        "0.5f",
        "1e3",
        "18446744073709551615ull",
        "0xFF",
        "+",
        "-",
        "*",
        "/",
        "%",
        "<",
        ">",
        "==",
        "&&",
        "||",
        "!",
        "?",
        ":",
        "(",
        ")",
        "[",
        "]",
        ",",
        ".",
        "size()",
        "Sum",
        "Max",
        "ArgMax",
        "Take",
        "Map",
        "[](int x) { return x; }",
        "[&](float a, float b) { return a * b; }",
        "static_cast<int>",
        "static_cast<",
        "(float)",
        "(unsigned)",
        "int",
        "double(",
        "Combinations",
        "Where",
        "abs",
        "sqrt",
        "Concatenate",
        "Sum(Jet_pt > 40)",
        "&",
        "|",
        "^",
        "~",
        "<<",
        ">>",
        "TMath::Sqrt",
        "Product",
        "Dot",
        ".at(",
        "Range",
        r#""HLT""#,
        r#"""#,
        r#""a\"b""#,
        r#""\q""#,
        r#".Contains("J")"#,
        ".length()",
    ];
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let (mut parsed, mut evaluated) = (0, 0);
    for _ in 0..20_000 {
        let len = 1 + next(8);
        let text: Vec<&str> = (0..len).map(|_| WORDS[next(WORDS.len())]).collect();
        let text = text.join(" ");
        if let Ok(e) = Expression::parse(&text) {
            parsed += 1;
            evaluated += e.evaluate(&mut batch()).is_ok() as usize;
        }
    }
    // Some of them are expressions, and some of those have values.
    assert!(parsed > 500 && evaluated > 200, "{parsed} {evaluated}");
}

#[test]
fn braced_lists_ranges_and_sums_from_a_value_are_rvec_s() {
    // Each as ROOT 6.40's RDataFrame gives it (`Range` there spelled `ROOT::VecOps::Range`).
    assert_eq!(
        eval("Drop(Jet_pt, {0})").unwrap(),
        jagged(&[&[20.0, 45.0], &[], &[]])
    );
    let typed = eval("ROOT::RVecF{MET_pt, MET_pt * 2}").unwrap();
    assert_eq!(
        typed,
        jagged(&[&[10.5, 21.0], &[20.25, 40.5], &[30.0, 60.0]])
    );
    let double = eval("ROOT::VecOps::RVec<double>{1, 2}").unwrap();
    assert_eq!(double.type_name(), "RVec<double>");
    let mixed = eval("{1, nJet}").unwrap();
    assert_eq!(mixed.type_name(), "RVec<unsigned int>");
    let ints = |c: Column| match c {
        Column::Jagged(o, v) => match &*v {
            Values::Int(t, x) => (t.name(), o.to_vec(), x.clone()),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    };
    assert_eq!(
        ints(mixed),
        ("unsigned int", vec![0, 2, 4, 6], vec![1, 3, 1, 0, 1, 1])
    );
    assert_eq!(
        typed_ints(eval("Sum(ROOT::RVecI{2, nJet})").unwrap()),
        ("int", vec![5, 2, 3])
    );
    // Range: size_t from two arguments, long long (signed strides) from three.
    assert_eq!(
        ints(eval("Range(1u, nJet)").unwrap()),
        ("unsigned long", vec![0, 2, 2, 2], vec![1, 2])
    );
    assert_eq!(
        ints(eval("ROOT::VecOps::Range(nJet, 0, -2)").unwrap()),
        ("Long64_t", vec![0, 2, 2, 3], vec![3, 1, 1])
    );
    assert_eq!(
        ints(eval("Range(1, 8, 3) + nJet * 0").unwrap()),
        (
            "Long64_t",
            vec![0, 3, 6, 9],
            vec![1, 4, 7, 1, 4, 7, 1, 4, 7]
        )
    );
    assert!(eval("Range(1, 8, 0)").unwrap_err().contains("stride of 0"));
    // Lists longer than memory can hold are errors, not allocations: -1 is the largest
    // `std::size_t` (ROOT's RVec throws, as it holds at most 2^31 - 1 items).
    for huge in [
        "Range(0, -1)",
        "ROOT::VecOps::Range(nJet * 100000000)",
        "Range(0ll, 1ll << 40, 1ll)",
        "Take(Jet_pt, 2000000000, 0.f)",
        "Take(Jet_pt, -30000000 * (int)nJet, 0.f)",
    ] {
        let err = eval(huge).unwrap_err();
        assert!(err.contains("items in a batch"), "{huge}: {err}");
    }
    for list in [
        "Range(Jet_pt > 0)",
        "Range(0u, Range(0u, nJet))",
        "Range(nJet, Jet_id, 2)",
    ] {
        let err = eval(list).unwrap_err();
        assert!(
            err.contains("Range takes numbers, one per event"),
            "{list}: {err}"
        );
    }
    // Sum from a first value of the items' type; with another type, ROOT 6.40's overload of
    // RVec<bool>: the zero as a std::size_t plus the items that are not 0.
    assert_eq!(f32s(eval("Sum(Jet_pt, 1.f)").unwrap()), [116.0, 1.0, 36.0]);
    let counted = eval("Sum(Jet_pt, 1.)").unwrap();
    assert_eq!(
        counted.flat(),
        Some(&Values::Int(IntTy::SIZE, vec![4, 1, 2]))
    );
    let wrapped = eval("Sum(Jet_pt, -3)").unwrap();
    assert_eq!(
        wrapped.flat(),
        Some(&Values::Int(IntTy::SIZE, vec![0, -3, -2]))
    );
    assert!(eval("Sum(Jet_pt, -1.5)")
        .unwrap_err()
        .contains("undefined in C++"));
    assert!(eval("{Jet_pt, 1}")
        .unwrap_err()
        .contains("items are numbers"));
}

#[test]
fn constants_are_numbers_of_no_column() {
    let constant = |t: &str| {
        let v = Expression::parse(t).unwrap().constant_value();
        v.map(|v| v.as_f64().expect("a number")[0])
    };
    assert_eq!(constant("1.5 * 2 + 7 / 2").unwrap(), 6.0); // 7 / 2 is an int division
    assert_eq!(constant("true && 2 > 3 ? 10 : 20").unwrap(), 20.0);
    assert_eq!(constant("1 < 2").unwrap(), 1.0);
    assert!(constant("x * 2")
        .unwrap_err()
        .message
        .contains("no column 'x'"));
    assert!(constant("ROOT::RVecD{1.0, 2.0}")
        .unwrap_err()
        .message
        .contains("not one number"));
}

/// A column of lists: its offsets and its values.
fn lists(c: Column) -> (Vec<usize>, Values) {
    match c {
        Column::Jagged(o, v) => ((*o).clone(), (*v).clone()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn rvecs_of_a_size_are_made_as_roots_constructors_make_them() {
    // nJet: 3, 0, 1; MET_pt: 10.5, 20.25, 30.0.
    let (o, v) = lists(eval("ROOT::VecOps::RVec<float>(nJet)").unwrap());
    assert_eq!((o, v), (vec![0, 3, 3, 4], Values::F32(vec![0.0; 4])));
    let (o, v) = lists(eval("ROOT::RVecD(nJet, MET_pt)").unwrap());
    let items = vec![10.5, 10.5, 10.5, 30.0];
    assert_eq!((o, v), (vec![0, 3, 3, 4], Values::F64(items)));
    // The value converted to the items' type, the size cut to a whole number.
    let (o, v) = lists(eval("RVec<int>(MET_pt / 10, -2.7)").unwrap());
    assert_eq!(o, vec![0, 1, 3, 6]);
    assert_eq!(v, Values::Int(IntTy::INT, vec![-2; 6]));
    let (_, v) = lists(eval("ROOT::RVecB(2, nJet)").unwrap());
    assert_eq!(v, Values::Bool(vec![true, true, false, false, true, true]));
    // A list is still converted, item by item.
    let (o, v) = lists(eval("ROOT::RVecI(Jet_pt)").unwrap());
    assert_eq!(
        (o, v),
        (
            vec![0, 3, 3, 4],
            Values::Int(IntTy::INT, vec![50, 20, 45, 35])
        )
    );
    // Used in the dialect's functions, as a weight per jet.
    assert_eq!(
        f32s(eval("Sum(Jet_pt * ROOT::RVecF(nJet, 0.5f))").unwrap()),
        [57.5, 0.0, 17.5]
    );
}

#[test]
fn rvecs_of_a_size_that_is_not_one_are_errors() {
    let e = eval("ROOT::RVecF(int(nJet) - 2)").unwrap_err();
    assert!(
        e.starts_with("0: RVec<float>(n): n is -2 (event 1 of the batch)"),
        "{e}"
    );
    // An unsigned size wraps, as in C++: too many items.
    let e = eval("ROOT::RVecF(nJet - 2)").unwrap_err();
    assert!(e.contains("n is 4294967294 (event 1 of the batch)"), "{e}");
    let e = eval("ROOT::RVecF(1e12)").unwrap_err();
    assert!(e.contains("n is 1000000000000 "), "{e}");
    let e = eval("ROOT::RVecF(sqrt(-1.0))").unwrap_err();
    assert!(e.contains("n is NaN"), "{e}");
    let e = eval("ROOT::RVecF(nJet, Jet_pt)").unwrap_err();
    assert!(
        e.contains("n and value are one number per event, not lists"),
        "{e}"
    );
    let e = eval("RVec<double>(Combinations(Jet_pt, Jet_eta))").unwrap_err();
    assert!(e.contains("several lists"), "{e}");
}

#[test]
fn take_with_a_default_pads_as_rvec_s() {
    // Jet_pt: [50, 20, 45], [], [35].
    let cases: &[(&str, &[&[f32]])] = &[
        (
            "Take(Jet_pt, 2, -1.f)",
            &[&[50.0, 20.0], &[-1.0, -1.0], &[35.0, -1.0]],
        ),
        (
            "Take(Jet_pt, -2, -1.f)",
            &[&[20.0, 45.0], &[-1.0, -1.0], &[-1.0, 35.0]],
        ),
        (
            "Take(Jet_pt, {2, 5, 0}, MET_pt)",
            &[
                &[45.0, 10.5, 50.0],
                &[20.25, 20.25, 20.25],
                &[30.0, 30.0, 35.0],
            ],
        ),
        (
            "Take(Jet_pt, ROOT::RVecI{-1, 0}, 0.f)",
            &[&[0.0, 50.0], &[0.0, 0.0], &[0.0, 35.0]],
        ),
    ];
    for (text, want) in cases {
        assert_eq!(eval(text).unwrap(), jagged(want), "{text}");
    }
    let e = eval("Take(Jet_pt, 2, -1)").unwrap_err();
    assert!(
        e.contains("default must be of the items' type float, not int"),
        "{e}"
    );
}

#[test]
fn filter_of_a_list_keeps_the_items_its_lambda_is_true_of() {
    let kept = eval("Filter(Jet_pt, [](float pt) { return pt > 40; })").unwrap();
    assert_eq!(kept, jagged(&[&[50.0, 45.0], &[], &[]]));
    let e =
        Expression::parse("Filter(Jet_pt, [](float a, float b) { return a > b; })").unwrap_err();
    assert!(
        e.message.contains("lambda of 2 parameters"),
        "{}",
        e.message
    );
}

#[test]
fn sorts_with_a_comparator_sort_as_it_says() {
    // Jet_pt: [50, 20, 45], [], [35]; Jet_id [200, 100, 1], [], [255].
    let sizes = |c: Column| match c.jagged() {
        Some((_, Values::Int(_, v))) => v.clone(),
        _ => panic!("{c:?}"),
    };
    let down = "[](float a, float b) { return a > b; }";
    let up = "[](float a, float b) { return b > a; }";
    assert_eq!(
        sizes(eval(&format!("Argsort(Jet_pt, {down})")).unwrap()),
        [0, 2, 1, 0]
    );
    assert_eq!(
        sizes(eval(&format!("StableArgsort(Jet_pt, {up})")).unwrap()),
        [1, 2, 0, 0]
    );
    assert_eq!(
        eval(&format!("Sort(Jet_pt, {down})")).unwrap(),
        jagged(&[&[50.0, 45.0, 20.0], &[], &[35.0]])
    );
    assert_eq!(
        eval("StableSort(Jet_pt, [](float x, float y) { return y < x; })").unwrap(),
        jagged(&[&[50.0, 45.0, 20.0], &[], &[35.0]])
    );
    // Compared as the parameters convert them: 0.5, 0.2 and 0.45 are all 0 as `int`s, so
    // `Argsort` keeps their order.
    assert_eq!(
        eval("Sort(Jet_pt * 0.1f, [](int a, int b) { return a > b; })").unwrap(),
        jagged(&[&[5.0, 4.5, 2.0], &[], &[3.5]])
    );
    assert_eq!(
        sizes(eval("Argsort(Jet_pt * 0.01f, [](int a, int b) { return a > b; })").unwrap()),
        [0, 1, 2, 0]
    );
    let e = Expression::parse("Sort(Jet_pt, [](float a, float b) { return abs(a) > abs(b); })")
        .unwrap_err();
    assert_eq!(e.pos, 13);
    assert!(
        e.message.contains("only [](T a, T b) { return a < b; }"),
        "{}",
        e.message
    );
}

#[test]
fn stable_sorts_of_lists_with_nan_keep_every_item() {
    // Lists of 0 to 79 items, a fifth of them NaN (which no order places): a sort that
    // checks its comparisons for a total order could stop here.
    let lists: Vec<Vec<f32>> = (0..80)
        .map(|n| {
            (0..n)
                .map(|i| match (i * 37 + n) % 5 {
                    0 => f32::NAN,
                    r => (r * 10 + i % 3) as f32,
                })
                .collect()
        })
        .collect();
    let slices: Vec<&[f32]> = lists.iter().map(Vec::as_slice).collect();
    let mut b = Batch(HashMap::from([("k", jagged(&slices))]), 80);
    for text in [
        "StableArgsort(k)",
        "StableArgsort(k, [](float a, float b) { return a > b; })",
    ] {
        let sorted = eval_in(text, &mut b);
        let Some((offsets, Values::Int(_, v))) = sorted.jagged() else {
            panic!("{sorted:?}")
        };
        for (n, w) in offsets.windows(2).enumerate() {
            let mut index = v[w[0]..w[1]].to_vec();
            index.sort_unstable();
            assert_eq!(index, (0..n as i64).collect::<Vec<_>>(), "{text}: list {n}");
        }
    }
    let sorted = eval_in("StableSort(k)", &mut b);
    let Some((_, Values::F32(v))) = sorted.jagged() else {
        panic!("{sorted:?}")
    };
    let nan = |x: &f32| x.is_nan();
    assert_eq!(
        v.iter().filter(|x| nan(x)).count(),
        lists.concat().iter().filter(|x| nan(x)).count()
    );
}

#[test]
fn sums_of_lists_of_four_vectors_add_from_a_zero_vector() {
    use super::lorentz::P4;
    let v = "Construct<ROOT::Math::PtEtaPhiMVector>(Jet_pt, Jet_eta, Jet_phi, Jet_pt * 0.1f)";
    let got = match eval(&format!("Sum({v}).M()")).unwrap().flat() {
        Some(Values::F64(m)) => m.clone(),
        other => panic!("{other:?}"),
    };
    // As `std::accumulate` from `PtEtaPhiMVector()`: one vector at a time, each partial sum
    // in ROOT's coordinates; an empty list gives the zero vector.
    let jet = |pt: f32, eta: f32, phi: f32| {
        P4::new(pt as f64, eta as f64, phi as f64, (pt * 0.1f32) as f64)
    };
    let zero = P4::new(0.0, 0.0, 0.0, 0.0);
    let first = zero
        .add(&jet(50.0, 0.5, 0.1))
        .add(&jet(20.0, -2.0, 3.0))
        .add(&jet(45.0, 1.5, -3.0));
    let last = zero.add(&jet(35.0, -0.2, 1.0));
    assert_eq!(got, vec![first.m(), 0.0, last.m()]);
    assert!(eval(&format!("Mean({v})")).is_err());
}

#[test]
fn character_literals_are_chars_and_signed_chars_a_type_of_their_own() {
    // Each type and value as ROOT 6.40's RDataFrame gives them: `char` and `signed char` are
    // two types (a `Char_t` leaf holds `char`s, an RNTuple's `std::int8_t` `signed char`s).
    let cases: &[(&str, &str, &[i64])] = &[
        ("nJet > 0 ? 'y' : 'n'", "char", &[121, 110, 121]),
        ("'a' + nJet", "unsigned int", &[100, 97, 98]),
        ("'\\x41' + 0 * (int)nJet", "int", &[65, 65, 65]),
        ("'\\n' * 1ll", "Long64_t", &[10, 10, 10]),
        ("'\\'' + 0 * (int)nJet", "int", &[39, 39, 39]),
        ("(char)(nJet * 100)", "char", &[44, 0, 100]),
        (
            "static_cast<signed char>(nJet * 100)",
            "signed char",
            &[44, 0, 100],
        ),
        ("(std::int8_t)(200 + nJet)", "signed char", &[-53, -56, -55]),
        ("(Char_t)(200 + nJet)", "char", &[-53, -56, -55]),
    ];
    for (text, ty, values) in cases {
        let got = typed_ints(eval(text).unwrap_or_else(|e| panic!("{text}: {e}")));
        assert_eq!(got, (*ty, values.to_vec()), "{text}");
    }
    let compared = eval("Jet_id == '\\xc8'").unwrap();
    assert_eq!(compared.type_name(), "RVec<int>");
    for (text, at, message) in [
        ("nJet == 'ab'", 8, "more than one character"),
        ("nJet == ''", 8, "one ASCII character"),
        ("nJet == 'a", 8, "without its closing quote"),
        ("'\\q'", 1, "an escape other than"),
        ("'\\x4'", 1, "two hexadecimal digits"),
        ("\"\\x41B\" == \"A\"", 1, "exactly two hexadecimal digits"),
    ] {
        let e = Expression::parse(text).unwrap_err();
        assert_eq!(e.pos, at, "{text}");
        assert!(e.message.contains(message), "{text}: {}", e.message);
    }
}
