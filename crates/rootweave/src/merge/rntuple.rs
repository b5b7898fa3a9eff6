//! Fast merging of one RNTuple found in several files (inputs of one schema): every page
//! is copied as it is stored (checksum included) into blobs of the output, the first
//! input's header envelope is copied whole, and the page lists (cluster entry ranges and
//! column element indexes shifted by the inputs before), the footer (with the first input's
//! schema extension) and the anchor are written anew.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::compress::{compress_into, declared_len, decompress, Compression};
use crate::container::{DirectoryId, FileWriter, RootFile};
use crate::error::{Error, Result};
use crate::rntuple::format::checksum::xxh3_64;
use crate::rntuple::format::{
    Anchor, ClusterGroupInfo, ClusterInfo, ColumnPages, PageLocation, ANCHOR_VERSION,
};
use crate::rntuple::read::ColumnCodec;
use crate::rntuple::read::{Descriptor, OpenOptions};
use crate::rntuple::{serialize_footer_with_extension, serialize_page_list, write_envelope};

use super::ntuple_schema::MergedSchema;

/// Bytes of the XXH3 checksum that follows a page that has one.
const PAGE_CHECKSUM: u64 = 8;

/// Largest default page, in bytes once decompressed (as ROOT's merger makes them).
const ZERO_PAGE_BYTES: u64 = 256 << 10;

/// One input's copy of an RNTuple, read for merging.
pub(super) struct NtupleSource {
    pub file: String,
    pub descriptor: Descriptor,
    /// Per cluster group, its clusters.
    groups: Vec<Vec<ClusterInfo>>,
}

impl NtupleSource {
    /// Reads the RNTuple at `path` of `file`, its page lists included.
    pub fn read(file: &RootFile, path: &str) -> Result<Self> {
        let descriptor = Descriptor::open(file, path, OpenOptions::default())?;
        let groups = (0..descriptor.groups.len())
            .map(|g| descriptor.clusters(file, g).map(|c| c.to_vec()))
            .collect::<Result<Vec<_>>>()?;
        Ok(NtupleSource {
            file: file.name().to_string(),
            descriptor,
            groups,
        })
    }

    /// Entries of the RNTuple.
    pub fn entries(&self) -> u64 {
        self.descriptor.entries()
    }
}

/// One page to copy: where it is in its input, its bytes (checksum included), and the
/// cluster group, cluster, column and page it is.
#[derive(Debug, Clone, Copy)]
struct PageCopy {
    from: u64,
    len: u64,
    at: (usize, usize, usize, usize),
}

/// Pages back to back in the input, copied into one blob of the output: `(first, end)`
/// indexes into the sorted pages, and where the blob's payload starts.
struct Blob {
    pages: (usize, usize),
    payload: u64,
}

/// What [`merge_rntuple`] moved: bytes of pages copied as stored, and of pages compressed
/// again.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct PagesMoved {
    pub copied: u64,
    pub recompressed: u64,
}

/// Where merged pages go and how: into `writer`'s directory `dir`, on `pool`, in blobs of
/// at most `run_bytes`, compressed again with `to` if given.
pub(super) struct NtupleTarget<'a> {
    pub writer: &'a FileWriter,
    pub dir: DirectoryId,
    pub pool: &'a rayon::ThreadPool,
    pub run_bytes: u64,
    pub to: Option<Compression>,
}

