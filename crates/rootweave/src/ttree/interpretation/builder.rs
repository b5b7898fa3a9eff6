//! Reading streamed values by their [`Nested`] layout into columnar arrays: a
//! [`Builder`] mirrors the layout, reads one value at a time from a checked [`Reader`],
//! and turns what it collected into one [`Array`] at the end.

use std::sync::Arc;

use super::compile::normalize;
use super::decode::DecodeError;
use super::layout::{ClassLayout, MemberStep, Nested};
use super::Prim;
use crate::array::Array;
use crate::streamer::tags::{BYTE_COUNT_MASK, CLASS_MASK, IS_REFERENCED, NEW_CLASS_TAG};
/// The version bit of a container streamed memberwise.
pub(super) const MEMBERWISE: u16 = 0x4000;

/// A minimal checked reader over one entry's bytes.
pub(crate) struct Reader<'a>(pub(crate) &'a [u8]);

impl<'a> Reader<'a> {
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.0.len() {
            return Err(format!(
                "needs {n} bytes, {} left in the entry",
                self.0.len()
            ));
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }

    pub(crate) fn u16(&mut self) -> Result<u16, DecodeError> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    pub(crate) fn u32(&mut self) -> Result<u32, DecodeError> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A non-negative `i32` length.
    pub(crate) fn count(&mut self) -> Result<usize, DecodeError> {
        let n = self.u32()? as i32;
        if n < 0 {
            return Err(format!("negative length {n}"));
        }
        Ok(n as usize)
    }

    /// A string: a length byte (or 255 and an `i32`) and the bytes.
    pub(crate) fn string(&mut self) -> Result<&'a [u8], DecodeError> {
        let mut n = self.take(1)?[0] as usize;
        if n == 255 {
            n = self.count()?;
        }
        self.take(n)
    }

    /// A byte count (if there is one) and a version: the version, and how many bytes
    /// must be left once the framed value is read.
    pub(crate) fn frame(&mut self) -> Result<(u16, Option<usize>), DecodeError> {
        let peek = self.0.get(..4).ok_or("needs a byte count or version")?;
        let first = u32::from_be_bytes([peek[0], peek[1], peek[2], peek[3]]);
        if first & BYTE_COUNT_MASK == 0 {
            return Ok((self.u16()?, None));
        }
        self.take(4)?;
        let count = (first & !BYTE_COUNT_MASK) as usize;
        if count > self.0.len() {
            return Err(format!(
                "a byte count of {count} with {} bytes left",
                self.0.len()
            ));
        }
        let end = self.0.len() - count;
        Ok((self.u16()?, Some(end)))
    }

    /// Checks that a framed value ended where its byte count said.
    pub(crate) fn end_frame(&self, end: Option<usize>, what: &str) -> Result<(), DecodeError> {
        match end {
            Some(end) if self.0.len() != end => Err(format!(
                "{what} ends {} bytes {} where its byte count says",
                self.0.len().abs_diff(end),
                if self.0.len() < end {
                    "past"
                } else {
                    "short of"
                },
            )),
            _ => Ok(()),
        }
    }
}

/// The `TObject` members of an object: a version, the unique ID, the bits, and a
/// process ID when the object was referenced. Returns the unique ID's bytes.
fn skip_tobject<'a>(r: &mut Reader<'a>) -> Result<&'a [u8], DecodeError> {
    let (_, end) = r.frame()?;
    let id = r.take(4)?;
    let bits = r.u32()?;
    if bits & IS_REFERENCED != 0 {
        r.take(2)?;
    }
    r.end_frame(end, "TObject")?;
    Ok(id)
}

