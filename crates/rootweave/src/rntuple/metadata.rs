//! Serialization of RNTuple metadata: header, page lists, footer and the anchor.

use crate::rntuple::checksum::xxh3_64;

use super::schema::Schema;
use super::serialize::{EnvelopeType, Serializer};

/// Anchor version written by this library: format 1.0.2.0, as ROOT 6.40 writes. Since
/// 1.0.1.0 the footer ends with a (possibly empty) list of attribute sets, and readers
/// such as uproot choose the footer layout from this version, so the two must agree.
pub const ANCHOR_VERSION: [u16; 4] = [1, 0, 2, 0];

/// Where an envelope was stored: its uncompressed length and its on-disk byte range.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EnvelopeLocation {
    /// Uncompressed length of the envelope.
    pub uncompressed_len: u64,
    /// Bytes on storage.
    pub size: u64,
    /// Absolute offset in the file.
    pub offset: u64,
}

/// The entry range of a cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClusterSummary {
    /// First entry of the cluster.
    pub first_entry: u64,
    /// Number of entries.
    pub n_entries: u64,
}

/// Where one page is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageLocation {
    /// Number of elements in the page.
    pub n_elements: u32,
    /// Bytes on storage, not counting the checksum.
    pub size: u64,
    /// Absolute offset in the file.
    pub offset: u64,
    /// True if an 8-byte XXH3 checksum follows the page.
    pub has_checksum: bool,
}

/// The pages of one column in one cluster.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnRange {
    /// Index of the column's first element in this cluster, counted from the first entry.
    pub first_element: u64,
    /// ROOT compression setting of the pages.
    pub compression: i32,
    /// The pages, in element order.
    pub pages: Vec<PageLocation>,
}

/// A committed cluster: its entry range and the pages of every column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterDescriptor {
    /// The entry range.
    pub summary: ClusterSummary,
    /// One range per column, in column-ID order.
    pub columns: Vec<ColumnRange>,
}

/// A committed cluster group: an entry range and the link to its page list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClusterGroupRecord {
    /// First entry of the group.
    pub min_entry: u64,
    /// Number of entries of the group.
    pub entry_span: u64,
    /// Number of clusters of the group.
    pub n_clusters: u32,
    /// Where the page list envelope is.
    pub page_list: EnvelopeLocation,
}

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
    s.begin_list(fields.len() as u32);
    for f in fields {
        s.begin_record();
        let flags: u16 = if f.array_size.is_some() { 0x01 } else { 0 };
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
    s.begin_list(0).end_frame(); // alias columns
    s.begin_list(0).end_frame(); // extra type information
    s.into_envelope(EnvelopeType::Header)
}

/// Serializes the page list envelope of a cluster group.
pub fn serialize_page_list(header_checksum: u64, clusters: &[ClusterDescriptor]) -> Vec<u8> {
    let mut s = Serializer::new();
    s.u64(header_checksum);
    s.begin_list(clusters.len() as u32);
    for c in clusters {
        s.begin_record()
            .u64(c.summary.first_entry)
            .u64(c.summary.n_entries)
            .end_frame();
    }
    s.end_frame();
    s.begin_list(clusters.len() as u32);
    for c in clusters {
        s.begin_list(c.columns.len() as u32);
        for column in &c.columns {
            s.begin_list(column.pages.len() as u32);
            for page in &column.pages {
                let n = page.n_elements as i32;
                s.i32(if page.has_checksum { -n } else { n });
                s.locator(page.size, page.offset);
            }
            s.i64(column.first_element as i64).i32(column.compression);
            s.end_frame();
        }
        s.end_frame();
    }
    s.end_frame();
    s.into_envelope(EnvelopeType::PageList).0
}

/// Serializes the footer envelope.
pub fn serialize_footer(header_checksum: u64, groups: &[ClusterGroupRecord]) -> Vec<u8> {
    let mut s = Serializer::new();
    s.u64(0).u64(header_checksum);
    // Schema extension: fields, columns, alias columns, extra type information.
    s.begin_record();
    for _ in 0..4 {
        s.begin_list(0).end_frame();
    }
    s.end_frame();
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

/// The anchor: the `ROOT::RNTuple` object (class version 2) pointing at header and footer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Anchor {
    /// Where the header envelope is.
    pub header: EnvelopeLocation,
    /// Where the footer envelope is.
    pub footer: EnvelopeLocation,
    /// Largest key size; larger blobs are split (0: never split).
    pub max_key_size: u64,
}

/// Size of the streamed anchor object.
pub const ANCHOR_SIZE: usize = 78;

impl Anchor {
    /// Streams the anchor (big-endian, with its XXH3 checksum over the fields).
    pub fn to_bytes(&self) -> [u8; ANCHOR_SIZE] {
        let mut b = Vec::with_capacity(ANCHOR_SIZE);
        // Byte count (version + 64 bytes of fields) with ROOT's byte-count flag.
        b.extend_from_slice(&(0x4000_0000u32 | 66).to_be_bytes());
        b.extend_from_slice(&2u16.to_be_bytes());
        for v in ANCHOR_VERSION {
            b.extend_from_slice(&v.to_be_bytes());
        }
        for v in [
            self.header.offset,
            self.header.size,
            self.header.uncompressed_len,
            self.footer.offset,
            self.footer.size,
            self.footer.uncompressed_len,
            self.max_key_size,
        ] {
            b.extend_from_slice(&v.to_be_bytes());
        }
        let checksum = xxh3_64(&b[6..]);
        b.extend_from_slice(&checksum.to_be_bytes());
        b.try_into().expect("anchor is 78 bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchor_matches_root_bytes() {
        // Anchor of an uncompressed ROOT 6.40 file (format notes, section 3.1), with the
        // version set to that file's 1.0.2.0.
        let anchor = Anchor {
            header: EnvelopeLocation {
                offset: 0x11c,
                size: 0x509,
                uncompressed_len: 0x509,
            },
            footer: EnvelopeLocation {
                offset: 0xaa3,
                size: 0xa0,
                uncompressed_len: 0xa0,
            },
            max_key_size: 0x4000_0000,
        };
        let bytes = anchor.to_bytes();
        assert_eq!(&bytes[..6], &[0x40, 0, 0, 0x42, 0, 2]);
        assert_eq!(&bytes[6..14], &[0, 1, 0, 0, 0, 2, 0, 0]);
        assert_eq!(
            &bytes[70..],
            &[0xd8, 0xb4, 0xf8, 0x77, 0xd2, 0xb0, 0xac, 0xc9]
        );
    }

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
        let clusters = [ClusterDescriptor {
            summary: ClusterSummary {
                first_entry: 0,
                n_entries: 3,
            },
            columns: vec![ColumnRange {
                first_element: 0,
                compression: 0,
                pages: vec![PageLocation {
                    n_elements: 3,
                    size: 12,
                    offset: 1615,
                    has_checksum: true,
                }],
            }],
        }];
        let list = serialize_page_list(1, &clusters);
        let column: [u8; 40] = [
            0xd8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0, 0xfd, 0xff, 0xff, 0xff, 12,
            0, 0, 0, 0x4f, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ];
        let found = list.windows(40).any(|w| w == column);
        assert!(found, "page list lacks ROOT's column bytes: {list:02x?}");
    }
}
