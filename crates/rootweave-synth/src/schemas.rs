//! The synthetic datasets of `rootweave generate`: each is made of chunks that can be
//! generated independently (in any order, on any thread) from the seed and the chunk's
//! index, so the same seed gives the same events whatever the number of threads.

use std::str::FromStr;

use rootweave::rntuple::{ColumnData, Field, FieldType};
use rootweave::{Error, Result};

use crate::adl::{adl_fields, AdlChunk};
use crate::nanoaod::{nanoaod_fields, NanoAodChunk, CHUNK_EVENTS};
use crate::random::{splitmix64, Rng};

/// Which dataset to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schema {
    /// The NanoAOD-like schema (see the README).
    NanoAod,
    /// One `std::int32_t` field `x`: the top 20 bits of splitmix64 draws.
    Single,
    /// The columns of the ADL benchmark's CMS open-data file (see `adl`).
    Adl,
    /// Ten `std::vector` fields of a record of three 3-vectors, 3 doubles and 3 ints.
    Complex,
    /// `float` fields (1000 for `wide`, N for `wide:N`) with 24-bit resolution.
    Wide(usize),
}

impl FromStr for Schema {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "nanoaod" => Ok(Schema::NanoAod),
            "single" => Ok(Schema::Single),
            "adl" => Ok(Schema::Adl),
            "complex" => Ok(Schema::Complex),
            "wide" => Ok(Schema::Wide(1000)),
            _ => match s.strip_prefix("wide:").map(str::parse::<usize>) {
                Some(Ok(n)) if n > 0 => Ok(Schema::Wide(n)),
                _ => Err(Error::InvalidArgument(format!(
                    "unknown schema '{s}' (nanoaod, adl, single, complex, wide or wide:N)"
                ))),
            },
        }
    }
}

/// The members `x`, `y`, `z` of a 3-vector.
fn xyz() -> Vec<Field> {
    ["x", "y", "z"]
        .iter()
        .map(|n| Field::new(*n, FieldType::Float64))
        .collect()
}

/// The members of a `complex` record: three 3-vectors of type `vec3`, three doubles and
/// three ints.
fn complex_members(vec3: FieldType) -> Vec<Field> {
    let mut members: Vec<Field> = ["p0", "p1", "p2"]
        .iter()
        .map(|n| Field::new(*n, vec3.clone()))
        .collect();
    members.extend(
        ["d0", "d1", "d2"]
            .iter()
            .map(|n| Field::new(*n, FieldType::Float64)),
    );
    members.extend(
        ["i0", "i1", "i2"]
            .iter()
            .map(|n| Field::new(*n, FieldType::Int32)),
    );
    members
}

impl Schema {
    /// The fields of the dataset.
    pub fn fields(self) -> Vec<Field> {
        match self {
            Schema::NanoAod => nanoaod_fields(),
            Schema::Adl => adl_fields(),
            Schema::Single => vec![Field::new("x", FieldType::Int32)],
            Schema::Complex => {
                let record =
                    FieldType::untyped_record(complex_members(FieldType::untyped_record(xyz())));
                (0..10)
                    .map(|i| {
                        Field::new(
                            format!("e{i}"),
                            FieldType::untyped_collection(record.clone()),
                        )
                    })
                    .collect()
            }
            Schema::Wide(n) => (0..n)
                .map(|i| Field::new(format!("f{i}"), FieldType::Float32))
                .collect(),
        }
    }

    /// The fields of the dataset as TTrees hold them: the `complex` dataset's collections
    /// as `std::vector<Event>` of a class `Event` (three `Vec3`, three doubles, three ints),
    /// the data model of ROOT's TBufferMerger benchmark; the others as [`Schema::fields`].
    pub fn tree_fields(self) -> Vec<Field> {
        let Schema::Complex = self else {
            return self.fields();
        };
        let event = FieldType::class(
            "Event",
            1,
            complex_members(FieldType::class("Vec3", 1, xyz())),
        );
        (0..10)
            .map(|i| Field::new(format!("e{i}"), FieldType::vector(event.clone())))
            .collect()
    }

    /// Entries per chunk (`wide:N`: 1000 times 1000 / N, so that chunks of fewer fields
    /// hold as many values).
    pub fn chunk_entries(self) -> u64 {
        match self {
            Schema::NanoAod => CHUNK_EVENTS,
            Schema::Adl => crate::adl::CHUNK_EVENTS,
            Schema::Single => 1 << 16,
            Schema::Complex => 1000,
            Schema::Wide(n) => 1000 * (1000 / n as u64).max(1),
        }
    }

    /// Generates chunk `index` of an `entries`-entry dataset.
    pub fn chunk(self, seed: u64, index: u64, entries: u64) -> Chunk {
        self.chunk_reusing(seed, index, entries, None)
    }