/// Merges `sources` (read from `files`, in order) into RNTuple `name` with the columns of
/// `schema` (see the module documentation); with a target compression every page is
/// decompressed, compressed with it and given a new checksum.
pub(super) fn merge_rntuple(
    target: &NtupleTarget,
    files: &[&RootFile],
    mut sources: Vec<NtupleSource>,
    schema: &MergedSchema,
    name: &str,
) -> Result<PagesMoved> {
    let NtupleTarget {
        writer, dir, to, ..
    } = *target;
    let first = &sources[0];
    let what = format!("RNTuple '{name}'");
    let header_checksum = first.descriptor.header_checksum();
    let extension = schema.extension(
        &first.descriptor.footer_schema_extension(files[0])?,
        files[0].name(),
    )?;
    let header = first.descriptor.anchor.header;
    let stored_header = files[0].read_at(header.offset, header.size, &what)?;
    let header_at = writer.write_blob(&stored_header, header.uncompressed_len)?;
    let compression = to.unwrap_or_else(|| envelope_compression(first, files[0]));
    let max_key_size = first.descriptor.anchor.max_key_size;

    let mut element_offset: Vec<u64> = schema.columns.iter().map(|c| c.start).collect();
    let mut entry_offset = 0u64;
    let mut moved = PagesMoved::default();
    let mut zeros = ZeroPages::new(compression);
    let mut all_groups = Vec::new();
    for (k, source) in sources.iter_mut().enumerate() {
        let file = files[k];
        let ends = element_ends(source, &what)?;
        if k > 0 {
            check_starts(source, &what)?;
        }
        check_cluster_entries(source, schema, k, &what)?;
        let switches = source
            .groups
            .iter()
            .flatten()
            .any(|c| c.columns.iter().flatten().any(|p| p.suppressed));
        if switches && files.len() > 1 {
            return Err(Error::InvalidArgument(format!(
                "{}: {what} switches column representations between clusters; merging such \
                 RNTuples is not supported",
                source.file
            )));
        }
        let part = copy_pages(target, file, source, &what)?;
        moved.copied += part.copied;
        moved.recompressed += part.recompressed;
        // Columns the input lacks: elements counted from the output's end of each.
        let mut local = vec![0u64; schema.columns.len()];
        let mut groups_out = Vec::new();
        for (g, clusters) in source.groups.iter().enumerate() {
            let mut out_clusters = Vec::with_capacity(clusters.len());
            for cluster in clusters {
                let mut columns = Vec::with_capacity(schema.columns.len());
                for (o, column) in schema.columns.iter().enumerate() {
                    if column.first_input > k {
                        columns.push(None);
                        continue;
                    }
                    if let Some(i) = column.from[k] {
                        let mut pages = cluster.columns.get(i as usize).cloned().flatten();
                        if let Some(p) = pages.as_mut().filter(|p| !p.suppressed) {
                            p.first_element += element_offset[o];
                        }
                        columns.push(pages);
                        continue;
                    }
                    let n = column
                        .zeros_per_entry
                        .map_or(Some(0), |r| r.checked_mul(cluster.n_entries))
                        .unwrap_or(u64::MAX);
                    let pages = zeros
                        .pages(writer, column.codec, n)
                        .map_err(|m| Error::format(&source.file, &what, 0, m))?;
                    columns.push(Some(ColumnPages {
                        first_element: element_offset[o] + local[o],
                        suppressed: false,
                        compression: compression.root_setting() as u32,
                        pages,
                    }));
                    local[o] += n;
                }
                // Columns without an item (added to the schema later) stay without one:
                // an item would say the column is suppressed there.
                while columns.last().is_some_and(Option::is_none) {
                    columns.pop();
                }
                out_clusters.push(ClusterInfo {
                    first_entry: cluster.first_entry + entry_offset,
                    n_entries: cluster.n_entries,
                    columns,
                });
            }
            groups_out.push((g, out_clusters));
        }
        for (g, clusters) in groups_out {
            let list = serialize_page_list(header_checksum, &clusters);
            let location = write_envelope(writer, &list, compression)?;
            let info = source.descriptor.groups[g].info;
            all_groups.push(ClusterGroupInfo {
                min_entry: info.min_entry + entry_offset,
                entry_span: info.entry_span,
                n_clusters: clusters.len() as u32,
                page_list: location,
            });
        }
        for (o, column) in schema.columns.iter().enumerate() {
            if column.first_input <= k {
                element_offset[o] += match column.from[k] {
                    Some(i) => ends.get(i as usize).copied().unwrap_or(0),
                    None => local[o],
                };
            }
        }
        entry_offset += source.entries();
    }
    let footer = serialize_footer_with_extension(header_checksum, &extension, &all_groups);
    let footer = write_envelope(writer, &footer, compression)?;
    let mut header_location = header;
    header_location.offset = header_at;
    let anchor = Anchor {
        version: ANCHOR_VERSION,
        header: header_location,
        footer,
        max_key_size,
    };
    writer.write_object_in(dir, "ROOT::RNTuple", name, "", &anchor.to_bytes(), false)?;
    Ok(moved)
}

/// Per input column, the end of its elements: what the next input's elements follow.
fn element_ends(source: &NtupleSource, what: &str) -> Result<Vec<u64>> {
    let ncolumns = source.descriptor.columns.len();
    let mut ends = vec![0u64; ncolumns];
    for (g, clusters) in source.groups.iter().enumerate() {
        for (c, cluster) in clusters.iter().enumerate() {
            for (col, pages) in cluster.columns.iter().enumerate() {
                let Some(p) = pages.as_ref().filter(|p| !p.suppressed) else {
                    continue;
                };
                if col >= ncolumns {
                    return Err(Error::format(
                        &source.file,
                        what,
                        0,
                        format!("cluster {c} of group {g} has column {col}"),
                    ));
                }
                ends[col] = ends[col].max(p.first_element + p.n_elements());
            }
        }
    }
    Ok(ends)
}

