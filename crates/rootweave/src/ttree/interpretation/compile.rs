//! Compiling C++ type names and the file's class layouts into [`Nested`] trees: how
//! numbers, strings, STL containers and classes (with their bases and members) are
//! streamed, decided once per branch rather than per entry.

use std::sync::Arc;

use super::layout::{ClassLayout, MemberStep, Nested};
use super::Prim;
use crate::streamer::{code, Element, ElementClass, StreamerInfo, StreamerSet};

/// The deepest nesting of classes and containers compiled: deeper (or recursive) types
/// are refused with an error, so that no input can exhaust the stack.
pub const MAX_NESTING: usize = 32;

/// Strips `std::` and spaces from a C++ type name.
pub fn normalize(name: &str) -> String {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == ':';
    let mut out = String::with_capacity(name.len());
    let mut space = false;
    for c in name.replace("std::", "").chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        // A space stays only between two words (`unsigned int`), as ROOT writes names.
        if space && is_word(c) && out.chars().last().is_some_and(is_word) {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    out
}

/// Splits `name<args>` into `name` and `args`.
pub fn template(t: &str) -> Option<(&str, &str)> {
    let open = t.find('<')?;
    let inner = t[open + 1..].strip_suffix('>')?;
    Some((&t[..open], inner))
}

/// The top-level template arguments of `args` (`int,vector<short>` -> `int`,
/// `vector<short>`).
pub fn template_args(args: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in args.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&args[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&args[start..]);
    out
}

/// Whether template `name` is an STL sequence (or a sequence ROOT streams like one).
fn is_sequence(name: &str) -> bool {
    matches!(
        name,
        "vector"
            | "set"
            | "multiset"
            | "list"
            | "deque"
            | "unordered_set"
            | "unordered_multiset"
            | "ROOT::VecOps::RVec"
            | "ROOT::RVec"
    )
}

/// Whether template `name` is `std::bitset`, streamed as a sequence of booleans (its size
/// first, then a byte per bit, lowest bit first).
fn is_bitset(name: &str) -> bool {
    name == "bitset"
}

/// Whether template `name` is an STL map.
fn is_map(name: &str) -> bool {
    matches!(
        name,
        "map" | "multimap" | "unordered_map" | "unordered_multimap"
    )
}

/// Whether `t` (normalized) is an STL container or `std::string`.
pub fn is_stl(t: &str) -> bool {
    t == "string"
        || template(t).is_some_and(|(name, _)| is_sequence(name) || is_bitset(name) || is_map(name))
}

/// Whether a block of map keys or values of type `t` is preceded by a byte count and a
/// version: STL types (`std::string` and containers) are, numbers and `TString` are not.
fn stl_block(t: &str) -> bool {
    t == "string" || template(t).is_some()
}

/// Compiles types with the class layouts of one file.
#[derive(Clone, Copy)]
pub struct Compiler<'s> {
    /// The file's class layouts.
    pub streamers: &'s StreamerSet,
}

