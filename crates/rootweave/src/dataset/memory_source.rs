//! A source of entries held in memory instead of a file: columns given as arrays
//! (RDataFrame's `FromNumpy`), or none at all (`RDataFrame(n)`, whose events hold only what
//! a graph defines on them, from `rdfentry_` say, and which a snapshot can write out).

use std::ops::Range;
use std::sync::Arc;

use rayon::ThreadPool;

use crate::array::{take, Array, Recycler};
use crate::error::{Error, Result};

use super::batches::BatchSource;

/// The smallest number of entries in a memory source's clusters: a batch of a graph's run
/// is at least its step and at most one more cluster, so this keeps batches near the step.
const CLUSTER_ENTRIES: u64 = 10_000;

/// The most clusters a memory source is cut into (larger sources get larger clusters), so
/// that the list of clusters stays small for any number of entries.
const MOST_CLUSTERS: u64 = 1 << 16;

/// Named columns of one length held in memory, shared by the sources and readers made of
/// them; two are equal when they are the same columns (not merely equal values).
#[derive(Debug, Clone, Default)]
pub struct MemoryColumns {
    columns: Arc<Vec<(String, Array)>>,
    /// The columns that hold C++ `long`s or `unsigned long`s (alone or in lists), which
    /// their arrays' 64-bit integers do not tell from `long long`s, or `signed char`s, which
    /// their 8-bit integers do not tell from `char`s.
    respelled: Arc<Vec<String>>,
    /// What RDataFrame calls the data source the columns come from (`RVecDS` unless said).
    source_name: Option<Arc<str>>,
    /// C++ type names of columns whose arrays do not tell them (a cached `set<int>`), by
    /// column name.
    type_names: Arc<Vec<(String, String)>>,
}

impl MemoryColumns {
    /// The columns `columns`, every one of the same number of entries (an error naming the
    /// first that differs), their names distinct.
    pub fn new(columns: Vec<(String, Array)>) -> Result<Self> {
        if let Some((first, rest)) = columns.split_first() {
            let n = first.1.len();
            if let Some((name, a)) = rest.iter().find(|(_, a)| a.len() != n) {
                return Err(Error::InvalidArgument(format!(
                    "column '{name}' has {} entries where '{}' has {n}",
                    a.len(),
                    first.0
                )));
            }
        }
        for (k, (name, _)) in columns.iter().enumerate() {
            if columns[..k].iter().any(|(other, _)| other == name) {
                return Err(Error::InvalidArgument(format!(
                    "column '{name}' given twice"
                )));
            }
        }
        Ok(MemoryColumns {
            columns: Arc::new(columns),
            respelled: Arc::default(),
            source_name: None,
            type_names: Arc::default(),
        })
    }

    /// These columns, `respelled` naming those that hold C++ `long`s (a cached
    /// `Jet_pt.size()`, say), whose type RDataFrame names `unsigned long`, not `ULong64_t`, or
    /// `signed char`s (a cached RNTuple `std::int8_t` field), not `char`s.
    pub fn with_longs_or_signed_chars(self, respelled: Vec<String>) -> Self {
        MemoryColumns {
            respelled: Arc::new(respelled),
            ..self
        }
    }

    /// These columns, with the C++ type names `type_names` gives (column name, type name)
    /// for those their arrays do not tell: a cached `set<int>` holds lists of `int`s.
    pub fn with_type_names(self, type_names: Vec<(String, String)>) -> Self {
        MemoryColumns {
            type_names: Arc::new(type_names),
            ..self
        }
    }

    /// The C++ type name column `name` was given ([`MemoryColumns::with_type_names`]).
    pub fn type_name(&self, name: &str) -> Option<&str> {
        self.type_names
            .iter()
            .find(|(c, _)| c == name)
            .map(|(_, t)| t.as_str())
    }

    /// These columns, told to come from the data source RDataFrame calls `name` (`RCsv`
    /// for a CSV file's), which `Describe` names.
    pub fn with_source_name(self, name: &str) -> Self {
        MemoryColumns {
            source_name: Some(name.into()),
            ..self
        }
    }

    /// What RDataFrame calls the data source of these columns: `RVecDS` (`FromNumpy`'s)
    /// unless said otherwise.
    pub fn source_name(&self) -> &str {
        self.source_name.as_deref().unwrap_or("RVecDS")
    }

    /// Whether column `name` holds C++ `long`s or `signed char`s (see
    /// [`MemoryColumns::with_longs_or_signed_chars`]).
    pub fn holds_long_or_signed_char(&self, name: &str) -> bool {
        self.respelled.iter().any(|l| l == name)
    }

    /// The columns, in the order given.
    pub fn columns(&self) -> &[(String, Array)] {
        &self.columns
    }

    /// The number of entries of every column (0 without columns).
    pub fn entries(&self) -> u64 {
        self.columns.first().map_or(0, |(_, a)| a.len() as u64)
    }
}

impl PartialEq for MemoryColumns {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.columns, &other.columns)
    }
}

impl Eq for MemoryColumns {}

/// `entries` entries of `columns` (none: entries without columns), "read" on `pool`
/// (which the dataset's loops run on).
#[derive(Debug, Clone)]
pub struct MemorySource {
    entries: u64,
    columns: MemoryColumns,
    pool: Arc<ThreadPool>,
}

impl MemorySource {
    /// A source of `entries` entries of `columns` (which have that many, or are none), its
    /// loops run on `pool`.
    pub fn new(entries: u64, columns: MemoryColumns, pool: Arc<ThreadPool>) -> Self {
        MemorySource {
            entries,
            columns,
            pool,
        }
    }

