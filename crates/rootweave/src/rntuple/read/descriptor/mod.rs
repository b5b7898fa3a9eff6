//! The metadata of a stored RNTuple: anchor, header, footer (with its schema extension),
//! cluster groups and their page lists.
//!
//! Opening reads the anchor, the header and the footer only. The page lists (the
//! locations of every page) are parsed per cluster group on first use, so that opening a
//! file with thousands of fields and clusters stays cheap.

mod envelopes;
mod page_list;

pub use envelopes::envelope_bytes;

use std::sync::{Arc, Mutex};

use super::decode::ColumnCodec;
use crate::container::RootFile;
use crate::error::{Error, Result};
use crate::rntuple::format::ColumnType;
use crate::rntuple::format::{
    Anchor, ClusterGroupInfo, ClusterInfo, EnvelopeLocation, ANCHOR_VERSION,
};

/// Structural role of a field record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A leaf: value columns only (or a wrapper such as an enum or atomic).
    Leaf,
    /// A collection: an offset column and one child.
    Collection,
    /// A record: member children, no columns.
    Record,
    /// A variant: a switch column and one child per alternative.
    Variant,
    /// An object serialized with ROOT's streamer (offset and byte columns).
    Streamer,
}

/// A field record.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldRecord {
    /// Field ID (position in the field list, continued by the schema extension).
    pub id: u32,
    /// Field version.
    pub field_version: u32,
    /// Type version (class version for classes).
    pub type_version: u32,
    /// Parent field ID (its own ID for top-level fields).
    pub parent: u32,
    /// Structural role.
    pub role: Role,
    /// The field name.
    pub name: String,
    /// The normalized C++ type name (empty for untyped records and collections).
    pub type_name: String,
    /// The type alias (e.g. `Double32_t`), or empty.
    pub type_alias: String,
    /// The description.
    pub description: String,
    /// `N` of a repetitive (fixed-size array or bitset) field.
    pub array_size: Option<u64>,
    /// Source field of a projected field.
    pub source_field: Option<u32>,
    /// ROOT's type checksum, when stored.
    pub type_checksum: Option<u32>,
    /// Child field IDs, in ID order.
    pub children: Vec<u32>,
    /// Columns attached to the field (physical or alias), in serialization order.
    pub columns: Vec<ColumnRef>,
    /// True if the field comes from the footer's schema extension.
    pub extended: bool,
}

impl FieldRecord {
    /// True for a top-level field.
    pub fn is_top_level(&self) -> bool {
        self.parent == self.id
    }

    /// True for a field of items: a collection, or a fixed-size array of a field (not a
    /// bitset, whose bits are its own column).
    pub fn holds_items(&self) -> bool {
        self.role == Role::Collection || (self.array_size.is_some() && !self.children.is_empty())
    }
}

/// A column attached to a field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ColumnRef {
    /// The physical column holding the data.
    pub physical: u32,
    /// True if the column is an alias of a physical column of another field.
    pub alias: bool,
}

/// A physical column record.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ColumnRecord {
    /// Physical column ID.
    pub id: u32,
    /// The on-disk type identifier.
    pub type_id: u16,
    /// The column type, if this reader knows it.
    pub ty: Option<ColumnType>,
    /// Bits per element on storage.
    pub bits: u16,
    /// The field the column belongs to.
    pub field: u32,
    /// The representation index.
    pub representation: u16,
    /// Index of the first element (deferred columns).
    pub first_element: u64,
    /// Deferred and suppressed (negative first element index).
    pub deferred_suppressed: bool,
    /// Inclusive value range (`Real32Quant`).
    pub value_range: Option<(f64, f64)>,
}

/// The schema extension record frame of a footer envelope (`footer`: its whole bytes), as
/// serialized; `None` if it has none.
pub fn schema_extension_of(footer: &[u8]) -> Option<Vec<u8>> {
    // Envelope preamble, feature flags, header checksum, then the record frame.
    let at = 24;
    let size = footer
        .get(at..at + 8)
        .map(|b| i64::from_le_bytes(b.try_into().expect("8")))
        .filter(|&n| n >= 8 && (at as i64 + n) as usize <= footer.len())?;
    Some(footer[at..at + size as usize].to_vec())
}

