//! Reading objects by the layouts of the file's StreamerInfo record: each member is read
//! as its [`Element`] says (basic values, fixed arrays, arrays counted by another member,
//! strings, embedded objects, pointers to objects, base classes), into a generic
//! [`Object`] whose members are looked up by name. Only classes with custom streamers
//! that no layout describes are built in: `TObject`, `TString`, `TObjArray`, `TList`,
//! the `TArray`s and `TBasket`.
//!
//! A member that cannot be read (an unsupported element kind) inside an object framed
//! by a byte count ends the object early: that member and the ones after it are
//! [`Value::Unread`] with the reason, and reading goes on after the object.

use std::ops::Range;
use std::sync::Arc;

use super::builtin::leaf_layouts;
use super::code;
use super::cursor::{Cursor, Tagged, MAX_DEPTH};
use super::element::{Element, ElementClass};
use super::name::Name;
use super::set::{skip_tobject, StreamerSet};
use crate::error::Result;

/// A member's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A null pointer.
    Null,
    /// A boolean.
    Bool(bool),
    /// A signed integer of any width.
    Int(i64),
    /// An unsigned integer of any width.
    UInt(u64),
    /// A floating-point number.
    Float(f64),
    /// A string.
    Str(String),
    /// An array of integers (of any width and signedness).
    Ints(Vec<i64>),
    /// An array of floating-point numbers.
    Floats(Vec<f64>),
    /// Raw bytes (the data of an embedded basket).
    Bytes(Vec<u8>),
    /// An embedded object or the target of a pointer.
    Object(Arc<Object>),
    /// The contents of a collection (`TObjArray`, `TList`); `None` for null slots.
    Objects(Vec<Option<Arc<Object>>>),
    /// The elements of an STL sequence or set that are not plain numbers (strings,
    /// pairs, objects, nested containers).
    List(Vec<Value>),
    /// The entries of an STL map, in stored order.
    Map(Vec<(Value, Value)>),
    /// A `std::pair`.
    Pair(Box<(Value, Value)>),
    /// A member that could not be read, with the reason.
    Unread(String),
}

/// An object read from a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    /// Its class.
    pub class: String,
    /// The class version it was written with.
    pub version: u16,
    /// Absolute file offset where it starts (for error messages).
    pub offset: u64,
    /// Members in streaming order, base classes' members first (flattened).
    pub members: Vec<(Name, Value)>,
    /// Where each member lies in the buffer it was read from, parallel to `members`
    /// (members of built-in classes share their object's range); rewriting an object
    /// replaces these ranges.
    pub spans: Vec<Range<usize>>,
}

impl Object {
    /// The member `name`, if present.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.members.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// Where member `name` lies in the buffer it was read from.
    pub fn span(&self, name: &str) -> Option<Range<usize>> {
        let i = self.members.iter().position(|(n, _)| n == name)?;
        self.spans.get(i).cloned()
    }

    /// The member `name` as an integer.
    pub fn int(&self, name: &str) -> Option<i64> {
        match self.get(name)? {
            Value::Int(v) => Some(*v),
            Value::UInt(v) => Some(*v as i64),
            Value::Bool(b) => Some(*b as i64),
            _ => None,
        }
    }