impl Compiler<'_> {
    /// An item of an STL container, as streamed inside it: numbers, strings and nested
    /// sequences bare, objects framed.
    pub fn item(&self, t: &str, depth: usize) -> Result<Nested, String> {
        let t = normalize(t);
        let t = t.trim();
        if t == "string" || t == "TString" {
            return Ok(Nested::Str);
        }
        if let Some(p) = Prim::from_type_name(t) {
            return Ok(Nested::Prim(p));
        }
        if let Some(n) = builtin(t) {
            return Ok(n);
        }
        if let Some(matrix) = self.symmetric_matrix(t, depth) {
            return matrix;
        }
        if let Some(collection) = object_collection(t) {
            return Ok(collection);
        }
        if let Some((name, args)) = template(t) {
            if is_sequence(name) {
                let item = template_args(args).first().copied().unwrap_or("");
                return Ok(Nested::Seq(Box::new(self.item(item, deeper(depth)?)?)));
            }
            if is_bitset(name) {
                return Ok(Nested::Seq(Box::new(Nested::Prim(Prim::Bool))));
            }
            if is_map(name) {
                return Err(format!("maps inside containers ({t}) are not supported"));
            }
        }
        let Ok(info) = self.layout(t, -1) else {
            return match template(t) {
                Some(("pair", args)) => self.pair(t, args, depth),
                _ => Ok(Nested::Unknown(t.to_string())),
            };
        };
        // A class that cannot be read fails when one of its objects is read, not before:
        // a container of them still reads while it is empty.
        Ok(match self.class_of(t, info, deeper(depth)?) {
            Ok(class) => Nested::Framed(Box::new(Nested::Class(class))),
            Err(why) if !why.starts_with(TOO_DEEP) => Nested::Unreadable {
                class: t.to_string(),
                why,
            },
            Err(why) => return Err(why),
        })
    }

    /// An object of `std::pair<A, B>` (`t`, its template arguments `args`) that the file
    /// does not describe: ROOT makes the pair's layout from its arguments when it needs
    /// one (members `first` and `second`, each streamed as a class member of its type), so
    /// files holding pairs seldom describe them.
    fn pair(&self, t: &str, args: &str, depth: usize) -> Result<Nested, String> {
        let [first, second] = template_args(args)[..] else {
            return Ok(Nested::Unknown(t.to_string()));
        };
        let member = |ty: &str| {
            let ty = normalize(ty);
            let ty = ty.trim();
            if ty == "string" || is_stl(ty) {
                self.stl(ty, deeper(depth)?)
            } else {
                self.item(ty, deeper(depth)?)
            }
        };
        let fields = vec![
            ("first".to_string(), member(first)?),
            ("second".to_string(), member(second)?),
        ];
        Ok(Nested::Framed(Box::new(Nested::Class(Arc::new(
            ClassLayout {
                name: t.to_string(),
                version: None,
                fields,
                steps: vec![MemberStep::Field(0), MemberStep::Field(1)],
            },
        )))))
    }

    /// An STL container or `std::string` streamed on its own (a member of a class, or a
    /// whole branch): framed by a byte count and version.
    pub fn stl(&self, t: &str, depth: usize) -> Result<Nested, String> {
        let t = normalize(t);
        let t = t.trim();
        if t == "string" {
            return Ok(Nested::Framed(Box::new(Nested::Str)));
        }
        let Some((name, args)) = template(t) else {
            return Err(format!("{t} is not an STL container"));
        };
        if is_map(name) {
            let args = template_args(args);
            let [key, value, ..] = args.as_slice() else {
                return Err(format!("map type {t} without key and value types"));
            };
            let (key, value) = (normalize(key), normalize(value));
            return Ok(Nested::Map {
                key: Box::new(self.item(&key, deeper(depth)?)?),
                value: Box::new(self.item(&value, deeper(depth)?)?),
                key_header: stl_block(&key),
                value_header: stl_block(&value),
            });
        }
        if is_sequence(name) || is_bitset(name) {
            return Ok(Nested::Framed(Box::new(self.item(t, depth)?)));
        }
        Err(format!("objects of type {t} are not supported"))
    }

    /// A fixed-size array of objects or strings (`T x[n]`, streamer type 81, 82 or 85):
    /// the items one after the other, each as its class streams itself.
    pub fn object_array(&self, el: &Element, depth: usize) -> Result<Nested, String> {
        let class = normalize(el.type_name.trim_end_matches('*'));
        let item = match builtin(&class) {
            Some(n) => n,
            None => Nested::Framed(Box::new(Nested::Class(self.class(&class, None, depth)?))),
        };
        let dims = array_dims(el)?;
        Ok(dims
            .iter()
            .rev()
            .fold(item, |inner, &n| Nested::Repeat(Box::new(inner), n)))
    }

    /// A fixed-size array of `std::string` (`std::string x[n]`, streamer type 320), as a
    /// member streams it: one byte count and version, then the strings one after the other
    /// (each a length byte, or 255 and an `i32`, and the bytes). `None` for arrays of
    /// other STL types.
    pub fn string_array(&self, el: &Element) -> Option<Result<Nested, String>> {
        let string = el.class == ElementClass::StlString || normalize(&el.type_name) == "string";
        // Files of older ROOT versions give such a member streamer type 500 and its length
        // without its number of dimensions.
        let array = el.ty == code::STL + code::OFFSET_L || el.array_length > 1;
        (string && array).then(|| {
            let dims = match el.array_dim {
                0 => vec![el.array_length.max(0) as usize],
                _ => array_dims(el)?,
            };
            super::choose::check_dims(&dims).map_err(|e| format!("member {}: {e}", el.name))?;
            let strings = dims
                .iter()
                .rev()
                .fold(Nested::Str, |inner, &n| Nested::Repeat(Box::new(inner), n));
            Ok(Nested::Framed(Box::new(strings)))
        })
    }

    /// A pointer member (`T* x`, streamer type 64 or 69, or an array of them `T* x[n]`,
    /// 84 or 89): each pointer null or an object of `T` behind a class tag.
    pub fn pointer(&self, el: &Element, depth: usize) -> Result<Nested, String> {
        let class = normalize(el.type_name.trim().trim_end_matches('*').trim());
        let class = class.trim_start_matches("const ").trim();
        let pointer = Nested::Pointer(class.to_string(), Box::new(self.item(class, depth)?));
        if pointee_type(el.ty) == el.ty {
            return Ok(pointer);
        }
        let dims = array_dims(el)?;
        Ok(dims
            .iter()
            .rev()
            .fold(pointer, |inner, &n| Nested::Repeat(Box::new(inner), n)))
    }

    /// An object of a counted array of objects (`T* x //[n]`, streamer type 501), as its
    /// class streams itself: `T` must be a pointer to a class (not a pointer to pointers).
    pub fn looped_item(&self, el: &Element, depth: usize) -> Result<Nested, String> {
        let ty = el.type_name.trim();
        let class = ty
            .strip_suffix('*')
            .filter(|c| !c.trim_end().ends_with('*'));
        let Some(class) = class else {
            return Err(format!(
                "member {} ({ty}, streamer type {}) is not supported",
                el.name, el.ty
            ));
        };
        self.item(class.trim().trim_start_matches("const "), depth)
    }

    /// `TMatrixTSym<T>` (`T` a number type), which streams itself: its `TMatrixTBase<T>`
    /// part framed, as the file describes that class, then only the upper triangle of its
    /// elements (`fElements`), row by row. `None` for other types, or if the file does not
    /// describe the base.
    pub fn symmetric_matrix(&self, t: &str, depth: usize) -> Option<Result<Nested, String>> {
        let (name, args) = template(t)?;
        let prim = Prim::from_type_name(args.trim()).filter(|_| name == "TMatrixTSym")?;
        let base_name = format!("TMatrixTBase<{}>", args.trim());
        let info = self.layout(&base_name, -1).ok()?;
        Some(self.class_of(&base_name, info, depth).and_then(|base| {
            let mut fields = base.fields.clone();
            let index = |name: &str| fields.iter().position(|(n, _)| n == name);
            let (Some(rows), Some(cols)) = (index("fNrows"), index("fNcols")) else {
                return Err(format!("{base_name} has no fNrows and fNcols"));
            };
            fields.push((
                "fElements".into(),
                Nested::Seq(Box::new(Nested::Prim(prim))),
            ));
            let field = fields.len() - 1;
            let steps = vec![
                MemberStep::Base {
                    name: base_name.clone(),
                    version: None,
                    steps: base.steps.clone(),
                },
                MemberStep::Triangle { field, rows, cols },
            ];
            Ok(Nested::Class(Arc::new(ClassLayout {
                name: t.to_string(),
                version: None,
                fields,
                steps,
            })))
        }))
    }

    /// The layout of `class` (at `version`, or the one the file describes).
    pub fn class(
        &self,
        name: &str,
        version: Option<i32>,
        depth: usize,
    ) -> Result<Arc<ClassLayout>, String> {
        let info = self.layout(name, version.unwrap_or(-1))?;
        self.class_of(name, info, depth)
    }

    /// The layout of class `name` as `info` describes it.
    fn class_of(
        &self,
        name: &str,
        info: &StreamerInfo,
        depth: usize,
    ) -> Result<Arc<ClassLayout>, String> {
        let mut fields = Vec::with_capacity(info.elements.len());
        let steps = self.steps(info, &mut fields, deeper(depth)?)?;
        Ok(Arc::new(ClassLayout {
            name: name.to_string(),
            version: self.checked_version(info),
            fields,
            steps,
        }))
    }

    /// The layout of class `name` at `version` (or the latest), found by its name as
    /// written or, failing that, as normalized (`vector<int> >` spelled `vector<int>>`).
    fn layout(&self, name: &str, version: i32) -> Result<&StreamerInfo, String> {
        if let Some(info) = self.streamers.get(name, version) {
            return Ok(info);
        }
        let wanted = normalize(name);
        self.streamers
            .all()
            .iter()
            .find(|info| normalize(&info.class_name) == wanted)
            .and_then(|info| self.streamers.get(&info.class_name, version))
            .ok_or_else(|| format!("the file describes no class {name}"))
    }

    /// The version objects of a layout must be written with, when the file describes
    /// several versions of the class.
    fn checked_version(&self, info: &StreamerInfo) -> Option<u16> {
        (self.streamers.versions(&info.class_name) > 1).then_some(info.class_version as u16)
    }

    /// The steps reading the members of `info`, adding its fields to `fields`.
    fn steps(
        &self,
        info: &StreamerInfo,
        fields: &mut Vec<(String, Nested)>,
        depth: usize,
    ) -> Result<Vec<MemberStep>, String> {
        let mut steps = Vec::with_capacity(info.elements.len());
        for el in &info.elements {
            let unsupported = || {
                format!(
                    "member {} of class {} ({}, streamer type {}) is not supported",
                    el.name, info.class_name, el.type_name, el.ty
                )
            };
            let mut field = |name: &str, n: Nested| {
                fields.push((name.to_string(), n));
                MemberStep::Field(fields.len() - 1)
            };
            let st = el.ty;
            let step = match el.class {
                ElementClass::Base if el.name == "TObject" => MemberStep::TObject,
                ElementClass::Base => {
                    let base = self.layout(&el.name, el.base_version)?;
                    MemberStep::Base {
                        name: el.name.to_string(),
                        version: self.checked_version(base),
                        steps: self.steps(base, fields, deeper(depth)?)?,
                    }
                }
                _ if self.string_array(el).is_some() => {
                    let n = self.string_array(el).expect("an array of strings")?;
                    field(&el.name, n)
                }
                _ if st == code::TSTRING || el.class == ElementClass::String => {
                    field(&el.name, Nested::Str)
                }
                _ if st == code::STL_STRING || el.class == ElementClass::StlString => {
                    field(&el.name, Nested::Framed(Box::new(Nested::Str)))
                }
                _ if st == code::CHAR_STAR => field(&el.name, Nested::CharStar),
                _ if (1..20).contains(&st) => {
                    let prim = Prim::from_code(st, &el.title).ok_or_else(unsupported)?;
                    field(&el.name, Nested::Prim(prim))
                }
                _ if (code::OFFSET_L + 1..code::OFFSET_L + 20).contains(&st) => {
                    let prim =
                        Prim::from_code(st - code::OFFSET_L, &el.title).ok_or_else(unsupported)?;
                    field(&el.name, Nested::Array(prim, array_dims(el)?))
                }
                _ if (code::OFFSET_P + 1..code::OFFSET_P + 20).contains(&st) => {
                    let prim =
                        Prim::from_code(st - code::OFFSET_P, &el.title).ok_or_else(unsupported)?;
                    let counter = counter_of(fields, el, info)?;
                    fields.push((
                        el.name.to_string(),
                        Nested::Seq(Box::new(Nested::Prim(prim))),
                    ));
                    MemberStep::Counted {
                        field: fields.len() - 1,
                        counter,
                    }
                }
                _ if st == code::STREAM_LOOP && el.class == ElementClass::Loop => {
                    let counter = counter_of(fields, el, info)?;
                    let item = self.looped_item(el, deeper(depth)?)?;
                    fields.push((el.name.to_string(), Nested::Seq(Box::new(item))));
                    MemberStep::Looped {
                        field: fields.len() - 1,
                        counter,
                    }
                }
                _ if is_pointer(st) => field(&el.name, self.pointer(el, deeper(depth)?)?),
                _ if matches!(
                    st,
                    code::OBJECT | code::ANY | code::TNAMED | code::OBJECT_P_NOT_NULL | code::ANY_P
                ) =>
                {
                    let class = normalize(el.type_name.trim_end_matches('*'));
                    let n = match builtin(&class).or_else(|| object_collection(&class)) {
                        Some(n) => n,
                        None => match self.symmetric_matrix(&class, deeper(depth)?) {
                            Some(matrix) => matrix?,
                            None => Nested::Framed(Box::new(Nested::Class(self.class(
                                &class,
                                None,
                                deeper(depth)?,
                            )?))),
                        },
                    };
                    field(&el.name, n)
                }
                _ if matches!(
                    st - code::OFFSET_L,
                    code::OBJECT | code::ANY | code::TSTRING
                ) =>
                {
                    let n = self.object_array(el, deeper(depth)?)?;
                    field(&el.name, n)
                }
                _ if st == code::STL || el.class == ElementClass::Stl => {
                    let n = self.stl(&el.type_name, deeper(depth)?)?;
                    field(&el.name, n)
                }
                _ => return Err(unsupported()),
            };
            steps.push(step);
        }
        Ok(steps)
    }
}

