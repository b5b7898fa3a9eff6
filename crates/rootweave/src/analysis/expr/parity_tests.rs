//! Expressions on which rootweave once differed from ROOT (found by evaluating random
//! expressions with both, `tests/python/random_expressions.py`), each with the type and
//! values ROOT 6.40's RDataFrame gives.

use std::sync::Arc;

use super::tests::{batch, evaluated, Batch};
use super::{IntTy, Rank};
use crate::analysis::column::{Column, Values};

/// The test batch with `Mu_tight`, a list of `bool`s: [true, false], [], [false].
fn with_bools() -> Batch {
    let mut b = batch();
    let tight = Values::Bool(vec![true, false, false]);
    b.0.insert(
        "Mu_tight",
        Column::Jagged(Arc::new(vec![0, 2, 2, 3]), tight.into()),
    );
    b
}

fn eval(text: &str) -> Result<Column, String> {
    evaluated(text, &mut with_bools())
}

/// The C++ type and the values (as text, to compare every kind at once) of `text`.
fn typed(text: &str) -> (String, String) {
    let c = eval(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let values = match &c {
        Column::Flat(v) => format!("{:?}", v),
        Column::Jagged(o, v) => format!("{:?} {:?}", o, v),
        Column::Tuple(_) => panic!("{text}: combinations"),
    };
    (c.type_name(), values)
}

fn check(cases: &[(&str, &str, Values, &[usize])]) {
    for (text, ty, values, offsets) in cases {
        let want = if offsets.is_empty() {
            format!("{values:?}")
        } else {
            format!("{offsets:?} {values:?}")
        };
        assert_eq!(typed(text), (ty.to_string(), want), "{text}");
    }
}

#[test]
fn unary_operators_on_lists_keep_the_item_type() {
    // `Jet_id`: unsigned chars [200, 100, 1], [], [255].
    let uchar = IntTy::new(Rank::Char, true);
    let lists = [0, 3, 3, 4];
    check(&[
        (
            "-Jet_id",
            "RVec<unsigned char>",
            Values::Int(uchar, vec![56, 156, 255, 1]),
            &lists,
        ),
        (
            "+Jet_id",
            "RVec<unsigned char>",
            Values::Int(uchar, vec![200, 100, 1, 255]),
            &lists,
        ),
        (
            "~Jet_id",
            "RVec<unsigned char>",
            Values::Int(uchar, vec![55, 155, 254, 0]),
            &lists,
        ),
        (
            "-Mu_tight",
            "RVec<bool>",
            Values::Bool(vec![true, false, false]),
            &[0, 2, 2, 3],
        ),
        (
            "+Mu_tight",
            "RVec<bool>",
            Values::Bool(vec![true, false, false]),
            &[0, 2, 2, 3],
        ),
        // A number's `+` promotes it, as C++'s does.
        (
            "+(nJet > 1)",
            "int",
            Values::Int(IntTy::INT, vec![1, 0, 0]),
            &[],
        ),
        (
            "+Sum(Jet_id)",
            "int",
            Values::Int(IntTy::INT, vec![45, 0, 255]),
            &[],
        ),
    ]);
    assert!(eval("~Mu_tight")
        .unwrap_err()
        .contains("'~' of an RVec<bool>"));
}

#[test]
fn bools_meet_bools_as_std_common_type_says() {
    let tight = [0, 4, 4, 6];
    check(&[
        (
            "Concatenate(Mu_tight, Mu_tight)",
            "RVec<bool>",
            Values::Bool(vec![true, false, true, false, false, false]),
            &tight,
        ),
        (
            "Where(Mu_tight, Mu_tight, !Mu_tight)",
            "RVec<bool>",
            Values::Bool(vec![true, true, true]),
            &[0, 2, 2, 3],
        ),
        (
            "Product(Mu_tight)",
            "bool",
            Values::Bool(vec![false, true, false]),
            &[],
        ),
        // Var's sums are `bool`s: (any - any / n) / (n - 1).
        (
            "Var(Mu_tight)",
            "double",
            Values::F64(vec![0.5, 0.0, 0.0]),
            &[],
        ),
        (
            "Sum(Mu_tight, 3u)",
            "unsigned long",
            Values::Int(IntTy::SIZE, vec![4, 3, 3]),
            &[],
        ),
        (
            "Sum(Mu_tight, 0)",
            "unsigned long",
            Values::Int(IntTy::SIZE, vec![1, 0, 0]),
            &[],
        ),
        (
            "Sum(Mu_tight, false)",
            "bool",
            Values::Bool(vec![true, false, false]),
            &[],
        ),
    ]);
}

#[test]
fn min_and_max_choose_as_their_cpp_comparisons_do() {
    // MET_pt: 10.5, 20.25, 30; `nan` is a NaN per event.
    let nan = "(MET_pt / 0.f * 0.f)";
    let picks = [
        (format!("std::min({nan}, -1.f)"), true),
        (format!("std::min(-1.f, {nan})"), false),
        (format!("std::max({nan}, -1.f)"), true),
        (format!("std::max(-1.f, {nan})"), false),
        (format!("TMath::Min({nan}, -1.f)"), false),
        (format!("TMath::Min(-1.f, {nan})"), true),
        (format!("TMath::Max({nan}, -1.f)"), false),
        (format!("TMath::Max(-1.f, {nan})"), true),
    ];
    for (text, is_nan) in picks {
        let Some(Values::F32(v)) = eval(&text).unwrap().flat().cloned() else {
            panic!("{text}")
        };
        assert!(
            v.iter()
                .all(|x| x.is_nan() == is_nan && (is_nan || *x == -1.0)),
            "{text}: {v:?}"
        );
    }
    let sign = |text: &str| match eval(text).unwrap().flat() {
        Some(Values::F64(v)) => v[0].is_sign_negative(),
        other => panic!("{text}: {other:?}"),
    };
    assert!(!sign("std::min(0. * MET_pt, -0.)"));
    assert!(sign("std::max(-0. * MET_pt, 0.)"));
    assert!(sign("TMath::Max(-0. * MET_pt, 0.)"));
}

#[test]
fn lists_of_integers_take_root_s_types() {
    check(&[
        // `abs` of a list of integers is a list of `double`s (`RVec`'s `PromoteType`).
        (
            "abs(Jet_pt > 40)",
            "RVec<double>",
            Values::F64(vec![1.0, 0.0, 1.0, 0.0]),
            &[0, 3, 3, 4],
        ),
        (
            "Take(Jet_pt > 40, 4, 7)",
            "RVec<int>",
            Values::Int(IntTy::INT, vec![1, 0, 1, 7, 7, 7, 7, 7, 0, 7, 7, 7]),
            &[0, 4, 8, 12],
        ),
    ]);
}

#[test]
fn a_constant_condition_still_gives_both_sides_common_type() {
    // nJet: 3, 0, 1; C++ types `c ? nJet : 1.5` as `double` whatever `c`.
    check(&[
        (
            "(1 ? nJet : 1.5) / 2",
            "double",
            Values::F64(vec![1.5, 0.0, 0.5]),
            &[],
        ),
        (
            "(0 ? 1.5 : nJet)",
            "double",
            Values::F64(vec![3.0, 0.0, 1.0]),
            &[],
        ),
        (
            "(true ? nJet : 2u)",
            "unsigned int",
            Values::Int(IntTy::UINT, vec![3, 0, 1]),
            &[],
        ),
    ]);
}

#[test]
fn typed_braced_lists_of_small_integers_keep_their_type() {
    let ushort = IntTy::new(Rank::Short, true);
    let uchar = IntTy::new(Rank::Char, true);
    check(&[
        // nJet: 3, 0, 1.
        (
            "-ROOT::VecOps::RVec<unsigned short>{nJet, 1}",
            "RVec<unsigned short>",
            Values::Int(ushort, vec![65533, 65535, 0, 65535, 65535, 65535]),
            &[0, 2, 4, 6],
        ),
        // Sums in the items' type wrap: 200 + 100 is 44 as an unsigned char.
        (
            "Sum(ROOT::VecOps::RVec<unsigned char>{200, 100})",
            "unsigned char",
            Values::Int(uchar, vec![44, 44, 44]),
            &[],
        ),
    ]);
}

#[test]
fn intersect_searches_as_root_s_binary_search_does() {
    // A NaN of the first list is found in any list its search ends on; the second list
    // sorted [4, NaN] hides neither 1 nor 3 by equality but by the search's path.
    let nan = |text: &str| match eval(text).unwrap().jagged() {
        Some((o, Values::F32(v))) => (o.to_vec(), v.iter().map(|x| x.is_nan()).collect::<Vec<_>>()),
        other => panic!("{text}: {other:?}"),
    };
    assert_eq!(
        nan("Intersect(ROOT::RVecF{MET_pt / 0.f * 0.f, 1.f}, ROOT::RVecF{2.f})"),
        (vec![0, 1, 2, 3], vec![true, true, true])
    );
    assert_eq!(
        nan("Intersect(ROOT::RVecF{1.f, 3.f}, ROOT::RVecF{4.f, MET_pt / 0.f * 0.f})"),
        (vec![0, 0, 0, 0], vec![])
    );
    assert_eq!(
        nan("Intersect(ROOT::RVecF{1.f, 3.f}, ROOT::RVecF{3.f, 1.f, 2.f})"),
        (vec![0, 2, 4, 6], vec![false; 6])
    );
}
