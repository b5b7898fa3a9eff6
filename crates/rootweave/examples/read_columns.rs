//! Reads fields of an RNTuple into arrays and reports how fast.
//!
//! ```sh
//! cargo run --release --example read_columns -- FILE NAME [FIELD ...] [--threads N]
//! ```

use std::sync::Arc;
use std::time::Instant;

use rootweave::array::Array;
use rootweave::container::RootFile;
use rootweave::rntuple::{RNTupleReader, ReadOptions};

fn main() -> rootweave::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut threads = 0;
    if let Some(i) = args.iter().position(|a| a == "--threads") {
        threads = args[i + 1].parse().expect("--threads N");
        args.drain(i..i + 2);
    }
    let (path, name, fields) = (&args[0], &args[1], &args[2..]);
    let start = Instant::now();
    let file = Arc::new(RootFile::open(path)?);
    let options = ReadOptions::default().with_threads(threads);
    let reader = RNTupleReader::from_file(file, name, options)?;
    let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
    let arrays = reader.read(&fields, 0..reader.entries())?;
    let seconds = start.elapsed().as_secs_f64();
    let bytes: usize = arrays.iter().map(|(_, a)| payload_bytes(a)).sum();
    println!(
        "{} entries, {} fields in {seconds:.3} s: {:.3} G entries/s, {:.0} MB/s of values",
        reader.entries(),
        arrays.len(),
        reader.entries() as f64 / seconds / 1e9,
        bytes as f64 / seconds / 1e6
    );
    Ok(())
}

/// Bytes of the values and offsets of an array.
fn payload_bytes(array: &Array) -> usize {
    match array {
        Array::Bool(v) => v.len(),
        Array::Int8(v) => v.len(),
        Array::UInt8(v) => v.len(),
        Array::Int16(v) => v.len() * 2,
        Array::UInt16(v) => v.len() * 2,
        Array::Int32(v) => v.len() * 4,
        Array::UInt32(v) => v.len() * 4,
        Array::Float32(v) => v.len() * 4,
        Array::Int64(v) => v.len() * 8,
        Array::UInt64(v) => v.len() * 8,
        Array::Float64(v) => v.len() * 8,
        Array::String { offsets, bytes } => offsets.len() * 8 + bytes.len(),
        Array::List { offsets, values } | Array::Optional { offsets, values } => {
            offsets.len() * 8 + payload_bytes(values)
        }
        Array::Fixed { values, .. } => payload_bytes(values),
        Array::Record { fields, .. } => fields.iter().map(|(_, a)| payload_bytes(a)).sum(),
        Array::Variant {
            tags,
            index,
            alternatives,
        } => tags.len() + index.len() * 8 + alternatives.iter().map(payload_bytes).sum::<usize>(),
    }
}