/// Classes with streamers of their own that no layout describes: `TString` (a string),
/// the `TArray`s (a list of numbers), `TRef` (read as `{ref}`, the referenced object's
/// number), `TRefArray` (read as `{fName, fSize, refs}`) and `TDatime` (its packed date
/// alone, without version or byte count, read as `{fDatime}`), with uproot's field names.
fn builtin(class: &str) -> Option<Nested> {
    if let Some(prim) = code::tarray_type(class).and_then(|ty| Prim::from_code(ty, "")) {
        // A `TArray` member streams an `i32` count and then the values, with neither a
        // byte count nor a version.
        return Some(Nested::Seq(Box::new(Nested::Prim(prim))));
    }
    match class {
        "TString" => Some(Nested::Str),
        // A frame, the TObject, the name, the size, the lower bound, the process ID and
        // the referenced objects' numbers.
        "TRefArray" => Some(Nested::Framed(Box::new(Nested::Class(Arc::new(
            ClassLayout {
                name: "TRefArray".into(),
                version: None,
                fields: vec![
                    ("fName".into(), Nested::Str),
                    ("fSize".into(), Nested::Prim(Prim::I32)),
                    (
                        "refs".into(),
                        Nested::Seq(Box::new(Nested::Prim(Prim::I32))),
                    ),
                ],
                steps: vec![
                    MemberStep::TObject,
                    MemberStep::Field(0),
                    MemberStep::Field(1),
                    MemberStep::Skip(6),
                    MemberStep::Items {
                        field: 2,
                        counter: 1,
                    },
                ],
            },
        ))))),
        "TDatime" => Some(Nested::Class(Arc::new(ClassLayout {
            name: "TDatime".into(),
            version: None,
            fields: vec![("fDatime".into(), Nested::Prim(Prim::U32))],
            steps: vec![MemberStep::Field(0)],
        }))),
        "TRef" => Some(Nested::Class(Arc::new(ClassLayout {
            name: "TRef".into(),
            version: None,
            fields: vec![("ref".into(), Nested::Prim(Prim::U32))],
            steps: vec![MemberStep::Ref(0)],
        }))),
        _ => None,
    }
}

