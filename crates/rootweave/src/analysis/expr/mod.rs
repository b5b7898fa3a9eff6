//! Expressions in RDataFrame's dialect, the strings analysts write in `Define` and
//! `Filter` (`"Jet_pt[abs(Jet_eta) < 1]"`, `"Sum(Jet_pt > 40) >= 2"`): parsed once, checked
//! (every function known, with its number of arguments) before any data is read, and
//! evaluated a batch at a time as columnar kernels, without a compiler.

mod braced;
mod casts;
mod closest_mass;
mod coordinates;
mod cxx_sort;
mod cxx_stable_sort;
mod eval;
mod functions;
mod genvectors;
pub mod int_type;
mod list_functions;
pub(crate) mod lorentz;
mod made_lists;
mod optimize;
mod parse;
pub(crate) mod physics_vectors;
mod strings;
mod syntax;
mod take_sums;
mod tmath;
mod value;
mod vector_calls;
mod vector_util;

pub use eval::{evaluate, rename_events, sized_without_items, sizes, EvalError, Scope};
pub use int_type::{IntTy, Rank};
pub use parse::ParseError;
pub use syntax::{BinaryOp, Kind, Node, UnaryOp};

/// A parsed and checked expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Expression {
    /// The text as written.
    pub text: String,
    /// Its tree, rewritten to save work (the same values; see `optimize`).
    pub tree: Node,
}

impl Expression {
    /// Parses `text` and checks its calls; the error names the position and what is
    /// wrong there.
    pub fn parse(text: &str) -> Result<Expression, ParseError> {
        let tree = parse::parse(text)?;
        check_calls(&tree)?;
        Ok(Expression {
            text: text.to_string(),
            tree: optimize::optimize(tree),
        })
    }

    /// The columns it names.
    pub fn columns(&self) -> Vec<String> {
        self.tree.columns()
    }

    /// Its value for every event of `scope`.
    pub fn evaluate(
        &self,
        scope: &mut dyn Scope,
    ) -> Result<crate::analysis::column::Column, EvalError> {
        evaluate(&self.tree, scope)
    }

    /// Its value where it reads no column, in its C++ type: one `bool`, integer, `float`
    /// or `double` (`GetI("n") / 2` an `int`, as ROOT's jitted expression gives it).
    pub fn constant_value(&self) -> Result<crate::analysis::column::Values, EvalError> {
        use crate::analysis::column::Values;
        let column = self.evaluate(&mut NoColumns)?;
        match column.flat() {
            Some(v) if v.len() == 1 && !matches!(v, Values::P4(_)) => Ok(v.clone()),
            _ => Err(EvalError {
                pos: 0,
                message: format!("'{}' is not one number or string", self.text),
            }),
        }
    }
}

/// One event without columns: where [`Expression::constant`] evaluates.
struct NoColumns;

impl Scope for NoColumns {
    fn column(&mut self, name: &str) -> Result<crate::analysis::column::Column, String> {
        Err(format!("no column '{name}' in a constant expression"))
    }

    fn events(&self) -> usize {
        1
    }
}

/// Checks every call of `node` against the functions the dialect has.
fn check_calls(node: &Node) -> Result<(), ParseError> {
    let at = |message: String| ParseError {
        pos: node.pos,
        message,
    };
    match &node.kind {
        Kind::Call(name, args) if name == "Map" => {
            let lists = args.len().saturating_sub(1);
            match args.last().map(|a| &a.kind) {
                Some(Kind::Lambda(params, _)) if lists >= 1 && params.len() == lists => {}
                Some(Kind::Lambda(params, _)) => {
                    return Err(at(format!(
                        "Map of {lists} lists with a lambda of {} parameters",
                        params.len()
                    )))
                }
                _ => return Err(at("Map takes lists and then a lambda".into())),
            }
            args.iter().try_for_each(check_calls)
        }
        Kind::Call(name, args) if name == "{}" => args.iter().try_for_each(check_calls),
        Kind::Call(name, args) => {
            functions::check(name, args.len()).map_err(at)?;
            if let Some(l) = args.iter().find(|a| matches!(a.kind, Kind::Lambda(..))) {
                return Err(ParseError {
                    pos: l.pos,
                    message: format!("{name} takes no lambda (Map does)"),
                });
            }
            args.iter().try_for_each(check_calls)
        }
        Kind::Lambda(_, body) | Kind::Shared(_, body) => check_calls(body),
        Kind::Method(x, name, args) => {
            functions::check(&format!(".{name}"), args.len() + 1).map_err(at)?;
            check_calls(x)?;
            args.iter().try_for_each(check_calls)
        }
        Kind::Unary(_, a) => check_calls(a),
        Kind::Binary(_, a, b) | Kind::Index(a, b) => {
            check_calls(a)?;
            check_calls(b)
        }
        Kind::Ternary(c, a, b) => {
            check_calls(c)?;
            check_calls(a)?;
            check_calls(b)
        }
        Kind::Int(..) | Kind::Float { .. } | Kind::Bool(_) | Kind::Str(_) | Kind::Column(_) => {
            Ok(())
        }
    }
}

#[cfg(test)]
mod parity_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod vector_tests;