/// A cluster group: an entry range and its (lazily parsed) page list.
#[derive(Debug)]
pub struct ClusterGroup {
    /// Its entry range and where its page list is.
    pub info: ClusterGroupInfo,
    clusters: Mutex<Option<Arc<Vec<ClusterInfo>>>>,
}

/// Settings for opening an RNTuple.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct OpenOptions {
    /// Verify envelope and page checksums (default true).
    pub verify_checksums: bool,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            verify_checksums: true,
        }
    }
}

impl OpenOptions {
    /// With envelope and page checksums verified or not.
    pub fn with_verify_checksums(mut self, verify_checksums: bool) -> Self {
        self.verify_checksums = verify_checksums;
        self
    }
}

/// The metadata of one RNTuple.
#[derive(Debug)]
pub struct Descriptor {
    /// The RNTuple's name (its key).
    pub name: String,
    /// The description stored in the header.
    pub description: String,
    /// The writing library.
    pub writer: String,
    /// The anchor.
    pub anchor: Anchor,
    /// All fields by ID.
    pub fields: Vec<FieldRecord>,
    /// All physical columns by ID.
    pub columns: Vec<ColumnRecord>,
    /// Cluster groups in footer order.
    pub groups: Vec<ClusterGroup>,
    header_checksum: u64,
    file_name: String,
    options: OpenOptions,
    /// All clusters in entry order, once parsed.
    all: Mutex<Option<Arc<Vec<ClusterInfo>>>>,
}

impl Descriptor {
    /// How physical column `c` decodes: its type, bits per element and value range.
    ///
    /// # Panics
    /// If `c` is not a column of the descriptor.
    pub fn codec(&self, c: u32) -> ColumnCodec {
        let col = &self.columns[c as usize];
        ColumnCodec {
            ty: col.ty.unwrap_or(ColumnType::Byte),
            bits: col.bits,
            range: col.value_range.unwrap_or((0.0, 0.0)),
        }
    }

    /// Reads the anchor `key_name` of `file`, and the header and footer it points to.
    pub fn open(file: &RootFile, key_name: &str, options: OpenOptions) -> Result<Self> {
        let key = file.get_key(key_name)?;
        if key.class_name != "ROOT::RNTuple" && key.class_name != "ROOT::Experimental::RNTuple" {
            return Err(Error::InvalidArgument(format!(
                "{}: '{key_name}' is a {}, not an RNTuple",
                file.name(),
                key.class_name
            )));
        }
        let object = format!("RNTuple '{}' anchor", key.name);
        let bytes = file.read_object(&key)?;
        let anchor = Anchor::decode(&bytes, file.name(), &object, key.payload_offset())?;
        let mut d = Descriptor {
            name: key.name.clone(),
            description: String::new(),
            writer: String::new(),
            anchor,
            fields: Vec::new(),
            columns: Vec::new(),
            groups: Vec::new(),
            header_checksum: 0,
            file_name: file.name().to_string(),
            options,
            all: Mutex::new(None),
        };
        let header = d.read_envelope(file, anchor.header, 0x01, "header")?;
        d.header_checksum = d.parse_header(&header, anchor.header.offset)?;
        let footer = d.read_envelope(file, anchor.footer, 0x02, "footer")?;
        d.parse_footer(&footer, anchor.footer.offset)?;
        d.link_fields()?;
        Ok(d)
    }

    /// The RNTuple of `file_name` described by a header envelope alone (`bytes`, checked,
    /// found at `location`; the name is the header's), without an anchor or footer: for
    /// recovering a file whose writer died. It has no cluster groups; read page lists with
    /// [`Descriptor::page_list_clusters`].
    /// A footer found for it (`footer`: its bytes, checked, and location) adds the
    /// columns of its schema extension and its cluster groups (where their page lists
    /// are; their clusters are not read).
    pub fn from_header(
        file_name: &str,
        bytes: &[u8],
        location: EnvelopeLocation,
        footer: Option<(&[u8], EnvelopeLocation)>,
    ) -> Result<Self> {
        let mut d = Descriptor {
            name: String::new(),
            description: String::new(),
            writer: String::new(),
            anchor: Anchor {
                version: ANCHOR_VERSION,
                header: location,
                footer: EnvelopeLocation::default(),
                max_key_size: 0,
            },
            fields: Vec::new(),
            columns: Vec::new(),
            groups: Vec::new(),
            header_checksum: 0,
            file_name: file_name.to_string(),
            options: OpenOptions::default(),
            all: Mutex::new(None),
        };
        d.header_checksum = d.parse_header(bytes, location.offset)?;
        if let Some((footer, at)) = footer {
            d.parse_footer(footer, at.offset)?;
        }
        d.link_fields()?;
        Ok(d)
    }

