//! Reading the header and footer envelopes (checksums, decompression, keys split over
//! several blobs) and the schema they describe: fields, columns, aliases, the footer's
//! schema extension and its cluster groups.

use std::sync::Mutex;

use super::{ClusterGroup, ColumnRecord, ColumnRef, Descriptor, FieldRecord, Role};
use crate::compress::decompress;
use crate::container::RootFile;
use crate::error::{Error, Result};
use crate::rntuple::format::checksum::xxh3_64;
use crate::rntuple::format::deserialize::{LeReader, Origin};
use crate::rntuple::format::{ClusterGroupInfo, ColumnType, EnvelopeLocation};

/// The envelope of type `kind` stored as `stored` at `link` (of `file`, for messages):
/// decompressed, its type and length checked, and its checksum if `verify`.
pub fn envelope_bytes(
    stored: Vec<u8>,
    link: EnvelopeLocation,
    kind: u16,
    verify: bool,
    file: &str,
    object: &str,
) -> Result<Vec<u8>> {
    let err = |m: String| Error::format(file, object, link.offset, m);
    if link.uncompressed_len < 16 || link.size == 0 || stored.len() as u64 != link.size {
        return Err(err(format!(
            "envelope of {} bytes ({} stored) is too short",
            link.uncompressed_len, link.size
        )));
    }
    let bytes = if link.size == link.uncompressed_len {
        stored
    } else {
        // A compressed envelope can be at most ~1000x its stored size under any ROOT
        // codec; a larger claim is corrupt (and must not be allocated).
        if link.uncompressed_len > link.size.saturating_mul(1100).max(1 << 20) {
            return Err(err(format!(
                "uncompressed length {} is implausible for {} stored bytes",
                link.uncompressed_len, link.size
            )));
        }
        decompress(&stored, link.uncompressed_len as usize)
            .map_err(|e| e.in_object(file, object, link.offset))?
    };
    let preamble = u64::from_le_bytes(bytes[..8].try_into().expect("8"));
    let (found_kind, len) = ((preamble & 0xFFFF) as u16, preamble >> 16);
    if found_kind != kind {
        return Err(err(format!(
            "envelope type {found_kind:#x}, expected {kind:#x}"
        )));
    }
    if len != bytes.len() as u64 {
        return Err(err(format!(
            "envelope length {len} differs from its {} bytes",
            bytes.len()
        )));
    }
    if verify {
        let body = bytes.len() - 8;
        let stored = u64::from_le_bytes(bytes[body..].try_into().expect("8"));
        if xxh3_64(&bytes[..body]) != stored {
            return Err(err("envelope checksum mismatch".into()));
        }
    }
    Ok(bytes)
}

impl Descriptor {
    pub(super) fn read_envelope(
        &self,
        file: &RootFile,
        link: EnvelopeLocation,
        kind: u16,
        what: &str,
    ) -> Result<Vec<u8>> {
        let object = format!("RNTuple '{}' {what}", self.name);
        let err = |m: String| Error::format(file.name(), &object, link.offset, m);
        if link.uncompressed_len < 16 || link.size == 0 {
            return Err(err(format!(
                "envelope of {} bytes ({} stored) is too short",
                link.uncompressed_len, link.size
            )));
        }
        let stored = self.read_blob(file, link.offset, link.size, &object)?;
        let verify = self.options.verify_checksums;
        envelope_bytes(stored, link, kind, verify, file.name(), &object)
    }

    pub(super) fn origin<'a>(&'a self, object: &'a str, base: u64) -> Origin<'a> {
        Origin {
            file: &self.file_name,
            object,
            base,
        }
    }

