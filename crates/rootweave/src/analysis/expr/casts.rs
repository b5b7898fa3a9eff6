//! Conversions to a named type, as C++ writes them (`static_cast<int>(x)`, `(float)x`,
//! `double(x)`) and as a lambda's typed parameters make them (`[](int n) {...}` converts each
//! item it is given): the type names C++ and ROOT use, and the conversion itself, item by item
//! for lists.

use super::int_type::{IntTy, Rank};
use super::syntax::{Kind, Node};
use super::value::{align, map1, shaped, ty_name, Ty, Val};
use crate::analysis::column::Values;

/// The name of a conversion's call: `static_cast<T>` with `T` as [`ty_name`] spells it.
const CAST: &str = "static_cast<";

/// The type named by `words` (the identifiers of a type, `const`, `std` and `&` left out:
/// `["unsigned", "int"]`, `["Float_t"]`, `["size_t"]`); `None` for other names.
pub fn type_named(words: &[&str]) -> Option<Ty> {
    let int = |rank, unsigned| Some(Ty::Int(IntTy::new(rank, unsigned)));
    match words.join(" ").as_str() {
        "bool" | "Bool_t" => Some(Ty::Bool),
        "char" | "Char_t" => int(Rank::Char, false),
        "signed char" | "int8_t" => int(Rank::SignedChar, false),
        "unsigned char" | "UChar_t" | "uint8_t" => int(Rank::Char, true),
        "short" | "short int" | "signed short" | "Short_t" | "int16_t" => int(Rank::Short, false),
        "unsigned short" | "unsigned short int" | "UShort_t" | "uint16_t" => int(Rank::Short, true),
        "int" | "signed" | "signed int" | "Int_t" | "int32_t" => int(Rank::Int, false),
        "unsigned" | "unsigned int" | "UInt_t" | "uint32_t" => int(Rank::Int, true),
        "long" | "long int" | "signed long" | "Long_t" | "int64_t" => int(Rank::Long, false),
        "unsigned long" | "unsigned long int" | "ULong_t" | "uint64_t" | "size_t" => {
            int(Rank::Long, true)
        }
        "long long" | "long long int" | "signed long long" | "Long64_t" => {
            int(Rank::LongLong, false)
        }
        "unsigned long long" | "unsigned long long int" | "ULong64_t" => int(Rank::LongLong, true),
        "float" | "Float_t" | "Float16_t" => Some(Ty::F32),
        "double" | "Double_t" | "Double32_t" => Some(Ty::F64),
        _ => None,
    }
}

/// The type of a parameter or a cast written as `tokens` (identifiers and punctuation, as
/// lexed): qualifiers, namespaces and references dropped.
pub fn type_of_tokens(tokens: &[&str]) -> Option<Ty> {
    let words: Vec<&str> = tokens
        .iter()
        .copied()
        .filter(|t| !matches!(*t, "const" | "std" | "::" | "&" | "&&"))
        .collect();
    type_named(&words)
}

/// The call converting its one argument to `ty`.
pub fn cast_call(ty: Ty) -> String {
    format!("{CAST}{}>", ty_name(ty))
}

/// The type a call named `name` converts to, if it is a conversion.
pub fn cast_of(name: &str) -> Option<Ty> {
    let inner = name.strip_prefix(CAST)?.strip_suffix('>')?;
    type_named(&inner.split(' ').collect::<Vec<_>>())
}

/// `v` converted to `to` as C++ converts (integers wrapped to the type's width, floating
/// point truncated toward zero, non-zero `true`), a list's items each.
pub fn cast(v: &Val, to: Ty, events: usize) -> Result<Val, String> {
    let (shape, n, lanes) = align(&[v], events)?;
    let lane = &lanes[0];
    let narrow = matches!(lane, super::value::Lane::Many(v) if matches!(**v, Values::IntBool(_)));
    if lane.ty() == to && !narrow {
        return Ok(v.clone());
    }
    let values = match to {
        Ty::Bool => Values::Bool(map1(&lane.bools()?, n, |b| b)),
        Ty::Int(t) => Values::Int(t, map1(&lane.ints(t)?, n, |x| x)),
        Ty::F32 => Values::F32(map1(&lane.f32s()?, n, |x| x)),
        Ty::F64 => Values::F64(map1(&lane.f64s()?, n, |x| x)),
        Ty::P4 => return Err("a conversion to a four-vector".into()),
        Ty::Vector(c) => return Err(format!("a conversion to a {}", c.name())),
        Ty::Str => return Err("a conversion to a string".into()),
    };
    Ok(shaped(shape, values, v.is_const()))
}

/// `body` with every use of a typed parameter converted to its type, as a lambda converts
/// the items it is given (a nested lambda's parameter of the same name is its own).
pub fn convert_parameters(body: Node, params: &[(String, Option<Ty>)]) -> Node {
    let pos = body.pos;
    let kind = match body.kind {
        Kind::Column(name) => match params.iter().find(|(p, _)| *p == name) {
            Some((_, Some(ty))) => Kind::Call(
                cast_call(*ty),
                vec![Node {
                    kind: Kind::Column(name),
                    pos,
                }],
            ),
            _ => Kind::Column(name),
        },
        Kind::Lambda(inner, b) => {
            let free: Vec<(String, Option<Ty>)> = params
                .iter()
                .filter(|(p, _)| !inner.contains(p))
                .cloned()
                .collect();
            Kind::Lambda(inner, Box::new(convert_parameters(*b, &free)))
        }
        Kind::Unary(op, a) => Kind::Unary(op, Box::new(convert_parameters(*a, params))),
        Kind::Binary(op, a, b) => Kind::Binary(
            op,
            Box::new(convert_parameters(*a, params)),
            Box::new(convert_parameters(*b, params)),
        ),
        Kind::Ternary(c, a, b) => Kind::Ternary(
            Box::new(convert_parameters(*c, params)),
            Box::new(convert_parameters(*a, params)),
            Box::new(convert_parameters(*b, params)),
        ),
        Kind::Index(a, b) => Kind::Index(
            Box::new(convert_parameters(*a, params)),
            Box::new(convert_parameters(*b, params)),
        ),
        Kind::Call(name, args) => Kind::Call(
            name,
            args.into_iter()
                .map(|a| convert_parameters(a, params))
                .collect(),
        ),
        Kind::Method(x, name, args) => Kind::Method(
            Box::new(convert_parameters(*x, params)),
            name,
            args.into_iter()
                .map(|a| convert_parameters(a, params))
                .collect(),
        ),
        Kind::Shared(id, part) => Kind::Shared(id, Box::new(convert_parameters(*part, params))),
        other @ (Kind::Int(..) | Kind::Float { .. } | Kind::Bool(_) | Kind::Str(_)) => other,
    };
    Node { kind, pos }
}
