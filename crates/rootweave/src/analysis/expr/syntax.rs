//! The syntax tree of an expression in RDataFrame's dialect (C++ with ROOT's `RVec`
//! functions), as the parser makes it: every node keeps where it starts in the text, so
//! that errors can point at it.

/// An operator of one operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    /// `+x`: C++'s integral promotion (a `bool` becomes an `int`), nothing for a list.
    Plus,
    /// `-x`
    Neg,
    /// `!x`
    Not,
    /// `~x`
    BitNot,
}

/// An operator of two operands, in C++'s meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&&`
    And,
    /// `||`
    Or,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
}

impl BinaryOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
        }
    }

    /// Whether the result is a boolean (comparisons and logic).
    pub fn is_boolean(self) -> bool {
        !matches!(
            self,
            BinaryOp::Add
                | BinaryOp::Sub
                | BinaryOp::Mul
                | BinaryOp::Div
                | BinaryOp::Rem
                | BinaryOp::BitAnd
                | BinaryOp::BitOr
                | BinaryOp::BitXor
                | BinaryOp::Shl
                | BinaryOp::Shr
        )
    }
}

/// A node of an expression and where it starts (a byte offset into the text).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// What the node is.
    pub kind: Kind,
    /// Its first byte in the expression's text.
    pub pos: usize,
}

/// The kinds of node.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// An integer literal (`3`, `0x10`, `2u`) and its C++ type.
    Int(i64, super::IntTy),
    /// A floating-point literal: `1.5` is a `double`, `1.5f` a `float`.
    Float {
        /// The value.
        value: f64,
        /// Whether it has the `f` suffix (a `float`).
        single: bool,
    },
    /// `true` or `false`.
    Bool(bool),
    /// A string literal (`"HLT_IsoMu24"`): its bytes, escapes resolved.
    Str(Vec<u8>),
    /// A column (or defined column) by name.
    Column(String),
    /// `op x`.
    Unary(UnaryOp, Box<Node>),
    /// `a op b`.
    Binary(BinaryOp, Box<Node>, Box<Node>),
    /// `c ? a : b`.
    Ternary(Box<Node>, Box<Node>, Box<Node>),
    /// `v[i]` (an index) or `v[mask]` (a selection).
    Index(Box<Node>, Box<Node>),
    /// `f(args)`: a function by its name without namespace (`ROOT::VecOps::Sum` is `Sum`).
    Call(String, Vec<Node>),
    /// `x.f(args)`: a method (`v.size()`, `p.Pt()`).
    Method(Box<Node>, String, Vec<Node>),
    /// `[&](float eta, float phi) { return expression; }`: a function of the items of
    /// lists, as `Map` takes it (the parameters' names; their types are not needed).
    Lambda(Vec<String>, Box<Node>),
    /// A part that appears more than once in the expression, computed once per scope
    /// (the number tells the parts apart); made by the optimizer, never parsed.
    Shared(usize, Box<Node>),
}

impl Node {
    /// The columns the expression names (not a lambda's parameters), each once, in order
    /// of appearance.
    pub fn columns(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect_columns(&[], &mut out);
        out
    }

    fn collect_columns(&self, bound: &[String], out: &mut Vec<String>) {
        match &self.kind {
            Kind::Column(c) => {
                if !bound.contains(c) && !out.contains(c) {
                    out.push(c.clone());
                }
            }
            Kind::Lambda(params, body) => {
                let inner: Vec<String> = bound.iter().chain(params).cloned().collect();
                body.collect_columns(&inner, out);
            }
            _ => self.children().for_each(|c| c.collect_columns(bound, out)),
        }
    }

    /// Whether the expression names column `name` (outside lambdas binding that name).
    pub fn columns_named(&self, name: &str) -> bool {
        let mut out = Vec::new();
        self.collect_columns(&[], &mut out);
        out.iter().any(|c| c == name)
    }

    /// Whether `test` holds for this node or one below it.
    pub fn any(&self, test: &dyn Fn(&Node) -> bool) -> bool {
        test(self) || self.children().any(|c| c.any(test))
    }

    /// The nodes right below this one.
    pub fn children(&self) -> impl Iterator<Item = &Node> {
        let mut out: Vec<&Node> = Vec::new();
        match &self.kind {
            Kind::Int(..) | Kind::Float { .. } | Kind::Bool(_) | Kind::Str(_) | Kind::Column(_) => {
            }
            Kind::Unary(_, a) | Kind::Lambda(_, a) | Kind::Shared(_, a) => out.push(a),
            Kind::Binary(_, a, b) | Kind::Index(a, b) => out.extend([&**a, &**b]),
            Kind::Ternary(c, a, b) => out.extend([&**c, &**a, &**b]),
            Kind::Call(_, args) => out.extend(args),
            Kind::Method(x, _, args) => {
                out.push(x);
                out.extend(args);
            }
        }
        out.into_iter()
    }
}