/// Whether streamer type `st` is a pointer to an object behind a class tag (`T* x`,
/// `T* x[n]`): 64 and 69, 84 and 89.
pub fn is_pointer(st: i32) -> bool {
    matches!(pointee_type(st), code::OBJECT_P | code::ANY_P2)
}

/// The streamer type of one pointer of an array of pointers (84 and 89 are arrays of 64
/// and 69); `st` itself for other types.
fn pointee_type(st: i32) -> i32 {
    if st > code::ANY_P_NO_VT && st < code::STL {
        st - code::OFFSET_L
    } else {
        st
    }
}

/// ROOT's collections of objects (`TObjArray`, `TList`, `TMap`, ...): they stream
/// themselves, unlike their class layouts say, and hold objects of any class; read as
/// [`Nested::Unreadable`] (an error when one is read, never a misread).
fn object_collection(class: &str) -> Option<Nested> {
    const COLLECTIONS: [&str; 11] = [
        "TCollection",
        "TSeqCollection",
        "TObjArray",
        "TList",
        "THashList",
        "TSortedList",
        "TOrdCollection",
        "TBtree",
        "THashTable",
        "TMap",
        "TExMap",
    ];
    COLLECTIONS.contains(&class).then(|| Nested::Unreadable {
        class: class.to_string(),
        why: "collections of objects of any class in a branch are not supported".into(),
    })
}

