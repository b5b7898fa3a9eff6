//! Four-vectors of one list summed at several index lists, `Take(v, c[0]) + Take(v, c[1]) +
//! Take(v, c[2])`: a trijet of `Combinations(jets, 3)`, or a pair before its `M()` once a
//! `Map` over taken coordinates is inlined. The optimizer marks such a sum
//! ([`SUM_OF_TAKES`]); its evaluation adds the vectors where they are ([`sums_at`]) instead
//! of gathering a copy of them for every index list, and gives the same values and errors.

use std::borrow::Cow;
use std::sync::Arc;

use super::eval::{eval, EvalError, Memo, Scope};
use super::functions::take_positions;
use super::int_type::IntTy;
use super::lorentz::sums_at;
use super::syntax::{BinaryOp, Kind, Node};
use super::value::{Lane, Num, Val};
use crate::analysis::column::{Column, Values};

/// The call the optimizer wraps around a sum of takes (its one argument is the sum as
/// written); no expression can spell its name.
pub const SUM_OF_TAKES: &str = "+Take";

/// One term of a sum of takes: `Take(list, which)`, written at `pos`.
pub struct Term<'n> {
    /// Where the `Take` is written (its errors name it).
    pub pos: usize,
    /// The list taken from.
    pub list: &'n Node,
    /// The indices taken.
    pub which: &'n Node,
}

/// The `Take(list, which)` terms of `sum`, left to right, when it is `a + b + ...` (two
/// terms or more, nested to the left as written without parentheses) of such terms only.
pub fn terms(sum: &Node) -> Option<Vec<Term<'_>>> {
    let Kind::Binary(BinaryOp::Add, left, right) = &sum.kind else {
        return None;
    };
    let mut terms = match term(left) {
        Some(t) => vec![t],
        None => terms(left)?,
    };
    terms.push(term(right)?);
    Some(terms)
}

/// `node` as a term, if it is a `Take(list, which)` (computed once or shared).
fn term(node: &Node) -> Option<Term<'_>> {
    match &node.kind {
        Kind::Shared(_, part) => term(part),
        Kind::Call(name, args) if name == "Take" && args.len() == 2 => Some(Term {
            pos: node.pos,
            list: &args[0],
            which: &args[1],
        }),
        _ => None,
    }
}

/// The value of `sum`, a sum the optimizer marked (every term takes from the same list):
/// the four-vectors added in place when the list holds four-vectors and every index list
/// has the first's shape; otherwise the sum evaluated as written.
pub fn evaluate(sum: &Node, scope: &mut dyn Scope, memo: &mut Memo) -> Result<Val, EvalError> {
    let Some(terms) = terms(sum) else {
        return eval(sum, scope, memo);
    };
    let vectors = eval(terms[0].list, scope, memo)?;
    let Val::Col(Column::Jagged(offsets, values)) = &vectors else {
        return eval(sum, scope, memo);
    };
    let Values::P4(vectors) = &**values else {
        return eval(sum, scope, memo);
    };
    let mut positions = Vec::with_capacity(terms.len());
    let mut shape: Option<Arc<Vec<usize>>> = None;
    for term in &terms {
        let at = |message: String| EvalError {
            pos: term.pos,
            message,
        };
        let which = eval(term.which, scope, memo)?;
        let Val::Col(Column::Jagged(index_offsets, indices)) = &which else {
            return eval(sum, scope, memo);
        };
        match &shape {
            Some(s) if !Arc::ptr_eq(s, index_offsets) && **s != **index_offsets => {
                return eval(sum, scope, memo)
            }
            Some(_) => {}
            None => shape = Some(index_offsets.clone()),
        }
        let lane = Lane::Many(Cow::Borrowed(indices));
        let Num::Many(indices) = lane.ints(IntTy::LONG64).map_err(at)? else {
            unreachable!("a lane of many values")
        };
        positions.push(take_positions(offsets, index_offsets, &indices).map_err(at)?);
    }
    let shape = shape.expect("a sum has terms");
    Ok(Val::Col(Column::Jagged(
        shape,
        Values::P4(sums_at(vectors, &positions)).into(),
    )))
}