    /// The member `name` as a string.
    pub fn str(&self, name: &str) -> Option<&str> {
        match self.get(name)? {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The member `name` as an array of integers (an absent array is empty).
    pub fn ints(&self, name: &str) -> Option<&[i64]> {
        match self.get(name)? {
            Value::Ints(v) => Some(v),
            Value::Null => Some(&[]),
            _ => None,
        }
    }

    /// The member `name` as the objects of a collection.
    pub fn objects(&self, name: &str) -> Option<&[Option<Arc<Object>>]> {
        match self.get(name)? {
            Value::Objects(v) => Some(v),
            Value::Object(o) => match o.get("fObjects")? {
                Value::Objects(v) => Some(v),
                _ => None,
            },
            Value::Null => Some(&[]),
            _ => None,
        }
    }

    /// The member `name` as numbers: an array member or a `TArray` (an absent array is
    /// empty).
    pub fn numbers(&self, name: &str) -> Option<Vec<f64>> {
        numbers_of(self.get(name)?)
    }

    /// The member `name` as an object.
    pub fn object(&self, name: &str) -> Option<&Arc<Object>> {
        match self.get(name)? {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    /// Why member `name` is missing or not of the expected kind.
    pub fn why_missing(&self, name: &str) -> String {
        match self.get(name) {
            None => match self.members.iter().find_map(|(_, v)| match v {
                Value::Unread(why) => Some(why.clone()),
                _ => None,
            }) {
                Some(why) => format!("{} member {name} was not read: {why}", self.class),
                None => format!("{} has no member {name}", self.class),
            },
            Some(Value::Unread(why)) => format!("{} member {name} was not read: {why}", self.class),
            Some(v) => format!(
                "{} member {name} has an unexpected kind ({})",
                self.class,
                match v {
                    Value::Object(o) => format!("a {}", o.class),
                    other => format!("{:.60}", format!("{other:?}")),
                }
            ),
        }
    }
}

/// The members of built-in classes, named once for every object read.
struct BuiltinNames {
    unique_id: Name,
    bits: Name,
    string: Name,
    array: Name,
    name: Name,
    objects: Name,
}

fn builtin_names() -> &'static BuiltinNames {
    static NAMES: std::sync::LazyLock<BuiltinNames> = std::sync::LazyLock::new(|| BuiltinNames {
        unique_id: "fUniqueID".into(),
        bits: "fBits".into(),
        string: "fString".into(),
        array: "fArray".into(),
        name: "fName".into(),
        objects: "fObjects".into(),
    });
    &NAMES
}

/// Reads objects by the layouts of one file.
#[derive(Debug, Clone, Copy)]
pub struct ObjectReader<'s> {
    /// The file's class layouts.
    pub streamers: &'s StreamerSet,
}

impl<'s> ObjectReader<'s> {
    /// Reads an object of `class` at the cursor (framed as its class streams itself).
    pub fn read(&self, c: &mut Cursor, class: &str) -> Result<Object> {
        let offset = c.r.offset();
        let mut members = Vec::new();
        let mut spans = Vec::new();
        let version = self.read_members(c, class, &mut members, &mut spans)?;
        Ok(Object {
            class: class.to_string(),
            version,
            offset,
            members,
            spans,
        })
    }

    /// Reads an object of `class` at the cursor into `members` and `spans` (a base class's
    /// members go straight into the derived object's); returns the class version read.
    fn read_members(
        &self,
        c: &mut Cursor,
        class: &str,
        members: &mut Vec<(Name, Value)>,
        spans: &mut Vec<Range<usize>>,
    ) -> Result<u16> {
        if c.depth >= MAX_DEPTH {
            return Err(c.error("objects nested too deeply"));
        }
        c.depth += 1;
        let start = c.pos();
        let first = members.len();
        let result = self.read_inner(c, class, members, spans);
        c.depth -= 1;
        let version = result?;
        if spans.len() != members.len() {
            // Members of built-in classes share their object's range.
            spans.truncate(first);
            spans.resize(members.len(), start..c.pos());
        }
        Ok(version)
    }

    fn read_inner(
        &self,
        c: &mut Cursor,
        class: &str,
        members: &mut Vec<(Name, Value)>,
        spans: &mut Vec<Range<usize>>,
    ) -> Result<u16> {
        let names = builtin_names();
        match class {
            "TObject" => {
                let (id, bits) = skip_tobject(c)?;
                members.push((names.unique_id.clone(), Value::UInt(id as u64)));
                members.push((names.bits.clone(), Value::UInt(bits as u64)));
                return Ok(1);
            }
            "TString" => {
                members.push((names.string.clone(), Value::Str(c.r.tstring()?)));
                return Ok(0);
            }
            // Its own streamer writes the packed date alone: no version, no byte count.
            "TDatime" => {
                members.push(("fDatime".into(), Value::UInt(c.r.u32()? as u64)));
                return Ok(0);
            }
            // ROOT's strings in lists (the schema evolution rules of a StreamerInfo
            // record), which files seldom describe.
            "TObjString" if self.streamers.versions("TObjString") == 0 => {
                let frame = c.frame()?;
                let (id, bits) = skip_tobject(c)?;
                members.push((names.unique_id.clone(), Value::UInt(id as u64)));
                members.push((names.bits.clone(), Value::UInt(bits as u64)));
                members.push((names.string.clone(), Value::Str(c.r.tstring()?)));
                c.finish(&frame, class)?;
                return Ok(frame.version);
            }
            "TObjArray" | "TList" | "THashList" | "TSortedList" | "TRefArray" => {
                return self.read_collection(c, class, members);
            }
            "TBasket" => return read_embedded_basket(c, members),
            _ => {}
        }
        if let Some(ty) = code::tarray_type(class) {
            let n = c.r.i32()?;
            let v = read_basic_array(c, ty, n, "")?;
            members.push((names.array.clone(), v));
            return Ok(0);
        }
        let frame = c.frame()?;
        if frame.version == 0 && frame.end.is_some() {
            // Classes without a ClassDef write their checksum after version 0.
            c.r.u32()?;
        }
        let version = frame.version as i32;
        let info = self.streamers.get(class, version);
        let Some(info) = info.or_else(|| leaf_layouts().get(class, version)) else {
            if let Some(version) = self.undescribed(c, class, &frame, members)? {
                return Ok(version);
            }
            if let Some(end) = frame.end {
                c.opaque(c.pos()..end);
                c.finish(&frame, class)?;
                members.push((
                    Name::default(),
                    Value::Unread(format!("the file describes no class {class}")),
                ));
                return Ok(frame.version);
            }
            return Err(c.error(format!(
                "the file describes no class {class} (version {})",
                frame.version
            )));
        };
        // Spans of this object's own members start here (a base's are filled by it).
        let first = members.len();
        spans.resize(first, 0..0);
        members.reserve(info.elements.len());
        spans.reserve(info.elements.len());
        for e in &info.elements {
            let start = c.pos();
            match self.read_element(c, e, members, spans) {
                Ok(()) => spans.resize(members.len(), start..c.pos()),
                Err(err) if frame.end.is_some() => {
                    let end = frame.end.unwrap_or(start);
                    c.opaque(start..end);
                    members.push((e.name.clone(), Value::Unread(err.to_string())));
                    spans.resize(members.len(), start..end);
                    break;
                }
                Err(err) => return Err(err),
            }
        }
        c.finish(&frame, class)?;
        Ok(frame.version)
    }

    /// ROOT classes with streamers of their own that files often do not describe, as
    /// ROOT streams them (after their frame): `TMatrixTSym<double|float>` (the base
    /// `TMatrixTBase` members in the frame, then the upper triangle row by row after it, as
    /// `fElements`) and `TTime` (`fMilliSec`). `None` for any other class.
    fn undescribed(
        &self,
        c: &mut Cursor,
        class: &str,
        frame: &super::cursor::Frame,
        members: &mut Vec<(Name, Value)>,
    ) -> Result<Option<u16>> {
        let names = builtin_names();
        match class {
            "TTime" => {
                members.push(("fMilliSec".into(), Value::Int(c.r.i64()?)));
                c.finish(frame, class)?;
                Ok(Some(frame.version))
            }
            "TMatrixTSym<double>" | "TMatrixTSym<float>" => {
                let (id, bits) = skip_tobject(c)?;
                members.push((names.unique_id.clone(), Value::UInt(id as u64)));
                members.push((names.bits.clone(), Value::UInt(bits as u64)));
                let mut ints = [0i32; 6];
                for (v, name) in ints.iter_mut().zip([
                    "fNrows",
                    "fNcols",
                    "fRowLwb",
                    "fColLwb",
                    "fNelems",
                    "fNrowIndex",
                ]) {
                    *v = c.r.i32()?;
                    members.push((name.into(), Value::Int(i64::from(*v))));
                }
                let double = class.ends_with("<double>");
                let tol = if double {
                    f64::from_bits(c.r.u64()?)
                } else {
                    f64::from(f32::from_bits(c.r.u32()?))
                };
                members.push(("fTol".into(), Value::Float(tol)));
                c.finish(frame, class)?;
                let rows = ints[0].max(0) as usize;
                let n = rows * (rows + 1) / 2;
                let width = if double { 8 } else { 4 };
                if ints[0] != ints[1] || n.saturating_mul(width) > c.r.remaining() {
                    return Err(c.error(format!(
                        "a symmetric matrix of {} x {} elements",
                        ints[0], ints[1]
                    )));
                }
                let code = if double { code::DOUBLE } else { code::FLOAT };
                members.push(("fElements".into(), read_basic_array(c, code, n as i32, "")?));
                Ok(Some(frame.version))
            }
            _ => Ok(None),
        }
    }

    fn read_collection(
        &self,
        c: &mut Cursor,
        class: &str,
        members: &mut Vec<(Name, Value)>,
    ) -> Result<u16> {
        let frame = c.frame()?;
        if frame.version > 2 || class != "TObjArray" {
            skip_tobject(c)?;
        }
        let name = c.r.tstring()?;
        let n = c.r.i32()?;
        if n < 0 || n as usize > c.r.remaining() {
            return Err(c.error(format!("{class} of {n} objects")));
        }
        if class == "TObjArray" || class == "TRefArray" {
            c.r.i32()?; // lower bound
        }
        let mut items = Vec::with_capacity(n as usize);
        for _ in 0..n {
            items.push(self.read_pointer(c)?);
            if class != "TObjArray" && class != "TRefArray" && frame.version > 3 {
                let len = c.r.u8()? as usize;
                c.r.take(len)?;
            }
        }
        c.finish(&frame, class)?;
        let names = builtin_names();
        members.push((names.name.clone(), Value::Str(name)));
        members.push((names.objects.clone(), Value::Objects(items)));
        Ok(frame.version)
    }

    /// Reads an object behind a pointer: null, a reference to an object read before, or
    /// a new object with its class name.
    pub fn read_pointer(&self, c: &mut Cursor) -> Result<Option<Arc<Object>>> {
        match c.tagged()? {
            None => Ok(None),
            Some(Tagged::Ref(target)) => Ok(target),
            Some(Tagged::New { class, key, end }) => {
                let object = Arc::new(self.read(c, &class)?);
                if let Some(end) = end {
                    if c.pos() > end {
                        return Err(c.error(format!("{class} read past its byte count")));
                    }
                    c.opaque(c.pos()..end);
                    c.seek(end)?;
                }
                c.register(key, object.clone());
                Ok(Some(object))
            }
        }
    }

    fn read_element(
        &self,
        c: &mut Cursor,
        e: &Element,
        members: &mut Vec<(Name, Value)>,
        spans: &mut Vec<Range<usize>>,
    ) -> Result<()> {
        let value = match e.class {
            ElementClass::Base => {
                self.read_members(c, &e.name, members, spans)?;
                return Ok(());
            }
            _ if e.ty == code::TSTRING || e.class == ElementClass::String => {
                Value::Str(c.r.tstring()?)
            }
            // A `std::string` streamed by its own streamer (kStreamer): framed.
            _ if e.ty == code::STREAMER && e.class == ElementClass::StlString => {
                let frame = c.frame()?;
                let text = c.r.tstring()?;
                c.finish(&frame, &e.name)?;
                Value::Str(text)
            }
            _ if e.ty == code::STL_STRING || e.class == ElementClass::StlString => {
                Value::Str(c.r.tstring()?)
            }
            _ if (1..=19).contains(&e.ty) => read_basic(c, e.ty, &e.title)?,
            _ if (code::OFFSET_L + 1..code::OFFSET_L + 20).contains(&e.ty) => {
                read_basic_array(c, e.ty - code::OFFSET_L, e.array_length, &e.title)?
            }
            _ if (code::OFFSET_P + 1..code::OFFSET_P + 20).contains(&e.ty) => {
                let flag = c.r.u8()?;
                if flag == 0 {
                    Value::Null
                } else {
                    let n = counted(c, e, members)?;
                    read_basic_array(
                        c,
                        e.ty - code::OFFSET_P,
                        n.clamp(-1, i32::MAX as i64) as i32,
                        &e.title,
                    )?
                }
            }
            _ if e.ty == code::CHAR_STAR => {
                let n = c.r.i32()?;
                if n < 0 {
                    return Err(c.error(format!("char* of {n} bytes")));
                }
                Value::Str(String::from_utf8_lossy(c.r.take(n as usize)?).into_owned())
            }
            _ if matches!(
                e.ty,
                code::OBJECT
                    | code::ANY
                    | code::TOBJECT
                    | code::TNAMED
                    | code::OBJECT_P_NOT_NULL
                    | code::ANY_P
            ) =>
            {
                let class = e.type_name.trim_end_matches('*').trim();
                Value::Object(Arc::new(self.read(c, class)?))
            }
            _ if matches!(e.ty, code::OBJECT_P | code::ANY_P2) => match self.read_pointer(c)? {
                None => Value::Null,
                Some(o) => Value::Object(o),
            },
            _ if e.ty == code::STL || e.class == ElementClass::Stl => self.read_stl(c, e)?,
            // An array of objects (or strings) counted by another member, in a frame of its
            // own, each streamed by its class (`TString* fExpr //[fNoper]`).
            _ if e.ty == code::STREAM_LOOP || e.class == ElementClass::Loop => {
                let frame = c.frame()?;
                let n = counted(c, e, members)?.max(0) as usize;
                if n > c.r.remaining() {
                    return Err(c.error(format!("{n} objects in {} bytes", c.r.remaining())));
                }
                let class = e.type_name.trim_end_matches('*').trim();
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(if matches!(class, "TString" | "string" | "std::string") {
                        Value::Str(c.r.tstring()?)
                    } else {
                        Value::Object(Arc::new(self.read(c, class)?))
                    });
                }
                c.finish(&frame, &e.name)?;
                Value::List(items)
            }
            _ => {
                return Err(c.error(format!(
                    "member {} of type {} (streamer type {}) is not supported",
                    e.name, e.type_name, e.ty
                )))
            }
        };
        members.push((e.name.clone(), value));
        Ok(())
    }

    /// The object of a key of class `class`: a `std::string` (its bytes only) or an STL
    /// container (byte count and version, then its elements) as an object of that class
    /// whose one member, `value`, holds it; any other class as [`ObjectReader::read`].
    pub fn read_keyed(&self, c: &mut Cursor, class: &str) -> Result<Object> {
        let offset = c.r.offset();
        let start = c.pos();
        let value = if matches!(class, "string" | "std::string") {
            Value::Str(c.r.tstring()?)
        } else if template_args(class).is_some_and(|(outer, _)| is_stl(outer)) {
            let frame = c.frame()?;
            let value = self.stl_value(c, class, "", 0)?;
            c.finish(&frame, class)?;
            value
        } else {
            return self.read(c, class);
        };
        Ok(Object {
            class: class.to_string(),
            version: 0,
            offset,
            members: vec![("value".into(), value)],
            spans: std::iter::once(start..c.pos()).collect(),
        })
    }

    /// An STL container inside an object (its byte count and version first): sequences
    /// and sets of numbers as arrays, of anything else as lists; maps; pairs; strings;
    /// nested containers and objects by their own layouts. Collections streamed
    /// memberwise are left unread.
    fn read_stl(&self, c: &mut Cursor, e: &Element) -> Result<Value> {
        let frame = c.frame()?;
        let value = if frame.memberwise {
            if let Some(pairs) = self.memberwise_pairs(c, &e.type_name, &e.title)? {
                c.finish(&frame, &e.type_name)?;
                return Ok(pairs);
            }
            let Some(end) = frame.end else {
                return Err(c.error(format!("{} without a byte count", e.type_name)));
            };
            c.opaque(c.pos()..end);
            Value::Unread(format!("{} streamed memberwise is not read", e.type_name))
        } else {
            self.stl_value(c, &e.type_name, &e.title, 0)?
        };
        c.finish(&frame, &e.type_name)?;
        Ok(value)
    }

    /// A map or a sequence of pairs streamed memberwise (the pair's version and checksum,
    /// the count, every key, then every value), or `None` for another container.
    fn memberwise_pairs(&self, c: &mut Cursor, ty: &str, title: &str) -> Result<Option<Value>> {
        let ty = ty.trim().trim_start_matches("std::");
        let Some((outer, args)) = template_args(ty) else {
            return Ok(None);
        };
        let pair_args = |t: &str| {
            template_args(t.trim().trim_start_matches("std::"))
                .filter(|(o, a)| *o == "pair" && a.len() == 2)
                .map(|(_, a)| (a[0].to_string(), a[1].to_string()))
        };
        let (is_map, (k, v)) = match (outer, args.as_slice()) {
            ("map" | "multimap" | "unordered_map" | "unordered_multimap", [k, v, ..]) => {
                (true, (k.to_string(), v.to_string()))
            }
            ("vector" | "list" | "deque", [item, ..]) => match pair_args(item) {
                Some(kv) => (false, kv),
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        c.r.take(6)?;
        let n = c.r.i32()?;
        if n < 0 || n as usize > c.r.remaining() {
            return Err(c.error(format!(
                "container of {n} elements in {} bytes",
                c.r.remaining()
            )));
        }
        // Each member's block: all its values, framed unless they are plain numbers.
        let block = |c: &mut Cursor, ty: &str| -> Result<Vec<Value>> {
            let framed = basic_code(ty.trim().trim_start_matches("std::")).is_none();
            let frame = if framed { Some(c.frame()?) } else { None };
            let mut out = Vec::with_capacity((n as usize).min(1 << 16));
            for _ in 0..n {
                out.push(self.stl_value(c, ty, title, 1)?);
            }
            if let Some(frame) = frame {
                c.finish(&frame, ty)?;
            }
            Ok(out)
        };
        // An empty container writes no blocks.
        let (keys, values) = if n == 0 {
            (Vec::new(), Vec::new())
        } else {
            (block(c, &k)?, block(c, &v)?)
        };
        let out_map: Vec<(Value, Value)> = keys.into_iter().zip(values).collect();
        Ok(Some(if is_map {
            Value::Map(out_map)
        } else {
            Value::List(
                out_map
                    .into_iter()
                    .map(|kv| Value::Pair(Box::new(kv)))
                    .collect(),
            )
        }))
    }

    /// A value of the STL or basic type `ty` (inside a container: no header of its own
    /// unless it is an object).
    fn stl_value(&self, c: &mut Cursor, ty: &str, title: &str, depth: usize) -> Result<Value> {
        if depth > MAX_DEPTH {
            return Err(c.error("containers nested too deeply"));
        }
        let ty = ty
            .trim()
            .trim_start_matches("std::")
            .trim_start_matches("const ");
        if matches!(ty, "string" | "TString") {
            return Ok(Value::Str(c.r.tstring()?));
        }
        if let Some(code) = basic_code(ty) {
            return read_basic(c, code, title);
        }
        let Some((outer, args)) = template_args(ty) else {
            // A class inside a container: its own header and layout.
            return Ok(Value::Object(Arc::new(self.read(c, ty)?)));
        };
        let count = |c: &mut Cursor| -> Result<usize> {
            let n = c.r.i32()?;
            if n < 0 || n as usize > c.r.remaining() {
                return Err(c.error(format!(
                    "container of {n} elements in {} bytes",
                    c.r.remaining()
                )));
            }
            Ok(n as usize)
        };
        match (outer, args.as_slice()) {
            ("pair", [a, b]) => {
                let first = self.stl_value(c, a, title, depth + 1)?;
                let second = self.stl_value(c, b, title, depth + 1)?;
                Ok(Value::Pair(Box::new((first, second))))
            }
            ("map" | "multimap" | "unordered_map" | "unordered_multimap", [k, v, ..]) => {
                let n = count(c)?;
                let mut out = Vec::with_capacity(n.min(1 << 16));
                for _ in 0..n {
                    let key = self.stl_value(c, k, title, depth + 1)?;
                    let value = self.stl_value(c, v, title, depth + 1)?;
                    out.push((key, value));
                }
                Ok(Value::Map(out))
            }
            (
                "vector" | "list" | "deque" | "set" | "multiset" | "unordered_set"
                | "unordered_multiset" | "RVec",
                [item, ..],
            ) => {
                let n = count(c)?;
                if let Some(code) = basic_code(item.trim().trim_start_matches("std::")) {
                    return read_basic_array(c, code, n as i32, title);
                }
                let mut out = Vec::with_capacity(n.min(1 << 16));
                for _ in 0..n {
                    out.push(self.stl_value(c, item, title, depth + 1)?);
                }
                Ok(Value::List(out))
            }
            _ => Err(c.error(format!("{ty} is not read inside objects"))),
        }
    }
}

/// True for the names of the STL containers and `std::pair`.
fn is_stl(name: &str) -> bool {
    matches!(
        name,
        "vector"
            | "list"
            | "deque"
            | "set"
            | "multiset"
            | "unordered_set"
            | "unordered_multiset"
            | "map"
            | "multimap"
            | "unordered_map"
            | "unordered_multimap"
            | "pair"
    )
}

/// The basic type code of a C++ or ROOT type name.
fn basic_code(ty: &str) -> Option<i32> {
    Some(match ty {
        "bool" | "Bool_t" => code::BOOL,
        "char" | "Char_t" | "signed char" | "int8_t" => code::CHAR,
        "unsigned char" | "UChar_t" | "uint8_t" => code::UCHAR,
        "short" | "Short_t" | "int16_t" => code::SHORT,
        "unsigned short" | "UShort_t" | "uint16_t" => code::USHORT,
        "int" | "Int_t" | "int32_t" => code::INT,
        "unsigned int" | "unsigned" | "UInt_t" | "uint32_t" => code::UINT,
        "long" | "Long_t" | "long long" | "Long64_t" | "int64_t" => code::LONG64,
        "unsigned long" | "ULong_t" | "unsigned long long" | "ULong64_t" | "uint64_t"
        | "size_t" => code::ULONG64,
        "float" | "Float_t" => code::FLOAT,
        "double" | "Double_t" => code::DOUBLE,
        "Double32_t" => code::DOUBLE32,
        "Float16_t" => code::FLOAT16,
        _ => return None,
    })
}

/// `("map", ["string", "int"])` for `map<string,int>`: the template's name and its
/// arguments split at the top level; `None` for a name without arguments.
fn template_args(ty: &str) -> Option<(&str, Vec<&str>)> {
    let open = ty.find('<')?;
    let inner = ty[open + 1..].trim_end().strip_suffix('>')?;
    let mut args = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, ch) in inner.char_indices() {
        match ch {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                args.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    args.push(inner[start..].trim());
    Some((ty[..open].trim().trim_start_matches("std::"), args))
}

/// The values of an array (a `TArray` object's too) as numbers.
fn numbers_of(v: &Value) -> Option<Vec<f64>> {
    match v {
        Value::Floats(f) => Some(f.clone()),
        Value::Ints(i) => Some(i.iter().map(|&x| x as f64).collect()),
        Value::Object(o) => o.numbers("fArray"),
        Value::Null => Some(Vec::new()),
        _ => None,
    }
}

fn read_basic(c: &mut Cursor, ty: i32, title: &str) -> Result<Value> {
    Ok(match ty {
        code::BOOL => Value::Bool(c.r.u8()? != 0),
        code::CHAR | code::LEGACY_CHAR => Value::Int(c.r.u8()? as i8 as i64),
        code::UCHAR => Value::UInt(c.r.u8()? as u64),
        code::SHORT => Value::Int(c.r.i16()? as i64),
        code::USHORT => Value::UInt(c.r.u16()? as u64),
        code::INT | code::COUNTER => Value::Int(c.r.i32()? as i64),
        code::UINT | code::BITS => Value::UInt(c.r.u32()? as u64),
        code::LONG | code::LONG64 => Value::Int(c.r.i64()?),
        code::ULONG | code::ULONG64 => Value::UInt(c.r.u64()?),
        code::FLOAT => Value::Float(f32::from_bits(c.r.u32()?) as f64),
        code::DOUBLE => Value::Float(f64::from_bits(c.r.u64()?)),
        code::DOUBLE32 | code::FLOAT16 => {
            let packing = super::packed::Packed::from_title(ty == code::FLOAT16, title);
            let mut one = [0f64; 1];
            let bytes = c.r.take(packing.bytes())?;
            packing.unpack(bytes, &mut one);
            Value::Float(one[0])
        }
        _ => return Err(c.error(format!("basic type {ty} is not known"))),
    })
}

fn read_basic_array(c: &mut Cursor, ty: i32, n: i32, title: &str) -> Result<Value> {
    let size =
        code::disk_size(ty).ok_or_else(|| c.error(format!("basic type {ty} is not known")))?;
    if n < 0 || (n as usize).saturating_mul(size.min(3)) > c.r.remaining() {
        return Err(c.error(format!(
            "array of {n} values does not fit in the {} bytes left",
            c.r.remaining()
        )));
    }
    let n = n as usize;
    // Plain numbers: decoded straight from their bytes.
    if !matches!(ty, code::DOUBLE32 | code::FLOAT16) {
        let bytes = c.r.take(n * size)?;
        let words = bytes.chunks_exact(size);
        return Ok(match ty {
            code::FLOAT => Value::Floats(
                words
                    .map(|w| f32::from_be_bytes(w.try_into().expect("4")) as f64)
                    .collect(),
            ),
            code::DOUBLE => Value::Floats(
                words
                    .map(|w| f64::from_be_bytes(w.try_into().expect("8")))
                    .collect(),
            ),
            _ => Value::Ints(words.map(|w| int_of(ty, w)).collect()),
        });
    }
    let floating = matches!(
        ty,
        code::FLOAT | code::DOUBLE | code::DOUBLE32 | code::FLOAT16
    );
    if floating {
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            if let Value::Float(f) = read_basic(c, ty, title)? {
                v.push(f);
            }
        }
        Ok(Value::Floats(v))
    } else {
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(match read_basic(c, ty, title)? {
                Value::Int(i) => i,
                Value::UInt(u) => u as i64,
                Value::Bool(b) => b as i64,
                _ => 0,
            });
        }
        Ok(Value::Ints(v))
    }
}

/// The integer of basic type `ty` in its big-endian bytes `w` (unsigned 64-bit values as
/// their bits, as [`read_basic_array`] keeps them).
fn int_of(ty: i32, w: &[u8]) -> i64 {
    match ty {
        code::CHAR | code::LEGACY_CHAR => w[0] as i8 as i64,
        code::UCHAR => w[0] as i64,
        code::BOOL => (w[0] != 0) as i64,
        code::SHORT => i16::from_be_bytes([w[0], w[1]]) as i64,
        code::USHORT => u16::from_be_bytes([w[0], w[1]]) as i64,
        code::INT | code::COUNTER => i32::from_be_bytes(w.try_into().expect("4")) as i64,
        code::UINT | code::BITS => u32::from_be_bytes(w.try_into().expect("4")) as i64,
        _ => i64::from_be_bytes(w.try_into().expect("8")),
    }
}

/// A `TBasket` streamed inside its branch (`fBaskets` of a file that was not closed):
/// its key header, its counts and, when it holds data, its entry offsets and data.
fn read_embedded_basket(c: &mut Cursor, members: &mut Vec<(Name, Value)>) -> Result<u16> {
    let nbytes = c.r.i32()?;
    let key_version = c.r.i16()?;
    let objlen = c.r.i32()?;
    c.r.u32()?; // datime
    let keylen = c.r.i16()?;
    c.r.i16()?; // cycle
                // The rest of the key header: seeks and the three strings.
    if key_version > 1000 {
        c.r.take(16)?;
    } else {
        c.r.take(8)?;
    }
    for _ in 0..3 {
        c.r.tstring()?;
    }
    let version = c.r.u16()?;
    let buffer_size = c.r.i32()?;
    let mut nev_buf_size = c.r.i32()?;
    if nev_buf_size < 0 {
        // Baskets of ROOT 6.10 and later: a negative size says an I/O bits byte follows.
        nev_buf_size = nev_buf_size.saturating_neg();
        c.r.u8()?;
    }
    let nev_buf = c.r.i32()?;
    let last = c.r.i32()?;
    let flag = c.r.u8()?;
    if keylen < 0 || nev_buf < 0 || last < keylen as i32 {
        return Err(c.error(format!(
            "basket with key length {keylen}, {nev_buf} entries and end {last}"
        )));
    }
    members.extend([
        (Name::from("fNbytes"), Value::Int(nbytes as i64)),
        (Name::from("fObjlen"), Value::Int(objlen as i64)),
        (Name::from("fKeylen"), Value::Int(keylen as i64)),
        (Name::from("fBufferSize"), Value::Int(buffer_size as i64)),
        (Name::from("fNevBufSize"), Value::Int(nev_buf_size as i64)),
        (Name::from("fNevBuf"), Value::Int(nev_buf as i64)),
        (Name::from("fLast"), Value::Int(last as i64)),
        (Name::from("fFlag"), Value::Int(flag as i64)),
    ]);
    // The flag says what follows, as ROOT reads it: 80 added where the entry offsets were
    // left out to be regenerated; a last digit of 2 where the basket keeps no offsets
    // (fixed-size entries) nor displacements; else 40 added where displacements follow
    // the offsets; the data (with its key header) for flags 1 and above 10. Baskets
    // written to their own key carry no data here.
    let generated = flag >= 80;
    let flag = if generated { flag - 80 } else { flag };
    if nbytes <= keylen as i32 && (flag == 1 || flag > 10) {
        if generated {
            return Err(c.error(format!(
                "a basket kept in its branch whose entry offsets ROOT regenerates (flag {})",
                flag + 80
            )));
        }
        if flag % 10 != 2 {
            if nev_buf > 0 {
                let offsets = read_counted_ints(c, "entry offsets")?;
                // Flags 21 to 39: offsets carry displacement bits to clear.
                let offsets = match flag {
                    21..=39 => offsets.iter().map(|&x| x & !DISPLACEMENT_MASK).collect(),
                    _ => offsets,
                };
                members.push(("fEntryOffset".into(), Value::Ints(offsets)));
            }
            if flag > 40 {
                read_counted_ints(c, "displacements")?;
            }
        }
        let border = (last - keylen as i32) as usize;
        c.r.take(keylen as usize)?;
        members.push(("fData".into(), Value::Bytes(c.r.take(border)?.to_vec())));
    }
    Ok(version)
}

/// The bits of a basket's entry offset that ROOT uses for displacements.
const DISPLACEMENT_MASK: i64 = 0xFF00_0000;

/// An `i32` count and that many `i32` values (`TBuffer::WriteArray`), the count checked
/// against the bytes left.
fn read_counted_ints(c: &mut Cursor, what: &str) -> Result<Vec<i64>> {
    let n = c.r.i32()?;
    if n < 0 || n as usize > c.r.remaining() / 4 {
        return Err(c.error(format!("{n} {what}")));
    }
    (0..n).map(|_| Ok(c.r.i32()? as i64)).collect()
}

/// The value of the member counting array `e` (read before it in `members`).
fn counted(c: &Cursor, e: &Element, members: &[(Name, Value)]) -> Result<i64> {
    members
        .iter()
        .rev()
        .find(|(n, _)| *n == e.count_name)
        .and_then(|(_, v)| match v {
            Value::Int(i) => Some(*i),
            Value::UInt(u) => Some(*u as i64),
            _ => None,
        })
        .ok_or_else(|| {
            c.error(format!(
                "array {} is counted by {}, which was not read",
                e.name, e.count_name
            ))
        })
}

#[cfg(test)]
#[path = "embedded_basket_tests.rs"]
mod embedded_basket_tests;
