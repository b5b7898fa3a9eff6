//! The batch of an object branch split into the batches of its layout's branches: each
//! branch's entries taken from the member (or base class, count, whole object) its part
//! of the layout stands for.

use std::ops::Range;
use std::sync::Arc;

use crate::array::ColumnData;
use crate::error::{Error, Result};
use crate::ttree::write::branches::branch::BranchSpec;
use crate::ttree::write::branches::class::ClassSpec;
use crate::ttree::write::branches::split::PartSource;
use crate::ttree::write::encoding::column::Column;
use crate::ttree::write::encoding::object_stream::{write_base, MemberData, ObjectData};

/// An object branch's batch, checked against its class.
pub(in crate::ttree::write) struct ObjectColumn<'b, 'a> {
    objects: ObjectData<'b, 'a>,
    /// For a `std::vector` of objects: each entry's items.
    offsets: Option<&'a [u64]>,
}

/// One branch's share of an object branch's batch.
pub(in crate::ttree::write) struct PartColumn<'b, 'a> {
    entries: usize,
    offsets: Option<&'a [u64]>,
    data: PartData<'b, 'a>,
}

enum PartData<'b, 'a> {
    Nothing,
    Counts,
    Member(MemberData<'b, 'a>),
    Base {
        class: Arc<ClassSpec>,
        members: Vec<MemberData<'b, 'a>>,
    },
    Object(ObjectData<'b, 'a>),
    Framed(ObjectData<'b, 'a>),
    Vector(ObjectData<'b, 'a>),
    FramedItems(ObjectData<'b, 'a>),
}

impl<'b, 'a> ObjectColumn<'b, 'a> {
    /// Checks the batch of branch `name`: a record of the class's members per entry, or
    /// with `vector` a list of them.
    pub fn of(
        name: &str,
        class: &Arc<ClassSpec>,
        vector: bool,
        data: &'b ColumnData<'a>,
    ) -> Result<Self> {
        let what = format!("branch {name}");
        if !vector {
            let objects = ObjectData::of(class, data, &what)?;
            return Ok(ObjectColumn {
                objects,
                offsets: None,
            });
        }
        let ColumnData::List { offsets, items } = data else {
            return Err(Error::InvalidArgument(format!(
                "extend: {what}: a list of records per entry is needed, not {}",
                data.kind()
            )));
        };
        let objects = ObjectData::in_lists(class, offsets, items, &what)?;
        Ok(ObjectColumn {
            objects,
            offsets: Some(offsets),
        })
    }

    /// Number of entries.
    pub fn entries(&self) -> usize {
        match self.offsets {
            Some(o) => o.len() - 1,
            None => self.objects.len,
        }
    }

    /// The batch of `spec`, one of the branches of this branch's layout.
    pub fn part(&self, spec: &BranchSpec) -> Column<'b, 'a> {
        let part = spec.class_part().expect("an object branch's parts");
        let data = match &part.source {
            PartSource::Nothing => PartData::Nothing,
            PartSource::Counts => PartData::Counts,
            PartSource::Member { path, .. } => {
                let member = self.objects.member(path).clone();
                if let (MemberData::Numbers { data, width: 1 }, None) = (&member, self.offsets) {
                    return Column::Fixed(vec![(*data, 1)]);
                }
                PartData::Member(member)
            }
            PartSource::Base { path, first, class } => {
                let holder = match path.as_slice() {
                    [] => &self.objects,
                    path => match self.objects.member(path) {
                        MemberData::Object(o) => o,
                        _ => unreachable!("a base's path leads to an object"),
                    },
                };
                let n = class.member_count();
                PartData::Base {
                    class: class.clone(),
                    members: holder.members[*first..first + n].to_vec(),
                }
            }
            PartSource::MemberCounts { path } => {
                let MemberData::Objects { offsets, .. } = self.objects.member(path) else {
                    unreachable!("the counts of a std::vector member")
                };
                return Column::Object(PartColumn {
                    entries: self.entries(),
                    offsets: Some(offsets),
                    data: PartData::Counts,
                });
            }
            PartSource::ItemMember { vector, path } => {
                let MemberData::Objects { offsets, items } = self.objects.member(vector) else {
                    unreachable!("the items of a std::vector member")
                };
                return Column::Object(PartColumn {
                    entries: self.entries(),
                    offsets: Some(offsets),
                    data: PartData::Member(items.member(path).clone()),
                });
            }
            PartSource::Object => PartData::Object(self.objects.clone()),
            PartSource::Framed => PartData::Framed(self.objects.clone()),
            PartSource::Vector => PartData::Vector(self.objects.clone()),
            PartSource::FramedItems => PartData::FramedItems(self.objects.clone()),
        };
        Column::Object(PartColumn {
            entries: self.entries(),
            offsets: self.offsets,
            data,
        })
    }
}

impl PartColumn<'_, '_> {
    pub fn entries(&self) -> usize {
        self.entries
    }

    /// The items of entry `e` (the entry itself outside a `std::vector`).
    fn items(&self, e: usize) -> Range<usize> {
        match self.offsets {
            Some(o) => o[e] as usize..o[e + 1] as usize,
            None => e..e + 1,
        }
    }

    /// Bytes of the batch's entries as baskets hold them, about (with each entry's place
    /// in the entry-offset table).
    pub fn bytes(&self) -> usize {
        let data = match &self.data {
            PartData::Nothing => 0,
            PartData::Counts => 4 * self.entries,
            PartData::Member(m) => m.bytes(),
            PartData::Base { members, .. } => {
                members.iter().map(MemberData::bytes).sum::<usize>() + 10 * self.entries
            }
            PartData::Object(o)
            | PartData::Framed(o)
            | PartData::Vector(o)
            | PartData::FramedItems(o) => o.bytes() + 16 * self.entries,
        };
        data + 4 * self.entries
    }

    /// The number of items of entry `e`, for the counts of a `std::vector`.
    pub fn count(&self, e: usize) -> Option<i64> {
        match self.data {
            PartData::Counts => Some(self.items(e).len() as i64),
            _ => None,
        }
    }

    /// Appends entry `e` as ROOT streams it in this branch.
    pub fn append_entry(&self, e: usize, out: &mut Vec<u8>) -> Result<()> {
        match &self.data {
            PartData::Nothing => {}
            PartData::Counts => {
                out.extend_from_slice(&(self.items(e).len() as i32).to_be_bytes());
            }
            PartData::Member(m) => m.write_range(self.items(e), out)?,
            PartData::Base { class, members } => {
                for i in self.items(e) {
                    write_base(class, members, i, out)?;
                }
            }
            PartData::Object(o) => o.write_members(e, out)?,
            PartData::Framed(o) => o.write_framed(e, out)?,
            PartData::Vector(o) => o.write_vector(self.items(e), out)?,
            PartData::FramedItems(o) => o.write_framed_vector(self.items(e), out)?,
        }
        Ok(())
    }
}