    /// The clusters of a page list envelope (`bytes`, checked, found at `location`) of this
    /// RNTuple, with every page inside a file of `file_size` bytes.
    pub fn page_list_clusters(
        &self,
        bytes: &[u8],
        location: EnvelopeLocation,
        file_size: u64,
    ) -> Result<Vec<ClusterInfo>> {
        let group = ClusterGroup {
            info: ClusterGroupInfo {
                min_entry: 0,
                entry_span: 0,
                n_clusters: 0,
                page_list: location,
            },
            clusters: Mutex::new(None),
        };
        self.parse_page_list(bytes, &group, file_size)
    }

    /// The XXH3 checksum of the header envelope (page lists and the footer repeat it).
    pub fn header_checksum(&self) -> u64 {
        self.header_checksum
    }

    /// The footer's schema-extension record frame as serialized (its size field first):
    /// what a merged RNTuple's footer carries over.
    pub fn footer_schema_extension(&self, file: &RootFile) -> Result<Vec<u8>> {
        let footer = self.read_envelope(file, self.anchor.footer, 0x02, "footer")?;
        schema_extension_of(&footer).ok_or_else(|| {
            Error::format(
                file.name(),
                format!("RNTuple '{}' footer", self.name),
                self.anchor.footer.offset,
                "no schema extension record",
            )
        })
    }

    /// Total number of entries.
    pub fn entries(&self) -> u64 {
        self.groups
            .iter()
            .map(|g| g.info.min_entry + g.info.entry_span)
            .max()
            .unwrap_or(0)
    }

    /// The IDs of the top-level fields, in ID order.
    pub fn top_level_fields(&self) -> Vec<u32> {
        self.fields
            .iter()
            .filter(|f| f.is_top_level())
            .map(|f| f.id)
            .collect()
    }

    /// The field called `path` (`a.b.c`: parts separated by `.`).
    pub fn field_by_path(&self, path: &str) -> Option<&FieldRecord> {
        let ids = self.resolve_path(path)?;
        ids.last().map(|&id| &self.fields[id as usize])
    }

    /// The field IDs from the top-level field down to the field at `path`. The `_0` item
    /// of a collection may be left out (`Muon.pt` for `Muon._0.pt`), as RDataFrame names
    /// the members of collections of records; where a collection's records have a member
    /// named as the item (`v._0` of a vector of pairs or tuples), the path means that
    /// member, as RDataFrame and uproot mean it (`v._0._0` names it too, `v` the items).
    pub fn resolve_path(&self, path: &str) -> Option<Vec<u32>> {
        let mut parts = path.split('.');
        let first = parts.next()?;
        let top = self
            .fields
            .iter()
            .find(|f| f.is_top_level() && f.name == first)?;
        let rest: Vec<&str> = parts.collect();
        let mut ids = vec![top.id];
        self.resolve_below(top, &rest, &mut ids).then_some(ids)
    }

    /// Resolves `parts` below `field`, pushing the fields' IDs onto `ids`: a child named as
    /// the part, or, through the `_0` child (a collection's item), that child's child. Where
    /// both exist, a collection's record member (`v._0` of a vector of pairs) is tried
    /// first, otherwise the direct child, and the other way only if the rest of the path
    /// does not resolve through the first (each part of a user's path, at most two ways).
    fn resolve_below(&self, field: &FieldRecord, parts: &[&str], ids: &mut Vec<u32>) -> bool {
        let Some((part, rest)) = parts.split_first() else {
            return true;
        };
        let child = |f: &FieldRecord, name: &str| {
            f.children
                .iter()
                .map(|&c| &self.fields[c as usize])
                .find(|c| c.name == name)
        };
        let item = child(field, "_0");
        let member = item.and_then(|i| Some((i, child(i, part)?)));
        let direct = child(field, part);
        let record_items = item.is_some_and(|i| field.holds_items() && i.role == Role::Record);
        let mut ways: Vec<Vec<&FieldRecord>> = Vec::with_capacity(2);
        if let (true, Some((i, m))) = (record_items, member) {
            ways.push(vec![i, m]);
        }
        ways.extend(direct.map(|c| vec![c]));
        if let (false, Some((i, m))) = (record_items, member) {
            ways.push(vec![i, m]);
        }
        for way in ways {
            let mark = ids.len();
            ids.extend(way.iter().map(|f| f.id));
            if self.resolve_below(way[way.len() - 1], rest, ids) {
                return true;
            }
            ids.truncate(mark);
        }
        false
    }

