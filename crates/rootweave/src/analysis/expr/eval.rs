//! Evaluating an expression over the events of a batch, a column at a time: operators with
//! C++'s conversions applied to whole columns, `&&`, `||` and `?:` evaluating their right
//! side only for the events that need it where it could fail elsewhere (as C++ does, so that
//! `nJet > 0 && Jet_pt[0] > 30` never indexes an empty list), indexing and masks as `RVec`
//! has them.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use super::closest_mass;
use super::coordinates::{from_components, momenta};
use super::functions::{call, take_out_of_range};
use super::int_type::IntTy;
use super::lorentz::P4;
use super::optimize::ITEMS_AS_BOOL;
use super::physics_vectors::{self, VectorClass};
use super::syntax::{BinaryOp, Kind, Node, UnaryOp};
use super::take_sums;
use super::value::{align, map1, map2, shaped, Lane, Num, Scalar, Shape, Ty, Val};
use crate::analysis::column::{item_events, Column, Gatherer, Values};

/// Where an expression gets its columns: the events of a batch (after the filters above)
/// or a subset of them.
pub trait Scope {
    /// The column `name` for this scope's events.
    fn column(&mut self, name: &str) -> Result<Column, String>;
    /// The number of events.
    fn events(&self) -> usize;
    /// The number of items in each event of list column `name`, where the scope finds them
    /// without the column's items (a defined `Concatenate` not computed yet); `None`: the
    /// column is computed and its lists counted.
    fn sizes(&mut self, name: &str) -> Result<Option<Column>, String> {
        let _ = name;
        Ok(None)
    }
}

/// Why an evaluation failed: the message and the position in the expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError {
    /// Where in the expression (byte offset).
    pub pos: usize,
    /// What went wrong.
    pub message: String,
}

/// Evaluates `node` for every event of `scope`.
pub fn evaluate(node: &Node, scope: &mut dyn Scope) -> Result<Column, EvalError> {
    let events = scope.events();
    Ok(eval(node, scope, &mut Memo::new())?.into_column(events))
}

/// The number of items of `node`'s list in each event of `scope` (`size(node)`), without
/// computing the items where the list is a `Concatenate` (the sum of its parts' sizes) or a
/// column the scope can size (see [`Scope::sizes`]): `l.size() >= 3` of a defined
/// `l = Concatenate(Electron_pt, Muon_pt)` then joins no lists.
pub fn sizes(node: &Node, scope: &mut dyn Scope) -> Result<Column, EvalError> {
    let events = scope.events();
    Ok(sizes_of(node, scope, &mut Memo::new())?.into_column(events))
}

/// Whether [`sizes`] of `node` saves computing its items: a `Concatenate`.
pub fn sized_without_items(node: &Node) -> bool {
    matches!(&node.kind, Kind::Call(name, args) if name == "Concatenate" && args.len() == 2)
}

fn sizes_of(node: &Node, scope: &mut dyn Scope, memo: &mut Memo) -> Result<Val, EvalError> {
    let at = |message: String| EvalError {
        pos: node.pos,
        message,
    };
    match &node.kind {
        Kind::Column(name) if constant(name).is_none() => {
            if let Some(sizes) = scope.sizes(name).map_err(at)? {
                return Ok(Val::Col(sizes));
            }
        }
        Kind::Call(_, args) if sized_without_items(node) => {
            let a = sizes_of(&args[0], scope, memo)?;
            let b = sizes_of(&args[1], scope, memo)?;
            return binary(BinaryOp::Add, &a, &b, scope.events()).map_err(at);
        }
        _ => {}
    }
    let v = eval(node, scope, memo)?;
    call("size", vec![v], scope.events()).map_err(at)
}

/// How an error's message names the `e`-th event of the scope evaluated; the batch renames
/// it after the entry (see [`rename_events`]).
pub(super) fn event_name(e: usize) -> String {
    format!("event {e} of the batch")
}