/// Collects the values of one [`Nested`] layout into an array.
pub(crate) enum Builder {
    Prim(Prim, Vec<u8>),
    Array(Prim, Vec<usize>, Vec<u8>),
    Bits(Vec<u8>),
    Str(Vec<u64>, Vec<u8>),
    CharStar(Vec<u64>, Vec<u8>),
    Seq(Vec<u64>, Box<Builder>),
    Repeat(Box<Builder>, usize),
    Framed(Box<Builder>),
    Named(String, Box<Builder>),
    Class {
        class: Arc<ClassLayout>,
        len: usize,
        fields: Vec<Builder>,
    },
    Pointer(PointerBuilder),
    Unknown(String),
    Map {
        offsets: Vec<u64>,
        keys: Box<Builder>,
        values: Box<Builder>,
        key_header: bool,
        value_header: bool,
    },
}

impl Builder {
    /// An empty builder of `n`'s values.
    pub(crate) fn new(n: &Nested) -> Builder {
        match n {
            Nested::Prim(p) => Builder::Prim(*p, Vec::new()),
            Nested::Array(p, dims) => Builder::Array(*p, dims.clone(), Vec::new()),
            Nested::Bits => Builder::Bits(Vec::new()),
            Nested::Str => Builder::Str(vec![0], Vec::new()),
            Nested::CharStar => Builder::CharStar(vec![0], Vec::new()),
            Nested::Seq(inner) => Builder::Seq(vec![0], Box::new(Builder::new(inner))),
            Nested::Repeat(inner, size) => Builder::Repeat(Box::new(Builder::new(inner)), *size),
            Nested::Framed(inner) => Builder::Framed(Box::new(Builder::new(inner))),
            Nested::Named(class, inner) => {
                Builder::Named(class.clone(), Box::new(Builder::new(inner)))
            }
            Nested::Class(class) => Builder::Class {
                class: class.clone(),
                len: 0,
                fields: class.fields.iter().map(|(_, n)| Builder::new(n)).collect(),
            },
            Nested::Pointer(class, inner) => Builder::Pointer(PointerBuilder {
                class: class.clone(),
                offsets: vec![0],
                inner: Box::new(Builder::new(inner)),
                tagged: false,
                refs_sound: !inner.has_pointer(),
            }),
            Nested::Unknown(name) => {
                Builder::Unknown(format!("{name}, which the file does not describe"))
            }
            Nested::Unreadable { class, why } => {
                Builder::Unknown(format!("{class}, whose layout cannot be read: {why}"))
            }
            Nested::Map {
                key,
                value,
                key_header,
                value_header,
            } => Builder::Map {
                offsets: vec![0],
                keys: Box::new(Builder::new(key)),
                values: Box::new(Builder::new(value)),
                key_header: *key_header,
                value_header: *value_header,
            },
        }
    }

