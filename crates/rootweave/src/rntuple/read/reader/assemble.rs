//! From decoded slots to arrays: cluster-relative offsets made global and checked,
//! variant tags, and the arrays of nested fields cut to the requested entries.

use super::{GlobalOffsets, RNTupleReader, SlotRead};
use crate::array::buffer::Buffer;
use crate::array::{Array, LeafType};
use crate::error::Result;
use crate::rntuple::read::plan::{Kind, Node};

impl RNTupleReader {
    /// Builds the array of `node` from the decoded slot buffers (consumed in slot order).
    /// `len` is the number of entries the array must have, where the parent knows it.
    pub(super) fn assemble(
        &self,
        node: &Node,
        len: Option<usize>,
        slots: &[SlotRead],
        buffers: &mut [Option<Buffer>],
        next: &mut usize,
    ) -> Result<Array> {
        let mut take = |next: &mut usize| -> (usize, Buffer) {
            let i = *next;
            *next += 1;
            (i, buffers[i].take().expect("each slot is used once"))
        };
        let field = node.field;
        Ok(match &node.kind {
            Kind::Leaf(_) => Array::from(take(next).1),
            Kind::Bitset(n) => Array::Fixed {
                size: *n,
                values: Box::new(Array::from(take(next).1)),
            },
            Kind::String | Kind::Streamer => {
                let (i, index) = take(next);
                let offsets = self.global_offsets(field, &slots[i], index)?;
                let (_, bytes) = take(next);
                let Buffer::UInt8(bytes) = bytes else {
                    unreachable!("byte slot")
                };
                self.check_end(field, &offsets, bytes.len())?;
                if matches!(node.kind, Kind::String) {
                    Array::String { offsets, bytes }
                } else {
                    Array::List {
                        offsets,
                        values: Box::new(Array::UInt8(bytes)),
                    }
                }
            }
            Kind::Cardinality(t) => {
                let (i, index) = take(next);
                let offsets = self.global_offsets(field, &slots[i], index)?;
                let sizes = offsets.windows(2).map(|w| w[1] - w[0]);
                match t {
                    LeafType::UInt32 => Array::UInt32(sizes.map(|s| s as u32).collect()),
                    _ => Array::UInt64(sizes.collect()),
                }
            }
            Kind::List(child) | Kind::Optional(child) => {
                let (i, index) = take(next);
                let offsets = self.global_offsets(field, &slots[i], index)?;
                let items = offsets.last().copied().unwrap_or(0) as usize;
                let values = self.assemble(child, Some(items), slots, buffers, next)?;
                self.check_end(field, &offsets, values.len())?;
                if matches!(node.kind, Kind::Optional(_)) {
                    if offsets.windows(2).any(|w| w[1] - w[0] > 1) {
                        return Err(self
                            .corrupt(field, "an optional value holds more than one item".into()));
                    }
                    Array::Optional {
                        offsets,
                        values: Box::new(values),
                    }
                } else {
                    Array::List {
                        offsets,
                        values: Box::new(values),
                    }
                }
            }
            Kind::Fixed(n, child) => {
                let values = self.assemble(child, len.map(|l| l * n), slots, buffers, next)?;
                if values.len() % (*n).max(1) != 0 {
                    return Err(
                        self.corrupt(field, "array items are not a multiple of its size".into())
                    );
                }
                Array::Fixed {
                    size: *n,
                    values: Box::new(values),
                }
            }
            Kind::Wrapper(child) => self.assemble(child, len, slots, buffers, next)?,
            Kind::Record(members) => {
                let mut fields = Vec::with_capacity(members.len());
                let mut bases = Vec::new();
                for m in members {
                    let array = self.assemble(m, len, slots, buffers, next)?;
                    if m.name.starts_with(':') {
                        bases.push((m.type_name.clone(), array));
                    } else {
                        fields.push((m.name.clone(), array));
                    }
                }
                flatten_bases(&mut fields, bases);
                let len = fields.first().map(|(_, a)| a.len()).or(len).unwrap_or(0);
                if fields.iter().any(|(_, a)| a.len() != len) {
                    return Err(self.corrupt(field, "record members of different lengths".into()));
                }
                Array::Record { len, fields }
            }
            Kind::Variant(alternatives) => {
                let (i, switch) = take(next);
                let Buffer::Switch(mut index, tags) = switch else {
                    unreachable!("switch slot")
                };
                let mut arrays = Vec::with_capacity(alternatives.len());
                for (k, a) in alternatives.iter().enumerate() {
                    let count = tags.iter().filter(|&&t| t as usize == k + 1).count();
                    arrays.push(self.assemble(a, Some(count), slots, buffers, next)?);
                }
                let tags = self.variant_tags(field, &slots[i], &mut index, tags, &arrays)?;
                Array::Variant {
                    tags,
                    index,
                    alternatives: arrays,
                }
            }
        })
    }

