//! Parsing expressions of RDataFrame's dialect into a [`Node`] tree: C++ operators with
//! C++'s precedence, literals with their suffixes, calls of functions (namespaces such as
//! `ROOT::VecOps::` dropped, `Construct<T>` keeping its type), methods, indexing. An
//! expression that does not parse is an error at the position where it stops making sense.

use super::casts;
use super::int_type::{IntTy, Rank};
use super::syntax::{BinaryOp, Kind, Node, UnaryOp};
use super::value::Ty;

/// Why an expression does not parse, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The byte offset of the offending text.
    pub pos: usize,
    /// What is wrong there.
    pub message: String,
}

/// The longest expression accepted (bytes) and the deepest nesting, so that untrusted text
/// cannot exhaust memory or the stack.
const MAX_LEN: usize = 1 << 16;
const MAX_DEPTH: usize = 200;

/// Parses `text` into a tree.
pub fn parse(text: &str) -> Result<Node, ParseError> {
    if text.len() > MAX_LEN {
        return Err(ParseError {
            pos: MAX_LEN,
            message: format!("longer than {MAX_LEN} bytes"),
        });
    }
    let tokens = lex(text)?;
    let mut p = Parser {
        tokens,
        at: 0,
        depth: 0,
        end: text.len(),
    };
    let node = p.ternary()?;
    match p.peek() {
        None => Ok(node),
        Some(t) => Err(ParseError {
            pos: t.pos,
            message: format!("unexpected '{}'", t.text),
        }),
    }
}

/// A token: its text and kind.
#[derive(Debug, Clone, PartialEq)]
struct Token {
    kind: Tok,
    text: String,
    pos: usize,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident,
    Int(i64, IntTy),
    Float(f64, bool),
    Str(Vec<u8>),
    Punct,
}

/// The operators and punctuation, longest first.
const PUNCT: [&str; 33] = [
    "&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "::", "->", "+", "-", "*", "/", "%", "<", ">",
    "!", "~", "(", ")", "[", "]", ",", "?", ":", ".", "&", "|", "^", "{", "}", ";",
];

fn lex(text: &str) -> Result<Vec<Token>, ParseError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push(Token {
                kind: Tok::Ident,
                text: text[start..i].to_string(),
                pos: start,
            });
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let (token, end) = number(text, start)?;
            out.push(token);
            i = end;
            continue;
        }
        if c == b'\'' {
            let (value, end) = char_literal(text, start)?;
            out.push(Token {
                kind: Tok::Int(value, IntTy::new(Rank::Char, false)),
                text: text[start..end].to_string(),
                pos: start,
            });
            i = end;
            continue;
        }
        if c == b'"' {
            let (bytes, end) = string_literal(text, start)?;
            out.push(Token {
                kind: Tok::Str(bytes),
                text: text[start..end].to_string(),
                pos: start,
            });
            i = end;
            continue;
        }
        let Some(p) = PUNCT.iter().find(|p| text[i..].starts_with(**p)) else {
            return Err(ParseError {
                pos: i,
                message: format!(
                    "unexpected character '{}'",
                    &text[i..].chars().next().unwrap_or(' ')
                ),
            });
        };
        out.push(Token {
            kind: Tok::Punct,
            text: p.to_string(),
            pos: start,
        });
        i += p.len();
    }
    Ok(out)
}

/// A string literal whose opening quote is at `start`: its bytes with C++'s simple escapes
/// resolved (`\"`, `\\`, `\n`, ...), and the position after its closing quote.
fn string_literal(text: &str, start: usize) -> Result<(Vec<u8>, usize), ParseError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return Ok((out, i + 1)),
            b'\\' => {
                let (escaped, next) = escape(bytes, i)?;
                out.push(escaped);
                i = next;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    Err(ParseError {
        pos: start,
        message: "a string without its closing quote".into(),
    })
}

/// A character literal whose opening quote is at `start` (`'a'`, `'\n'`, `'\x41'`): its
/// value as a C++ `char` (signed, as on x86-64 Linux), and the position after its closing
/// quote.
fn char_literal(text: &str, start: usize) -> Result<(i64, usize), ParseError> {
    let bytes = text.as_bytes();
    let (value, next) = match bytes.get(start + 1) {
        Some(b'\\') => escape(bytes, start + 1)?,
        Some(&b) if b != b'\'' && b.is_ascii() => (b, start + 2),
        _ => {
            return Err(ParseError {
                pos: start,
                message: "a character literal other than one ASCII character or an escape".into(),
            })
        }
    };
    if bytes.get(next) != Some(&b'\'') {
        return Err(ParseError {
            pos: start,
            message: "a character literal of more than one character or without its closing quote"
                .into(),
        });
    }
    Ok((value as i8 as i64, next + 1))
}