    /// Reads one value.
    pub(crate) fn item(&mut self, r: &mut Reader) -> Result<(), DecodeError> {
        match self {
            Builder::Prim(p, bytes) => bytes.extend_from_slice(r.take(p.size())?),
            Builder::Array(p, dims, bytes) => {
                let n: usize = dims.iter().product();
                bytes.extend_from_slice(r.take(p.size() * n)?)
            }
            Builder::Bits(bytes) => {
                let bits = r.take(4)?;
                bytes.extend_from_slice(bits);
                if bits[3] as u32 & IS_REFERENCED != 0 {
                    r.take(2)?; // the process ID of a referenced object
                }
            }
            Builder::Str(offsets, bytes) => {
                bytes.extend_from_slice(r.string()?);
                offsets.push(bytes.len() as u64);
            }
            Builder::CharStar(offsets, bytes) => {
                let n = r.count()?;
                bytes.extend_from_slice(r.take(n)?);
                offsets.push(bytes.len() as u64);
            }
            Builder::Seq(..) => {
                let n = r.count()?;
                self.items(n, r)?;
            }
            Builder::Repeat(inner, size) => inner.repeat(*size, r)?,
            Builder::Framed(inner) => {
                let (version, end) = r.frame()?;
                if version & MEMBERWISE != 0 {
                    read_memberwise(inner, r)?;
                    return r.end_frame(end, &inner.what());
                }
                if let Builder::Class { class, .. } = &**inner {
                    check_version(r, &class.name, class.version, version, end)?;
                }
                inner.item(r)?;
                r.end_frame(end, &inner.what())?;
            }
            Builder::Named(class, inner) => {
                let n = r.take(1)?[0] as usize;
                let name = r.take(n + 1)?;
                if &name[..n] != class.as_bytes() {
                    return Err(format!(
                        "an object of class {} where {class} was expected",
                        String::from_utf8_lossy(&name[..n])
                    ));
                }
                inner.item(r)?;
            }
            Builder::Class { class, len, fields } => {
                read_steps(&class.steps, r, fields)?;
                *len += 1;
            }
            Builder::Pointer(pointer) => pointer.item(r)?,
            Builder::Unknown(name) => return Err(format!("an object of class {name}")),
            Builder::Map {
                offsets,
                keys,
                values,
                key_header,
                value_header,
            } => {
                let (version, end) = r.frame()?;
                if version & MEMBERWISE == 0 {
                    // Pair by pair (ATLAS's auxiliary stores hold such maps): the count,
                    // then each key and its value as items of a container are streamed
                    // (strings and sequences bare, objects framed).
                    let n = r.count()?;
                    if n > r.0.len() {
                        return Err(format!("{n} pairs in {} bytes", r.0.len()));
                    }
                    for _ in 0..n {
                        keys.item(r)?;
                        values.item(r)?;
                    }
                    r.end_frame(end, "map")?;
                    offsets.push(offsets.last().expect("offsets") + n as u64);
                    return Ok(());
                }
                if r.u16()? == 0 {
                    r.take(4)?; // the pair's checksum
                }
                let n = r.count()?;
                for (builder, header) in [(keys, *key_header), (values, *value_header)] {
                    if header && !(n == 0 && r.0.len() == end.unwrap_or(0)) {
                        let (_, block_end) = r.frame()?;
                        builder.repeat(n, r)?;
                        if block_end.is_some_and(|e| r.0.len() < e) {
                            return Err("a map's block read past its byte count".into());
                        }
                    } else {
                        builder.repeat(n, r)?;
                    }
                }
                r.end_frame(end, "map")?;
                offsets.push(offsets.last().expect("offsets") + n as u64);
            }
        }
        Ok(())
    }

    /// Reads `n` values (every value takes at least one byte, so a corrupt `n` cannot
    /// make this loop long).
    fn repeat(&mut self, n: usize, r: &mut Reader) -> Result<(), DecodeError> {
        if n > r.0.len() {
            return Err(format!("{n} items in {} bytes", r.0.len()));
        }
        for _ in 0..n {
            self.item(r)?;
        }
        Ok(())
    }

    /// Reads a sequence of `n` items (this builder is a [`Builder::Seq`]).
    pub(crate) fn items(&mut self, n: usize, r: &mut Reader) -> Result<(), DecodeError> {
        let Builder::Seq(offsets, inner) = self else {
            return Err("not a sequence".into());
        };
        if n > r.0.len() {
            return Err(format!("{n} items in {} bytes", r.0.len()));
        }
        if let Builder::Prim(p, bytes) = &mut **inner {
            // Numbers in one block, checked against the bytes left before any is kept.
            let size = n
                .checked_mul(p.size())
                .filter(|&size| size <= r.0.len())
                .ok_or_else(|| format!("{n} numbers in {} bytes", r.0.len()))?;
            bytes.extend_from_slice(r.take(size)?);
        } else {
            for _ in 0..n {
                inner.item(r)?;
            }
        }
        offsets.push(inner.len());
        Ok(())
    }