    pub(super) fn parse_header(&mut self, bytes: &[u8], base: u64) -> Result<u64> {
        let object = format!("RNTuple '{}' header", self.name);
        let file = self.file_name.clone();
        let origin = Origin {
            file: &file,
            object: &object,
            base,
        };
        let body = &bytes[..bytes.len() - 8];
        let checksum = u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().expect("8"));
        let mut r = LeReader::new(body, origin);
        r.take(8)?;
        r.feature_flags()?;
        let name = r.string()?; // the key's name is authoritative, where there is a key
        if self.name.is_empty() {
            self.name = name;
        }
        self.description = r.string()?;
        self.writer = r.string()?;
        let (fields, columns, aliases) = parse_schema(&mut r, 0, 0, false)?;
        self.fields = fields;
        self.columns = columns;
        self.attach_aliases(aliases, &r)?;
        Ok(checksum)
    }

    pub(super) fn parse_footer(&mut self, bytes: &[u8], base: u64) -> Result<()> {
        let object = format!("RNTuple '{}' footer", self.name);
        let file = self.file_name.clone();
        let origin = Origin {
            file: &file,
            object: &object,
            base,
        };
        let body = &bytes[..bytes.len() - 8];
        let mut r = LeReader::new(body, origin);
        r.take(8)?;
        r.feature_flags()?;
        let header_checksum = r.u64()?;
        if header_checksum != self.header_checksum {
            return Err(r.error("the footer belongs to another header (checksum mismatch)"));
        }
        let ext = r.begin_record()?;
        if r.remaining() > 0 {
            let (fields, columns, aliases) = parse_schema(
                &mut r,
                self.fields.len() as u32,
                self.columns.len() as u32,
                true,
            )?;
            self.fields.extend(fields);
            self.columns.extend(columns);
            self.attach_aliases(aliases, &r)?;
        }
        r.end_frame(ext);
        let (list, n) = r.begin_list(8)?;
        let mut groups = Vec::with_capacity(n);
        for _ in 0..n {
            let item = r.begin_record()?;
            let min_entry = r.u64()?;
            let entry_span = r.u64()?;
            let n_clusters = r.u32()?;
            let page_list = r.envelope_link()?;
            r.end_frame(item);
            if min_entry.checked_add(entry_span).is_none() {
                return Err(r.error("cluster group entry range overflows"));
            }
            groups.push(ClusterGroup {
                info: ClusterGroupInfo {
                    min_entry,
                    entry_span,
                    n_clusters,
                    page_list,
                },
                clusters: Mutex::new(None),
            });
        }
        r.end_frame(list);
        // Later format versions append more (attribute sets); they are not needed here.
        self.groups = groups;
        Ok(())
    }

    pub(super) fn attach_aliases(&mut self, aliases: Vec<(u32, u32)>, r: &LeReader) -> Result<()> {
        for (physical, field) in aliases {
            if physical as usize >= self.columns.len() {
                return Err(r.error(format!("alias of unknown column {physical}")));
            }
            let Some(f) = self.fields.get_mut(field as usize) else {
                return Err(r.error(format!("alias column of unknown field {field}")));
            };
            f.columns.push(ColumnRef {
                physical,
                alias: true,
            });
        }
        Ok(())
    }

    /// Checks parents and builds the child lists and each field's physical columns.
    pub(super) fn link_fields(&mut self) -> Result<()> {
        let n = self.fields.len() as u32;
        let object = format!("RNTuple '{}' schema", self.name);
        let bad = |m: String| Error::format(&self.file_name, &object, self.anchor.header.offset, m);
        for i in 0..self.fields.len() {
            let parent = self.fields[i].parent;
            if parent >= n {
                return Err(bad(format!(
                    "field {i} has parent {parent}, but there are {n} fields"
                )));
            }
            // Children have larger IDs than their parents, so the tree has no cycles.
            if parent != i as u32 {
                if parent > i as u32 {
                    return Err(bad(format!("field {i} comes before its parent {parent}")));
                }
                self.fields[parent as usize].children.push(i as u32);
            }
        }
        for c in 0..self.columns.len() {
            let field = self.columns[c].field;
            let Some(f) = self.fields.get_mut(field as usize) else {
                return Err(bad(format!("column {c} belongs to unknown field {field}")));
            };
            f.columns.push(ColumnRef {
                physical: c as u32,
                alias: false,
            });
        }
        // Physical columns first, in ID order, then aliases in serialization order.
        for f in &mut self.fields {
            f.columns.sort_by_key(|c| c.alias);
        }
        Ok(())
    }
}

/// Parses the four lists of a schema description (header or footer extension).
pub(super) fn parse_schema(
    r: &mut LeReader,
    first_field: u32,
    first_column: u32,
    extended: bool,
) -> Result<(Vec<FieldRecord>, Vec<ColumnRecord>, Aliases)> {
    let (list, n) = r.begin_list(8)?;
    let mut fields = Vec::with_capacity(n);
    for i in 0..n {
        let item = r.begin_record()?;
        let id = first_field + i as u32;
        let field_version = r.u32()?;
        let type_version = r.u32()?;
        let parent = r.u32()?;
        let role = match r.u16()? {
            0 => Role::Leaf,
            1 => Role::Collection,
            2 => Role::Record,
            3 => Role::Variant,
            4 => Role::Streamer,
            other => return Err(r.error(format!("field {id}: unknown structural role {other}"))),
        };
        let flags = r.u16()?;
        let name = r.string()?;
        let type_name = r.string()?;
        let type_alias = r.string()?;
        let description = r.string()?;
        let array_size = if flags & 0x01 != 0 {
            Some(r.u64()?)
        } else {
            None
        };
        let source_field = if flags & 0x02 != 0 {
            Some(r.u32()?)
        } else {
            None
        };
        let type_checksum = if flags & 0x04 != 0 {
            Some(r.u32()?)
        } else {
            None
        };
        r.end_frame(item);
        fields.push(FieldRecord {
            id,
            field_version,
            type_version,
            parent,
            role,
            name,
            type_name,
            type_alias,
            description,
            array_size,
            source_field,
            type_checksum,
            children: Vec::new(),
            columns: Vec::new(),
            extended,
        });
    }
    r.end_frame(list);
    let (list, n) = r.begin_list(8)?;
    let mut columns = Vec::with_capacity(n);
    for i in 0..n {
        let item = r.begin_record()?;
        let id = first_column + i as u32;
        let type_id = r.u16()?;
        let bits = r.u16()?;
        let field = r.u32()?;
        let flags = r.u16()?;
        let representation = r.u16()?;
        let (first_element, deferred_suppressed) = if flags & 0x01 != 0 {
            let v = r.i64()?;
            (v.unsigned_abs(), v < 0)
        } else {
            (0, false)
        };
        let value_range = if flags & 0x02 != 0 {
            Some((r.f64()?, r.f64()?))
        } else {
            None
        };
        r.end_frame(item);
        columns.push(ColumnRecord {
            id,
            type_id,
            ty: ColumnType::from_id(type_id),
            bits,
            field,
            representation,
            first_element,
            deferred_suppressed,
            value_range,
        });
    }
    r.end_frame(list);
    let (list, n) = r.begin_list(8)?;
    let mut aliases = Vec::with_capacity(n);
    for _ in 0..n {
        let item = r.begin_record()?;
        let physical = r.u32()?;
        let field = r.u32()?;
        r.end_frame(item);
        aliases.push((physical, field));
    }
    r.end_frame(list);
    // Extra type information (streamer infos) is not needed to read columns.
    let (list, _) = r.begin_list(8)?;
    r.end_frame(list);
    Ok((fields, columns, aliases))
}

/// Aliases found in a schema description: `(physical column, field)`.
type Aliases = Vec<(u32, u32)>;
