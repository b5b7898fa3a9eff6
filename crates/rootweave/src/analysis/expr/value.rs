//! Values while an expression is evaluated: constants (the same for every event) and
//! columns, their C++ types, the usual arithmetic conversions between them, and the
//! alignment of operands of different shapes (a number per event against a list per event
//! is applied to every item of the list, as `RVec`'s operators do).

use std::borrow::Cow;
use std::sync::Arc;

use super::int_type::IntTy;
use crate::analysis::column::{Column, Values, VectorClass, Xyzt, P4};

/// A number that is the same for every event (a literal, or a constant function).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// `bool`
    Bool(bool),
    /// An integer of a C++ type (held as [`IntTy`] says).
    Int(IntTy, i64),
    /// `float`
    F32(f32),
    /// `double`
    F64(f64),
}

/// A value during evaluation.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    /// The same for every event.
    Const(Scalar),
    /// Per event.
    Col(Column),
}

/// The C++ types of the layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// `bool`
    Bool,
    /// An integer type.
    Int(IntTy),
    /// `float`
    F32,
    /// `double`
    F64,
    /// A four-vector (no conversions).
    P4,
    /// One of ROOT's physics vectors, `TVector2`, `TVector3`, `TLorentzVector` (no
    /// conversions).
    Vector(VectorClass),
    /// `std::string` (no conversions; compared with strings alone).
    Str,
}

impl Ty {
    /// The type of `values`.
    pub fn of(values: &Values) -> Ty {
        match values {
            Values::Bool(_) => Ty::Bool,
            Values::Int(t, _) => Ty::Int(*t),
            Values::IntBool(_) => Ty::Int(IntTy::INT),
            Values::F32(_) => Ty::F32,
            Values::F64(_) => Ty::F64,
            Values::P4(_) => Ty::P4,
            Values::Vectors(c, _) => Ty::Vector(*c),
            Values::Str(_) => Ty::Str,
        }
    }

    /// The type of `s`.
    pub fn of_scalar(s: &Scalar) -> Ty {
        match s {
            Scalar::Bool(_) => Ty::Bool,
            Scalar::Int(t, _) => Ty::Int(*t),
            Scalar::F32(_) => Ty::F32,
            Scalar::F64(_) => Ty::F64,
        }
    }

    /// The type both operands of an arithmetic operator are converted to (the usual
    /// arithmetic conversions: a `bool` becomes an `int`, integers meet as
    /// [`IntTy::common`] says, an integer meeting a `float` becomes a `float`, anything
    /// meeting a `double` a `double`).
    pub fn common(a: Ty, b: Ty) -> Ty {
        match (a, b) {
            (Ty::P4, _) | (_, Ty::P4) => Ty::P4,
            (Ty::Vector(c), _) | (_, Ty::Vector(c)) => Ty::Vector(c),
            (Ty::Str, _) | (_, Ty::Str) => Ty::Str,
            (Ty::F64, _) | (_, Ty::F64) => Ty::F64,
            (Ty::F32, _) | (_, Ty::F32) => Ty::F32,
            _ => Ty::Int(IntTy::common(a.int(), b.int())),
        }
    }

    /// `std::common_type` of two types: a type meeting itself stays as it is (two lists of
    /// `bool`s concatenated are `bool`s), others meet as [`Ty::common`] says.
    pub fn common_type(a: Ty, b: Ty) -> Ty {
        if a == b {
            a
        } else {
            Ty::common(a, b)
        }
    }

    /// Whether values of the type are vectors (`PtEtaPhiMVector`s or ROOT's physics
    /// vectors), which are not numbers.
    pub fn is_vector(self) -> bool {
        matches!(self, Ty::P4 | Ty::Vector(_))
    }

    /// The integer type of an integer or a `bool` (which is promoted to `int`).
    pub fn int(self) -> IntTy {
        match self {
            Ty::Int(t) => t,
            _ => IntTy::INT,
        }
    }
}

/// Where the values of an operand lie: the events' own, or the items of lists.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// One per event (or one for all, for two constants).
    Flat,
    /// A list per event, with these offsets.
    Jagged(Arc<Vec<usize>>),
}

/// An operand aligned to a [`Shape`]: a constant or one value per position (the
/// operand's own values where they are already in place, not copied).
#[derive(Debug, Clone)]
pub enum Lane<'a> {
    /// The same value at every position.
    One(Scalar),
    /// A value per position.
    Many(Cow<'a, Values>),
}