    /// Turns cluster-relative offsets (after a leading 0) into offsets from the first
    /// cluster read, checking that they never decrease.
    pub(super) fn global_offsets(
        &self,
        field: u32,
        slot: &SlotRead,
        index: Buffer,
    ) -> Result<Vec<u64>> {
        let Buffer::UInt64(mut offsets) = index else {
            unreachable!("index slot")
        };
        if let Some(global) = &slot.global {
            if made_global(global, slot, &mut offsets) {
                return Ok(offsets);
            }
        }
        let mut base = 0u64;
        let mut at = 1usize;
        for (k, &count) in slot.counts.iter().enumerate() {
            let part = &mut offsets[at..at + count as usize];
            // Offsets count from the cluster's first item; a read of part of the cluster
            // starts at a later one.
            let first = slot.rebase.get(k).copied().unwrap_or(0);
            let mut previous = first;
            for v in part.iter_mut() {
                if *v < previous {
                    return Err(
                        self.corrupt(field, format!("collection offsets decrease in cluster {k}"))
                    );
                }
                previous = *v;
                *v = (*v - first).checked_add(base).ok_or_else(|| {
                    self.corrupt(field, format!("collection offsets overflow in cluster {k}"))
                })?;
            }
            base = base.saturating_add(previous - first);
            at += count as usize;
        }
        Ok(offsets)
    }

    pub(super) fn check_end(&self, field: u32, offsets: &[u64], items: usize) -> Result<()> {
        let end = offsets.last().copied().unwrap_or(0);
        if end != items as u64 {
            return Err(self.corrupt(
                field,
                format!("collection offsets end at {end} but there are {items} items"),
            ));
        }
        Ok(())
    }

    /// Checks switch tags and makes the indices global (per alternative).
    pub(super) fn variant_tags(
        &self,
        field: u32,
        slot: &SlotRead,
        index: &mut [u64],
        tags: Vec<u32>,
        alternatives: &[Array],
    ) -> Result<Vec<u8>> {
        let n = alternatives.len();
        let mut base = vec![0u64; n];
        let mut out = Vec::with_capacity(tags.len());
        let mut at = 0usize;
        for &count in &slot.counts {
            let mut in_cluster = vec![0u64; n];
            for i in at..at + count as usize {
                let tag = tags[i] as usize;
                if tag > n {
                    return Err(
                        self.corrupt(field, format!("variant tag {tag} of {n} alternatives"))
                    );
                }
                if tag > 0 {
                    let a = tag - 1;
                    let global = index[i].saturating_add(base[a]);
                    if global >= alternatives[a].len() as u64 {
                        return Err(self.corrupt(field, "variant index out of range".into()));
                    }
                    in_cluster[a] = in_cluster[a].max(index[i] + 1);
                    index[i] = global;
                } else {
                    index[i] = 0;
                }
                out.push(tag as u8);
            }
            for a in 0..n {
                base[a] += in_cluster[a];
            }
            at += count as usize;
        }
        Ok(out)
    }
}

/// True if the field is one collection (a list, an optional, a string) whose items have a
/// fixed number of elements each.
pub(super) fn one_collection(node: &Node) -> bool {
    match &node.kind {
        Kind::List(c) | Kind::Optional(c) => fixed_size(c),
        Kind::String | Kind::Streamer => true,
        _ => false,
    }
}

/// True if the field has a fixed number of elements per entry in every column (no
/// collection, string or variant inside it).
pub(super) fn fixed_size(node: &Node) -> bool {
    match &node.kind {
        Kind::Leaf(_) | Kind::Bitset(_) => true,
        Kind::Fixed(_, c) | Kind::Wrapper(c) => fixed_size(c),
        Kind::Record(members) => members.iter().all(fixed_size),
        _ => false,
    }
}

pub(super) fn project(node: Node, path: &[&str]) -> Option<Node> {
    let Some((first, rest)) = path.split_first() else {
        return Some(node);
    };
    let Node {
        field,
        name,
        type_name,
        kind,
        slots,
    } = node;
    let rebuild = |kind| Node {
        field,
        name: name.clone(),
        type_name: type_name.clone(),
        kind,
        slots: slots.clone(),
    };
    match kind {
        Kind::List(c) if c.name == *first => {
            Some(rebuild(Kind::List(Box::new(project(*c, rest)?))))
        }
        Kind::Optional(c) if c.name == *first => {
            Some(rebuild(Kind::Optional(Box::new(project(*c, rest)?))))
        }
        Kind::Fixed(n, c) if c.name == *first => {
            Some(rebuild(Kind::Fixed(n, Box::new(project(*c, rest)?))))
        }
        Kind::Wrapper(c) if c.name == *first => project(*c, rest),
        Kind::Record(members) => {
            let member = members.into_iter().find(|m| m.name == *first)?;
            project(member, rest)
        }
        _ => None,
    }
}