    /// [`Schema::chunk`], filling the memory of `spare` (a chunk of the same schema done
    /// with): a generator that reuses its chunks costs no page faults for new memory after
    /// the first.
    pub fn chunk_reusing(self, seed: u64, index: u64, entries: u64, spare: Option<Chunk>) -> Chunk {
        let first = index * self.chunk_entries();
        let n = (entries - first).min(self.chunk_entries()) as usize;
        match (self, spare) {
            (Schema::NanoAod, spare) => {
                let mut chunk = match spare {
                    Some(Chunk::NanoAod(chunk)) => chunk,
                    _ => Box::default(),
                };
                chunk.generate_into(seed, index, n);
                Chunk::NanoAod(chunk)
            }
            (Schema::Adl, spare) => {
                let mut chunk = match spare {
                    Some(Chunk::Adl(chunk)) => chunk,
                    _ => Box::default(),
                };
                chunk.generate_into(seed, index, n);
                Chunk::Adl(chunk)
            }
            (Schema::Single, spare) => {
                let mut values = match spare {
                    Some(Chunk::Single(values)) => values,
                    _ => Vec::new(),
                };
                single_values_into(seed, first, n, &mut values);
                Chunk::Single(values)
            }
            (Schema::Complex, spare) => {
                let mut chunk = match spare {
                    Some(Chunk::Complex(chunk)) => chunk,
                    _ => ComplexChunk::default(),
                };
                chunk.generate_into(seed, index, n);
                Chunk::Complex(chunk)
            }
            (Schema::Wide(fields), spare) => {
                let mut columns = match spare {
                    Some(Chunk::Wide(columns)) if columns.len() == fields => columns,
                    _ => vec![Vec::new(); fields],
                };
                let mut rng = Rng::for_chunk(seed, index);
                for column in &mut columns {
                    column.clear();
                    column.extend(
                        (0..n).map(|_| (rng.next_u64() >> 40) as f32 / (1u32 << 24) as f32),
                    );
                }
                Chunk::Wide(columns)
            }
        }
    }

    /// Number of chunks of an `entries`-entry dataset.
    pub fn chunks(self, entries: u64) -> u64 {
        entries.div_ceil(self.chunk_entries())
    }
}

/// Values `first..first+n` of the `single` dataset: value `i` is the top 20 bits of the
/// `i+1`-th output of splitmix64 started from `seed` (so a plain sequential splitmix64 loop
/// gives the same values).
pub fn single_values(seed: u64, first: u64, n: usize) -> Vec<i32> {
    let mut values = Vec::with_capacity(n);
    single_values_into(seed, first, n, &mut values);
    values
}