    /// What this builder reads, for error messages.
    fn what(&self) -> String {
        match self {
            Builder::Class { class, .. } => format!("an object of class {}", class.name),
            Builder::Unknown(_) => "an object".into(),
            Builder::Str(..) | Builder::CharStar(..) => "a string".into(),
            Builder::Seq(..) => "an STL container".into(),
            Builder::Repeat(inner, _) => inner.what(),
            Builder::Map { .. } => "a map".into(),
            Builder::Framed(inner) | Builder::Named(_, inner) => inner.what(),
            Builder::Pointer(pointer) => pointer.inner.what(),
            Builder::Prim(..) | Builder::Array(..) | Builder::Bits(_) => "a number".into(),
        }
    }

    /// Values read so far.
    pub(crate) fn len(&self) -> u64 {
        match self {
            Builder::Prim(p, bytes) => (bytes.len() / p.size()) as u64,
            Builder::Bits(bytes) => (bytes.len() / 4) as u64,
            Builder::Array(p, dims, bytes) => {
                (bytes.len() / (p.size() * dims.iter().product::<usize>())) as u64
            }
            Builder::Str(offsets, _) | Builder::CharStar(offsets, _) | Builder::Seq(offsets, _) => {
                offsets.len() as u64 - 1
            }
            Builder::Map { offsets, .. } => offsets.len() as u64 - 1,
            Builder::Pointer(pointer) => pointer.offsets.len() as u64 - 1,
            Builder::Framed(inner) | Builder::Named(_, inner) => inner.len(),
            Builder::Repeat(inner, size) => inner.len() / *size as u64,
            Builder::Class { len, .. } => *len as u64,
            Builder::Unknown(_) => 0,
        }
    }

    /// The values read, as one array.
    pub(crate) fn finish(self) -> Array {
        match self {
            Builder::Prim(p, bytes) => p.decode(&bytes),
            Builder::Bits(bytes) => Prim::U32.decode(&bytes),
            Builder::Array(p, dims, bytes) => super::decode::wrap_fixed(p.decode(&bytes), &dims),
            Builder::Str(offsets, bytes) | Builder::CharStar(offsets, bytes) => {
                Array::String { offsets, bytes }
            }
            Builder::Seq(offsets, inner) => Array::List {
                offsets,
                values: Box::new(inner.finish()),
            },
            Builder::Framed(inner) | Builder::Named(_, inner) => inner.finish(),
            Builder::Repeat(inner, size) => Array::Fixed {
                size,
                values: Box::new(inner.finish()),
            },
            Builder::Class { class, len, fields } => Array::Record {
                len,
                fields: class
                    .fields
                    .iter()
                    .zip(fields)
                    .map(|((name, _), b)| (name.clone(), b.finish()))
                    .collect(),
            },
            Builder::Pointer(pointer) => Array::Optional {
                offsets: pointer.offsets,
                values: Box::new(pointer.inner.finish()),
            },
            Builder::Unknown(_) => Array::Record {
                len: 0,
                fields: vec![],
            },
            Builder::Map {
                offsets,
                keys,
                values,
                ..
            } => {
                let len = *offsets.last().expect("offsets") as usize;
                Array::List {
                    offsets,
                    values: Box::new(Array::Record {
                        len,
                        fields: vec![
                            ("first".to_string(), keys.finish()),
                            ("second".to_string(), values.finish()),
                        ],
                    }),
                }
            }
        }
    }
}

/// Collects the objects behind a pointer ([`Nested::Pointer`]), null or not.
pub(crate) struct PointerBuilder {
    /// The class the pointer is declared to point to.
    class: String,
    /// `len + 1` offsets into the objects: each pointer holds zero or one.
    offsets: Vec<u64>,
    /// The objects.
    inner: Box<Builder>,
    /// Whether a class tag naming the class was read (a class reference needs one).
    tagged: bool,
    /// Whether every class tag in a value of this pointer is this pointer's own (its
    /// objects hold no pointers), so that a class reference can only mean the class.
    refs_sound: bool,
}

