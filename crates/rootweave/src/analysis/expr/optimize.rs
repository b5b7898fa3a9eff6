//! Rewrites of a checked expression that keep every value and save work, applied once when
//! it is parsed:
//!
//! - `Map(lists..., lambda)` whose lambda applies only item-by-item operations to its own
//!   parameters becomes its body with the lists in place of the parameters (the lists'
//!   operators work item by item already), so no per-item scope is made (a body giving a
//!   `bool` per item marked [`ITEMS_AS_BOOL`], as `Map` gives `RVec<bool>` where the lists'
//!   comparisons give `RVec<int>`);
//! - a four-vector made of the same items of four lists, `PtEtaPhiMVector(Take(pt, i),
//!   Take(eta, i), ...)`, is made of the lists first and its items taken after: a jet in
//!   twenty combinations is converted once;
//! - a sum of such vectors taken from one list at several index lists (a trijet) is marked
//!   to be added where the vectors are, without a copy per index list
//!   ([`take_sums`](super::take_sums));
//! - a part written more than once (the same four-vectors of both particles of a pair) is
//!   computed once per scope ([`Kind::Shared`]).

use std::collections::HashMap;

use super::syntax::{BinaryOp, Kind, Node, UnaryOp};
use super::take_sums::{terms, SUM_OF_TAKES};

/// The name of the call made around an inlined `Map` body that gives a `bool` per item: its
/// lists of conditions are `RVec<bool>` (as `Map`'s), not `RVec<int>` (as the lists'
/// comparisons). Not a name an expression can call.
pub const ITEMS_AS_BOOL: &str = "(bool)";

/// `tree` rewritten (see the module's documentation).
pub fn optimize(tree: Node) -> Node {
    let tree = mark_sums_of_takes(rewrite(tree));
    let mut counts = HashMap::new();
    count(&tree, &mut counts);
    let mut ids = HashMap::new();
    share(tree, &counts, &mut ids)
}

/// The functions that map items to items, each of their results depending on the items at
/// the same position only.
const ITEMWISE: &[&str] = &[
    "abs",
    "fabs",
    "sqrt",
    "exp",
    "log",
    "log10",
    "log2",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "floor",
    "ceil",
    "round",
    "trunc",
    "pow",
    "atan2",
    "hypot",
    "max",
    "min",
    "DeltaPhi",
    "DeltaR",
    "DeltaR2",
    "InvariantMasses",
    "PtEtaPhiMVector",
    "Construct<PtEtaPhiMVector>",
];

/// Four-vector methods (all item by item).
const P4_METHODS: &[&str] = &[
    "Pt", "pt", "Eta", "eta", "Phi", "phi", "M", "mass", "E", "energy", "P", "Px", "px", "Py",
    "py", "Pz", "pz", "Mt", "Et", "Rapidity",
];

/// The rewrites of single nodes, children first.
fn rewrite(node: Node) -> Node {
    let pos = node.pos;
    let kind = match node.kind {
        Kind::Call(name, args) => {
            let args: Vec<Node> = args.into_iter().map(rewrite).collect();
            if name == "Map" {
                if let Some(inlined) = inline_map(&args) {
                    return rewrite(inlined);
                }
            }
            if let Some(hoisted) = hoist_take(&name, &args, pos) {
                return hoisted;
            }
            Kind::Call(name, args)
        }
        Kind::Method(x, name, args) => Kind::Method(
            Box::new(rewrite(*x)),
            name,
            args.into_iter().map(rewrite).collect(),
        ),
        Kind::Unary(op, a) => Kind::Unary(op, Box::new(rewrite(*a))),
        Kind::Binary(op, a, b) => Kind::Binary(op, Box::new(rewrite(*a)), Box::new(rewrite(*b))),
        Kind::Index(a, b) => Kind::Index(Box::new(rewrite(*a)), Box::new(rewrite(*b))),
        Kind::Ternary(c, a, b) => Kind::Ternary(
            Box::new(rewrite(*c)),
            Box::new(rewrite(*a)),
            Box::new(rewrite(*b)),
        ),
        Kind::Lambda(params, body) => Kind::Lambda(params, Box::new(rewrite(*body))),
        other => other,
    };
    Node { kind, pos }
}

/// `Map`'s body with its lists in place of its parameters, where that gives the same
/// values: the body uses every parameter, no other column, and only item-by-item
/// operations (no reduction, index or `?:`, no division on the right of `&&` or `||`,
/// which `Map` would have skipped for the items the left side decides).
fn inline_map(args: &[Node]) -> Option<Node> {
    let (last, lists) = args.split_last()?;
    let Kind::Lambda(params, body) = &last.kind else {
        return None;
    };
    if params.len() != lists.len() || !itemwise(body, params) {
        return None;
    }
    if !params.iter().all(|p| body.columns_named(p)) {
        return None;
    }
    let bound: HashMap<&str, &Node> = params.iter().map(String::as_str).zip(lists).collect();
    let inlined = substitute(body, &bound);
    let boolean = match &inlined.kind {
        Kind::Binary(op, ..) => op.is_boolean(),
        Kind::Unary(UnaryOp::Not, _) | Kind::Bool(_) => true,
        _ => false,
    };
    Some(if boolean {
        Node {
            pos: inlined.pos,
            kind: Kind::Call(ITEMS_AS_BOOL.into(), vec![inlined]),
        }
    } else {
        inlined
    })
}