impl Lane<'_> {
    /// The operand's type.
    pub fn ty(&self) -> Ty {
        match self {
            Lane::One(s) => Ty::of_scalar(s),
            Lane::Many(v) => Ty::of(v),
        }
    }

    /// As `f64` numbers (closure per position).
    pub fn f64s(&self) -> Result<Num<'_, f64>, String> {
        Ok(match self {
            Lane::One(s) => Num::One(scalar_f64(s)),
            Lane::Many(v) => Num::Many(match &**v {
                Values::Bool(v) | Values::IntBool(v) => {
                    Cow::Owned(v.iter().map(|&b| b as u8 as f64).collect())
                }
                Values::Int(t, v) if t.is_u64() => {
                    Cow::Owned(v.iter().map(|&x| x as u64 as f64).collect())
                }
                Values::Int(_, v) => Cow::Owned(v.iter().map(|&x| x as f64).collect()),
                Values::F32(v) => Cow::Owned(v.iter().map(|&x| x as f64).collect()),
                Values::F64(v) => Cow::Borrowed(v.as_slice()),
                Values::P4(_) | Values::Vectors(..) => {
                    return Err(format!("a {} is not a number", v.type_name()))
                }
                Values::Str(_) => return Err("a string is not a number".into()),
            }),
        })
    }

    /// As `f32` numbers (integers converted as C++ converts them).
    pub fn f32s(&self) -> Result<Num<'_, f32>, String> {
        Ok(match self {
            Lane::One(s) => Num::One(scalar_f64(s) as f32),
            Lane::Many(v) => Num::Many(match &**v {
                Values::Bool(v) | Values::IntBool(v) => {
                    Cow::Owned(v.iter().map(|&b| b as u8 as f32).collect())
                }
                Values::Int(t, v) if t.is_u64() => {
                    Cow::Owned(v.iter().map(|&x| x as u64 as f32).collect())
                }
                Values::Int(_, v) => Cow::Owned(v.iter().map(|&x| x as f32).collect()),
                Values::F32(v) => Cow::Borrowed(v.as_slice()),
                Values::F64(v) => Cow::Owned(v.iter().map(|&x| x as f32).collect()),
                Values::P4(_) | Values::Vectors(..) => {
                    return Err(format!("a {} is not a number", v.type_name()))
                }
                Values::Str(_) => return Err("a string is not a number".into()),
            }),
        })
    }

    /// As integers of type `to` (converted as C++ converts: integers wrapped to its
    /// width, floating-point values truncated), borrowed where they are already of it.
    pub fn ints(&self, to: IntTy) -> Result<Num<'_, i64>, String> {
        Ok(match self {
            Lane::One(s) => Num::One(match s {
                Scalar::Bool(b) => *b as i64,
                Scalar::Int(_, x) => to.wrap(*x),
                Scalar::F32(x) => float_to_int(*x as f64, to),
                Scalar::F64(x) => float_to_int(*x, to),
            }),
            Lane::Many(v) => Num::Many(match &**v {
                Values::Bool(v) | Values::IntBool(v) => {
                    Cow::Owned(v.iter().map(|&b| b as i64).collect())
                }
                Values::Int(t, v) if t.held_alike_in(to) => Cow::Borrowed(v.as_slice()),
                Values::Int(_, v) => Cow::Owned(v.iter().map(|&x| to.wrap(x)).collect()),
                Values::F32(v) => {
                    Cow::Owned(v.iter().map(|&x| float_to_int(x as f64, to)).collect())
                }
                Values::F64(v) => Cow::Owned(v.iter().map(|&x| float_to_int(x, to)).collect()),
                Values::P4(_) | Values::Vectors(..) => {
                    return Err(format!("a {} is not a number", v.type_name()))
                }
                Values::Str(_) => return Err("a string is not a number".into()),
            }),
        })
    }

    /// As booleans (non-zero is true).
    pub fn bools(&self) -> Result<Num<'_, bool>, String> {
        Ok(match self {
            Lane::One(s) => Num::One(scalar_f64(s) != 0.0),
            Lane::Many(v) => Num::Many(match &**v {
                Values::Bool(v) => Cow::Borrowed(v.as_slice()),
                Values::IntBool(v) => Cow::Borrowed(v.as_slice()),
                Values::Int(_, v) => Cow::Owned(v.iter().map(|&x| x != 0).collect()),
                Values::F32(v) => Cow::Owned(v.iter().map(|&x| x != 0.0).collect()),
                Values::F64(v) => Cow::Owned(v.iter().map(|&x| x != 0.0).collect()),
                Values::P4(_) | Values::Vectors(..) => {
                    return Err(format!("a {} is not a condition", v.type_name()))
                }
                Values::Str(_) => return Err("a string is not a condition".into()),
            }),
        })
    }

    /// As four-vectors.
    pub fn p4s(&self) -> Result<Num<'_, P4>, String> {
        match self {
            Lane::Many(v) if matches!(**v, Values::P4(_)) => match &**v {
                Values::P4(v) => Ok(Num::Many(Cow::Borrowed(v.as_slice()))),
                _ => unreachable!("matched above"),
            },
            _ => Err(format!(
                "a {} where a four-vector is needed",
                ty_name(self.ty())
            )),
        }
    }
}

