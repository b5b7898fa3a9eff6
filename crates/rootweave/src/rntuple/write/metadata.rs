//! Serialization of RNTuple metadata: header, page lists and footer.

use super::schema::Schema;
use crate::rntuple::format::serialize::{EnvelopeType, Serializer};
use crate::rntuple::format::{ClusterGroupInfo, ClusterInfo};

/// Serializes the header envelope of `schema`. Returns the envelope and its checksum.
pub fn serialize_header(
    name: &str,
    description: &str,
    writer: &str,
    schema: &Schema,
) -> (Vec<u8>, u64) {
    let mut s = Serializer::new();
    s.u64(0).string(name).string(description).string(writer);
    let fields = schema.field_descriptors();
    let projected = schema.projected();
    s.begin_list((fields.len() + projected.len()) as u32);
    let stored = fields.iter().map(|f| (f, None));
    for (f, source) in stored.chain(projected.iter().map(|p| (&p.field, Some(p.source)))) {
        s.begin_record();
        let mut flags: u16 = if f.array_size.is_some() { 0x01 } else { 0 };
        if source.is_some() {
            flags |= 0x02;
        }
        s.u32(0)
            .u32(f.type_version)
            .u32(f.parent)
            .u16(f.role as u16)
            .u16(flags)
            .string(&f.name)
            .string(&f.type_name)
            .string("")
            .string("");
        if let Some(n) = f.array_size {
            s.u64(n);
        }
        if let Some(source) = source {
            s.u32(source);
        }
        s.end_frame();
    }
    s.end_frame();
    let columns = schema.column_descriptors();
    s.begin_list(columns.len() as u32);
    for c in columns {
        s.begin_record()
            .u16(c.ty.id())
            .u16(c.ty.bits_on_storage())
            .u32(c.field)
            .u16(0)
            .u16(0)
            .end_frame();
    }
    s.end_frame();
    let aliases: Vec<(u32, u32)> = projected
        .iter()
        .flat_map(|p| p.aliases.iter().map(|&c| (c, p.field.id)))
        .collect();
    s.begin_list(aliases.len() as u32);
    for (physical, field) in aliases {
        s.begin_record().u32(physical).u32(field).end_frame();
    }
    s.end_frame();
    s.begin_list(0).end_frame(); // extra type information
    s.into_envelope(EnvelopeType::Header)
}

/// Serializes the page list envelope of a cluster group.
pub fn serialize_page_list<C: std::borrow::Borrow<ClusterInfo>>(
    header_checksum: u64,
    clusters: &[C],
) -> Vec<u8> {
    let clusters: Vec<&ClusterInfo> = clusters.iter().map(|c| c.borrow()).collect();
    let mut s = Serializer::new();
    s.u64(header_checksum);
    s.begin_list(clusters.len() as u32);
    for c in &clusters {
        s.begin_record()
            .u64(c.first_entry)
            .u64(c.n_entries)
            .end_frame();
    }
    s.end_frame();
    s.begin_list(clusters.len() as u32);
    for c in &clusters {
        s.begin_list(c.columns.len() as u32);
        for column in &c.columns {
            let pages = column.as_ref().map_or(&[][..], |p| &p.pages[..]);
            s.begin_list(pages.len() as u32);
            for page in pages {
                let n = page.n_elements as i32;
                s.i32(if page.has_checksum { -n } else { n });
                s.locator(page.size, page.offset);
            }
            match column {
                // A suppressed column: a negative first element index, no compression.
                Some(p) if !p.suppressed => {
                    s.i64(p.first_element as i64).u32(p.compression);
                }
                _ => {
                    s.i64(-1);
                }
            }
            s.end_frame();
        }
        s.end_frame();
    }
    s.end_frame();
    s.into_envelope(EnvelopeType::PageList).0
}

/// Serializes the footer envelope.
pub fn serialize_footer(header_checksum: u64, groups: &[ClusterGroupInfo]) -> Vec<u8> {
    // Schema extension: fields, columns, alias columns, extra type information, all empty.
    let mut ext = Serializer::new();
    ext.begin_record();
    for _ in 0..4 {
        ext.begin_list(0).end_frame();
    }
    ext.end_frame();
    serialize_footer_with_extension(header_checksum, ext.bytes(), groups)
}

/// Serializes the footer envelope with `extension`, a schema-extension record frame as
/// serialized (taken from another footer when merging).
pub fn serialize_footer_with_extension(
    header_checksum: u64,
    extension: &[u8],
    groups: &[ClusterGroupInfo],
) -> Vec<u8> {
    let mut s = Serializer::new();
    s.u64(0).u64(header_checksum);
    s.raw(extension);
    s.begin_list(groups.len() as u32);
    for g in groups {
        s.begin_record()
            .u64(g.min_entry)
            .u64(g.entry_span)
            .u32(g.n_clusters)
            .envelope_link(
                g.page_list.uncompressed_len,
                g.page_list.size,
                g.page_list.offset,
            )
            .end_frame();
    }
    s.end_frame();
    // Linked attribute sets (format >= 1.0.1.0): none.
    s.begin_list(0).end_frame();
    s.into_envelope(EnvelopeType::Footer).0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rntuple::format::{ColumnPages, PageLocation};

    #[test]
    fn empty_footer_layout() {
        let footer = serialize_footer(7, &[]);
        // preamble 8 + flags 8 + checksum 8 + extension 56 + groups 12 + attributes 12 + 8
        assert_eq!(footer.len(), 112);
        assert_eq!(&footer[16..24], &7u64.to_le_bytes());
        assert_eq!(&footer[24..32], &56i64.to_le_bytes());
    }

    #[test]
    fn page_list_page_item_matches_root_bytes() {
        let clusters = [ClusterInfo {
            first_entry: 0,
            n_entries: 3,
            columns: vec![Some(ColumnPages {
                first_element: 0,
                suppressed: false,
                compression: 0,
                pages: vec![PageLocation {
                    n_elements: 3,
                    size: 12,
                    offset: 1615,
                    has_checksum: true,
                }],
            })],
        }];
        let list = serialize_page_list(1, &clusters);
        let column: [u8; 40] = [
            0xd8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0, 0xfd, 0xff, 0xff, 0xff, 12,
            0, 0, 0, 0x4f, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ];
        let found = list.windows(40).any(|w| w == column);
        assert!(found, "page list lacks ROOT's column bytes: {list:02x?}");
    }

    #[test]
    fn a_column_without_pages_is_written_suppressed() {
        let clusters = [ClusterInfo {
            first_entry: 0,
            n_entries: 1,
            columns: vec![None],
        }];
        let list = serialize_page_list(1, &clusters);
        // The column's item: a list frame (an i64 size, a u32 count) of no pages holding,
        // after them, the first element index -1 and no compression setting: 12 + 8
        // bytes, size -20.
        let mut column = Vec::new();
        column.extend_from_slice(&(-20i64).to_le_bytes());
        column.extend_from_slice(&0u32.to_le_bytes());
        column.extend_from_slice(&(-1i64).to_le_bytes());
        let found = list.windows(column.len()).any(|w| w == column);
        assert!(found, "no suppressed column item in {list:02x?}");
    }
}