/// The byte an escape starting with the backslash at `at` stands for (C++'s simple escapes,
/// `\0`, and `\x` with exactly two hexadecimal digits), and the position after it.
fn escape(bytes: &[u8], at: usize) -> Result<(u8, usize), ParseError> {
    let simple = match bytes.get(at + 1) {
        Some(b'"') => b'"',
        Some(b'\'') => b'\'',
        Some(b'\\') => b'\\',
        Some(b'?') => b'?',
        Some(b'n') => b'\n',
        Some(b't') => b'\t',
        Some(b'r') => b'\r',
        Some(b'0') if !bytes.get(at + 2).is_some_and(u8::is_ascii_digit) => 0,
        Some(b'x') => {
            // C++ reads every hexadecimal digit that follows: a third makes a value no
            // `char` holds.
            let hex = bytes
                .get(at + 2..at + 4)
                .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                .filter(|_| !bytes.get(at + 4).is_some_and(u8::is_ascii_hexdigit));
            if let Some(value) =
                hex.and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok())
            {
                return Ok((value, at + 4));
            }
            return Err(ParseError {
                pos: at,
                message: r"\x without exactly two hexadecimal digits".into(),
            });
        }
        _ => {
            return Err(ParseError {
                pos: at,
                message: r#"an escape other than \" \' \\ \? \n \t \r \0 \xHH"#.into(),
            })
        }
    };
    Ok((simple, at + 2))
}