impl PointerBuilder {
    /// Reads one pointer: a null tag, or a byte count, a class tag and the object.
    fn item(&mut self, r: &mut Reader) -> Result<(), DecodeError> {
        let tag = r.u32()?;
        if tag != 0 {
            if tag & BYTE_COUNT_MASK == 0 {
                return Err(format!(
                    "a pointer to {} written before in the entry (tag {tag:#x}) is not supported",
                    self.class
                ));
            }
            let count = (tag & !BYTE_COUNT_MASK) as usize;
            if count > r.0.len() {
                return Err(format!(
                    "a byte count of {count} with {} bytes left",
                    r.0.len()
                ));
            }
            let end = r.0.len() - count;
            self.class_tag(r)?;
            self.inner.item(r)?;
            r.end_frame(Some(end), &self.inner.what())?;
        }
        self.offsets.push(self.inner.len());
        Ok(())
    }

    /// Reads a class tag, which must name the pointer's class or refer to its tag.
    fn class_tag(&mut self, r: &mut Reader) -> Result<(), DecodeError> {
        let tag = r.u32()?;
        if tag == NEW_CLASS_TAG {
            let len =
                r.0.iter()
                    .position(|&b| b == 0)
                    .ok_or("a class name without its end")?;
            let name = r.take(len + 1)?;
            let name = String::from_utf8_lossy(&name[..len]);
            if normalize(&name) != normalize(&self.class) {
                return Err(format!(
                    "an object of class {name} behind a pointer to {} (derived classes are not supported)",
                    self.class
                ));
            }
            self.tagged = true;
            return Ok(());
        }
        if tag & CLASS_MASK == 0 {
            return Err(format!("{tag:#x} is not a class tag"));
        }
        if !self.tagged || !self.refs_sound {
            return Err(format!(
                "a reference to a class tagged before (tag {tag:#x}) where {} was expected",
                self.class
            ));
        }
        Ok(())
    }
}

/// A sequence of objects streamed memberwise (the collection's version has the
/// memberwise bit): the items' class version (and checksum), the length, then each
/// member of all items in turn.
fn read_memberwise(seq: &mut Builder, r: &mut Reader) -> Result<(), DecodeError> {
    read_memberwise_version(seq, r)?;
    read_memberwise_items(seq, r)
}

/// The parts of a sequence of objects streamed memberwise that reading it fills.
struct MemberwiseParts<'a> {
    /// The sequence's offsets.
    offsets: &'a mut Vec<u64>,
    /// The objects' class.
    class: &'a ClassLayout,
    /// How many objects were read.
    len: &'a mut usize,
    /// The builders of the class's fields.
    fields: &'a mut [Builder],
}

/// The parts of `seq` when it is a sequence of objects of a class; an error for any
/// other layout (or a class the file does not describe).
fn memberwise_parts(seq: &mut Builder) -> Result<MemberwiseParts<'_>, DecodeError> {
    let Builder::Seq(offsets, item) = seq else {
        return Err(format!(
            "{} streamed memberwise is not supported",
            seq.what()
        ));
    };
    // What a sequence is called in errors (`Builder::what`), without formatting it for
    // every sequence read.
    const WHAT: &str = "an STL container";
    let unsupported = || format!("{WHAT} streamed memberwise is not supported");
    // Objects of a class with a layout are framed; those of a class the file does not
    // describe may be either.
    let (framed, item) = match &mut **item {
        Builder::Framed(object) => (true, &mut **object),
        item => (false, item),
    };
    match item {
        Builder::Class { class, len, fields } if framed => Ok(MemberwiseParts {
            offsets,
            class,
            len,
            fields,
        }),
        Builder::Unknown(name) => Err(format!("{WHAT} of objects of class {name}")),
        _ => Err(unsupported()),
    }
}