/// Whether a node of this kind maps the items at each position to one item there:
/// literals, operators, the [`ITEMWISE`] functions and four-vector methods (its children
/// aside).
fn item_by_item(kind: &Kind) -> bool {
    match kind {
        Kind::Int(..)
        | Kind::Float { .. }
        | Kind::Bool(_)
        | Kind::Str(_)
        | Kind::Unary(..)
        | Kind::Binary(..) => true,
        Kind::Call(name, _) => {
            ITEMWISE.contains(&name.as_str())
                || super::casts::cast_of(name).is_some()
                || super::tmath::itemwise(name)
        }
        Kind::Method(_, name, _) => P4_METHODS.contains(&name.as_str()),
        _ => false,
    }
}

/// Whether `node` computes each item from the items at its position only, naming no
/// column but `params` (and constants).
fn itemwise(node: &Node, params: &[String]) -> bool {
    let divides =
        |n: &Node| n.any(&|m| matches!(m.kind, Kind::Binary(BinaryOp::Div | BinaryOp::Rem, ..)));
    let here = match &node.kind {
        Kind::Column(name) => params.contains(name) || name == "M_PI",
        Kind::Binary(BinaryOp::And | BinaryOp::Or, _, right) => !divides(right),
        kind => item_by_item(kind),
    };
    here && node.children().all(|c| itemwise(c, params))
}

/// Whether `node` gives a value for every event whatever its columns hold: item-by-item
/// arithmetic, comparisons and math, no index, reduction, division or `?:` (so `&&` and
/// `||` may compute it for every event instead of only those their left side leaves open).
pub fn cannot_fail(node: &Node) -> bool {
    let here = match &node.kind {
        Kind::Column(_) | Kind::Shared(..) => true,
        Kind::Binary(BinaryOp::Div | BinaryOp::Rem, ..) => false,
        kind => item_by_item(kind),
    };
    here && node.children().all(cannot_fail)
}

/// `node` with the columns named in `bound` replaced by their nodes.
fn substitute(node: &Node, bound: &HashMap<&str, &Node>) -> Node {
    let pos = node.pos;
    let sub = |n: &Node| Box::new(substitute(n, bound));
    let kind = match &node.kind {
        Kind::Column(name) => match bound.get(name.as_str()) {
            Some(n) => return (*n).clone(),
            None => Kind::Column(name.clone()),
        },
        Kind::Unary(op, a) => Kind::Unary(*op, sub(a)),
        Kind::Binary(op, a, b) => Kind::Binary(*op, sub(a), sub(b)),
        Kind::Call(name, args) => Kind::Call(
            name.clone(),
            args.iter().map(|a| substitute(a, bound)).collect(),
        ),
        Kind::Method(x, name, args) => Kind::Method(
            sub(x),
            name.clone(),
            args.iter().map(|a| substitute(a, bound)).collect(),
        ),
        other => other.clone(),
    };
    Node { kind, pos }
}

/// `PtEtaPhiMVector(Take(a, i), Take(b, i), Take(c, i), Take(d, i))` (the same `i`) as
/// `Take(PtEtaPhiMVector(a, b, c, d), i)`.
fn hoist_take(name: &str, args: &[Node], pos: usize) -> Option<Node> {
    if name != "PtEtaPhiMVector" && name != "Construct<PtEtaPhiMVector>" {
        return None;
    }
    let mut lists = Vec::new();
    let mut which: Option<&Node> = None;
    for a in args {
        // A conversion of an item (a lambda's typed parameter) is one of the list's items.
        let (a, cast) = match &a.kind {
            Kind::Call(f, inner) if inner.len() == 1 && super::casts::cast_of(f).is_some() => {
                (&inner[0], Some(f))
            }
            _ => (a, None),
        };
        let Kind::Call(f, take) = &a.kind else {
            return None;
        };
        if f != "Take" || take.len() != 2 {
            return None;
        }
        if which.is_some_and(|w| key(w) != key(&take[1])) {
            return None;
        }
        which = Some(&take[1]);
        lists.push(match cast {
            Some(f) => Node {
                kind: Kind::Call(f.clone(), vec![take[0].clone()]),
                pos: take[0].pos,
            },
            None => take[0].clone(),
        });
    }
    let vectors = Node {
        kind: Kind::Call(name.to_string(), lists),
        pos,
    };
    Some(Node {
        kind: Kind::Call("Take".into(), vec![vectors, which?.clone()]),
        pos,
    })
}