/// Copies (or compresses again) every page of `source` into the output, pointing its
/// page lists at the copies.
fn copy_pages(
    target: &NtupleTarget,
    file: &RootFile,
    source: &mut NtupleSource,
    what: &str,
) -> Result<PagesMoved> {
    let NtupleTarget {
        writer,
        pool,
        run_bytes,
        to,
        ..
    } = *target;
    let mut moved = PagesMoved::default();
    // Pages in file order, grouped into blobs of back-to-back pages.
    let mut pages = Vec::new();
    for (g, clusters) in source.groups.iter().enumerate() {
        for (c, cluster) in clusters.iter().enumerate() {
            for (col, column) in cluster.columns.iter().enumerate() {
                for (p, page) in column.iter().flat_map(|x| x.pages.iter()).enumerate() {
                    let extra = if page.has_checksum { PAGE_CHECKSUM } else { 0 };
                    pages.push(PageCopy {
                        from: page.offset,
                        len: page.size + extra,
                        at: (g, c, col, p),
                    });
                }
            }
        }
    }
    pages.sort_by_key(|p| p.from);
    let mut blobs: Vec<Blob> = Vec::new();
    let mut bytes = 0;
    for (i, p) in pages.iter().enumerate() {
        let joins = blobs.last().is_some_and(|b| {
            let last = pages[b.pages.1 - 1];
            last.from + last.len == p.from && bytes + p.len <= run_bytes
        });
        if joins {
            blobs.last_mut().expect("a blob").pages.1 = i + 1;
            bytes += p.len;
        } else {
            blobs.push(Blob {
                pages: (i, i + 1),
                payload: 0,
            });
            bytes = p.len;
        }
    }
    if let Some(to) = to {
        let ncolumns = source.descriptor.columns.len();
        let codecs: Vec<_> = (0..ncolumns)
            .map(|c| source.descriptor.codec(c as u32))
            .collect();
        let placed = pool.install(|| {
            blobs
                .par_iter()
                .map(|b| {
                    let part = &pages[b.pages.0..b.pages.1];
                    recompress_blob(writer, file, source, part, &codecs, to, what)
                })
                .collect::<Result<Vec<_>>>()
        })?;
        for (b, placed) in blobs.iter().zip(placed) {
            for (p, (offset, size)) in pages[b.pages.0..b.pages.1].iter().zip(placed) {
                let (g, c, col, i) = p.at;
                let column = source.groups[g][c].columns[col].as_mut().expect("a column");
                column.pages[i].offset = offset;
                column.pages[i].size = size;
                column.compression = to.root_setting() as u32;
            }
        }
        moved.recompressed += pages.iter().map(|p| p.len).sum::<u64>();
    } else {
        for b in &mut blobs {
            let len: u64 = pages[b.pages.0..b.pages.1].iter().map(|p| p.len).sum();
            let key = writer.allocate_blob(len)?;
            b.payload = writer.write_blob_key(key, len, len)?;
            let mut at = b.payload;
            for p in &pages[b.pages.0..b.pages.1] {
                let (g, c, col, i) = p.at;
                let column = source.groups[g][c].columns[col].as_mut().expect("a column");
                column.pages[i].offset = at;
                at += p.len;
            }
        }
        pool.install(|| {
            blobs
                .par_iter()
                .try_for_each_init(Vec::new, |buf: &mut Vec<u8>, b| {
                    let part = &pages[b.pages.0..b.pages.1];
                    let len: u64 = part.iter().map(|p| p.len).sum();
                    buf.resize(len as usize, 0);
                    file.read_into(part[0].from, buf, what)?;
                    writer.write_at(b.payload, buf)
                })
        })?;
        moved.copied += pages.iter().map(|p| p.len).sum::<u64>();
    }
    Ok(moved)
}