/// The version (and, for version 0, the checksum) of the class of the objects of a
/// sequence streamed memberwise, written once before their lengths and members.
fn read_memberwise_version(seq: &mut Builder, r: &mut Reader) -> Result<(), DecodeError> {
    let class = memberwise_parts(seq)?.class;
    let version = r.u16()?;
    check_version(r, &class.name, class.version, version, Some(0))
}

/// One sequence of objects streamed memberwise after their class version: the length,
/// then each member of all the objects in turn.
fn read_memberwise_items(seq: &mut Builder, r: &mut Reader) -> Result<(), DecodeError> {
    let MemberwiseParts {
        offsets,
        class,
        len,
        fields,
    } = memberwise_parts(seq)?;
    let n = r.count()?;
    if n > r.0.len() {
        return Err(format!("{n} items in {} bytes", r.0.len()));
    }
    read_members_of_all(&class.steps, &class.name, n, r, fields)?;
    *len += n;
    offsets.push(*len as u64);
    Ok(())
}

impl Builder {
    /// Reads the rest of an entry of a split collection's STL member whose objects were
    /// streamed memberwise (`self` the member's sequence): their class version once, then
    /// for each item of the collection, its sequence's length and members. Each item
    /// takes at least four bytes, so the loop ends.
    pub(crate) fn memberwise_per_item(&mut self, r: &mut Reader) -> Result<(), DecodeError> {
        read_memberwise_version(self, r)?;
        while !r.0.is_empty() {
            read_memberwise_items(self, r)?;
        }
        Ok(())
    }
}

/// Reads each member of `n` objects in turn, as a collection streamed memberwise holds
/// them: the `TObject` part of each object; a base class's members in place (no frame of
/// their own); an STL member's values in one frame with one version; numbers and objects
/// one after the other.
fn read_members_of_all(
    steps: &[MemberStep],
    class: &str,
    n: usize,
    r: &mut Reader,
    fields: &mut [Builder],
) -> Result<(), DecodeError> {
    for step in steps {
        match step {
            MemberStep::Field(i) => match &mut fields[*i] {
                Builder::Framed(inner) if !matches!(**inner, Builder::Class { .. }) && n > 0 => {
                    read_stl_member_of_all(inner, n, r)?
                }
                field => field.repeat(n, r)?,
            },
            MemberStep::Base { steps, .. } => read_members_of_all(steps, class, n, r, fields)?,
            // The `TObject` part of every object (each its own version, unique ID and
            // bits, and process ID when referenced), not fields of the record.
            MemberStep::TObject => {
                if n > r.0.len() {
                    return Err(format!("{n} objects in {} bytes", r.0.len()));
                }
                for _ in 0..n {
                    skip_tobject(r)?;
                }
            }
            _ => {
                return Err(format!(
                    "objects of class {class} streamed memberwise with counted arrays or \
                     references are not supported"
                ))
            }
        }
    }
    Ok(())
}

/// Checks an object's version against the layout it is read by (when the file
/// describes several), and skips the checksum of a class written without a version.
fn check_version(
    r: &mut Reader,
    class: &str,
    expected: Option<u16>,
    version: u16,
    end: Option<usize>,
) -> Result<(), DecodeError> {
    if version == 0 && end.is_some() {
        r.take(4)?; // the class checksum
        return Ok(());
    }
    match expected {
        Some(v) if v != version => Err(format!(
            "an object of class {class} written with version {version}, read by the layout of version {v}"
        )),
        _ => Ok(()),
    }
}

/// Reads an STL member (string or collection) of `n > 0` objects streamed memberwise: ROOT
/// 6.40 writes the values of all the objects in one frame with one version; files of older
/// ROOT frame each object's value. The first value reads alike either way: a frame that ends
/// after it while more follow is one frame per value.
fn read_stl_member_of_all(
    inner: &mut Builder,
    n: usize,
    r: &mut Reader,
) -> Result<(), DecodeError> {
    let read_one = |inner: &mut Builder, r: &mut Reader| -> Result<Option<usize>, DecodeError> {
        let (version, end) = r.frame()?;
        if version & MEMBERWISE != 0 {
            read_memberwise(inner, r)?;
        } else {
            inner.item(r)?;
        }
        Ok(end)
    };
    let end = read_one(inner, r)?;
    if n > 1 && end == Some(r.0.len()) {
        for _ in 1..n {
            let end = read_one(inner, r)?;
            r.end_frame(end, &inner.what())?;
        }
        return Ok(());
    }
    inner.repeat(n - 1, r)?;
    r.end_frame(end, &inner.what())
}

