//! Objects of user classes streamed as ROOT streams them, from columnar batches: a batch of
//! a class checked into a view of its members, then one object written member by member
//! (base classes and object members framed by a byte count and their version), or the
//! objects of a `std::vector` written member-wise (each member of every object in turn),
//! as ROOT writes collections of classes.

use std::sync::Arc;

use crate::array::{ColumnData, LeafType};
use crate::error::{Error, Result};
use crate::ttree::write::branches::class::{ClassSpec, MemberType};
use crate::ttree::write::encoding::column::{
    append_be, begin_collection, end_collection, flat_len, Strings,
};

/// The version ROOT writes before a `std::string` or `std::vector` member's contents.
const STL_MEMBER_VERSION: u16 = 10;
/// The bit of a collection's version that says its items are streamed member-wise.
const MEMBER_WISE: u16 = 0x4000;

/// One member's values in a batch, checked against the member's type.
#[derive(Clone)]
pub(in crate::ttree::write) enum MemberData<'b, 'a> {
    /// Numbers, `width` per value (an array member's values flat).
    Numbers {
        data: &'b ColumnData<'a>,
        width: usize,
    },
    /// `std::string` values.
    Strings(Strings<'a>),
    /// `std::vector` values: each value's numbers.
    Vector {
        offsets: &'a [u64],
        items: &'b ColumnData<'a>,
    },
    /// Objects of a class.
    Object(ObjectData<'b, 'a>),
    /// `std::vector`s of objects of a class: each value's items.
    Objects {
        offsets: &'a [u64],
        items: ObjectData<'b, 'a>,
    },
}

/// Objects of a class in a batch: one [`MemberData`] per member of
/// [`ClassSpec::all_members`].
#[derive(Clone)]
pub(in crate::ttree::write) struct ObjectData<'b, 'a> {
    pub class: Arc<ClassSpec>,
    pub members: Vec<MemberData<'b, 'a>>,
    /// Number of objects.
    pub len: usize,
}

impl<'b, 'a> ObjectData<'b, 'a> {
    /// Checks `data` against `class`: a record of one batch per base class (a record of
    /// that class) then one per data member; `what` names the batch in errors. The view
    /// holds the members flat, the bases' first.
    pub fn of(class: &Arc<ClassSpec>, data: &'b ColumnData<'a>, what: &str) -> Result<Self> {
        let parts = class.bases.len() + class.members.len();
        let columns = match data {
            ColumnData::Record(columns) if columns.len() == parts => columns,
            other => {
                return Err(bad(
                    what,
                    format!(
                        "a record of {} base classes and {} members of class {} is needed, not {}",
                        class.bases.len(),
                        class.members.len(),
                        class.name,
                        match other {
                            ColumnData::Record(c) => format!("a record of {}", c.len()),
                            other => other.kind().to_string(),
                        }
                    ),
                ))
            }
        };
        let mut views = Vec::with_capacity(class.member_count());
        let mut len = None;
        let mut agree = |n: usize, what: &str| match len {
            Some(l) if l != n => Err(bad(what, format!("{n} values, the members before it {l}"))),
            _ => {
                len = Some(n);
                Ok(())
            }
        };
        for (k, base) in class.bases.iter().enumerate() {
            let inner = format!("{what}.:_{k}");
            let b = ObjectData::of(base, &columns[k], &inner)?;
            agree(b.len, &inner)?;
            views.extend(b.members);
        }
        for (m, column) in class.members.iter().zip(&columns[class.bases.len()..]) {
            let inner = format!("{what}.{}", m.name);
            let (view, n) = MemberData::of(&m.ty, column, &inner)?;
            agree(n, &inner)?;
            views.push(view);
        }
        Ok(ObjectData {
            class: class.clone(),
            members: views,
            len: len.unwrap_or(0),
        })
    }

    /// Checks `items` against `class` as the items of lists ending at `offsets` (each list
    /// under 2^31 items, as ROOT counts them).
    pub fn in_lists(
        class: &Arc<ClassSpec>,
        offsets: &[u64],
        items: &'b ColumnData<'a>,
        what: &str,
    ) -> Result<Self> {
        let objects = ObjectData::of(class, items, what)?;
        if !covers(offsets, objects.len) {
            let n = objects.len;
            return Err(bad(
                what,
                format!("offsets that do not cover its {n} items"),
            ));
        }
        if offsets.windows(2).any(|w| w[1] - w[0] > i32::MAX as u64) {
            return Err(bad(what, "an entry of over 2^31 items".into()));
        }
        Ok(objects)
    }