/// `message` with each event it names ("event 12 of the batch": the scope's 13th) renamed
/// by `rename` (where it gives a name): the scopes over some events of another, and the
/// batch, name their own.
pub fn rename_events(message: &str, rename: impl Fn(usize) -> Option<String>) -> String {
    const HEAD: &str = "event ";
    const TAIL: &str = " of the batch";
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(i) = rest.find(HEAD) {
        let after = &rest[i + HEAD.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let renamed = (digits > 0 && after[digits..].starts_with(TAIL))
            .then(|| after[..digits].parse::<usize>().ok())
            .flatten()
            .and_then(&rename);
        match renamed {
            Some(name) => {
                out.push_str(&rest[..i]);
                out.push_str(&name);
                rest = &after[digits + TAIL.len()..];
            }
            None => {
                out.push_str(&rest[..i + HEAD.len()]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// An error of a scope over events `events` of another (its `k`-th event the other's
/// `events[k]`), its events named as the other numbers them.
fn in_outer(err: EvalError, events: &[usize]) -> EvalError {
    EvalError {
        pos: err.pos,
        message: rename_events(&err.message, |k| events.get(k).map(|&e| event_name(e))),
    }
}

/// The values of the shared parts of an expression ([`Kind::Shared`]) computed so far in
/// one scope.
pub(super) type Memo = HashMap<usize, Val>;

pub(super) fn eval(node: &Node, scope: &mut dyn Scope, memo: &mut Memo) -> Result<Val, EvalError> {
    let at = |message: String| EvalError {
        pos: node.pos,
        message,
    };
    let events = scope.events();
    match &node.kind {
        Kind::Int(v, t) => Ok(Val::Const(Scalar::Int(*t, *v))),
        Kind::Str(bytes) => Ok(super::strings::literal(bytes, events)),
        Kind::Float { value, single } => Ok(Val::Const(if *single {
            Scalar::F32(*value as f32)
        } else {
            Scalar::F64(*value)
        })),
        Kind::Bool(b) => Ok(Val::Const(Scalar::Bool(*b))),
        Kind::Column(name) => match constant(name) {
            Some(c) => Ok(Val::Const(c)),
            None => scope.column(name).map(Val::Col).map_err(at),
        },
        Kind::Unary(op, a) => {
            let a = eval(a, scope, memo)?;
            unary(*op, &a, events).map_err(at)
        }
        Kind::Binary(op @ (BinaryOp::And | BinaryOp::Or), a, b) => {
            let left = eval(a, scope, memo)?;
            logic(*op, left, b, scope, memo)
        }
        Kind::Binary(op, a, b) => {
            let (a, b) = (eval(a, scope, memo)?, eval(b, scope, memo)?);
            binary(*op, &a, &b, events).map_err(at)
        }
        Kind::Ternary(c, yes, no) => {
            let cond = eval(c, scope, memo)?;
            ternary(cond, yes, no, scope, memo)
        }
        Kind::Index(v, i) => {
            if let Kind::Call(name, args) = &v.kind {
                if name == "Take" && args.len() == 2 {
                    return index_of_take(node, v, &args[0], &args[1], i, scope, memo);
                }
            }
            let (v, i) = (eval(v, scope, memo)?, eval(i, scope, memo)?);
            index(&v, &i).map_err(at)
        }
        Kind::Call(name, args) if name == "Map" => map_items(args, scope, memo),
        Kind::Call(name, args) if name == take_sums::SUM_OF_TAKES && args.len() == 1 => {
            take_sums::evaluate(&args[0], scope, memo)
        }
        Kind::Call(name, args) if name == "ArgMin" && args.len() == 1 => {
            closest_mass::evaluate(node, &args[0], scope, memo)
        }
        Kind::Call(name, args) if name == ITEMS_AS_BOOL && args.len() == 1 => {
            Ok(match eval(&args[0], scope, memo)? {
                Val::Col(Column::Jagged(o, v)) if matches!(*v, Values::IntBool(_)) => {
                    let Values::IntBool(v) = Arc::unwrap_or_clone(v) else {
                        unreachable!("matched above")
                    };
                    Val::Col(Column::Jagged(o, Values::Bool(v).into()))
                }
                other => other,
            })
        }
        Kind::Call(name, args) if name == "size" && args.len() == 1 => {
            sizes_of(&args[0], scope, memo)
        }
        Kind::Method(x, name, args) if name == "size" && args.is_empty() => {
            sizes_of(x, scope, memo)
        }
        Kind::Lambda(..) => Err(at("a lambda is only an argument of Map".into())),
        Kind::Shared(id, part) => {
            if let Some(v) = memo.get(id) {
                return Ok(v.clone());
            }
            let v = eval(part, scope, memo)?;
            memo.insert(*id, v.clone());
            Ok(v)
        }
        Kind::Call(name, items) if name == "{}" => {
            let items = items
                .iter()
                .map(|a| eval(a, scope, memo))
                .collect::<Result<Vec<_>, _>>()?;
            super::braced::list(&items, events).map_err(at)
        }
        Kind::Call(name, args) => {
            let args = args
                .iter()
                .map(|a| eval(a, scope, memo))
                .collect::<Result<Vec<_>, _>>()?;
            call(name, args, events).map_err(at)
        }
        Kind::Method(x, name, args) => {
            let mut all = vec![eval(x, scope, memo)?];
            for a in args {
                all.push(eval(a, scope, memo)?);
            }
            call(&format!(".{name}"), all, events).map_err(at)
        }
    }
}

/// Names that are constants, not columns.
fn constant(name: &str) -> Option<Scalar> {
    match name {
        "M_PI" => Some(Scalar::F64(std::f64::consts::PI)),
        _ => None,
    }
}

fn unary(op: UnaryOp, a: &Val, events: usize) -> Result<Val, String> {
    let (shape, n, lanes) = align(&[a], events)?;
    let lane = &lanes[0];
    let values = match (op, lane.ty()) {
        (UnaryOp::Not, ty) => {
            let b = lane.bools()?;
            let not = map1(&b, n, |b| !b);
            match (&shape, ty) {
                // `RVec`'s `!` keeps the item type: `!v` of floats gives 0 and 1 as floats.
                (Shape::Jagged(_), Ty::Int(t)) if t != IntTy::INT => {
                    Values::Int(t, not.into_iter().map(i64::from).collect())
                }
                (Shape::Jagged(_), Ty::Int(_)) => Values::IntBool(not),
                (Shape::Jagged(_), Ty::F32) => {
                    Values::F32(not.into_iter().map(|b| b as u8 as f32).collect())
                }
                (Shape::Jagged(_), Ty::F64) => {
                    Values::F64(not.into_iter().map(|b| b as u8 as f64).collect())
                }
                _ => Values::Bool(not),
            }
        }
        // `RVec`'s `+v`, `-v` and `~v` keep the item type (`x = -x` item by item: `-v` of
        // `unsigned char`s wraps, of `bool`s is `v`); a number's is C++'s integral promotion.
        (UnaryOp::Plus | UnaryOp::Neg | UnaryOp::BitNot, Ty::Bool | Ty::Int(_))
            if matches!(shape, Shape::Jagged(_)) =>
        {
            list_unary(op, lane, n)?
        }
        (UnaryOp::Plus, Ty::Bool | Ty::Int(_)) => {
            let t = lane.ty().int().promoted();
            let x = lane.ints(t)?;
            Values::Int(t, map1(&x, n, |x| x))
        }
        (UnaryOp::Plus, Ty::F32 | Ty::F64) => match lane {
            Lane::Many(v) => v.clone().into_owned(),
            Lane::One(_) => return Ok(a.clone()),
        },
        (UnaryOp::Plus | UnaryOp::Neg, Ty::Vector(VectorClass::CartesianPoint)) => {
            let sign = if op == UnaryOp::Plus { '+' } else { '-' };
            return Err(format!("an XYZPoint has no unary '{sign}'"));
        }
        (UnaryOp::Plus, Ty::P4) => return Ok(a.clone()),
        (UnaryOp::Plus, Ty::Vector(c)) if c.genvector() => return Ok(a.clone()),
        (UnaryOp::Plus, Ty::Vector(c)) => return Err(format!("a {} has no unary '+'", c.name())),
        (UnaryOp::Plus, Ty::Str) => return Err("a string has no unary '+'".into()),
        (UnaryOp::BitNot, Ty::Bool | Ty::Int(_)) => {
            let t = lane.ty().int().promoted();
            let x = lane.ints(t)?;
            Values::Int(t, map1(&x, n, |x| t.wrap(!x)))
        }
        (UnaryOp::BitNot, _) => return Err("'~' needs an integer".into()),
        (UnaryOp::Neg, Ty::Bool | Ty::Int(_)) => {
            let t = lane.ty().int().promoted();
            let x = lane.ints(t)?;
            Values::Int(t, map1(&x, n, |x| t.wrap(x.wrapping_neg())))
        }
        (UnaryOp::Neg, Ty::F32) => {
            let x = lane.f32s()?;
            Values::F32(map1(&x, n, |x| -x))
        }
        (UnaryOp::Neg, Ty::F64) => {
            let x = lane.f64s()?;
            Values::F64(map1(&x, n, |x| -x))
        }
        (UnaryOp::Neg, Ty::P4) => {
            let v = lane.p4s()?;
            Values::P4(map1(&v, n, |v| v.scaled(-1.0)))
        }
        (UnaryOp::Neg, Ty::Vector(VectorClass::Vector2)) => {
            return Err("a TVector2 cannot be negated".into())
        }
        (UnaryOp::Neg, Ty::Vector(c)) => {
            let v = lane.vectors(c)?;
            Values::Vectors(c, map1(&v, n, |v| physics_vectors::neg(c, &v)))
        }
        (UnaryOp::Neg, Ty::Str) => return Err("a string cannot be negated".into()),
    };
    Ok(shaped(shape, values, a.is_const()))
}

/// `+v`, `-v` or `~v` of a list of integers or `bool`s: each item replaced by the operator's
/// value converted back to the item type, as `RVec`'s operators do (`~` of `bool`s does not
/// compile there and is refused).
fn list_unary(op: UnaryOp, lane: &Lane<'_>, n: usize) -> Result<Values, String> {
    let values = match lane {
        Lane::Many(v) => v,
        Lane::One(_) => unreachable!("a list's items"),
    };
    Ok(match (op, &**values) {
        (UnaryOp::BitNot, Values::Bool(_)) => return Err("'~' of an RVec<bool>".into()),
        // `+x` changes nothing; `-b` is `b` again once converted to `bool`.
        (UnaryOp::Plus, _) | (UnaryOp::Neg, Values::Bool(_)) => values.clone().into_owned(),
        _ => {
            let t = lane.ty().int();
            let x = lane.ints(t)?;
            let f = |x: i64| match op {
                UnaryOp::Neg => t.wrap(x.wrapping_neg()),
                UnaryOp::BitNot => t.wrap(!x),
                _ => x,
            };
            Values::Int(t, map1(&x, n, f))
        }
    })
}

/// `a op b` for every position, with C++'s conversions.
pub fn binary(op: BinaryOp, a: &Val, b: &Val, events: usize) -> Result<Val, String> {
    let (shape, n, lanes) = align(&[a, b], events)?;
    let (x, y) = (&lanes[0], &lanes[1]);
    let (tx, ty) = (x.ty(), y.ty());
    if tx == Ty::Str || ty == Ty::Str {
        let values = super::strings::binary(op, x, y, n, &shape)?;
        return Ok(shaped(shape, values, false));
    }
    let four = |t: Ty| match t {
        Ty::P4 => true,
        Ty::Vector(c) => c.held_four_vector(),
        _ => false,
    };
    if four(tx) && four(ty) && tx != ty && matches!(op, BinaryOp::Add | BinaryOp::Sub) {
        return mixed_binary(op == BinaryOp::Add, x, y, n, shape);
    }
    if tx == Ty::P4 || ty == Ty::P4 {
        return p4_binary(op, x, y, n, shape);
    }
    if let Some(points) = point_binary(op, x, y, n, &shape) {
        return points;
    }
    if let (Ty::Vector(c), _) | (_, Ty::Vector(c)) = (tx, ty) {
        return vector_binary(op, c, x, y, n, shape);
    }
    let common = Ty::common(tx, ty);
    let integers = |t: Ty| matches!(t, Ty::Bool | Ty::Int(_));
    let bitwise = matches!(
        op,
        BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor | BinaryOp::Shl | BinaryOp::Shr
    );
    if bitwise && !(integers(tx) && integers(ty)) {
        return Err(format!("'{}' needs integers", op.symbol()));
    }
    let values = match op {
        BinaryOp::Shl | BinaryOp::Shr => shift(op == BinaryOp::Shl, x, y, n)?,
        BinaryOp::And | BinaryOp::Or => {
            let (p, q) = (x.bools()?, y.bools()?);
            truth(
                &shape,
                if op == BinaryOp::And {
                    map2(&p, &q, n, |a, b| a && b)
                } else {
                    map2(&p, &q, n, |a, b| a || b)
                },
            )
        }
        _ if op.is_boolean() => truth(
            &shape,
            match common {
                Ty::F64 => compare(op, &x.f64s()?, &y.f64s()?, n),
                Ty::F32 => compare(op, &x.f32s()?, &y.f32s()?, n),
                Ty::Int(t) if t.is_u64() => {
                    let unsigned = |l: &Lane| -> Result<Num<u64>, String> {
                        Ok(match l.ints(t)? {
                            Num::One(v) => Num::One(v as u64),
                            Num::Many(v) => Num::Many(v.iter().map(|&v| v as u64).collect()),
                        })
                    };
                    compare(op, &unsigned(x)?, &unsigned(y)?, n)
                }
                _ => {
                    let t = common.int();
                    compare(op, &x.ints(t)?, &y.ints(t)?, n)
                }
            },
        ),
        _ => match common {
            Ty::F64 => Values::F64(float_arith(op, &x.f64s()?, &y.f64s()?, n)?),
            Ty::F32 => Values::F32(float_arith(op, &x.f32s()?, &y.f32s()?, n)?),
            _ => {
                let t = common.int();
                Values::Int(t, int_arith(op, t, &x.ints(t)?, &y.ints(t)?, n)?)
            }
        },
    };
    Ok(shaped(shape, values, a.is_const() && b.is_const()))
}

/// Conditions as C++ types them: a `bool` per event, or `RVec`'s `RVec<int>` for lists.
pub(super) fn truth(shape: &Shape, values: Vec<bool>) -> Values {
    match shape {
        Shape::Flat => Values::Bool(values),
        Shape::Jagged(_) => Values::IntBool(values),
    }
}

fn compare<T: Copy + PartialOrd>(op: BinaryOp, x: &Num<T>, y: &Num<T>, n: usize) -> Vec<bool> {
    match op {
        BinaryOp::Lt => map2(x, y, n, |a, b| a < b),
        BinaryOp::Le => map2(x, y, n, |a, b| a <= b),
        BinaryOp::Gt => map2(x, y, n, |a, b| a > b),
        BinaryOp::Ge => map2(x, y, n, |a, b| a >= b),
        BinaryOp::Eq => map2(x, y, n, |a, b| a == b),
        _ => map2(x, y, n, |a, b| a != b),
    }
}

fn float_arith<T>(op: BinaryOp, x: &Num<T>, y: &Num<T>, n: usize) -> Result<Vec<T>, String>
where
    T: Copy
        + std::ops::Add<Output = T>
        + std::ops::Sub<Output = T>
        + std::ops::Mul<Output = T>
        + std::ops::Div<Output = T>,
{
    Ok(match op {
        BinaryOp::Add => map2(x, y, n, |a, b| a + b),
        BinaryOp::Sub => map2(x, y, n, |a, b| a - b),
        BinaryOp::Mul => map2(x, y, n, |a, b| a * b),
        BinaryOp::Div => map2(x, y, n, |a, b| a / b),
        _ => return Err("'%' needs integers (fmod takes floating-point numbers)".into()),
    })
}

/// Integer arithmetic in type `t` (both operands converted to it): results wrapped to its
/// width, division and remainder of 64-bit unsigned values as unsigned.
fn int_arith(
    op: BinaryOp,
    t: IntTy,
    x: &Num<i64>,
    y: &Num<i64>,
    n: usize,
) -> Result<Vec<i64>, String> {
    let mut out = match op {
        // A loop per operation (and per case of constants), so that each vectorizes.
        BinaryOp::Add => map2(x, y, n, i64::wrapping_add),
        BinaryOp::Sub => map2(x, y, n, i64::wrapping_sub),
        BinaryOp::Mul => map2(x, y, n, i64::wrapping_mul),
        BinaryOp::BitAnd => map2(x, y, n, |a, b| a & b),
        BinaryOp::BitOr => map2(x, y, n, |a, b| a | b),
        BinaryOp::BitXor => map2(x, y, n, |a, b| a ^ b),
        _ => {
            let mut out = Vec::with_capacity(n);
            let u64s = t.is_u64();
            for i in 0..n {
                let (a, b) = (x.at(i), y.at(i));
                out.push(match op {
                    _ if b == 0 => return Err("integer division by zero".into()),
                    BinaryOp::Div if u64s => ((a as u64) / (b as u64)) as i64,
                    BinaryOp::Rem if u64s => ((a as u64) % (b as u64)) as i64,
                    BinaryOp::Div => a.wrapping_div(b),
                    _ => a.wrapping_rem(b),
                });
            }
            out
        }
    };
    if t.bits() < 64 {
        out.iter_mut().for_each(|v| *v = t.wrap(*v));
    }
    Ok(out)
}

/// `a << b` or `a >> b`: in the left operand's promoted type, whatever the right one's; the
/// count taken modulo the type's width, as x86-64 shifts (a count past the width is
/// undefined in C++); `>>` of a signed value keeps its sign.
fn shift(left: bool, x: &Lane, y: &Lane, n: usize) -> Result<Values, String> {
    let t = x.ty().int().promoted();
    let (a, b) = (x.ints(t)?, y.ints(y.ty().int().promoted())?);
    let mask = (t.bits() - 1) as i64;
    Ok(Values::Int(
        t,
        map2(&a, &b, n, |a, b| {
            let k = (b & mask) as u32;
            match (left, t.is_u64()) {
                (true, _) => t.wrap(a.wrapping_shl(k)),
                (false, true) => ((a as u64) >> k) as i64,
                (false, false) => a >> k,
            }
        }),
    ))
}

/// `a op b` where either side is a `PtEtaPhiMVector`: `+` and `-` of two (through Cartesian
/// components), `==` and `!=` (of the coordinates), `*` by a number on either side and `/` by
/// one (GenVector's `Scale`).
fn p4_binary(op: BinaryOp, x: &Lane, y: &Lane, n: usize, shape: Shape) -> Result<Val, String> {
    let vectors = (x.ty(), y.ty()) == (Ty::P4, Ty::P4);
    let values = match op {
        BinaryOp::Mul | BinaryOp::Div if !vectors => {
            if x.ty() == Ty::P4 {
                let (p, a) = (x.p4s()?, y.f64s()?);
                match op {
                    BinaryOp::Mul => map2(&p, &a, n, |p, a| p.scaled(a)),
                    _ => map2(&p, &a, n, |p, a| p.scaled(1.0 / a)),
                }
            } else if op == BinaryOp::Mul {
                let (a, p) = (x.f64s()?, y.p4s()?);
                map2(&a, &p, n, |a, p| p.scaled(a))
            } else {
                return Err("no operator '/' of a number and a four-vector".into());
            }
        }
        BinaryOp::Eq | BinaryOp::Ne if vectors => {
            let (p, q) = (x.p4s()?, y.p4s()?);
            let same = map2(&p, &q, n, |p, q| p == q);
            let same = match op {
                BinaryOp::Eq => same,
                _ => same.into_iter().map(|s| !s).collect(),
            };
            let values = match shape {
                Shape::Jagged(_) => Values::IntBool(same),
                Shape::Flat => Values::Bool(same),
            };
            return Ok(shaped(shape, values, false));
        }
        BinaryOp::Add | BinaryOp::Sub => {
            let (p, q) = (x.p4s()?, y.p4s()?);
            match op {
                BinaryOp::Add => (0..n).map(|i| p.at(i).add(&q.at(i))).collect(),
                _ => (0..n).map(|i| p.at(i).sub(&q.at(i))).collect(),
            }
        }
        _ => return Err(format!("four-vectors have no '{}'", op.symbol())),
    };
    Ok(shaped(shape, Values::P4(values), false))
}

/// `a + b` or `a - b` of two `ROOT::Math` four-vectors of different classes: the sums of
/// their Cartesian components, given to the first one's class (`LorentzVector`'s `SetXYZT`).
fn mixed_binary(add: bool, x: &Lane, y: &Lane, n: usize, shape: Shape) -> Result<Val, String> {
    let (a, b) = (momenta(x, n)?, momenta(y, n)?);
    let sums = a.iter().zip(&b).map(|(a, b)| {
        let (a, b) = (a.components(), b.components());
        std::array::from_fn(|k| if add { a[k] + b[k] } else { a[k] - b[k] })
    });
    let values = match x.ty() {
        Ty::Vector(class) => {
            Values::Vectors(class, sums.map(|c| from_components(class, c)).collect())
        }
        _ => Values::P4(sums.map(P4::with_components).collect()),
    };
    Ok(shaped(shape, values, false))
}

/// `a + b` and `a - b` where a side is an `XYZPoint`, as `PositionVector3D`'s operators
/// give them: a point and a vector (either first when added) make a point, two points'
/// difference an `XYZVector`; two points have no sum, a vector no difference from a point.
/// `None` for other operators and operands.
fn point_binary(
    op: BinaryOp,
    x: &Lane,
    y: &Lane,
    n: usize,
    shape: &Shape,
) -> Option<Result<Val, String>> {
    use physics_vectors as pv;
    use VectorClass::{Cartesian3, CartesianPoint};
    let (Ty::Vector(a), Ty::Vector(b)) = (x.ty(), y.ty()) else {
        return None;
    };
    let add = match op {
        BinaryOp::Add => true,
        BinaryOp::Sub => false,
        _ => return None,
    };
    let made = match (a, b, add) {
        (CartesianPoint, CartesianPoint, false) => Cartesian3,
        (CartesianPoint, Cartesian3, _) | (Cartesian3, CartesianPoint, true) => CartesianPoint,
        (CartesianPoint, _, _) | (_, CartesianPoint, _) => {
            return Some(Err(format!(
                "no operator '{}' of {} and {}",
                op.symbol(),
                a.name(),
                b.name()
            )))
        }
        _ => return None,
    };
    let values = x.vectors(a).and_then(|p| {
        let q = y.vectors(b)?;
        Ok(map2(&p, &q, n, |p, q| {
            if add {
                pv::add(made, &p, &q)
            } else {
                pv::sub(made, &p, &q)
            }
        }))
    });
    Some(values.map(|v| shaped(shape.clone(), Values::Vectors(made, v), false)))
}

/// `a op b` where either side is one of ROOT's physics vectors, as the classes' operators
/// compute it: `+` and `-` of two vectors of one class, `*` their scalar product, `==` and
/// `!=`, `^` two `TVector2`s' cross product; a vector times a number (either side), a
/// `TVector2` divided by one.
fn vector_binary(
    op: BinaryOp,
    class: VectorClass,
    x: &Lane,
    y: &Lane,
    n: usize,
    shape: Shape,
) -> Result<Val, String> {
    use physics_vectors as pv;
    let both = x.ty() == y.ty();
    let number = |t: Ty| !matches!(t, Ty::Vector(_) | Ty::P4 | Ty::Str);
    let condition = |v: Vec<bool>| match shape {
        Shape::Jagged(_) => Values::IntBool(v),
        Shape::Flat => Values::Bool(v),
    };
    let values = match op {
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Eq | BinaryOp::Ne
            if both && !(op == BinaryOp::Mul && class.genvector()) =>
        {
            let (a, b) = (x.vectors(class)?, y.vectors(class)?);
            match op {
                BinaryOp::Add => {
                    Values::Vectors(class, map2(&a, &b, n, |a, b| pv::add(class, &a, &b)))
                }
                BinaryOp::Sub => {
                    Values::Vectors(class, map2(&a, &b, n, |a, b| pv::sub(class, &a, &b)))
                }
                BinaryOp::Mul => Values::F64(map2(&a, &b, n, |a, b| pv::dot(class, &a, &b))),
                BinaryOp::Eq => condition(map2(&a, &b, n, |a, b| a == b)),
                _ => condition(map2(&a, &b, n, |a, b| a != b)),
            }
        }
        BinaryOp::BitXor if both && class == VectorClass::Vector2 => {
            let (a, b) = (x.vectors(class)?, y.vectors(class)?);
            Values::F64(map2(&a, &b, n, |a, b| a[0] * b[1] - a[1] * b[0]))
        }
        BinaryOp::Mul if matches!(x.ty(), Ty::Vector(_)) && number(y.ty()) => {
            let (v, s) = (x.vectors(class)?, y.f64s()?);
            Values::Vectors(class, map2(&v, &s, n, |v, s| pv::times(class, &v, s)))
        }
        BinaryOp::Mul if number(x.ty()) => {
            let (s, v) = (x.f64s()?, y.vectors(class)?);
            Values::Vectors(class, map2(&s, &v, n, |s, v| pv::times(class, &v, s)))
        }
        BinaryOp::Div
            if (class == VectorClass::Vector2 || class.genvector())
                && matches!(x.ty(), Ty::Vector(_))
                && number(y.ty()) =>
        {
            let (v, s) = (x.vectors(class)?, y.f64s()?);
            Values::Vectors(class, map2(&v, &s, n, |v, s| pv::divide(class, &v, s)))
        }
        _ => {
            return Err(format!(
                "no operator '{}' of {} and {}",
                op.symbol(),
                super::value::ty_name(x.ty()),
                super::value::ty_name(y.ty())
            ))
        }
    };
    Ok(shaped(shape, values, false))
}

/// `&&` and `||`: the right side only for the events whose left side does not decide.
fn logic(
    op: BinaryOp,
    left: Val,
    right: &Node,
    scope: &mut dyn Scope,
    memo: &mut Memo,
) -> Result<Val, EvalError> {
    let events = scope.events();
    let at = |message: String| EvalError {
        pos: right.pos,
        message,
    };
    let decided = match &left {
        // Lists combine item by item, as `RVec`'s operators do: both sides whole.
        Val::Col(Column::Jagged(..)) => None,
        Val::Const(s) => Some(super::value::scalar_f64(s) != 0.0),
        Val::Col(_) => None,
    };
    if let Some(truth) = decided {
        if truth == (op == BinaryOp::Or) {
            return Ok(Val::Const(Scalar::Bool(truth)));
        }
        let r = eval(right, scope, memo)?;
        return binary(op, &Val::Const(Scalar::Bool(truth)), &r, events).map_err(at);
    }
    let Val::Col(Column::Flat(values)) = &left else {
        let r = eval(right, scope, memo)?;
        return binary(op, &left, &r, events).map_err(at);
    };
    if super::optimize::cannot_fail(right) {
        // Cheaper whole than for the undecided events gathered apart, and no event's
        // value can be an error the left side would have spared.
        let r = eval(right, scope, memo)?;
        if let Val::Col(Column::Jagged(..)) = r {
            return Err(at("'&&' and '||' of a value and an RVec".into()));
        }
        return binary(op, &left, &r, events).map_err(at);
    }
    let lane = Lane::Many(Cow::Borrowed(values));
    let truth = lane.bools().map_err(at)?;
    let undecided: Vec<usize> = (0..events)
        .filter(|&e| truth.at(e) == (op == BinaryOp::And))
        .collect();
    if undecided.len() * 4 >= events * 3 {
        // Most events open: the right side for all of them costs less than gathering them
        // apart, and gives the same values for the open ones (an event's value depends on
        // its own columns only). An error there may belong to an event the left side
        // decides: then only the open events are computed, below.
        if let Ok(r @ (Val::Const(_) | Val::Col(Column::Flat(_)))) = eval(right, scope, memo) {
            return binary(op, &left, &r, events).map_err(at);
        }
    }
    let mut out: Vec<bool> = (0..events).map(|e| truth.at(e)).collect();
    if !undecided.is_empty() {
        let mut sub = Subset::new(scope, undecided.clone());
        let r = eval(right, &mut sub, &mut Memo::new()).map_err(|e| in_outer(e, &undecided))?;
        let (_, _, lanes) = align(&[&r], undecided.len()).map_err(at)?;
        if let Val::Col(Column::Jagged(..)) = r {
            return Err(at("'&&' and '||' of a value and an RVec".into()));
        }
        let rb = lanes[0].bools().map_err(at)?;
        for (k, &e) in undecided.iter().enumerate() {
            out[e] = rb.at(if r.is_const() { 0 } else { k });
        }
    }
    Ok(Val::Col(Column::Flat(Values::Bool(out).into())))
}

/// `c ? a : b`: each side for the events that take it, then put together in event order.
fn ternary(
    cond: Val,
    yes: &Node,
    no: &Node,
    scope: &mut dyn Scope,
    memo: &mut Memo,
) -> Result<Val, EvalError> {
    let events = scope.events();
    let at = |message: String| EvalError {
        pos: yes.pos,
        message,
    };
    let lane;
    let truth = match &cond {
        Val::Const(s) => {
            let (side, other) = if super::value::scalar_f64(s) != 0.0 {
                (yes, no)
            } else {
                (no, yes)
            };
            // One side is computed; the other, over no events, gives the type both take.
            let chosen = eval(side, scope, memo)?;
            let other =
                eval(other, &mut Subset::new(scope, Vec::new()), &mut Memo::new())?.into_column(0);
            if side_type(&chosen.clone().into_column(1)) == side_type(&other) {
                return Ok(chosen);
            }
            let (chosen, _) = unify(chosen.into_column(events), other).map_err(at)?;
            return Ok(Val::Col(chosen));
        }
        Val::Col(Column::Flat(v)) => {
            lane = Lane::Many(Cow::Borrowed(v));
            lane.bools().map_err(at)?
        }
        Val::Col(_) => return Err(at("the condition of '?:' is an RVec (use Where)".into())),
    };
    let take: Vec<usize> = (0..events).filter(|&e| truth.at(e)).collect();
    let skip: Vec<usize> = (0..events).filter(|&e| !truth.at(e)).collect();
    let a = eval(yes, &mut Subset::new(scope, take.clone()), &mut Memo::new())
        .map_err(|e| in_outer(e, &take))?
        .into_column(take.len());
    let b = eval(no, &mut Subset::new(scope, skip.clone()), &mut Memo::new())
        .map_err(|e| in_outer(e, &skip))?
        .into_column(skip.len());
    merge(a, &take, b, &skip).map(Val::Col).map_err(at)
}

/// Two columns of complementary sets of events (`ia` and `ib`, ascending) as one.
fn merge(a: Column, ia: &[usize], b: Column, ib: &[usize]) -> Result<Column, String> {
    let order = |n: usize| -> Vec<(bool, usize)> {
        let (mut i, mut j) = (0, 0);
        (0..n)
            .map(|_| {
                if j >= ib.len() || (i < ia.len() && ia[i] < ib[j]) {
                    i += 1;
                    (true, i - 1)
                } else {
                    j += 1;
                    (false, j - 1)
                }
            })
            .collect()
    };
    let n = ia.len() + ib.len();
    let (a, b) = unify(a, b)?;
    Ok(match (a, b) {
        (Column::Flat(x), Column::Flat(y)) => {
            let joined = Arc::unwrap_or_clone(x).append(Arc::unwrap_or_clone(y))?;
            let index: Vec<usize> = order(n)
                .into_iter()
                .map(|(first, k)| if first { k } else { ia.len() + k })
                .collect();
            Column::Flat(joined.gather(&index).into())
        }
        (Column::Jagged(oa, x), Column::Jagged(ob, y)) => {
            let base = x.len();
            let joined = Arc::unwrap_or_clone(x).append(Arc::unwrap_or_clone(y))?;
            let mut offsets = vec![0usize];
            let mut items = Vec::new();
            for (first, k) in order(n) {
                if first {
                    items.extend(oa[k]..oa[k + 1]);
                } else {
                    items.extend(base + ob[k]..base + ob[k + 1]);
                }
                offsets.push(items.len());
            }
            Column::Jagged(std::sync::Arc::new(offsets), joined.gather(&items).into())
        }
        _ => return Err("the two sides of '?:' differ: one is an RVec, one is not".into()),
    })
}

/// Two columns converted to their common type.
/// The type of one side of `?:`, and whether it is an `int` held as `bool`s.
fn side_type(c: &Column) -> (Ty, bool) {
    match c {
        Column::Flat(v) | Column::Jagged(_, v) => (Ty::of(v), matches!(**v, Values::IntBool(_))),
        Column::Tuple(_) => (Ty::Int(IntTy::SIZE), false),
    }
}

fn unify(a: Column, b: Column) -> Result<(Column, Column), String> {
    let ((ta, narrow_a), (tb, narrow_b)) = (side_type(&a), side_type(&b));
    if ta == tb && narrow_a == narrow_b {
        return Ok((a, b));
    }
    if ta.is_vector() || tb.is_vector() {
        return Err(format!(
            "a {} and a {} on the two sides of '?:'",
            super::value::ty_name(ta),
            super::value::ty_name(tb)
        ));
    }
    if ta == Ty::Str || tb == Ty::Str {
        return Err("a string and a number on the two sides of '?:'".into());
    }
    let common = Ty::common(ta, tb);
    Ok((convert(a, common)?, convert(b, common)?))
}

/// A column's values converted to `ty`.
pub fn convert(c: Column, ty: Ty) -> Result<Column, String> {
    let conv = |v: Values| -> Result<Values, String> {
        let lane = Lane::Many(Cow::Owned(v));
        let n = match &lane {
            Lane::Many(v) => v.len(),
            Lane::One(_) => 1,
        };
        Ok(match ty {
            Ty::Bool => {
                let b = lane.bools()?;
                Values::Bool((0..n).map(|i| b.at(i)).collect())
            }
            Ty::Int(t) => {
                let b = lane.ints(t)?;
                Values::Int(t, (0..n).map(|i| b.at(i)).collect())
            }
            Ty::F32 => {
                let b = lane.f32s()?;
                Values::F32((0..n).map(|i| b.at(i)).collect())
            }
            Ty::F64 => {
                let b = lane.f64s()?;
                Values::F64((0..n).map(|i| b.at(i)).collect())
            }
            Ty::P4 => return Err("a number is not a four-vector".into()),
            Ty::Vector(c) => return Err(format!("a number is not a {}", c.name())),
            Ty::Str => return Err("a number is not a string".into()),
        })
    };
    Ok(match c {
        Column::Flat(v) => Column::Flat(conv(Arc::unwrap_or_clone(v))?.into()),
        Column::Jagged(o, v) => Column::Jagged(o, conv(Arc::unwrap_or_clone(v))?.into()),
        t @ Column::Tuple(_) => t,
    })
}

/// `v[i]`: an item of each event's list (an integer index), the items a mask keeps (a
/// list of conditions of the same length), or a part of a list of combinations.
pub(super) fn index(v: &Val, i: &Val) -> Result<Val, String> {
    match (v, i) {
        (Val::Col(Column::Tuple(parts)), Val::Const(Scalar::Int(_, k))) => parts
            .get(*k as usize)
            .filter(|_| *k >= 0)
            .cloned()
            .map(Val::Col)
            .ok_or_else(|| format!("part {k} of combinations of {} lists", parts.len())),
        (Val::Col(Column::Jagged(offsets, values)), Val::Col(Column::Jagged(..))) => {
            // A mask: the items whose condition is not zero.
            let (_, _, lanes) = align(&[v, i], offsets.len() - 1)?;
            let (out, items) = masked_items(offsets, &lanes[1].bools()?);
            Ok(Val::Col(Column::Jagged(
                std::sync::Arc::new(out),
                values.gather(&items).into(),
            )))
        }
        (Val::Col(Column::Jagged(offsets, values)), index) => {
            let events = offsets.len() - 1;
            let (_, _, lanes) = align(&[index], events)?;
            if matches!(lanes[0].ty(), Ty::F32 | Ty::F64 | Ty::P4 | Ty::Vector(_)) {
                return Err("an RVec index must be an integer".into());
            }
            let k = lanes[0].ints(IntTy::LONG64)?;
            let mut items = Vec::with_capacity(events);
            for e in 0..events {
                let at = k.at(if index.is_const() { 0 } else { e });
                let len = offsets[e + 1] - offsets[e];
                if at < 0 || at as usize >= len {
                    return Err(format!(
                        "index {at} of an RVec of {len} items ({})",
                        event_name(e)
                    ));
                }
                items.push(offsets[e] + at as usize);
            }
            Ok(Val::Col(Column::Flat(values.gather(&items).into())))
        }
        (v, _) => Err(format!("a {} cannot be indexed", v.type_name())),
    }
}

/// `Take(list, which)[i]` (`node`, its `Take` at `take`): where `which` holds lists of
/// integer indices and `i` is an integer per event, the item of `list` at `which[i]`, without
/// taking the items at the other indices (Q6's b-tag of the chosen trijet's jets); otherwise
/// the `Take` and the index as written. The values are the same; an index of `which` past
/// its list that `i` does not choose is no error here (in ROOT it reads past the list).
fn index_of_take(
    node: &Node,
    take: &Node,
    list: &Node,
    which: &Node,
    i: &Node,
    scope: &mut dyn Scope,
    memo: &mut Memo,
) -> Result<Val, EvalError> {
    let at = |pos: usize| move |message: String| EvalError { pos, message };
    let (list, which) = (eval(list, scope, memo)?, eval(which, scope, memo)?);
    let i = eval(i, scope, memo)?;
    let chosen = match (&list, &which, &i) {
        (
            Val::Col(Column::Jagged(offsets, values)),
            Val::Col(Column::Jagged(index_offsets, indices)),
            Val::Const(_) | Val::Col(Column::Flat(_)),
        ) if matches!(**indices, Values::Int(..)) && index_offsets.len() == offsets.len() => {
            Some((offsets, values))
        }
        _ => None,
    };
    let Some((offsets, values)) = chosen else {
        let taken = call("Take", vec![list, which], scope.events()).map_err(at(take.pos))?;
        return index(&taken, &i).map_err(at(node.pos));
    };
    let picked = index(&which, &i).map_err(at(node.pos))?;
    let Val::Col(Column::Flat(picked)) = &picked else {
        unreachable!("an index of lists gives an item per event")
    };
    let Values::Int(_, picked) = &**picked else {
        unreachable!("items of integer lists")
    };
    let mut items = Vec::with_capacity(picked.len());
    for (e, (w, &k)) in offsets.windows(2).zip(picked.iter()).enumerate() {
        let len = w[1] - w[0];
        if k < 0 || k as usize >= len {
            return Err(at(take.pos)(take_out_of_range(k, len, e)));
        }
        items.push(w[0] + k as usize);
    }
    Ok(Val::Col(Column::Flat(values.gather(&items).into())))
}

/// The items of lists cut at `offsets` whose condition in `keep` holds, and the offsets of
/// the lists they make.
fn masked_items(offsets: &[usize], keep: &Num<bool>) -> (Vec<usize>, Vec<usize>) {
    match keep {
        Num::Many(m) => kept_items(offsets, |k| m[k]),
        Num::One(b) => kept_items(offsets, |_| *b),
    }
}

/// [`masked_items`] for one way of telling a kept item: each item is written and kept by
/// adding its condition to the count, without a branch per item.
fn kept_items(offsets: &[usize], is_kept: impl Fn(usize) -> bool) -> (Vec<usize>, Vec<usize>) {
    let mut out = Vec::with_capacity(offsets.len());
    out.push(0);
    let span = offsets.last().unwrap_or(&0) - offsets.first().unwrap_or(&0);
    let mut items = vec![0usize; span + 1];
    let mut kept = 0;
    for w in offsets.windows(2) {
        for k in w[0]..w[1] {
            items[kept] = k;
            kept += usize::from(is_kept(k));
        }
        out.push(kept);
    }
    items.truncate(kept);
    (out, items)
}

/// `Map(v1, ..., lambda)`: the lambda's body evaluated once per item of the lists (all of
/// one length per event), as a column of items in which the parameters are the lists'
/// items and every other column is its event's value.
fn map_items(args: &[Node], scope: &mut dyn Scope, memo: &mut Memo) -> Result<Val, EvalError> {
    let (last, lists) = args.split_last().expect("Map has a lambda");
    let Kind::Lambda(params, body) = &last.kind else {
        unreachable!("checked when parsed")
    };
    let at = |message: String| EvalError {
        pos: last.pos,
        message,
    };
    let events = scope.events();
    let vals = lists
        .iter()
        .map(|a| eval(a, scope, memo))
        .collect::<Result<Vec<_>, _>>()?;
    let refs: Vec<&Val> = vals.iter().collect();
    let (shape, items, lanes) = align(&refs, events).map_err(at)?;
    let Shape::Jagged(offsets) = shape else {
        return Err(at("Map takes RVecs".into()));
    };
    let item_event = item_events(&offsets);
    let mut bound = HashMap::new();
    for ((name, lane), val) in params.iter().zip(lanes).zip(&vals) {
        let values = match (lane, val) {
            // A list's items as they are (shared, not copied).
            (_, Val::Col(Column::Jagged(_, v))) => v.clone(),
            (Lane::Many(v), _) => Arc::new(v.into_owned()),
            (Lane::One(s), _) => match Val::Const(s).into_column(items) {
                Column::Flat(v) => v,
                _ => unreachable!("a constant is flat"),
            },
        };
        bound.insert(name.clone(), Column::Flat(values));
    }
    let mut inner = Items {
        parent: scope,
        item_event,
        bound,
        gatherer: Gatherer::default(),
    };
    let body = eval(body, &mut inner, &mut Memo::new());
    match body
        .map_err(|e| in_outer(e, &inner.item_event))?
        .into_column(items)
    {
        Column::Flat(values) => Ok(Val::Col(Column::Jagged(offsets, values))),
        other => Err(at(format!(
            "Map's lambda gives a {} per item; one number per item is supported",
            other.type_name()
        ))),
    }
}

/// The items of `Map`'s lists as the events of a scope: the lambda's parameters bound to
/// the items, other columns taken from each item's event.
struct Items<'a> {
    parent: &'a mut dyn Scope,
    item_event: Vec<usize>,
    bound: HashMap<String, Column>,
    gatherer: Gatherer,
}

impl Scope for Items<'_> {
    fn column(&mut self, name: &str) -> Result<Column, String> {
        if let Some(c) = self.bound.get(name) {
            return Ok(c.clone());
        }
        let c = self
            .gatherer
            .gather(&self.parent.column(name)?, &self.item_event);
        self.bound.insert(name.to_string(), c.clone());
        Ok(c)
    }

    fn events(&self) -> usize {
        self.item_event.len()
    }
}

/// The events `index` (positions, ascending) of a scope, with their columns gathered once.
pub struct Subset<'a> {
    parent: &'a mut dyn Scope,
    index: Vec<usize>,
    cache: HashMap<String, Column>,
    gatherer: Gatherer,
}

impl<'a> Subset<'a> {
    /// The events `index` of `parent`.
    pub fn new(parent: &'a mut dyn Scope, index: Vec<usize>) -> Self {
        Subset {
            parent,
            index,
            cache: HashMap::new(),
            gatherer: Gatherer::default(),
        }
    }
}

impl Scope for Subset<'_> {
    fn column(&mut self, name: &str) -> Result<Column, String> {
        if let Some(c) = self.cache.get(name) {
            return Ok(c.clone());
        }
        let c = self
            .gatherer
            .gather(&self.parent.column(name)?, &self.index);
        self.cache.insert(name.to_string(), c.clone());
        Ok(c)
    }

    fn events(&self) -> usize {
        self.index.len()
    }
}