/// Reads a class's members by its steps into the record's field builders.
fn read_steps(
    steps: &[MemberStep],
    r: &mut Reader,
    fields: &mut [Builder],
) -> Result<(), DecodeError> {
    for step in steps {
        match step {
            MemberStep::Field(i) => fields[*i].item(r)?,
            MemberStep::Counted { field, counter } | MemberStep::Items { field, counter } => {
                let n = last_int(&fields[*counter]).ok_or("an array's counter is not a number")?;
                let flagged = matches!(step, MemberStep::Counted { .. });
                let n = if flagged && r.take(1)?[0] == 0 { 0 } else { n };
                let n = usize::try_from(n).map_err(|_| format!("an array of {n} values"))?;
                fields[*field].items(n, r)?;
            }
            MemberStep::Looped { field, counter } => {
                let n = last_int(&fields[*counter]).ok_or("an array's counter is not a number")?;
                let n = usize::try_from(n).map_err(|_| format!("an array of {n} objects"))?;
                let (_, end) = r.frame()?;
                fields[*field].items(n, r)?;
                r.end_frame(end, "an array of objects")?;
            }
            MemberStep::Triangle { field, rows, cols } => {
                let size = |i: usize| last_int(&fields[i]).ok_or("a matrix size is not a number");
                let (rows, cols) = (size(*rows)?.max(0) as i128, size(*cols)?.max(0) as i128);
                let k = rows.min(cols);
                let n = k * cols - k * (k - 1) / 2;
                let n = usize::try_from(n).map_err(|_| format!("a matrix of {n} values"))?;
                fields[*field].items(n, r)?;
            }
            MemberStep::Skip(n) => {
                r.take(*n)?;
            }
            MemberStep::Base {
                name,
                version,
                steps,
            } => {
                let (v, end) = r.frame()?;
                check_version(r, name, *version, v, end)?;
                read_steps(steps, r, fields)?;
                r.end_frame(end, &format!("base class {name}"))?;
            }
            MemberStep::TObject => {
                skip_tobject(r)?;
            }
            MemberStep::Ref(i) => {
                let id = skip_tobject(r)?;
                let Builder::Prim(Prim::U32, bytes) = &mut fields[*i] else {
                    return Err("a reference's field is not a uint32".into());
                };
                bytes.extend_from_slice(id);
                r.take(2)?; // the process ID
            }
        }
    }
    Ok(())
}

/// The last value an integer field read.
fn last_int(b: &Builder) -> Option<i64> {
    let Builder::Prim(p, bytes) = b else {
        return None;
    };
    let last = bytes.get(bytes.len().checked_sub(p.size())?..)?;
    Some(match p {
        Prim::I8 => last[0] as i8 as i64,
        Prim::U8 | Prim::Bool => last[0] as i64,
        Prim::I16 => i16::from_be_bytes(last.try_into().ok()?) as i64,
        Prim::U16 => u16::from_be_bytes(last.try_into().ok()?) as i64,
        Prim::I32 => i32::from_be_bytes(last.try_into().ok()?) as i64,
        Prim::U32 => u32::from_be_bytes(last.try_into().ok()?) as i64,
        Prim::I64 => i64::from_be_bytes(last.try_into().ok()?),
        Prim::U64 => u64::from_be_bytes(last.try_into().ok()?) as i64,
        _ => return None,
    })
}
