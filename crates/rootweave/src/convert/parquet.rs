//! Writing Parquet: batches read in entry order on the pool while the Arrow writer of the
//! `parquet` crate encodes the batch before (one row group per batch).

use std::ops::Range;
use std::path::Path;
use std::sync::mpsc::sync_channel;

use arrow_array::{Array as _, RecordBatch, StructArray};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression as ParquetCompression, GzipLevel, ZstdLevel};
use parquet::file::properties::WriterProperties;

use crate::array::Array;
use crate::compress::{Codec, Compression};
use crate::dataset::{AnyReader, BatchSource};
use crate::error::{Error, Result};

use super::{ConvertOptions, ConvertSummary, FieldMap};

/// Writes the fields of `layout` (read as they are) for `range` of the reader's entries to
/// a Parquet file at `path`.
pub(super) fn to_parquet(
    reader: &AnyReader,
    range: Range<u64>,
    layout: &FieldMap,
    path: &Path,
    options: &ConvertOptions,
    step: u64,
) -> Result<ConvertSummary> {
    let fail = |e: &dyn std::fmt::Display| {
        Error::InvalidArgument(format!("{}: Parquet: {e}", path.display()))
    };
    let names: Vec<&str> = layout.read.iter().map(String::as_str).collect();
    let mut recycler = crate::array::Recycler::new();
    let empty = reader.read_fields_recycling(&names, 0..0, &mut recycler)?;
    let schema = record_batch(empty, 0).map_err(|e| fail(&e))?.schema();
    let properties = WriterProperties::builder()
        .set_compression(parquet_compression(options.compression)?)
        .build();
    let file = std::fs::File::create(path).map_err(|e| super::io_error(path, e))?;
    let mut writer = ArrowWriter::try_new(file, schema, Some(properties)).map_err(|e| fail(&e))?;
    let total = range.end - range.start;
    let batches = reader.batches(&names, range, step)?;
    // One batch read ahead on the reader's pool while one is encoded on this thread (and
    // one waits between them).
    let (send, receive) = sync_channel::<Result<(u64, Vec<(String, Array)>)>>(1);
    let written = reader.pool().in_place_scope(|scope| {
        scope.spawn(move |_| {
            for batch in batches {
                let batch = batch.map(|(range, arrays)| (range.end - range.start, arrays));
                let failed = batch.is_err();
                if send.send(batch).is_err() || failed {
                    return;
                }
            }
        });
        let mut done = 0;
        for batch in receive {
            let (len, arrays) = batch?;
            let batch = record_batch(arrays, len as usize).map_err(|e| fail(&e))?;
            writer.write(&batch).map_err(|e| fail(&e))?;
            writer.flush().map_err(|e| fail(&e))?;
            done += len;
            if let Some(progress) = &options.progress {
                progress(done, total);
            }
        }
        Ok::<u64, Error>(done)
    })?;
    writer.close().map_err(|e| fail(&e))?;
    Ok(ConvertSummary {
        entries: written,
        fields: layout.read.clone(),
        ..ConvertSummary::default()
    })
}

/// Arrays of one batch as an Arrow record batch (their buffers moved, not copied).
fn record_batch(
    arrays: Vec<(String, Array)>,
    len: usize,
) -> std::result::Result<RecordBatch, arrow_schema::ArrowError> {
    let data = crate::arrow::to_arrow_batch(arrays, len)?;
    let columns = StructArray::from(data);
    debug_assert_eq!(columns.len(), len);
    Ok(RecordBatch::from(columns))
}

/// Our compression setting as Parquet's (zstd:5 by default; LZMA has no Parquet codec).
fn parquet_compression(compression: Option<Compression>) -> Result<ParquetCompression> {
    let c = compression.unwrap_or(Compression::ROOT_RNTUPLE_DEFAULT);
    let level = c.level();
    let bad = |e: parquet::errors::ParquetError| {
        Error::InvalidArgument(format!("Parquet compression {c}: {e}"))
    };
    Ok(match c.codec() {
        Codec::None => ParquetCompression::UNCOMPRESSED,
        Codec::Zstd => ParquetCompression::ZSTD(ZstdLevel::try_new(level as i32).map_err(bad)?),
        Codec::Zlib => ParquetCompression::GZIP(GzipLevel::try_new(level).map_err(bad)?),
        Codec::Lz4 => ParquetCompression::LZ4_RAW,
        other => {
            return Err(Error::InvalidArgument(format!(
                "Parquet has no {other:?} compression: use zstd, zlib, lz4 or none"
            )))
        }
    })
}
