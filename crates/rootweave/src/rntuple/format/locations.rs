//! Where things are stored: envelopes, pages, and the pages of each column in each
//! cluster. The reader parses page lists into these records and the writer serializes
//! them, so both speak of one model.

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnPages {
    /// Index of the column's first element in this cluster.
    pub first_element: u64,
    /// True if this representation is inactive in this cluster.
    pub suppressed: bool,
    /// ROOT compression setting of the pages.
    pub compression: u32,
    /// The pages in element order.
    pub pages: Vec<PageLocation>,
}

impl ColumnPages {
    /// Elements stored in this cluster.
    pub fn n_elements(&self) -> u64 {
        self.pages.iter().map(|p| p.n_elements as u64).sum()
    }
}

/// One cluster: its entry range and the pages of each physical column.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterInfo {
    /// First entry.
    pub first_entry: u64,
    /// Number of entries.
    pub n_entries: u64,
    /// Page ranges by physical column ID; `None` where the page list has no item for the
    /// column (a column added to the schema after this cluster was written).
    pub columns: Vec<Option<ColumnPages>>,
}

/// A cluster group: an entry range and where its page list is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClusterGroupInfo {
    /// First entry of the group.
    pub min_entry: u64,
    /// Number of entries of the group.
    pub entry_span: u64,
    /// Number of clusters of the group.
    pub n_clusters: u32,
    /// Where the page list envelope is.
    pub page_list: EnvelopeLocation,
}