/// How the error of types nested past [`MAX_NESTING`] begins (it is never deferred).
const TOO_DEEP: &str = "types nested more than";

/// `depth + 1`, or an error past [`MAX_NESTING`].
fn deeper(depth: usize) -> Result<usize, String> {
    if depth >= MAX_NESTING {
        return Err(format!("{TOO_DEEP} {MAX_NESTING} deep (or recursive)"));
    }
    Ok(depth + 1)
}

/// The dimensions of a fixed-size array member, each at least 1 and their product
/// bounded by [`super::choose::MAX_FIXED_VALUES`].
pub fn array_dims(el: &Element) -> Result<Vec<usize>, String> {
    let dims: Vec<usize> = el.max_index[..el.array_dim.clamp(0, 5) as usize]
        .iter()
        .map(|&d| d.max(0) as usize)
        .collect();
    super::choose::check_dims(&dims).map_err(|e| format!("member {}: {e}", el.name))?;
    Ok(dims)
}

/// The field that counts the counted array `el` of class `info` (an earlier member).
fn counter_of(
    fields: &[(String, Nested)],
    el: &Element,
    info: &StreamerInfo,
) -> Result<usize, String> {
    fields
        .iter()
        .rposition(|(n, _)| *n == el.count_name)
        .ok_or_else(|| {
            format!(
                "array {} of class {} is counted by {}, which comes after it",
                el.name, info.class_name, el.count_name
            )
        })
}
