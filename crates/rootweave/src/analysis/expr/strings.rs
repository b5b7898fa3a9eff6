//! Strings in expressions: `std::string` and `TString` columns (and `RVec`s of them),
//! string literals, comparisons byte by byte as `std::string`'s operators compare, joins
//! (`name + "_up"`), and the methods analysts call on them (`size()`, `length()`,
//! `empty()`, `TString::Length()`, `TString::IsNull()`, `TString::Contains()`).

use std::sync::Arc;

use super::eval::truth;
use super::int_type::IntTy;
use super::syntax::BinaryOp;
use super::value::{align, shaped, Lane, Num, Shape, Val};
use crate::analysis::column::{Column, Text, Values};

/// The methods of strings the dialect has, with their arguments (the string included);
/// `size()` and `empty()` are also `RVec`'s, and in its tables.
pub const SIGNATURES: &[(&str, &[usize])] = &[
    (".length", &[1]),
    (".Length", &[1]),
    (".IsNull", &[1]),
    (".Contains", &[2]),
];

/// A literal: the same string for each of `events` events.
pub fn literal(bytes: &[u8], events: usize) -> Val {
    let text = Text::from(bytes);
    Val::Col(Column::Flat(Arc::new(Values::Str(vec![text; events]))))
}

/// The strings of an operand of `op`, or an error naming what it is instead.
pub(super) fn texts<'a>(lane: &'a Lane<'_>, op: &str) -> Result<&'a [Text], String> {
    match lane {
        Lane::Many(v) => match &**v {
            Values::Str(t) => Ok(t),
            other => Err(format!("'{op}' of a string and a {}", other.type_name())),
        },
        Lane::One(_) => Err(format!("'{op}' of a string and a number")),
    }
}

/// `a op b` of two strings at each of `n` positions, in `shape`: `+` joins them (as
/// `std::string`'s does), comparisons give conditions.
pub fn binary(
    op: BinaryOp,
    a: &Lane<'_>,
    b: &Lane<'_>,
    n: usize,
    shape: &Shape,
) -> Result<Values, String> {
    if op == BinaryOp::Add {
        let (a, b) = (texts(a, "+")?, texts(b, "+")?);
        let joined = a[..n]
            .iter()
            .zip(&b[..n])
            .map(|(x, y)| [&x[..], &y[..]].concat().into());
        return Ok(Values::Str(joined.collect()));
    }
    Ok(truth(shape, compare(op, a, b, n)?))
}

/// `a op b` of two strings at each of `n` positions, for a comparison `op`.
fn compare(op: BinaryOp, a: &Lane<'_>, b: &Lane<'_>, n: usize) -> Result<Vec<bool>, String> {
    let test: fn(&[u8], &[u8]) -> bool = match op {
        BinaryOp::Eq => |x, y| x == y,
        BinaryOp::Ne => |x, y| x != y,
        BinaryOp::Lt => |x, y| x < y,
        BinaryOp::Le => |x, y| x <= y,
        BinaryOp::Gt => |x, y| x > y,
        BinaryOp::Ge => |x, y| x >= y,
        other => return Err(format!("'{}' of strings", other.symbol())),
    };
    let (a, b) = (texts(a, op.symbol())?, texts(b, op.symbol())?);
    Ok(a[..n]
        .iter()
        .zip(&b[..n])
        .map(|(x, y)| test(x, y))
        .collect())
}

/// `Where(c, a, b)` of strings: item by item, `a`'s where `c` holds, else `b`'s.
pub fn where_texts(
    c: &Num<'_, bool>,
    a: &Lane<'_>,
    b: &Lane<'_>,
    n: usize,
) -> Result<Values, String> {
    let (a, b) = (texts(a, "Where")?, texts(b, "Where")?);
    let pick = |i: usize| if c.at(i) { a[i].clone() } else { b[i].clone() };
    Ok(Values::Str((0..n).map(pick).collect()))
}