impl Lane<'_> {
    /// As physics vectors of `class`.
    pub fn vectors(&self, class: VectorClass) -> Result<Num<'_, Xyzt>, String> {
        match self {
            Lane::Many(v) => match &**v {
                Values::Vectors(c, v) if *c == class => Ok(Num::Many(Cow::Borrowed(v.as_slice()))),
                other => Err(format!(
                    "a {} where a {} is needed",
                    other.type_name(),
                    class.name()
                )),
            },
            Lane::One(_) => Err(format!(
                "a {} where a {} is needed",
                ty_name(self.ty()),
                class.name()
            )),
        }
    }
}

/// Numbers of one type: one for every position, or one per position (borrowed where
/// they need no conversion).
#[derive(Debug, Clone)]
pub enum Num<'a, T: Clone> {
    /// The same at every position.
    One(T),
    /// One per position.
    Many(Cow<'a, [T]>),
}

impl<T: Copy> Num<'_, T> {
    /// The value at position `i`.
    #[inline]
    pub fn at(&self, i: usize) -> T {
        match self {
            Num::One(x) => *x,
            Num::Many(v) => v[i],
        }
    }
}

/// `f` of the first `n` numbers of `x`, a loop per case so that each vectorizes (no test of
/// the case, no bounds check per number).
#[inline(always)]
pub fn map1<T: Copy, U: Clone>(x: &Num<'_, T>, n: usize, f: impl Fn(T) -> U) -> Vec<U> {
    match x {
        Num::Many(a) => a[..n].iter().map(|&a| f(a)).collect(),
        Num::One(a) => vec![f(*a); n],
    }
}

/// `f` of the first `n` pairs of numbers of `x` and `y`, a loop per case (a constant on
/// either side or none) so that each vectorizes.
#[inline(always)]
pub fn map2<T: Copy, S: Copy, U: Clone>(
    x: &Num<'_, T>,
    y: &Num<'_, S>,
    n: usize,
    f: impl Fn(T, S) -> U,
) -> Vec<U> {
    match (x, y) {
        (Num::Many(a), Num::Many(b)) => {
            a[..n].iter().zip(&b[..n]).map(|(&a, &b)| f(a, b)).collect()
        }
        (Num::Many(a), Num::One(b)) => a[..n].iter().map(|&a| f(a, *b)).collect(),
        (Num::One(a), Num::Many(b)) => b[..n].iter().map(|&b| f(*a, b)).collect(),
        (Num::One(a), Num::One(b)) => vec![f(*a, *b); n],
    }
}

/// The C++ name of a type.
pub fn ty_name(ty: Ty) -> &'static str {
    match ty {
        Ty::Bool => "bool",
        Ty::Int(t) => t.name(),
        Ty::F32 => "float",
        Ty::F64 => "double",
        Ty::P4 => "PtEtaPhiMVector",
        Ty::Vector(c) => c.name(),
        Ty::Str => "string",
    }
}

/// A floating-point value converted to integer type `to` as C++ converts it: truncated
/// toward zero (a value out of the type's range, undefined in C++, saturates).
pub fn float_to_int(x: f64, to: IntTy) -> i64 {
    if to.is_u64() {
        x as u64 as i64
    } else {
        to.wrap(x as i64)
    }
}