/// [`single_values`] into `values`, whose old contents are replaced.
pub fn single_values_into(seed: u64, first: u64, n: usize, values: &mut Vec<i32>) {
    let mut state = seed.wrapping_add(first.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    values.clear();
    values.extend((0..n).map(|_| (splitmix64(&mut state) >> 44) as i32));
}

/// One chunk of a dataset.
#[derive(Debug)]
pub enum Chunk {
    /// NanoAOD-like events.
    NanoAod(Box<NanoAodChunk>),
    /// ADL benchmark events.
    Adl(Box<AdlChunk>),
    /// `single` values.
    Single(Vec<i32>),
    /// `complex` records.
    Complex(ComplexChunk),
    /// `wide` columns.
    Wide(Vec<Vec<f32>>),
}

impl Chunk {
    /// Entries in the chunk.
    pub fn len(&self) -> usize {
        match self {
            Chunk::NanoAod(c) => c.len(),
            Chunk::Adl(c) => c.len(),
            Chunk::Single(v) => v.len(),
            Chunk::Complex(c) => c.offsets[0].len() - 1,
            Chunk::Wide(c) => c[0].len(),
        }
    }

    /// True if the chunk has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `f` with the chunk as a batch for the schema's fields.
    pub fn with_columns<T>(&self, f: impl FnOnce(&[ColumnData]) -> Result<T>) -> Result<T> {
        match self {
            Chunk::NanoAod(c) => c.with_columns(f),
            Chunk::Adl(c) => c.with_columns(f),
            Chunk::Single(v) => f(&[ColumnData::Int32(v)]),
            Chunk::Complex(c) => f(&c.columns()),
            Chunk::Wide(columns) => {
                let batch: Vec<_> = columns.iter().map(|c| ColumnData::Float32(c)).collect();
                f(&batch)
            }
        }
    }
}

/// Ten collections of records; each record has 9 + 3 doubles and 3 ints.
#[derive(Debug, Default, PartialEq)]
pub struct ComplexChunk {
    offsets: Vec<Vec<u64>>,
    /// Per collection: 12 double columns (p0.x .. p2.z, d0..d2), then 3 int columns.
    doubles: Vec<Vec<Vec<f64>>>,
    ints: Vec<Vec<Vec<i32>>>,
}

impl ComplexChunk {
    /// Replaces the chunk's entries with chunk `index` of the dataset seeded with `seed`
    /// (`n` entries), in the memory the chunk already holds.
    fn generate_into(&mut self, seed: u64, index: u64, n: usize) {
        let mut rng = Rng::for_chunk(seed, index);
        self.offsets.resize_with(10, Vec::new);
        self.doubles.resize_with(10, || vec![Vec::new(); 12]);
        self.ints.resize_with(10, || vec![Vec::new(); 3]);
        for c in 0..10 {
            let offsets = &mut self.offsets[c];
            let doubles = &mut self.doubles[c];
            let ints = &mut self.ints[c];
            offsets.clear();
            offsets.reserve(n + 1);
            offsets.push(0u64);
            // Room for the most records (15 per entry) at once: what is not filled is never
            // touched, so it takes no memory, and nothing is copied while the chunk grows.
            for column in doubles.iter_mut() {
                column.clear();
                column.reserve(15 * n);
            }
            for column in ints.iter_mut() {
                column.clear();
                column.reserve(15 * n);
            }
            for _ in 0..n {
                let k = 5 + rng.below(11);
                for _ in 0..k {
                    for d in doubles.iter_mut() {
                        d.push(rng.uniform());
                    }
                    for i in ints.iter_mut() {
                        i.push(rng.below(100) as i32);
                    }
                }
                offsets.push(offsets[offsets.len() - 1] + k);
            }
        }
    }

    fn columns(&self) -> Vec<ColumnData<'_>> {
        (0..10)
            .map(|c| {
                let d = &self.doubles[c];
                let vec3 = |k: usize| {
                    ColumnData::Record(vec![
                        ColumnData::Float64(&d[3 * k]),
                        ColumnData::Float64(&d[3 * k + 1]),
                        ColumnData::Float64(&d[3 * k + 2]),
                    ])
                };
                let mut members = vec![vec3(0), vec3(1), vec3(2)];
                members.extend((9..12).map(|k| ColumnData::Float64(&d[k])));
                members.extend(self.ints[c].iter().map(|i| ColumnData::Int32(i)));
                ColumnData::list(&self.offsets[c], ColumnData::Record(members))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_values_match_a_sequential_splitmix_loop() {
        let mut state = 5u64;
        let sequential: Vec<i32> = (0..100)
            .map(|_| (splitmix64(&mut state) >> 44) as i32)
            .collect();
        let mut chunked = single_values(5, 0, 40);
        chunked.extend(single_values(5, 40, 60));
        assert_eq!(chunked, sequential);
        assert!(sequential.iter().all(|&v| (0..1 << 20).contains(&v)));
    }

    #[test]
    fn a_chunk_filling_a_spare_equals_a_new_one() {
        // Chunk 2 is a short last chunk of 500 entries; the spare is a full chunk of other
        // values (another seed).
        for schema in [
            Schema::Single,
            Schema::Wide(1000),
            Schema::Wide(3),
            Schema::Complex,
            Schema::NanoAod,
        ] {
            let entries = 2 * schema.chunk_entries() + 500;
            let spare = schema.chunk(3, 0, entries);
            let reused = schema.chunk_reusing(9, 2, entries, Some(spare));
            let fresh = schema.chunk(9, 2, entries);
            assert_eq!(reused.len(), 500);
            match (reused, fresh) {
                (Chunk::Single(a), Chunk::Single(b)) => assert_eq!(a, b),
                (Chunk::Wide(a), Chunk::Wide(b)) => assert_eq!(a, b),
                (Chunk::Complex(a), Chunk::Complex(b)) => assert!(a == b),
                (Chunk::NanoAod(a), Chunk::NanoAod(b)) => assert!(a == b),
                _ => panic!("{schema:?}: chunks of another kind"),
            }
        }
    }

    #[test]
    fn every_schema_makes_batches_its_writer_accepts() {
        for schema in [
            Schema::NanoAod,
            Schema::Single,
            Schema::Complex,
            Schema::Wide(1000),
            Schema::Wide(3),
        ] {
            let chunk = schema.chunk(1, 0, 50);
            assert_eq!(chunk.len(), 50);
            let fields = schema.fields();
            chunk
                .with_columns(|c| {
                    assert_eq!(c.len(), fields.len());
                    Ok(())
                })
                .unwrap();
        }
    }
}