/// Base classes (subfields `:_0`, `:_1`, ...) are flattened into the derived record:
/// their members follow the record's own, and a member name that occurs more than once
/// is prefixed by the base class that brings it (`Base::name`).
pub(super) fn flatten_bases(fields: &mut Vec<(String, Array)>, bases: Vec<(String, Array)>) {
    let mut inherited = Vec::new();
    for (base, array) in bases {
        if let Array::Record {
            fields: members, ..
        } = array
        {
            inherited.extend(members.into_iter().map(|(n, a)| (base.clone(), n, a)));
        }
    }
    let count = |name: &str, fields: &[(String, Array)], inherited: &[(String, String, Array)]| {
        fields.iter().filter(|(n, _)| n == name).count()
            + inherited.iter().filter(|(_, n, _)| n == name).count()
    };
    let names: Vec<bool> = inherited
        .iter()
        .map(|(_, n, _)| count(n, fields, &inherited) > 1)
        .collect();
    for ((base, name, array), clash) in inherited.into_iter().zip(names) {
        let name = if clash {
            format!("{base}::{name}")
        } else {
            name
        };
        fields.push((name, array));
    }
}

/// Completes offsets whose pages were decoded with their clusters' bases added (see
/// `GlobalOffsets`): fills the gaps no page filled and checks the seams between pages and
/// clusters. If a seam does not hold (a corrupt or unusual file), the bases are taken off
/// again, the offsets are cluster-relative as without them, and `false` is returned.
fn made_global(global: &GlobalOffsets, slot: &SlotRead, offsets: &mut [u64]) -> bool {
    let shift = |k: usize| global.bases[k].wrapping_sub(slot.rebase.get(k).copied().unwrap_or(0));
    for (gap, k) in &global.gaps {
        offsets[gap.clone()].fill(shift(*k));
    }
    let seams_rise = global
        .starts
        .iter()
        .chain(global.gaps.iter().map(|(gap, _)| &gap.start))
        .all(|&at| at == 0 || offsets[at] >= offsets[at - 1]);
    let clusters_end_at_their_bases = global
        .spans
        .iter()
        .enumerate()
        .all(|(k, span)| span.is_empty() || offsets[span.end - 1] == global.bases[k + 1]);
    if seams_rise && clusters_end_at_their_bases {
        return true;
    }
    for (k, span) in global.spans.iter().enumerate() {
        let shift = shift(k);
        offsets[span.clone()]
            .iter_mut()
            .for_each(|v| *v = v.wrapping_sub(shift));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::buffer::Target;

    /// Two clusters of offsets (3 and 2 entries; 5 and 4 items), read whole.
    fn slot(global: GlobalOffsets) -> SlotRead {
        SlotRead {
            target: Target::Index,
            counts: vec![3, 2],
            zeros: Vec::new(),
            rebase: Vec::new(),
            global: Some(global),
        }
    }

    fn global(gaps: Vec<(std::ops::Range<usize>, usize)>, starts: Vec<usize>) -> GlobalOffsets {
        GlobalOffsets {
            bases: vec![0, 5, 9],
            spans: vec![1..4, 4..6],
            starts,
            gaps,
        }
    }

    #[test]
    fn offsets_decoded_with_their_bases_are_global_when_the_seams_hold() {
        let g = global(Vec::new(), vec![1, 4]);
        // Cluster 1 held [1, 4], decoded with its base 5 added.
        let mut offsets = vec![0, 2, 3, 5, 6, 9];
        assert!(made_global(&g, &slot(g.clone()), &mut offsets));
        assert_eq!(offsets, [0, 2, 3, 5, 6, 9]);
    }

    #[test]
    fn a_deferred_gap_takes_its_clusters_base() {
        // Cluster 1's first entry has no page (a column added later): an empty list.
        let g = global(vec![(4..5, 1)], vec![1, 5]);
        let mut offsets = vec![0, 2, 3, 5, 0, 9];
        assert!(made_global(&g, &slot(g.clone()), &mut offsets));
        assert_eq!(offsets, [0, 2, 3, 5, 5, 9]);
    }

    #[test]
    fn a_seam_that_does_not_hold_gives_back_cluster_relative_offsets() {
        let g = global(Vec::new(), vec![1, 4]);
        // Cluster 0 ends at 4 items, not the 5 its items said: the bases are taken off.
        let mut offsets = vec![0, 2, 3, 4, 6, 9];
        assert!(!made_global(&g, &slot(g.clone()), &mut offsets));
        assert_eq!(offsets, [0, 2, 3, 4, 1, 4]);
        // A page of cluster 1 starting below the end of cluster 0.
        let mut offsets = vec![0, 2, 3, 5, 4, 9];
        assert!(!made_global(&g, &slot(g.clone()), &mut offsets));
        assert_eq!(offsets, [0, 2, 3, 5, u64::MAX, 4]);
    }
}