    /// The number of entries.
    pub fn entries(&self) -> u64 {
        self.entries
    }

    /// The columns' names, in order.
    pub fn names(&self) -> Vec<String> {
        self.columns
            .columns()
            .iter()
            .map(|(n, _)| n.clone())
            .collect()
    }

    /// Column `name`'s values, if it has one of that name, and whether they are C++
    /// `long`s or `signed char`s (see [`MemoryColumns::with_longs_or_signed_chars`]).
    pub fn column(&self, name: &str) -> Option<(&Array, bool)> {
        let (_, array) = self.columns.columns().iter().find(|(n, _)| n == name)?;
        Some((array, self.columns.holds_long_or_signed_char(name)))
    }

    /// The C++ type name column `name` was given (see [`MemoryColumns::with_type_names`]).
    pub fn type_name(&self, name: &str) -> Option<&str> {
        self.columns.type_name(name)
    }

    /// What RDataFrame calls the data source of its columns (see
    /// [`MemoryColumns::source_name`]).
    pub fn source_name(&self) -> &str {
        self.columns.source_name()
    }

    /// Whether it holds no columns (`RDataFrame(n)`).
    pub fn is_empty(&self) -> bool {
        self.columns.columns().is_empty()
    }
}

impl BatchSource for MemorySource {
    /// The positions of the planned columns.
    type Plan = Vec<usize>;

    fn plan_fields(&self, fields: &[&str]) -> Result<(Vec<String>, Vec<usize>)> {
        let all = self.columns.columns();
        if fields.is_empty() {
            return Ok((self.names(), (0..all.len()).collect()));
        }
        let at = fields
            .iter()
            .map(|f| {
                all.iter().position(|(n, _)| n == f).ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "no column '{f}' in a source in memory (its columns: {})",
                        self.names().join(", ")
                    ))
                })
            })
            .collect::<Result<Vec<usize>>>()?;
        Ok((fields.iter().map(|f| f.to_string()).collect(), at))
    }

    fn read_planned(
        &self,
        plan: &Vec<usize>,
        range: Range<u64>,
        _: &mut Recycler,
    ) -> Result<Vec<Array>> {
        if range.start > range.end || range.end > self.entries {
            return Err(Error::InvalidArgument(format!(
                "entries {}..{} of a source in memory of {}",
                range.start, range.end, self.entries
            )));
        }
        let positions: Vec<usize> = (range.start as usize..range.end as usize).collect();
        let all = self.columns.columns();
        Ok(plan.iter().map(|&k| take(&all[k].1, &positions)).collect())
    }

    fn clusters(&self) -> Result<Vec<Range<u64>>> {
        let size = CLUSTER_ENTRIES.max(self.entries.div_ceil(MOST_CLUSTERS));
        Ok((0..self.entries.div_ceil(size))
            .map(|k| k * size..((k + 1) * size).min(self.entries))
            .collect())
    }

    fn entry_count(&self) -> u64 {
        self.entries
    }

    fn pool(&self) -> &ThreadPool {
        &self.pool
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool() -> Arc<ThreadPool> {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build();
        Arc::new(pool.expect("a pool"))
    }

    fn empty(entries: u64) -> MemorySource {
        MemorySource::new(entries, MemoryColumns::default(), pool())
    }

    #[test]
    fn clusters_cover_the_entries_and_stay_few() {
        assert!(empty(0).clusters().unwrap().is_empty());
        assert_eq!(
            empty(25_000).clusters().unwrap(),
            vec![0..10_000, 10_000..20_000, 20_000..25_000]
        );
        let huge = empty(1 << 40).clusters().unwrap();
        assert_eq!(huge.len() as u64, MOST_CLUSTERS);
        assert_eq!(huge.last().unwrap().end, 1 << 40);
        assert!(huge.windows(2).all(|w| w[0].end == w[1].start));
    }

    #[test]
    fn columns_are_read_by_name_within_the_entries() {
        let s = empty(10);
        let (names, plan) = s.plan_fields(&[]).unwrap();
        assert!(names.is_empty());
        assert!(s
            .read_planned(&plan, 0..10, &mut Recycler::new())
            .unwrap()
            .is_empty());
        let e = s.plan_fields(&["x"]).unwrap_err().to_string();
        assert!(e.contains("no column 'x'"), "{e}");
        assert!(s.read_planned(&plan, 5..11, &mut Recycler::new()).is_err());
        let columns = vec![
            ("x".to_string(), Array::Int32((0..10).collect())),
            (
                "y".to_string(),
                Array::Float64((0..10).map(f64::from).collect()),
            ),
        ];
        let s = MemorySource::new(10, MemoryColumns::new(columns).unwrap(), pool());
        let (names, plan) = s.plan_fields(&["y"]).unwrap();
        assert_eq!(names, vec!["y"]);
        let read = s.read_planned(&plan, 3..6, &mut Recycler::new()).unwrap();
        assert_eq!(read, vec![Array::Float64(vec![3.0, 4.0, 5.0])]);
        let uneven = vec![
            ("a".to_string(), Array::Int32(vec![1, 2])),
            ("b".to_string(), Array::Int32(vec![1])),
        ];
        let e = MemoryColumns::new(uneven).unwrap_err().to_string();
        assert!(e.contains("'b' has 1 entries where 'a' has 2"), "{e}");
        let twice = vec![
            ("a".to_string(), Array::Int32(vec![1])),
            ("a".to_string(), Array::Int32(vec![1])),
        ];
        assert!(MemoryColumns::new(twice).is_err());
    }
}