/// Compresses the back-to-back pages `part` of `source` again with `to` into a new blob;
/// returns each page's new offset and size (checksum not counted).
fn recompress_blob(
    writer: &FileWriter,
    file: &RootFile,
    source: &NtupleSource,
    part: &[PageCopy],
    codecs: &[ColumnCodec],
    to: Compression,
    what: &str,
) -> Result<Vec<(u64, u64)>> {
    let len: u64 = part.iter().map(|p| p.len).sum();
    let mut stored = vec![0u8; len as usize];
    file.read_into(part[0].from, &mut stored, what)?;
    let mut payload = Vec::with_capacity(stored.len());
    let mut sizes = Vec::with_capacity(part.len());
    let mut at = 0usize;
    for p in part {
        let (g, c, col, i) = p.at;
        let page = source.groups[g][c].columns[col]
            .as_ref()
            .expect("a column")
            .pages[i];
        let bad = |m: String| Error::format(&source.file, what, p.from, m);
        let need = codecs[col]
            .page_bytes(page.n_elements as usize)
            .ok_or_else(|| bad("page too large".into()))?;
        let bytes = &stored[at..at + page.size as usize];
        let raw = if bytes.len() == need {
            bytes.to_vec()
        } else {
            // The blocks must declare the page's size before it is allocated.
            let in_page = |e: Error| e.in_object(&source.file, what, p.from);
            let declared = declared_len(bytes).map_err(in_page)?;
            if declared != need {
                return Err(bad(format!(
                    "{} elements need {need} bytes, the compressed blocks declare {declared}",
                    page.n_elements
                )));
            }
            decompress(bytes, need).map_err(in_page)?
        };
        let start = payload.len();
        compress_into(to, &raw, &mut payload);
        sizes.push((payload.len() - start) as u64);
        if page.has_checksum {
            let sum = xxh3_64(&payload[start..]);
            payload.extend_from_slice(&sum.to_le_bytes());
        }
        at += p.len as usize;
    }
    let key = writer.allocate_blob(payload.len() as u64)?;
    let offset = writer.write_blob_key(key, payload.len() as u64, payload.len() as u64)?;
    writer.write_at(offset, &payload)?;
    let mut placed = Vec::with_capacity(part.len());
    let mut at = offset;
    for (p, size) in part.iter().zip(sizes) {
        let (g, c, col, i) = p.at;
        let checksum = source.groups[g][c].columns[col]
            .as_ref()
            .expect("a column")
            .pages[i]
            .has_checksum;
        placed.push((at, size));
        at += size + if checksum { PAGE_CHECKSUM } else { 0 };
    }
    Ok(placed)
}

/// Pages of zeros: the default values of a field an input lacks (0, false, empty
/// collections and strings). Each page size is compressed and written once; every page of
/// that size points at the same bytes.
struct ZeroPages {
    compression: Compression,
    /// Per decompressed page size: where its bytes are and their stored size.
    written: HashMap<usize, (u64, u64)>,
    /// Page locators made so far (bounded: see [`MAX_ZERO_PAGES`]).
    made: u64,
}

/// The most pages of defaults one merge makes (each a page locator in memory and in a
/// page list): 2^22 pages of 256 KiB describe a petabyte of zeros; more is a corrupt entry
/// count.
const MAX_ZERO_PAGES: u64 = 1 << 22;

impl ZeroPages {
    fn new(compression: Compression) -> Self {
        ZeroPages {
            compression,
            written: HashMap::new(),
            made: 0,
        }
    }

    /// Pages of zeros for `n` elements of a `codec` column, written to `writer` as needed.
    fn pages(
        &mut self,
        writer: &FileWriter,
        codec: ColumnCodec,
        n: u64,
    ) -> std::result::Result<Vec<PageLocation>, String> {
        let per_page = (ZERO_PAGE_BYTES * 8 / u64::from(codec.bits.max(1))).max(1);
        let count = n.div_ceil(per_page);
        if self.made + count > MAX_ZERO_PAGES {
            return Err(format!(
                "{n} default elements are more than any RNTuple holds (a corrupt entry count)"
            ));
        }
        self.made += count;
        let mut pages = Vec::with_capacity(count as usize);
        let mut left = n;
        while left > 0 {
            let m = left.min(per_page);
            let bytes = codec
                .page_bytes(m as usize)
                .ok_or_else(|| format!("a page of {m} default elements is too large"))?;
            let (offset, size) = match self.written.get(&bytes) {
                Some(&at) => at,
                None => {
                    let mut sealed = Vec::new();
                    compress_into(self.compression, &vec![0u8; bytes], &mut sealed);
                    let size = sealed.len() as u64;
                    let sum = xxh3_64(&sealed);
                    sealed.extend_from_slice(&sum.to_le_bytes());
                    let len = sealed.len() as u64;
                    let key = writer.allocate_blob(len).map_err(|e| e.to_string())?;
                    let at = writer
                        .write_blob_key(key, len, len)
                        .map_err(|e| e.to_string())?;
                    writer.write_at(at, &sealed).map_err(|e| e.to_string())?;
                    self.written.insert(bytes, (at, size));
                    (at, size)
                }
            };
            pages.push(PageLocation {
                n_elements: m as u32,
                size,
                offset,
                has_checksum: true,
            });
            left -= m;
        }
        Ok(pages)
    }
}

