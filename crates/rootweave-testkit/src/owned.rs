//! Owned column trees: random values for any field type, handed to the writer as batches
//! or as single entries, and dumped as the expected values of the interoperability tests.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use rootweave::rntuple::{ColumnData, FieldType, Value};
use rootweave_synth::random::Rng;

/// The values of one field for many entries, owning its buffers.
#[derive(Debug, Clone)]
pub enum Owned {
    /// `bool`
    Bool(Vec<bool>),
    /// `std::int8_t`
    Int8(Vec<i8>),
    /// `std::int16_t`
    Int16(Vec<i16>),
    /// `std::int32_t`
    Int32(Vec<i32>),
    /// `std::int64_t`
    Int64(Vec<i64>),
    /// `std::uint8_t`
    UInt8(Vec<u8>),
    /// `std::uint16_t`
    UInt16(Vec<u16>),
    /// `std::uint32_t`
    UInt32(Vec<u32>),
    /// `std::uint64_t`
    UInt64(Vec<u64>),
    /// `float`
    Float32(Vec<f32>),
    /// `double`
    Float64(Vec<f64>),
    /// `std::string`
    Strings(Vec<String>),
    /// Collections (vector, optional, untyped collection): offsets and items.
    List(Vec<u64>, Box<Owned>),
    /// `std::array<T, N>`: `N` items per entry.
    Array(usize, Box<Owned>),
    /// Records, pairs and tuples.
    Record(Vec<Owned>),
}

macro_rules! with_extremes {
    ($rng:expr, $n:expr, $t:ty, $extremes:expr, $draw:expr) => {{
        let extremes: Vec<$t> = $extremes;
        (0..$n)
            .map(|i| {
                if i < extremes.len() {
                    extremes[i]
                } else {
                    $draw($rng)
                }
            })
            .collect::<Vec<$t>>()
    }};
}

/// Random values of `ty` for `n` entries; the first entries of scalar columns take the
/// type's extreme values (minimum, maximum, zero, NaN, infinities, subnormals).
pub fn generate(ty: &FieldType, n: usize, rng: &mut Rng, depth: u32) -> Owned {
    let bits = |rng: &mut Rng| rng.next_u64();
    match ty {
        FieldType::Bool => Owned::Bool((0..n).map(|_| rng.chance(0.5)).collect()),
        FieldType::Int8 | FieldType::Char => Owned::Int8(with_extremes!(
            rng,
            n,
            i8,
            vec![i8::MIN, i8::MAX, 0, -1],
            |r: &mut Rng| bits(r) as i8
        )),
        FieldType::Int16 => Owned::Int16(with_extremes!(
            rng,
            n,
            i16,
            vec![i16::MIN, i16::MAX, 0, -1],
            |r: &mut Rng| bits(r) as i16
        )),
        FieldType::Int32 => Owned::Int32(with_extremes!(
            rng,
            n,
            i32,
            vec![i32::MIN, i32::MAX, 0, -1],
            |r: &mut Rng| (bits(r) as i32) >> (bits(r) % 31)
        )),
        FieldType::Int64 => Owned::Int64(with_extremes!(
            rng,
            n,
            i64,
            vec![i64::MIN, i64::MAX, 0, -1],
            |r: &mut Rng| (bits(r) as i64) >> (bits(r) % 63)
        )),
        FieldType::UInt8 => Owned::UInt8(with_extremes!(
            rng,
            n,
            u8,
            vec![u8::MAX, 0],
            |r: &mut Rng| bits(r) as u8
        )),
        FieldType::UInt16 => Owned::UInt16(with_extremes!(
            rng,
            n,
            u16,
            vec![u16::MAX, 0],
            |r: &mut Rng| bits(r) as u16
        )),
        FieldType::UInt32 => Owned::UInt32(with_extremes!(
            rng,
            n,
            u32,
            vec![u32::MAX, 0],
            |r: &mut Rng| (bits(r) as u32) >> (bits(r) % 32)
        )),
        // Values up to 2^63 - 1: every reader under test returns them exactly.
        FieldType::UInt64 => Owned::UInt64(with_extremes!(
            rng,
            n,
            u64,
            vec![i64::MAX as u64, 0],
            |r: &mut Rng| bits(r) >> (1 + bits(r) % 63)
        )),
        FieldType::Float32 => Owned::Float32(with_extremes!(
            rng,
            n,
            f32,
            vec![
                f32::MIN,
                f32::MAX,
                0.0,
                -0.0,
                f32::NAN,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::MIN_POSITIVE / 8.0,
                f32::EPSILON
            ],
            |r: &mut Rng| r.normal(0.0, 100.0) as f32
        )),
        FieldType::Float64 => Owned::Float64(with_extremes!(
            rng,
            n,
            f64,
            vec![
                f64::MIN,
                f64::MAX,
                0.0,
                -0.0,
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::MIN_POSITIVE / 8.0,
                1.0 / 3.0
            ],
            |r: &mut Rng| r.exponential(1e3)
        )),
        FieldType::String => Owned::Strings(
            (0..n)
                .map(|i| match i {
                    0 => String::new(),
                    1 => "rootweave-long-string-".repeat(3500),
                    2 => "µ→ü 中文 \u{1F600}".to_string(),
                    _ => {
                        let len = rng.below(24) as usize;
                        (0..len)
                            .map(|_| (b'a' + rng.below(26) as u8) as char)
                            .collect()
                    }
                })
                .collect(),
        ),
        FieldType::Vector(item)
        | FieldType::RVec(item)
        | FieldType::Collection(_, item)
        | FieldType::UntypedCollection(item) => {
            let max = if depth == 0 { 9 } else { 4 };
            let offsets = random_offsets(n, rng, max);
            let total = *offsets.last().unwrap_or(&0) as usize;
            Owned::List(offsets, Box::new(generate(item, total, rng, depth + 1)))
        }
        FieldType::Optional(item) => {
            let offsets = random_offsets(n, rng, 2);
            let total = *offsets.last().unwrap_or(&0) as usize;
            Owned::List(offsets, Box::new(generate(item, total, rng, depth + 1)))
        }
        FieldType::Array(item, size) => {
            Owned::Array(*size, Box::new(generate(item, n * size, rng, depth + 1)))
        }
        FieldType::Pair(..) | FieldType::Tuple(_) | FieldType::Record { .. } => Owned::Record(
            ty.children()
                .iter()
                .map(|c| generate(&c.ty, n, rng, depth + 1))
                .collect(),
        ),
    }
}