/// A scalar as a `double`.
pub fn scalar_f64(s: &Scalar) -> f64 {
    match s {
        Scalar::Bool(b) => *b as u8 as f64,
        Scalar::Int(t, x) => t.to_f64(*x),
        Scalar::F32(x) => *x as f64,
        Scalar::F64(x) => *x,
    }
}

/// Operands brought to one shape: the shape, the number of positions, and each operand's
/// lane. Two lists per event must have the same lengths in every event.
pub fn align<'a>(vals: &[&'a Val], events: usize) -> Result<(Shape, usize, Vec<Lane<'a>>), String> {
    let mut shape = Shape::Flat;
    for v in vals {
        match v {
            Val::Col(Column::Jagged(offsets, _)) => match &shape {
                Shape::Flat => shape = Shape::Jagged(offsets.clone()),
                Shape::Jagged(have) => {
                    if !Arc::ptr_eq(have, offsets) && have != offsets {
                        let e = have
                            .windows(2)
                            .zip(offsets.windows(2))
                            .position(|(a, b)| a[1] - a[0] != b[1] - b[0])
                            .unwrap_or(0);
                        return Err(format!(
                            "RVecs of different sizes ({} and {}) in {}",
                            have[e + 1] - have[e],
                            offsets[e + 1] - offsets[e],
                            super::eval::event_name(e)
                        ));
                    }
                }
            },
            Val::Col(Column::Tuple(_)) => {
                return Err("a list of combinations where a value or an RVec is needed".into())
            }
            _ => {}
        }
    }
    let all_const = vals.iter().all(|v| matches!(v, Val::Const(_)));
    let n = match (&shape, all_const) {
        (Shape::Jagged(o), _) => *o.last().unwrap_or(&0),
        (Shape::Flat, true) => 1,
        (Shape::Flat, false) => events,
    };
    let lanes = vals
        .iter()
        .map(|v| match (v, &shape) {
            (Val::Const(s), _) => Lane::One(*s),
            (Val::Col(Column::Flat(values)), Shape::Flat) => Lane::Many(Cow::Borrowed(values)),
            (Val::Col(Column::Jagged(_, values)), _) => Lane::Many(Cow::Borrowed(values)),
            (Val::Col(Column::Flat(values)), Shape::Jagged(offsets)) => {
                // A value per event, repeated for each item of the event's list.
                Lane::Many(Cow::Owned(values.repeat_each(offsets)))
            }
            (Val::Col(Column::Tuple(_)), _) => unreachable!("refused above"),
        })
        .collect();
    Ok((shape, n, lanes))
}

/// Values in a shape as a value: a constant for a flat shape of constants.
pub fn shaped(shape: Shape, values: Values, all_const: bool) -> Val {
    match shape {
        Shape::Flat if all_const => Val::Const(match values {
            Values::Bool(v) => Scalar::Bool(v[0]),
            Values::Int(t, v) => Scalar::Int(t, v[0]),
            Values::IntBool(v) => Scalar::Int(IntTy::INT, v[0] as i64),
            Values::F32(v) => Scalar::F32(v[0]),
            Values::F64(v) => Scalar::F64(v[0]),
            Values::P4(_) | Values::Vectors(..) | Values::Str(_) => {
                unreachable!("no vector or string constants")
            }
        }),
        Shape::Flat => Val::Col(Column::Flat(values.into())),
        Shape::Jagged(offsets) => Val::Col(Column::Jagged(offsets, values.into())),
    }
}

impl Val {
    /// Whether the value is the same for every event.
    pub fn is_const(&self) -> bool {
        matches!(self, Val::Const(_))
    }

    /// The value as a column of `events` events.
    pub fn into_column(self, events: usize) -> Column {
        match self {
            Val::Col(c) => c,
            Val::Const(s) => Column::Flat(
                match s {
                    Scalar::Bool(b) => Values::Bool(vec![b; events]),
                    Scalar::Int(t, x) => Values::Int(t, vec![x; events]),
                    Scalar::F32(x) => Values::F32(vec![x; events]),
                    Scalar::F64(x) => Values::F64(vec![x; events]),
                }
                .into(),
            ),
        }
    }

    /// The C++ type, for messages.
    pub fn type_name(&self) -> String {
        match self {
            Val::Const(s) => ty_name(Ty::of_scalar(s)).to_string(),
            Val::Col(c) => c.type_name(),
        }
    }
}