/// An error unless each cluster of `source` has, in every principal column outside
/// collections (`reps` elements per entry), as many elements as its entries say: the
/// entry count sizes the defaults written for the fields the input lacks.
fn check_cluster_entries(
    source: &NtupleSource,
    schema: &MergedSchema,
    k: usize,
    what: &str,
) -> Result<()> {
    for cluster in source.groups.iter().flatten() {
        for column in &schema.columns {
            let (Some(i), Some(r)) = (column.from[k], column.zeros_per_entry) else {
                continue;
            };
            // A column added after the input's first entries may start inside a cluster.
            let deferred = source.descriptor.columns.get(i as usize);
            if deferred.is_none_or(|c| c.first_element > 0) {
                continue;
            }
            let Some(p) = cluster.columns.get(i as usize).and_then(Option::as_ref) else {
                continue;
            };
            if !p.suppressed && cluster.n_entries.checked_mul(r) != Some(p.n_elements()) {
                return Err(Error::format(
                    &source.file,
                    what,
                    0,
                    format!(
                        "the cluster of entries {}.. has {} entries, but column {i} holds {} \
                         elements ({r} per entry)",
                        cluster.first_entry,
                        cluster.n_entries,
                        p.n_elements()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// An error if a column of `source` starts past element 0 (a column added after the
/// RNTuple's first entries), which a merge would leave with a gap.
fn check_starts(source: &NtupleSource, what: &str) -> Result<()> {
    let mut seen = vec![false; source.descriptor.columns.len()];
    for cluster in source.groups.iter().flatten() {
        for (col, column) in cluster.columns.iter().enumerate() {
            let Some(p) = column.as_ref().filter(|p| !p.suppressed) else {
                continue;
            };
            if col < seen.len() && !seen[col] {
                seen[col] = true;
                if p.first_element != 0 {
                    return Err(Error::InvalidArgument(format!(
                        "{}: {what}: column {col} starts at element {} (added after the first \
                         entries); only the first input may have such columns",
                        source.file, p.first_element
                    )));
                }
            }
        }
    }
    Ok(())
}

/// The compression of the merged RNTuple's envelopes: the first input's pages' setting.
fn envelope_compression(first: &NtupleSource, file: &RootFile) -> Compression {
    first
        .groups
        .iter()
        .flatten()
        .flat_map(|c| c.columns.iter().flatten())
        .find(|p| !p.suppressed)
        .and_then(|p| Compression::from_root_setting(p.compression as i32).ok())
        .or_else(|| Compression::from_root_setting(file.header().compression).ok())
        .unwrap_or(Compression::ROOT_RNTUPLE_DEFAULT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::WriterOptions;
    use crate::rntuple::ColumnType;

    fn writer(name: &str) -> (FileWriter, std::path::PathBuf) {
        let path =
            std::env::temp_dir().join(format!("rw-zeros-{name}-{}.root", std::process::id()));
        (
            FileWriter::create(&path, WriterOptions::default()).unwrap(),
            path,
        )
    }

    const FLOATS: ColumnCodec = ColumnCodec {
        ty: ColumnType::SplitReal32,
        bits: 32,
        range: (0.0, 0.0),
    };

    #[test]
    fn pages_of_one_size_share_their_bytes() {
        let (w, path) = writer("share");
        let mut zeros = ZeroPages::new(Compression::ROOT_RNTUPLE_DEFAULT);
        // 64 Ki floats fill a page of 256 KiB: three full pages and one of 10 elements.
        let pages = zeros.pages(&w, FLOATS, 3 * 65536 + 10).unwrap();
        let elements: Vec<u32> = pages.iter().map(|p| p.n_elements).collect();
        assert_eq!(elements, [65536, 65536, 65536, 10]);
        assert!(pages[..3]
            .iter()
            .all(|p| p.offset == pages[0].offset && p.size == pages[0].size));
        assert_ne!(pages[3].offset, pages[0].offset);
        assert!(
            pages[0].size < 1024,
            "256 KiB of zeros stored in {} bytes",
            pages[0].size
        );
        let again = zeros.pages(&w, FLOATS, 65536).unwrap();
        assert_eq!(again[0].offset, pages[0].offset);
        drop(w);
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn an_entry_count_no_rntuple_holds_is_refused() {
        let (w, path) = writer("huge");
        let mut zeros = ZeroPages::new(Compression::ROOT_RNTUPLE_DEFAULT);
        let err = zeros.pages(&w, FLOATS, 1 << 50).unwrap_err();
        assert!(err.contains("corrupt entry count"), "{err}");
        drop(w);
        std::fs::remove_file(path).unwrap();
    }
}