/// A number literal starting at `start`: decimal, octal (a leading 0) or hexadecimal
/// integers with `u`/`l` suffixes, floating-point numbers with an exponent and an `f` suffix.
fn number(text: &str, start: usize) -> Result<(Token, usize), ParseError> {
    let bytes = text.as_bytes();
    let mut i = start;
    let bad = |pos: usize, what: &str| ParseError {
        pos,
        message: format!("bad number: {what}"),
    };
    if text[i..].starts_with("0x") || text[i..].starts_with("0X") {
        i += 2;
        let digits = i;
        while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
            i += 1;
        }
        let value =
            u64::from_str_radix(&text[digits..i], 16).map_err(|e| bad(start, &e.to_string()))?;
        let (kind, end) = typed_int(text, value, i, false)
            .ok_or_else(|| bad(start, "an integer out of range"))?;
        i = end;
        return Ok((
            Token {
                kind,
                text: text[start..i].into(),
                pos: start,
            },
            i,
        ));
    }
    let mut float = false;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    if i < bytes.len() && bytes[i] == b'.' {
        float = true;
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i < bytes.len() && matches!(bytes[i], b'e' | b'E') {
        let mut j = i + 1;
        if j < bytes.len() && matches!(bytes[j], b'+' | b'-') {
            j += 1;
        }
        if j < bytes.len() && bytes[j].is_ascii_digit() {
            float = true;
            i = j;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    let body = &text[start..i];
    let kind = if float {
        let single = i < bytes.len() && matches!(bytes[i], b'f' | b'F');
        if single {
            i += 1;
        }
        let value: f64 = body.parse().map_err(|_| bad(start, body))?;
        Tok::Float(if single { value as f32 as f64 } else { value }, single)
    } else {
        let out_of_range = || bad(start, "an integer out of range");
        // A leading 0 makes an octal integer, as in C++ (`010` is 8).
        let octal = body.len() > 1 && body.starts_with('0');
        let value = if octal {
            if body.bytes().any(|b| b > b'7') {
                return Err(bad(start, "a digit above 7 in an octal integer"));
            }
            u64::from_str_radix(&body[1..], 8).map_err(|_| out_of_range())?
        } else {
            body.parse().map_err(|_| out_of_range())?
        };
        let (kind, end) = typed_int(text, value, i, !octal).ok_or_else(out_of_range)?;
        i = end;
        kind
    };
    if i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
        return Err(bad(i, "letters after its digits"));
    }
    Ok((
        Token {
            kind,
            text: text[start..i].into(),
            pos: start,
        },
        i,
    ))
}

/// An integer literal's token: its suffix (from `at`) read and its type found (C++'s first
/// type of the suffix's list that holds the value), with the end of the suffix; `None` if
/// no type holds it.
fn typed_int(text: &str, value: u64, at: usize, decimal: bool) -> Option<(Tok, usize)> {
    let end = at
        + text[at..]
            .bytes()
            .take_while(|b| matches!(b, b'u' | b'U' | b'l' | b'L'))
            .count();
    let ty = IntTy::of_literal(value, &text[at..end], decimal)?;
    Some((Tok::Int(value as i64, ty), end))
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    depth: usize,
    end: usize,
}

/// Binary operators by precedence level, lowest first.
const LEVELS: [&[(&str, BinaryOp)]; 10] = [
    &[("||", BinaryOp::Or)],
    &[("&&", BinaryOp::And)],
    &[("|", BinaryOp::BitOr)],
    &[("^", BinaryOp::BitXor)],
    &[("&", BinaryOp::BitAnd)],
    &[("==", BinaryOp::Eq), ("!=", BinaryOp::Ne)],
    &[
        ("<", BinaryOp::Lt),
        ("<=", BinaryOp::Le),
        (">", BinaryOp::Gt),
        (">=", BinaryOp::Ge),
    ],
    &[("<<", BinaryOp::Shl), (">>", BinaryOp::Shr)],
    &[("+", BinaryOp::Add), ("-", BinaryOp::Sub)],
    &[
        ("*", BinaryOp::Mul),
        ("/", BinaryOp::Div),
        ("%", BinaryOp::Rem),
    ],
];

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn is(&self, punct: &str) -> bool {
        self.peek()
            .is_some_and(|t| t.kind == Tok::Punct && t.text == punct)
    }

    fn error<T>(&self, message: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError {
            pos: self.peek().map_or(self.end, |t| t.pos),
            message: message.into(),
        })
    }

    fn expect(&mut self, punct: &str) -> Result<(), ParseError> {
        if self.is(punct) {
            self.at += 1;
            return Ok(());
        }
        match self.peek() {
            Some(t) => {
                let found = t.text.clone();
                self.error(format!("expected '{punct}', found '{found}'"))
            }
            None => self.error(format!("expected '{punct}' at the end")),
        }
    }

    fn deeper(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.error(format!("nested more than {MAX_DEPTH} deep"));
        }
        Ok(())
    }

    fn ternary(&mut self) -> Result<Node, ParseError> {
        self.deeper()?;
        let cond = self.binary(0)?;
        let node = if self.is("?") {
            self.at += 1;
            let yes = self.ternary()?;
            self.expect(":")?;
            let no = self.ternary()?;
            Node {
                pos: cond.pos,
                kind: Kind::Ternary(Box::new(cond), Box::new(yes), Box::new(no)),
            }
        } else {
            cond
        };
        self.depth -= 1;
        Ok(node)
    }

    fn binary(&mut self, level: usize) -> Result<Node, ParseError> {
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        loop {
            let op = self.peek().and_then(|t| {
                LEVELS[level]
                    .iter()
                    .find(|(s, _)| t.kind == Tok::Punct && t.text == *s)
                    .map(|(_, op)| *op)
            });
            let Some(op) = op else {
                return Ok(left);
            };
            self.at += 1;
            let right = self.binary(level + 1)?;
            left = Node {
                pos: left.pos,
                kind: Kind::Binary(op, Box::new(left), Box::new(right)),
            };
        }
    }

    fn unary(&mut self) -> Result<Node, ParseError> {
        let pos = self.peek().map_or(self.end, |t| t.pos);
        for (punct, op) in [
            ("-", UnaryOp::Neg),
            ("!", UnaryOp::Not),
            ("~", UnaryOp::BitNot),
            ("+", UnaryOp::Plus),
        ] {
            if self.is(punct) {
                self.at += 1;
                self.deeper()?;
                let operand = self.unary()?;
                self.depth -= 1;
                return Ok(Node {
                    pos,
                    kind: Kind::Unary(op, Box::new(operand)),
                });
            }
        }
        let mut node = self.primary()?;
        // Postfix: indexing and methods.
        loop {
            if self.is("[") {
                self.at += 1;
                let index = self.ternary()?;
                self.expect("]")?;
                node = Node {
                    pos: node.pos,
                    kind: Kind::Index(Box::new(node), Box::new(index)),
                };
            } else if self.is(".") {
                self.at += 1;
                let name = match self.peek() {
                    Some(t) if t.kind == Tok::Ident => t.text.clone(),
                    _ => return self.error("expected a method name after '.'"),
                };
                self.at += 1;
                // A column's member without a call is a column of its own, by its dotted
                // name (an RNTuple's `Muon.pt`, a split branch's `event.fX`).
                if let (Kind::Column(column), false) = (&node.kind, self.is("(")) {
                    node.kind = Kind::Column(format!("{column}.{name}"));
                    continue;
                }
                self.expect("(")?;
                let args = self.arguments()?;
                node = Node {
                    pos: node.pos,
                    kind: Kind::Method(Box::new(node), name, args),
                };
            } else {
                return Ok(node);
            }
        }
    }

    /// Arguments after an opening parenthesis, up to and with the closing one.
    fn arguments(&mut self) -> Result<Vec<Node>, ParseError> {
        let mut args = Vec::new();
        if self.is(")") {
            self.at += 1;
            return Ok(args);
        }
        loop {
            args.push(self.ternary()?);
            if self.is(",") {
                self.at += 1;
                continue;
            }
            self.expect(")")?;
            return Ok(args);
        }
    }

    /// A lambda after its `[`: the captures (ignored: everything is captured), the
    /// parameters (their names, and their types where they are numbers: the body sees each
    /// item converted to its parameter's type), an optional return type, and a body of one
    /// `return` statement.
    fn lambda(&mut self, pos: usize) -> Result<Node, ParseError> {
        while !self.is("]") {
            if self.peek().is_none() {
                return self.error("expected ']' closing a lambda's captures");
            }
            self.at += 1;
        }
        self.at += 1;
        self.expect("(")?;
        let mut params: Vec<(String, Option<Ty>)> = Vec::new();
        // The current parameter's tokens: its type's, then its name.
        let mut words: Vec<String> = Vec::new();
        loop {
            match self.peek() {
                None => return self.error("expected ')' after a lambda's parameters"),
                Some(t) if t.kind == Tok::Punct && (t.text == "," || t.text == ")") => {
                    let close = t.text == ")";
                    let name = words
                        .iter()
                        .rposition(|w| w.starts_with(|c: char| c.is_alphabetic() || c == '_'));
                    match name {
                        Some(k) => {
                            let ty: Vec<&str> = words[..k].iter().map(String::as_str).collect();
                            params.push((words[k].clone(), casts::type_of_tokens(&ty)));
                        }
                        None if close && params.is_empty() => {}
                        None => return self.error("a lambda parameter without a name"),
                    }
                    words.clear();
                    self.at += 1;
                    if close {
                        break;
                    }
                }
                Some(t) => {
                    words.push(t.text.clone());
                    self.at += 1;
                }
            }
        }
        // An optional return type: skipped up to the body.
        while !self.is("{") {
            if self.peek().is_none() {
                return self.error("expected '{' opening a lambda's body");
            }
            self.at += 1;
        }
        self.at += 1;
        match self.peek() {
            Some(t) if t.kind == Tok::Ident && t.text == "return" => self.at += 1,
            _ => return self.error("a lambda's body must be 'return expression;'"),
        }
        let body = casts::convert_parameters(self.ternary()?, &params);
        if self.is(";") {
            self.at += 1;
        }
        self.expect("}")?;
        let names = params.into_iter().map(|(name, _)| name).collect();
        Ok(Node {
            kind: Kind::Lambda(names, Box::new(body)),
            pos,
        })
    }

    /// The type of a C-style cast's `(T)` whose `(` was just read: the tokens up to the next
    /// `)` name a number type and a value follows; the tokens are taken then.
    fn cast_type(&mut self) -> Option<Ty> {
        let close = (self.at..self.tokens.len()).find(|&k| self.tokens[k].text == ")")?;
        let words = &self.tokens[self.at..close];
        if words.is_empty()
            || words
                .iter()
                .any(|t| !matches!(t.kind, Tok::Ident) && t.text != "::")
        {
            return None;
        }
        let names: Vec<&str> = words.iter().map(|t| t.text.as_str()).collect();
        let ty = casts::type_of_tokens(&names)?;
        // A value must follow (`(float)` alone, or before an operator, is no cast).
        let next = self.tokens.get(close + 1)?;
        let starts_value =
            !matches!(next.kind, Tok::Punct) || matches!(next.text.as_str(), "(" | "-" | "!" | "+");
        if !starts_value {
            return None;
        }
        self.at = close + 1;
        Some(ty)
    }

    /// If a template argument list (`<...>`, nested) starts here and `open` (`{` or `(`)
    /// follows it, the position of that `open`.
    fn template_then(&self, open: &str) -> Option<usize> {
        if !self.is("<") {
            return None;
        }
        let mut depth = 0usize;
        for (k, t) in self.tokens.iter().enumerate().skip(self.at) {
            match (t.kind == Tok::Punct, t.text.as_str()) {
                (true, "<") => depth += 1,
                (true, closing @ (">" | ">>")) => {
                    // `>>` closes two lists (`RVec<RVec<float>>`).
                    let closes = closing.len();
                    if closes > depth {
                        return None;
                    }
                    depth -= closes;
                    if depth == 0 {
                        let next = self.tokens.get(k + 1)?;
                        return (next.kind == Tok::Punct && next.text == open).then_some(k + 1);
                    }
                }
                (true, "::") | (false, _) => {}
                _ => return None,
            }
        }
        None
    }

    /// The texts of the tokens in `range` (a type's words).
    fn texts(&self, range: std::ops::Range<usize>) -> Vec<&str> {
        self.tokens[range].iter().map(|t| t.text.as_str()).collect()
    }

    /// The items of a braced list after its `{`, up to and with the `}`.
    fn braced(&mut self) -> Result<Vec<Node>, ParseError> {
        let mut items = Vec::new();
        if self.is("}") {
            self.at += 1;
            return Ok(items);
        }
        loop {
            items.push(self.ternary()?);
            if self.is(",") {
                self.at += 1;
                continue;
            }
            self.expect("}")?;
            return Ok(items);
        }
    }

    fn primary(&mut self) -> Result<Node, ParseError> {
        let Some(token) = self.peek().cloned() else {
            return self.error("expected a value at the end");
        };
        let pos = token.pos;
        self.at += 1;
        let kind = match token.kind {
            Tok::Int(v, t) => Kind::Int(v, t),
            Tok::Float(value, single) => Kind::Float { value, single },
            Tok::Str(bytes) => Kind::Str(bytes),
            Tok::Punct if token.text == "(" => {
                if let Some(ty) = self.cast_type() {
                    // `(T)x`: a conversion of the operand that follows.
                    self.deeper()?;
                    let operand = self.unary()?;
                    self.depth -= 1;
                    return Ok(Node {
                        kind: Kind::Call(casts::cast_call(ty), vec![operand]),
                        pos,
                    });
                }
                let inner = self.ternary()?;
                self.expect(")")?;
                return Ok(inner);
            }
            Tok::Punct if token.text == "[" => return self.lambda(pos),
            Tok::Punct if token.text == "{" => Kind::Call("{}".into(), self.braced()?),
            Tok::Punct => {
                self.at -= 1;
                return self.error(format!("unexpected '{}'", token.text));
            }
            Tok::Ident => {
                // A qualified name: the namespaces are dropped.
                let mut name = token.text.clone();
                while self.is("::") {
                    self.at += 1;
                    match self.peek() {
                        Some(t) if t.kind == Tok::Ident => name = t.text.clone(),
                        _ => return self.error("expected a name after '::'"),
                    }
                    self.at += 1;
                }
                // A templated type before a braced list (`ROOT::RVec<float>{...}`, or
                // `ROOT::RVec<ROOT::RVecF>{...}`): items of a number type are converted to it.
                if let Some(after) = self.template_then("{") {
                    let words = self.texts(self.at + 1..after - 1);
                    let item = casts::type_of_tokens(&words);
                    self.at = after + 1;
                    return Ok(Node {
                        kind: Kind::Call("{}".into(), converted(self.braced()?, item)),
                        pos,
                    });
                }
                // `RVec<T>(v)`: a list of `T` made of the items of `v`.
                if name == "RVec" {
                    if let Some(after) = self.template_then("(") {
                        let words = self.texts(self.at + 1..after - 1);
                        let Some(item) = casts::type_of_tokens(&words) else {
                            return self.error(format!(
                                "RVec<{}>(...): not a list of numbers",
                                words.join(" ")
                            ));
                        };
                        self.at = after + 1;
                        let args = self.arguments()?;
                        return made_list(args, item, pos);
                    }
                }
                // `static_cast<T>(x)`: a conversion.
                if name == "static_cast" && self.is("<") {
                    let close = (self.at..self.tokens.len())
                        .find(|&k| self.tokens[k].text == ">")
                        .ok_or_else(|| ParseError {
                            pos,
                            message: "expected '>' after static_cast's type".into(),
                        })?;
                    let words = self.texts(self.at + 1..close);
                    let Some(ty) = casts::type_of_tokens(&words) else {
                        return self.error(format!(
                            "static_cast to '{}', not a number type",
                            words.join(" ")
                        ));
                    };
                    self.at = close + 1;
                    self.expect("(")?;
                    let arg = self.ternary()?;
                    self.expect(")")?;
                    return Ok(Node {
                        kind: Kind::Call(casts::cast_call(ty), vec![arg]),
                        pos,
                    });
                }
                // `Construct<T>(...)`: the template argument names what is built.
                if name == "Construct" && self.is("<") {
                    self.at += 1;
                    let mut built = String::new();
                    while !self.is(">") {
                        match self.peek() {
                            Some(t) => {
                                built = if t.text == "::" {
                                    built
                                } else {
                                    t.text.clone()
                                }
                            }
                            None => return self.error("expected '>' after Construct's type"),
                        }
                        self.at += 1;
                    }
                    self.at += 1;
                    name = format!("Construct<{built}>");
                }
                match name.as_str() {
                    "true" => Kind::Bool(true),
                    "false" => Kind::Bool(false),
                    // A braced list after its type (`ROOT::RVecD{a, b}`): items converted to
                    // the type of an `RVec` alias's items.
                    _ if self.is("{") => {
                        self.at += 1;
                        Kind::Call("{}".into(), converted(self.braced()?, rvec_alias(&name)))
                    }
                    _ if self.is("(") => {
                        self.at += 1;
                        let args = self.arguments()?;
                        // `float(x)`: a conversion written as a call; `ROOT::RVecD(v)` one of
                        // a list's items.
                        if let Some(item) = rvec_alias(&name) {
                            return made_list(args, item, pos);
                        }
                        if let Some(sorted) = sorted_by_comparator(&name, &args, pos)? {
                            return Ok(sorted);
                        }
                        // `Filter(v, [](float x) { ... })`: the items the lambda is true of,
                        // `v[Map(v, lambda)]` (the list computed once, as a shared part).
                        if name == "Filter"
                            && args.len() == 2
                            && matches!(args[1].kind, Kind::Lambda(..))
                        {
                            let list = Box::new(args[0].clone());
                            let mask = Node {
                                kind: Kind::Call("Map".into(), args),
                                pos,
                            };
                            return Ok(Node {
                                kind: Kind::Index(list, Box::new(mask)),
                                pos,
                            });
                        }
                        match casts::type_named(&[name.as_str()]) {
                            Some(ty) if args.len() == 1 => Kind::Call(casts::cast_call(ty), args),
                            _ => Kind::Call(name, args),
                        }
                    }
                    _ => Kind::Column(token_path(&token.text, &name)),
                }
            }
        };
        Ok(Node { kind, pos })
    }
}