    /// The full dotted name of a field.
    pub fn field_path(&self, id: u32) -> String {
        let mut parts = Vec::new();
        let mut field = &self.fields[id as usize];
        loop {
            parts.push(field.name.as_str());
            if field.is_top_level() {
                break;
            }
            field = &self.fields[field.parent as usize];
        }
        parts.reverse();
        parts.join(".")
    }

    /// The file name, for error messages.
    pub fn file_name(&self) -> &str {
        &self.file_name
    }

    /// The options the RNTuple was opened with.
    pub fn options(&self) -> OpenOptions {
        self.options
    }

    /// The clusters of group `g`, parsing its page list on first use.
    pub fn clusters(&self, file: &RootFile, g: usize) -> Result<Arc<Vec<ClusterInfo>>> {
        let group = &self.groups[g];
        let mut slot = group.clusters.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = &*slot {
            return Ok(c.clone());
        }
        let bytes = self.read_envelope(file, group.info.page_list, 0x03, "page list")?;
        let clusters = Arc::new(self.parse_page_list(&bytes, group, file.size())?);
        *slot = Some(clusters.clone());
        Ok(clusters)
    }

    /// Every cluster of every group, in entry order (parsed once, then shared).
    pub fn all_clusters(&self, file: &RootFile) -> Result<Arc<Vec<ClusterInfo>>> {
        let mut slot = self.all.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(all) = &*slot {
            return Ok(all.clone());
        }
        let mut all = Vec::new();
        for g in 0..self.groups.len() {
            all.extend(self.clusters(file, g)?.iter().cloned());
        }
        all.sort_by_key(|c| c.first_entry);
        let all = Arc::new(all);
        *slot = Some(all.clone());
        Ok(all)
    }

    /// Reads `len` stored bytes at `offset`, following the chunks of a blob split over
    /// several keys (blobs above the anchor's maximum key size).
    pub fn read_blob(&self, file: &RootFile, offset: u64, len: u64, what: &str) -> Result<Vec<u8>> {
        let max = self.anchor.max_key_size;
        if max == 0 || len <= max {
            return file.read_at(offset, len, what);
        }
        if max <= 8 {
            return Err(Error::format(
                file.name(),
                what,
                offset,
                format!("maximum key size {max} is too small"),
            ));
        }
        if len > file.size() {
            return Err(Error::format(
                file.name(),
                what,
                offset,
                format!("a blob of {len} bytes is larger than the file"),
            ));
        }
        // Chunks: the first holds `max - 8 * (n - 1)` bytes then the offsets of the others;
        // the others `max` bytes each: n chunks hold n * (max - 8) + 8 bytes.
        let n = (len.saturating_sub(8)).div_ceil(max - 8).max(1);
        if (n - 1).saturating_mul(8) >= max {
            return Err(Error::format(
                file.name(),
                what,
                offset,
                format!("a blob of {len} bytes needs more chunk offsets than its first key holds"),
            ));
        }
        let first = file.read_at(offset, max, what)?;
        let table = (n - 1) as usize * 8;
        let first_len = max as usize - table;
        let mut out = Vec::with_capacity(len as usize);
        out.extend_from_slice(&first[..first_len]);
        for chunk in first[first_len..].chunks_exact(8) {
            let at = u64::from_le_bytes(chunk.try_into().expect("8"));
            let take = (len - out.len() as u64).min(max);
            out.extend_from_slice(&file.read_at(at, take, what)?);
        }
        Ok(out)
    }
}