/// `node` with every sum of takes from one list (see [`take_sums`](super::take_sums))
/// wrapped in a [`SUM_OF_TAKES`] call, the longest sum where sums nest.
fn mark_sums_of_takes(node: Node) -> Node {
    let same_list = terms(&node).is_some_and(|t| {
        let lists: Vec<String> = t.iter().map(|term| key(term.list)).collect();
        lists.windows(2).all(|w| w[0] == w[1])
    });
    let pos = node.pos;
    if same_list {
        return Node {
            kind: Kind::Call(SUM_OF_TAKES.into(), vec![node]),
            pos,
        };
    }
    let go = |n: Box<Node>| Box::new(mark_sums_of_takes(*n));
    let kind = match node.kind {
        Kind::Unary(op, a) => Kind::Unary(op, go(a)),
        Kind::Binary(op, a, b) => Kind::Binary(op, go(a), go(b)),
        Kind::Index(a, b) => Kind::Index(go(a), go(b)),
        Kind::Ternary(c, a, b) => Kind::Ternary(go(c), go(a), go(b)),
        Kind::Call(name, args) => {
            Kind::Call(name, args.into_iter().map(mark_sums_of_takes).collect())
        }
        Kind::Method(x, name, args) => Kind::Method(
            go(x),
            name,
            args.into_iter().map(mark_sums_of_takes).collect(),
        ),
        Kind::Lambda(params, body) => Kind::Lambda(params, go(body)),
        other => other,
    };
    Node { kind, pos }
}

/// A node's text without positions: equal for nodes that compute the same thing.
fn key(node: &Node) -> String {
    let children: Vec<String> = node.children().map(key).collect();
    let head = match &node.kind {
        Kind::Int(v, t) => format!("i{v}{t:?}"),
        Kind::Float { value, single } => format!("f{value:?}{single}"),
        Kind::Bool(b) => format!("b{b}"),
        Kind::Str(s) => format!("s{s:?}"),
        Kind::Column(c) => format!("c{c}"),
        Kind::Unary(op, _) => format!("u{op:?}"),
        Kind::Binary(op, ..) => format!("o{op:?}"),
        Kind::Ternary(..) => "?".into(),
        Kind::Index(..) => "[]".into(),
        Kind::Call(f, _) => format!("f{f}"),
        Kind::Method(_, m, _) => format!("m{m}"),
        Kind::Lambda(params, _) => format!("l{}", params.join(",")),
        Kind::Shared(id, _) => format!("s{id}"),
    };
    format!("({head} {})", children.join(" "))
}

/// Whether computing `node` once for several uses saves work (not a literal or column,
/// not inside a lambda, whose parameters differ from item to item).
fn worth_sharing(node: &Node) -> bool {
    !matches!(
        node.kind,
        Kind::Int(..)
            | Kind::Float { .. }
            | Kind::Bool(_)
            | Kind::Str(_)
            | Kind::Column(_)
            | Kind::Lambda(..)
    )
}

/// How many times each part of `node` appears (lambdas' bodies not counted).
fn count(node: &Node, counts: &mut HashMap<String, usize>) {
    if matches!(node.kind, Kind::Lambda(..)) {
        return;
    }
    if worth_sharing(node) {
        *counts.entry(key(node)).or_default() += 1;
    }
    node.children().for_each(|c| count(c, counts));
}

/// `node` with each part that appears more than once marked as shared.
fn share(node: Node, counts: &HashMap<String, usize>, ids: &mut HashMap<String, usize>) -> Node {
    if matches!(node.kind, Kind::Lambda(..)) {
        return node;
    }
    let k = worth_sharing(&node).then(|| key(&node));
    let pos = node.pos;
    let mut go = |n: Node| share(n, counts, ids);
    let kind = match node.kind {
        Kind::Unary(op, a) => Kind::Unary(op, Box::new(go(*a))),
        Kind::Binary(op, a, b) => Kind::Binary(op, Box::new(go(*a)), Box::new(go(*b))),
        Kind::Index(a, b) => Kind::Index(Box::new(go(*a)), Box::new(go(*b))),
        Kind::Ternary(c, a, b) => {
            Kind::Ternary(Box::new(go(*c)), Box::new(go(*a)), Box::new(go(*b)))
        }
        Kind::Call(name, args) => Kind::Call(name, args.into_iter().map(go).collect()),
        Kind::Method(x, name, args) => {
            Kind::Method(Box::new(go(*x)), name, args.into_iter().map(go).collect())
        }
        other => other,
    };
    let node = Node { kind, pos };
    match k {
        Some(k) if counts.get(&k).copied().unwrap_or(0) > 1 => {
            let next = ids.len();
            let id = *ids.entry(k).or_insert(next);
            Node {
                kind: Kind::Shared(id, Box::new(node)),
                pos,
            }
        }
        _ => node,
    }
}