/// The column a name means: a qualified name (`TMath::Pi` without a call) keeps its last
/// part, a plain one is itself.
fn token_path(first: &str, last: &str) -> String {
    if first == last {
        first.to_string()
    } else {
        last.to_string()
    }
}

/// `items` each converted to `ty` (as they are where a list of that type is built), or as
/// they are.
fn converted(items: Vec<Node>, ty: Option<super::value::Ty>) -> Vec<Node> {
    let Some(ty) = ty else {
        return items;
    };
    items
        .into_iter()
        .map(|item| Node {
            pos: item.pos,
            kind: Kind::Call(casts::cast_call(ty), vec![item]),
        })
        .collect()
}

/// `Sort(v, comparator)` (also `StableSort`, `Argsort`, `StableArgsort`) written at `pos`,
/// for the comparators `[](float a, float b) { return a < b; }` (the order without one) and
/// `a > b` (the reverse order: the parser's internal name ends with `>`), the items compared
/// as the lambda's parameters convert them; `None` where the call is not a sort with a lambda.
fn sorted_by_comparator(name: &str, args: &[Node], pos: usize) -> Result<Option<Node>, ParseError> {
    if !matches!(name, "Sort" | "StableSort" | "Argsort" | "StableArgsort") || args.len() != 2 {
        return Ok(None);
    }
    let Kind::Lambda(params, body) = &args[1].kind else {
        return Ok(None);
    };
    // The conversion a parameter is given (`None`: none), if `n` is parameter `p`.
    fn named<'n>(n: &'n Node, p: &str) -> Option<Option<&'n String>> {
        match &n.kind {
            Kind::Column(c) if c == p => Some(None),
            Kind::Call(f, inner) if inner.len() == 1 && casts::cast_of(f).is_some() => {
                matches!(&inner[0].kind, Kind::Column(c) if c == p).then_some(Some(f))
            }
            _ => None,
        }
    }
    let order = match (&body.kind, params.as_slice()) {
        (Kind::Binary(op @ (BinaryOp::Lt | BinaryOp::Gt), l, r), [a, b]) => {
            match ((named(l, a), named(r, b)), (named(l, b), named(r, a))) {
                ((Some(x), Some(y)), _) if x == y => Some((*op == BinaryOp::Gt, x)),
                (_, (Some(x), Some(y))) if x == y => Some((*op == BinaryOp::Lt, x)),
                _ => None,
            }
        }
        _ => None,
    };
    let Some((descending, conversion)) = order else {
        return Err(ParseError {
            pos: args[1].pos,
            message: format!(
                "{name}'s comparator: only [](T a, T b) {{ return a < b; }} and a > b are supported"
            ),
        });
    };
    let call = |name: String, args: Vec<Node>| Node {
        pos,
        kind: Kind::Call(name, args),
    };
    let keys = match conversion {
        Some(f) => call(f.clone(), vec![args[0].clone()]),
        None => args[0].clone(),
    };
    let stable = name.starts_with("Stable");
    let argsort = format!(
        "{}Argsort{}",
        if stable { "Stable" } else { "" },
        if descending { ">" } else { "" }
    );
    let indices = call(argsort, vec![keys]);
    Ok(Some(if name.ends_with("Argsort") {
        indices
    } else {
        // The items themselves, in the order of their converted keys.
        call("Take".into(), vec![args[0].clone(), indices])
    }))
}