    /// The view of the member at `path` (indices into each class's members, down nested
    /// objects).
    pub fn member(&self, path: &[usize]) -> &MemberData<'b, 'a> {
        let m = &self.members[path[0]];
        match (m, &path[1..]) {
            (_, []) => m,
            (MemberData::Object(o), rest) => o.member(rest),
            _ => unreachable!("paths follow the class layout"),
        }
    }

    /// Appends object `i`'s members (without a header of its own): each base class framed
    /// with its version, then the class's members.
    pub fn write_members(&self, i: usize, out: &mut Vec<u8>) -> Result<()> {
        write_members(&self.class, &self.members, i, out)
    }

    /// Appends object `i` framed: its byte count, its version header, its members.
    pub fn write_framed(&self, i: usize, out: &mut Vec<u8>) -> Result<()> {
        write_base(&self.class, &self.members, i, out)
    }

    /// Appends objects `range` as a `std::vector` of the class, object-wise (each item
    /// framed, as collections of classes with their own streamers are written).
    pub fn write_framed_vector(
        &self,
        range: std::ops::Range<usize>,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let at = begin_collection(range.len(), out);
        for i in range {
            self.write_framed(i, out)?;
        }
        end_collection(at, out)
    }

    /// Appends objects `range` as a `std::vector` of the class, member-wise.
    pub fn write_vector(&self, range: std::ops::Range<usize>, out: &mut Vec<u8>) -> Result<()> {
        let at = out.len();
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&(STL_MEMBER_VERSION | MEMBER_WISE).to_be_bytes());
        self.class.version_header(out);
        out.extend_from_slice(&(range.len() as u32).to_be_bytes());
        // No items: no members either (not even their frames).
        if !range.is_empty() {
            for m in &self.members {
                m.write_range(range.clone(), out)?;
            }
        }
        end_collection(at, out)
    }

    /// Bytes the objects take streamed, about.
    pub fn bytes(&self) -> usize {
        self.members.iter().map(MemberData::bytes).sum::<usize>() + 10 * self.len
    }
}

/// Appends the members `members` of `class` for object `i`: bases framed, then the own.
fn write_members(
    class: &ClassSpec,
    members: &[MemberData],
    i: usize,
    out: &mut Vec<u8>,
) -> Result<()> {
    let mut at = 0;
    for base in &class.bases {
        let n = base.member_count();
        write_base(base, &members[at..at + n], i, out)?;
        at += n;
    }
    for m in &members[at..] {
        m.write(i, out)?;
    }
    Ok(())
}

/// Appends a base class part of object `i` (or a whole object of class `base`), framed with
/// the class's version.
pub(in crate::ttree::write) fn write_base(
    base: &ClassSpec,
    members: &[MemberData],
    i: usize,
    out: &mut Vec<u8>,
) -> Result<()> {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    base.version_header(out);
    write_members(base, members, i, out)?;
    end_collection(at, out)
}

impl<'b, 'a> MemberData<'b, 'a> {
    /// Checks a member's batch against its type; gives the view and its number of values.
    fn of(ty: &MemberType, data: &'b ColumnData<'a>, what: &str) -> Result<(Self, usize)> {
        match ty {
            MemberType::Number(t) => {
                let data = numbers(*t, data, what)?;
                Ok((MemberData::Numbers { data, width: 1 }, flat_len(data)))
            }
            MemberType::Array(t, dims) => {
                let mut data = data;
                let mut depth = 0;
                while let ColumnData::Array(items) = data {
                    if depth == dims.len() {
                        break;
                    }
                    data = items;
                    depth += 1;
                }
                let data = numbers(*t, data, what)?;
                let width: usize = dims.iter().product();
                let n = flat_len(data);
                if n % width != 0 {
                    return Err(bad(what, format!("{n} values, not arrays of {width}")));
                }
                Ok((MemberData::Numbers { data, width }, n / width))
            }
            MemberType::String => {
                let s = Strings::of(data)
                    .filter(Strings::check)
                    .ok_or_else(|| bad(what, format!("strings are needed, not {}", data.kind())))?;
                Ok((MemberData::Strings(s), s.len()))
            }
            MemberType::Vector(t) => {
                let ColumnData::List { offsets, items } = data else {
                    return Err(bad(what, format!("a list is needed, not {}", data.kind())));
                };
                let items = numbers(*t, items, what)?;
                if !covers(offsets, flat_len(items)) {
                    return Err(bad(what, "offsets that do not cover its items".into()));
                }
                let n = offsets.len().saturating_sub(1);
                Ok((MemberData::Vector { offsets, items }, n))
            }
            MemberType::Object(c) => {
                let o = ObjectData::of(c, data, what)?;
                let n = o.len;
                Ok((MemberData::Object(o), n))
            }
            MemberType::Objects(c) => {
                let ColumnData::List { offsets, items } = data else {
                    return Err(bad(
                        what,
                        format!("a list of records is needed, not {}", data.kind()),
                    ));
                };
                let items = ObjectData::in_lists(c, offsets, items, what)?;
                let n = offsets.len().saturating_sub(1);
                Ok((MemberData::Objects { offsets, items }, n))
            }
        }
    }

