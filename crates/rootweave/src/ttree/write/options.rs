//! How a tree is written: its title, compression, basket size, and when clusters end and
//! the tree is saved, with ROOT 6.40's defaults.

use crate::compress::Compression;

/// ROOT 6.40's default basket size.
const DEFAULT_BASKET_SIZE: usize = 32_000;
/// ROOT 6.40's default `fAutoFlush`: a cluster every 30 MB of stored bytes.
const DEFAULT_AUTO_FLUSH_BYTES: u64 = 30_000_000;
/// ROOT 6.40's default `fAutoSave`: the tree saved every 300 MB of stored bytes.
const DEFAULT_AUTO_SAVE_BYTES: u64 = 300_000_000;

/// How a tree is written.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TTreeWriteOptions {
    /// The tree's title.
    pub title: String,
    /// The baskets' compression (default: the file's).
    pub compression: Option<Compression>,
    /// Bytes of entries gathered in a basket before it is written (ROOT's default 32000).
    pub basket_size: usize,
    /// Stored bytes after which the first cluster ends (ROOT's default 30 MB); later
    /// clusters hold as many entries as the first.
    pub auto_flush_bytes: u64,
    /// Resize each branch's baskets when the first cluster ends, as ROOT does (default):
    /// in proportion to its bytes, all together about the tree's bytes so far. Without
    /// it, baskets keep `basket_size`.
    pub resize_baskets: bool,
    /// Stored bytes after which the tree is saved at the next cluster boundary (ROOT's
    /// default `fAutoSave`, 300 MB): the tree object and the file's keys lists and header
    /// are written, so that a writer that dies later leaves a file that ROOT and uproot
    /// read up to that point.
    pub auto_save_bytes: u64,
}

impl Default for TTreeWriteOptions {
    fn default() -> Self {
        TTreeWriteOptions {
            title: String::new(),
            compression: None,
            basket_size: DEFAULT_BASKET_SIZE,
            auto_flush_bytes: DEFAULT_AUTO_FLUSH_BYTES,
            resize_baskets: true,
            auto_save_bytes: DEFAULT_AUTO_SAVE_BYTES,
        }
    }
}

impl TTreeWriteOptions {
    /// With the tree's title.
    pub fn with_title(mut self, title: &str) -> Self {
        self.title = title.to_string();
        self
    }

    /// With the baskets' compression.
    pub fn with_compression(mut self, compression: Compression) -> Self {
        self.compression = Some(compression);
        self
    }

    /// With the basket size in bytes.
    pub fn with_basket_size(mut self, basket_size: usize) -> Self {
        self.basket_size = basket_size;
        self
    }

    /// With or without ROOT's resizing of baskets after the first cluster.
    pub fn with_resize_baskets(mut self, resize: bool) -> Self {
        self.resize_baskets = resize;
        self
    }

    /// With the stored bytes after which the tree is saved (at the next cluster boundary).
    pub fn with_auto_save_bytes(mut self, bytes: u64) -> Self {
        self.auto_save_bytes = bytes;
        self
    }

    /// With the stored bytes that end the first cluster.
    pub fn with_auto_flush_bytes(mut self, bytes: u64) -> Self {
        self.auto_flush_bytes = bytes;
        self
    }
}