/// `RVec<item>(args)` written at `pos`: a list converted, or lists of a size (see
/// [`made_lists`](super::made_lists)).
fn made_list(args: Vec<Node>, item: super::value::Ty, pos: usize) -> Result<Node, ParseError> {
    if !(1..=2).contains(&args.len()) {
        return Err(ParseError {
            pos,
            message: format!(
                "an RVec is made here of a list to convert or a size and a value, not {} arguments",
                args.len()
            ),
        });
    }
    Ok(Node {
        pos,
        kind: Kind::Call(super::made_lists::call_name(item), args),
    })
}

/// The item type of ROOT's `RVec` aliases (`RVecF` is `RVec<float>`, ...).
fn rvec_alias(name: &str) -> Option<super::value::Ty> {
    let item: &[&str] = match name {
        "RVecB" => &["bool"],
        "RVecC" => &["char"],
        "RVecD" => &["double"],
        "RVecF" => &["float"],
        "RVecI" => &["int"],
        "RVecL" => &["long"],
        "RVecLL" => &["long", "long"],
        "RVecU" => &["unsigned", "int"],
        "RVecUL" => &["unsigned", "long"],
        "RVecULL" => &["unsigned", "long", "long"],
        _ => return None,
    };
    casts::type_named(item)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(n: &Node) -> String {
        match &n.kind {
            Kind::Int(v, _) => v.to_string(),
            Kind::Float { value, single } => format!("{value}{}", if *single { "f" } else { "" }),
            Kind::Bool(b) => b.to_string(),
            Kind::Str(s) => format!("{:?}", String::from_utf8_lossy(s)),
            Kind::Column(c) => c.clone(),
            Kind::Unary(op, a) => format!("({op:?} {})", shape(a)),
            Kind::Binary(op, a, b) => format!("({} {} {})", shape(a), op.symbol(), shape(b)),
            Kind::Ternary(c, a, b) => format!("({} ? {} : {})", shape(c), shape(a), shape(b)),
            Kind::Index(a, b) => format!("{}[{}]", shape(a), shape(b)),
            Kind::Call(f, args) => format!(
                "{f}({})",
                args.iter().map(shape).collect::<Vec<_>>().join(", ")
            ),
            Kind::Method(x, f, args) => format!(
                "{}.{f}({})",
                shape(x),
                args.iter().map(shape).collect::<Vec<_>>().join(", ")
            ),
            Kind::Lambda(params, body) => format!("[]({}) {}", params.join(", "), shape(body)),
            Kind::Shared(id, part) => format!("#{id}{}", shape(part)),
        }
    }

    #[test]
    fn precedence_and_associativity_are_cpp_s() {
        for (text, tree) in [
            ("a + b * c", "(a + (b * c))"),
            ("a - b - c", "((a - b) - c)"),
            (
                "a < b && c >= 2 || !d",
                "(((a < b) && (c >= 2)) || (Not d))",
            ),
            ("-x * 2.5f", "((Neg x) * 2.5f)"),
            ("c ? a : b ? 1 : 2", "(c ? a : (b ? 1 : 2))"),
            ("Sum(Jet_pt > 40) >= 2", "(Sum((Jet_pt > 40)) >= 2)"),
            ("Jet_pt[abs(Jet_eta) < 1]", "Jet_pt[(abs(Jet_eta) < 1)]"),
            ("ROOT::VecOps::DeltaR(a, b, c, d)", "DeltaR(a, b, c, d)"),
            (
                "v.size() > 0 && v[0] == 1e3",
                "((v.size() > 0) && (v[0] == 1000))",
            ),
            (
                "Construct<ROOT::Math::PtEtaPhiMVector>(pt, eta, phi, m)",
                "Construct<PtEtaPhiMVector>(pt, eta, phi, m)",
            ),
            ("(p + q).M()", "(p + q).M()"),
            ("0x10 + 3u + 1.f", "((16 + 3) + 1f)"),
            ("TMath::Pi() / 2", "(Pi() / 2)"),
            (
                "ROOT::RVecD{pt * 0.9, pt * 1.1}",
                "{}(static_cast<double>((pt * 0.9)), static_cast<double>((pt * 1.1)))",
            ),
            ("{1, x}", "{}(1, x)"),
            ("ROOT::RVec<ROOT::RVecF>{v, v * 2.f}", "{}(v, (v * 2f))"),
            ("a < b", "(a < b)"),
            (
                "Map(Jet_eta, [&](const float& eta) -> bool { return abs(eta) < 1; })",
                "Map(Jet_eta, [](eta) (abs(static_cast<float>(eta)) < 1))",
            ),
            // Members without a call are columns of dotted names.
            (
                "Muon.pt[0] + Sum(event.p4.fX) * Muon.eta.size()",
                "(Muon.pt[0] + (Sum(event.p4.fX) * Muon.eta.size()))",
            ),
        ] {
            assert_eq!(shape(&parse(text).unwrap()), tree, "{text}");
        }
    }

    #[test]
    fn errors_say_where() {
        for (text, pos, message) in [
            ("Jet_pt[", 7, "expected a value at the end"),
            ("a + * b", 4, "unexpected '*'"),
            ("f(a, b", 6, "expected ')' at the end"),
            ("a $ b", 2, "unexpected character '$'"),
            ("12abc", 2, "bad number: letters after its digits"),
            (
                "1 + 09",
                4,
                "bad number: a digit above 7 in an octal integer",
            ),
            (
                "RVec<TLorentzVector>(v)",
                4,
                "RVec<TLorentzVector>(...): not a list of numbers",
            ),
            (
                "ROOT::RVecF(v, 2, 3)",
                0,
                "an RVec is made here of a list to convert or a size and a value, not 3 arguments",
            ),
            ("a b", 2, "unexpected 'b'"),
            ("x ? 1", 5, "expected ':' at the end"),
            // Only a column has members without a call.
            ("(p + q).M", 9, "expected '(' at the end"),
        ] {
            let e = parse(text).unwrap_err();
            assert_eq!((e.pos, e.message.as_str()), (pos, message), "{text}");
        }
        let deep = "(".repeat(1000) + "1" + &")".repeat(1000);
        assert!(parse(&deep)
            .unwrap_err()
            .message
            .contains("nested more than"));
    }

    #[test]
    fn columns_are_listed_once() {
        let n = parse("Jet_pt[Jet_pt > 30 && abs(Jet_eta) < 2] + Jet_pt.size()").unwrap();
        assert_eq!(n.columns(), ["Jet_pt", "Jet_eta"]);
        let n = parse("Muon.pt[Muon.pt > 30] + Muon.pt.size() + Muon.eta[0]").unwrap();
        assert_eq!(n.columns(), ["Muon.pt", "Muon.eta"]);
    }
}