    /// Appends value `i` as ROOT streams the member inside an object: numbers as they are;
    /// strings and vectors framed with their version; objects framed with the class's
    /// version (or checksum).
    pub fn write(&self, i: usize, out: &mut Vec<u8>) -> Result<()> {
        match self {
            MemberData::Numbers { data, width } => append_be(data, i * width..(i + 1) * width, out),
            MemberData::Strings(s) => {
                let at = out.len();
                out.extend_from_slice(&[0; 4]);
                out.extend_from_slice(&STL_MEMBER_VERSION.to_be_bytes());
                crate::ttree::write::encoding::column::append_string(s.get(i), out);
                end_collection(at, out)?;
            }
            MemberData::Vector { offsets, items } => {
                let r = offsets[i] as usize..offsets[i + 1] as usize;
                let at = begin_collection(r.len(), out);
                append_be(items, r, out);
                end_collection(at, out)?;
            }
            MemberData::Object(o) => o.write_framed(i, out)?,
            MemberData::Objects { offsets, items } => {
                items.write_vector(offsets[i] as usize..offsets[i + 1] as usize, out)?
            }
        }
        Ok(())
    }

    /// Appends values `range` as ROOT streams a member of every item of a collection
    /// (member-wise, or a split `std::vector`'s member branch): numbers one after the
    /// other; strings' and vectors' contents in one frame with one version (a frame even
    /// for no items); objects each framed.
    pub fn write_range(&self, range: std::ops::Range<usize>, out: &mut Vec<u8>) -> Result<()> {
        match self {
            MemberData::Numbers { data, width } => {
                append_be(data, range.start * width..range.end * width, out)
            }
            MemberData::Strings(s) => {
                let at = out.len();
                out.extend_from_slice(&[0; 4]);
                out.extend_from_slice(&STL_MEMBER_VERSION.to_be_bytes());
                for i in range {
                    crate::ttree::write::encoding::column::append_string(s.get(i), out);
                }
                end_collection(at, out)?;
            }
            MemberData::Vector { offsets, items } => {
                let at = out.len();
                out.extend_from_slice(&[0; 4]);
                out.extend_from_slice(&STL_MEMBER_VERSION.to_be_bytes());
                for i in range {
                    let r = offsets[i] as usize..offsets[i + 1] as usize;
                    out.extend_from_slice(&(r.len() as u32).to_be_bytes());
                    append_be(items, r, out);
                }
                end_collection(at, out)?;
            }
            // Objects each framed; `std::vector`s of objects are never items of a collection
            // (the class check refuses them), so one at a time too.
            MemberData::Object(_) | MemberData::Objects { .. } => {
                for i in range {
                    self.write(i, out)?;
                }
            }
        }
        Ok(())
    }

    /// Bytes the values take streamed, about.
    pub fn bytes(&self) -> usize {
        match self {
            MemberData::Numbers { data, .. } => {
                crate::ttree::write::encoding::column::data_bytes(data)
            }
            MemberData::Strings(s) => s.total_bytes() + 11 * s.len(),
            MemberData::Vector { offsets, items } => {
                crate::ttree::write::encoding::column::data_bytes(items) + 10 * offsets.len()
            }
            MemberData::Object(o) => o.bytes(),
            MemberData::Objects { offsets, items } => items.bytes() + 16 * offsets.len(),
        }
    }
}

/// `data` if it holds numbers of type `t`.
fn numbers<'b, 'a>(
    t: LeafType,
    data: &'b ColumnData<'a>,
    what: &str,
) -> Result<&'b ColumnData<'a>> {
    crate::ttree::write::encoding::column::numbers_of(t, data).ok_or_else(|| {
        bad(
            what,
            format!("{t:?} values are needed, not {}", data.kind()),
        )
    })
}

/// Whether `offsets` start at 0, never decrease and end at `n`.
pub(in crate::ttree::write) fn covers(offsets: &[u64], n: usize) -> bool {
    offsets.first() == Some(&0)
        && offsets.windows(2).all(|p| p[0] <= p[1])
        && offsets.last() == Some(&(n as u64))
}

fn bad(what: &str, message: String) -> Error {
    Error::InvalidArgument(format!("extend: {what}: {message}"))
}