/// A method of a string column (`name.size()`): `None` where `name` is not a method of
/// strings or its object is not one string per event or list item.
pub fn call(name: &str, args: &[Val], events: usize) -> Option<Result<Val, String>> {
    // An `RVec` of strings has `RVec`'s methods (`v.size()` is the list's size), not its
    // strings'; `Map` calls a string's methods on each item.
    let Val::Col(Column::Flat(object)) = args.first()? else {
        return None;
    };
    let Values::Str(strings) = &**object else {
        return None;
    };
    let lengths = |ty: IntTy| Values::Int(ty, strings.iter().map(|s| s.len() as i64).collect());
    let values = match name {
        ".size" | "size" | ".length" => lengths(IntTy::SIZE),
        // `Ssiz_t`, an `int`.
        ".Length" => lengths(IntTy::INT),
        ".empty" | ".IsNull" => Values::Bool(strings.iter().map(|s| s.is_empty()).collect()),
        ".Contains" => return Some(contains(&args[0], &args[1], events)),
        _ => return None,
    };
    Some(Ok(Val::Col(Column::Flat(values.into()))))
}

/// `s.Contains(t)` at each position: whether `t` occurs in `s` (an empty `t` does).
fn contains(s: &Val, t: &Val, events: usize) -> Result<Val, String> {
    let (shape, n, lanes) = align(&[s, t], events)?;
    let (a, b) = (texts(&lanes[0], "Contains")?, texts(&lanes[1], "Contains")?);
    let found = a[..n]
        .iter()
        .zip(&b[..n])
        .map(|(s, t)| t.is_empty() || s.windows(t.len()).any(|w| w == &t[..]))
        .collect();
    Ok(shaped(shape, Values::Bool(found), false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::expr::{evaluate, Expression, Scope};

    /// Three events of a string column `name` and a list of strings `paths` per event.
    struct Strings;

    impl Scope for Strings {
        fn column(&mut self, name: &str) -> Result<Column, String> {
            match name {
                "name" => Ok(Column::Flat(strs(&["odd", "", "even"]).into())),
                "paths" => Ok(Column::Jagged(
                    Arc::new(vec![0, 2, 2, 5]),
                    strs(&["HLT_Mu", "HLT_Ele", "L1_Mu", "HLT_Mu", "Mu"]).into(),
                )),
                _ => Err(format!("no column {name}")),
            }
        }

        fn events(&self) -> usize {
            3
        }
    }

    fn value(text: &str) -> Result<Values, String> {
        let e = Expression::parse(text).map_err(|e| format!("{} at {}", e.message, e.pos))?;
        match evaluate(&e.tree, &mut Strings).map_err(|e| e.message)? {
            Column::Flat(v) | Column::Jagged(_, v) => Ok(Arc::unwrap_or_clone(v)),
            Column::Tuple(_) => Err("a tuple".into()),
        }
    }

    fn bools(v: &[u8]) -> Values {
        Values::Bool(v.iter().map(|&b| b == 1).collect())
    }

    #[test]
    fn strings_compare_byte_by_byte_as_std_string_does() {
        assert_eq!(value(r#"name == "odd""#), Ok(bools(&[1, 0, 0])));
        assert_eq!(value(r#""odd" != name"#), Ok(bools(&[0, 1, 1])));
        // "" < "even" < "odd"; a byte above 127 sorts after ASCII, as unsigned chars do.
        assert_eq!(value(r#"name < "odd""#), Ok(bools(&[0, 1, 1])));
        assert_eq!(value(r#"name >= "even""#), Ok(bools(&[1, 0, 1])));
        assert_eq!(value("name > \"\u{e9}\""), Ok(bools(&[0, 0, 0])));
        assert_eq!(
            value(r#"Sum(paths == "HLT_Mu")"#),
            Ok(Values::Int(IntTy::INT, vec![1, 0, 1]))
        );
        assert_eq!(
            value(r#"paths[paths != "Mu"].size()"#),
            Ok(Values::Int(IntTy::SIZE, vec![2, 0, 2]))
        );
    }

    #[test]
    fn string_methods_have_their_cpp_types() {
        assert_eq!(
            value("name.size()"),
            Ok(Values::Int(IntTy::SIZE, vec![3, 0, 4]))
        );
        assert_eq!(value("name.length()"), value("name.size()"));
        assert_eq!(
            value("name.Length() - 1"),
            Ok(Values::Int(IntTy::INT, vec![2, -1, 3]))
        );
        assert_eq!(value("name.empty()"), Ok(bools(&[0, 1, 0])));
        assert_eq!(value("name.IsNull()"), value("name.empty()"));
        assert_eq!(value(r#"name.Contains("d")"#), Ok(bools(&[1, 0, 0])));
        assert_eq!(value(r#"name.Contains("")"#), Ok(bools(&[1, 1, 1])));
        assert_eq!(
            value(r#"Sum(Map(paths, [](const TString &p) { return p.Contains("HLT"); }))"#),
            Ok(Values::Int(IntTy::SIZE, vec![2, 0, 1]))
        );
        assert_eq!(value("paths.empty()"), Ok(bools(&[0, 1, 0])));
        assert_eq!(
            value("paths.size()"),
            Ok(Values::Int(IntTy::SIZE, vec![2, 0, 3]))
        );
        assert_eq!(
            value("Reverse(paths)"),
            Ok(strs(&["HLT_Ele", "HLT_Mu", "Mu", "HLT_Mu", "L1_Mu"]))
        );
    }

    /// Strings as the layer holds them.
    fn strs(items: &[&str]) -> Values {
        Values::Str(items.iter().map(|s| Text::from(s.as_bytes())).collect())
    }

    #[test]
    fn lists_of_strings_sort_join_and_pick_as_rvec_s() {
        // paths: ["HLT_Mu", "HLT_Ele"], [], ["L1_Mu", "HLT_Mu", "Mu"].
        assert_eq!(
            value("Sort(paths)"),
            Ok(strs(&["HLT_Ele", "HLT_Mu", "HLT_Mu", "L1_Mu", "Mu"]))
        );
        assert_eq!(
            value("Argsort(paths)"),
            Ok(Values::Int(IntTy::SIZE, vec![1, 0, 1, 0, 2]))
        );
        assert_eq!(
            value(
                "Take(paths, Argsort(paths, [](std::string a, std::string b) { return a > b; }))"
            ),
            Ok(strs(&["HLT_Mu", "HLT_Ele", "Mu", "L1_Mu", "HLT_Mu"]))
        );
        assert_eq!(
            value("ArgMax(paths)"),
            Ok(Values::Int(IntTy::SIZE, vec![0, 0, 2]))
        );
        assert_eq!(
            value("paths.size() > 0 ? Min(paths) : name"),
            Ok(strs(&["HLT_Ele", "", "HLT_Mu"]))
        );
        assert_eq!(
            value("Concatenate(Reverse(paths), paths)").map(|v| v.len()),
            Ok(10)
        );
        assert_eq!(
            value(r#"Where(paths == "Mu", paths, "-")"#),
            Ok(strs(&["-", "-", "-", "-", "Mu"]))
        );
        assert_eq!(
            value(r#"ROOT::RVec<std::string>{name, "b"}"#),
            Ok(strs(&["odd", "b", "", "b", "even", "b"]))
        );
        assert_eq!(
            value(r#"Intersect(paths, ROOT::RVec<std::string>{"Mu", "HLT_Mu"})"#),
            Ok(strs(&["HLT_Mu", "HLT_Mu", "Mu"]))
        );
        for (text, message) in [
            ("Nonzero(paths)", "Nonzero of strings"),
            (
                r#"Concatenate(paths, Enumerate(paths))"#,
                "Concatenate of strings and numbers",
            ),
            (r#"{name, 1}"#, "a braced list of strings and numbers"),
            (
                "Intersect(paths, Enumerate(paths))",
                "Intersect of strings and numbers",
            ),
        ] {
            let err = value(text).unwrap_err();
            assert!(err.contains(message), "{text}: {err}");
        }
    }

    #[test]
    fn literals_resolve_escapes_and_strings_mix_with_strings_alone() {
        assert_eq!(
            value(r#""a\"b\\c\n" == "a\"b\\c\n""#),
            Ok(bools(&[1, 1, 1]))
        );
        assert_eq!(
            value(r#"(name + "_" + name).size()"#),
            Ok(Values::Int(IntTy::SIZE, vec![7, 1, 9]))
        );
        for (text, message) in [
            (r#"name == 1"#, "'==' of a string and a number"),
            (r#"name + 1.5"#, "'+' of a string and a number"),
            (r#"name - "x""#, "'-' of strings"),
            (r#"name * 2"#, "'*' of strings"),
            (r#"Sum(paths)"#, "not a number"),
            (r#"name ? 1 : 2"#, "not a condition"),
            (r#"name == "abc"#, "closing quote at 8"),
            (r#"name == "a\q""#, "an escape other than"),
            (r#"name == "\012""#, "an escape other than"),
        ] {
            let err = value(text).unwrap_err();
            assert!(err.contains(message), "{text}: {err}");
        }
    }
}