/// Offsets of `n` entries with 0..`max` items each (a few entries forced empty).
fn random_offsets(n: usize, rng: &mut Rng, max: u64) -> Vec<u64> {
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0);
    let mut end = 0;
    for i in 0..n {
        end += if i % 7 == 3 { 0 } else { rng.below(max) };
        offsets.push(end);
    }
    offsets
}

impl Owned {
    /// A batch of entries `start..end` for the writer's `extend`.
    pub fn batch(&self, start: usize, end: usize) -> ColumnData<'_> {
        match self {
            Owned::Bool(v) => ColumnData::Bool(&v[start..end]),
            Owned::Int8(v) => ColumnData::Int8(&v[start..end]),
            Owned::Int16(v) => ColumnData::Int16(&v[start..end]),
            Owned::Int32(v) => ColumnData::Int32(&v[start..end]),
            Owned::Int64(v) => ColumnData::Int64(&v[start..end]),
            Owned::UInt8(v) => ColumnData::UInt8(&v[start..end]),
            Owned::UInt16(v) => ColumnData::UInt16(&v[start..end]),
            Owned::UInt32(v) => ColumnData::UInt32(&v[start..end]),
            Owned::UInt64(v) => ColumnData::UInt64(&v[start..end]),
            Owned::Float32(v) => ColumnData::Float32(&v[start..end]),
            Owned::Float64(v) => ColumnData::Float64(&v[start..end]),
            Owned::Strings(v) => ColumnData::Strings(&v[start..end]),
            // Offsets keep their absolute positions: the items are passed whole.
            Owned::List(offsets, items) => {
                let n_items = *offsets.last().unwrap_or(&0) as usize;
                ColumnData::list(&offsets[start..=end], items.batch(0, n_items))
            }
            Owned::Array(size, items) => ColumnData::array(items.batch(start * size, end * size)),
            Owned::Record(members) => {
                ColumnData::Record(members.iter().map(|m| m.batch(start, end)).collect())
            }
        }
    }

    /// The value of entry `i`, for the writer's `fill`.
    pub fn value(&self, i: usize, ty: &FieldType) -> Value {
        match self {
            Owned::Bool(v) => Value::Bool(v[i]),
            Owned::Int8(v) => Value::Int8(v[i]),
            Owned::Int16(v) => Value::Int16(v[i]),
            Owned::Int32(v) => Value::Int32(v[i]),
            Owned::Int64(v) => Value::Int64(v[i]),
            Owned::UInt8(v) => Value::UInt8(v[i]),
            Owned::UInt16(v) => Value::UInt16(v[i]),
            Owned::UInt32(v) => Value::UInt32(v[i]),
            Owned::UInt64(v) => Value::UInt64(v[i]),
            Owned::Float32(v) => Value::Float32(v[i]),
            Owned::Float64(v) => Value::Float64(v[i]),
            Owned::Strings(v) => Value::String(v[i].clone()),
            Owned::List(offsets, items) => {
                let child = &ty.children()[0].ty;
                let values: Vec<Value> = (offsets[i] as usize..offsets[i + 1] as usize)
                    .map(|j| items.value(j, child))
                    .collect();
                match ty {
                    FieldType::Optional(_) => {
                        Value::Optional(values.into_iter().next().map(Box::new))
                    }
                    _ => Value::List(values),
                }
            }
            Owned::Array(size, items) => {
                let child = &ty.children()[0].ty;
                Value::Array(
                    (i * size..(i + 1) * size)
                        .map(|j| items.value(j, child))
                        .collect(),
                )
            }
            Owned::Record(members) => Value::Record(
                members
                    .iter()
                    .zip(ty.children())
                    .map(|(m, c)| m.value(i, &c.ty))
                    .collect(),
            ),
        }
    }

    /// Adds the canonical flat buffers of this field at `path` to `out`: values of scalars
    /// at `path`; `path#counts` (and `path#bytes` for strings) for collections and
    /// strings; children at `path.<name>` (`_0` for collection and array items).
    pub fn flatten(
        &self,
        path: &str,
        ty: &FieldType,
        out: &mut BTreeMap<String, (String, Vec<u8>)>,
    ) {
        fn put<T: Copy>(
            out: &mut BTreeMap<String, (String, Vec<u8>)>,
            path: &str,
            dtype: &str,
            v: &[T],
            to: impl Fn(T) -> Vec<u8>,
        ) {
            let entry = out
                .entry(path.to_string())
                .or_insert_with(|| (dtype.to_string(), Vec::new()));
            for x in v {
                entry.1.extend(to(*x));
            }
        }
        match self {
            Owned::Bool(v) => put(out, path, "bool", v, |x| vec![x as u8]),
            Owned::Int8(v) => put(out, path, "int8", v, |x| x.to_le_bytes().to_vec()),
            Owned::Int16(v) => put(out, path, "int16", v, |x| x.to_le_bytes().to_vec()),
            Owned::Int32(v) => put(out, path, "int32", v, |x| x.to_le_bytes().to_vec()),
            Owned::Int64(v) => put(out, path, "int64", v, |x| x.to_le_bytes().to_vec()),
            Owned::UInt8(v) => put(out, path, "uint8", v, |x| vec![x]),
            Owned::UInt16(v) => put(out, path, "uint16", v, |x| x.to_le_bytes().to_vec()),
            Owned::UInt32(v) => put(out, path, "uint32", v, |x| x.to_le_bytes().to_vec()),
            Owned::UInt64(v) => put(out, path, "uint64", v, |x| x.to_le_bytes().to_vec()),
            Owned::Float32(v) => put(out, path, "float32", v, |x| x.to_le_bytes().to_vec()),
            Owned::Float64(v) => put(out, path, "float64", v, |x| x.to_le_bytes().to_vec()),
            Owned::Strings(v) => {
                let counts: Vec<u64> = v.iter().map(|s| s.len() as u64).collect();
                put(out, &format!("{path}#counts"), "uint64", &counts, |x| {
                    x.to_le_bytes().to_vec()
                });
                let bytes: Vec<u8> = v.iter().flat_map(|s| s.bytes()).collect();
                put(out, &format!("{path}#bytes"), "uint8", &bytes, |x| vec![x]);
            }
            Owned::List(offsets, items) => {
                let counts: Vec<u64> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
                put(out, &format!("{path}#counts"), "uint64", &counts, |x| {
                    x.to_le_bytes().to_vec()
                });
                items.flatten(&format!("{path}._0"), &ty.children()[0].ty, out);
            }
            Owned::Array(_, items) => {
                items.flatten(&format!("{path}._0"), &ty.children()[0].ty, out)
            }
            Owned::Record(members) => {
                for (m, c) in members.iter().zip(ty.children()) {
                    m.flatten(&format!("{path}.{}", c.name), &c.ty, out);
                }
            }
        }
    }
}

/// Writes canonical buffers as `<dir>/<path>.bin` files and a `manifest.json` that maps
/// each path to its dtype and file.
pub fn write_expected(
    dir: &Path,
    entries: u64,
    buffers: &BTreeMap<String, (String, Vec<u8>)>,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut manifest = format!("{{\"entries\": {entries}, \"buffers\": {{");
    for (i, (path, (dtype, bytes))) in buffers.iter().enumerate() {
        let file = format!("{path}.bin");
        std::fs::write(dir.join(&file), bytes)?;
        if i > 0 {
            manifest.push_str(", ");
        }
        manifest.push_str(&format!(
            "\"{path}\": {{\"dtype\": \"{dtype}\", \"file\": \"{file}\"}}"
        ));
    }
    manifest.push_str("}}\n");
    std::fs::File::create(dir.join("manifest.json"))?.write_all(manifest.as_bytes())
}
