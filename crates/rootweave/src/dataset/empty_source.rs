//! A source of entries without a file and without columns: RDataFrame's `RDataFrame(n)`,
//! whose events hold only what a graph defines on them (from `rdfentry_`, say) and which a
//! snapshot can write out as a new file.

use std::ops::Range;
use std::sync::Arc;

use rayon::ThreadPool;

use crate::array::{Array, Recycler};
use crate::error::{Error, Result};

use super::batches::BatchSource;

/// The smallest number of entries in an empty source's clusters: a batch of a graph's run
/// is at least its step and at most one more cluster, so this keeps batches near the step.
const CLUSTER_ENTRIES: u64 = 10_000;

/// The most clusters an empty source is cut into (larger sources get larger clusters), so
/// that the list of clusters stays small for any number of entries.
const MOST_CLUSTERS: u64 = 1 << 16;

/// `entries` entries with no columns, "read" on `pool` (which the dataset's loops run on).
#[derive(Debug, Clone)]
pub struct EmptySource {
    entries: u64,
    pool: Arc<ThreadPool>,
}

impl EmptySource {
    /// A source of `entries` entries, its loops run on `pool`.
    pub fn new(entries: u64, pool: Arc<ThreadPool>) -> Self {
        EmptySource { entries, pool }
    }

    /// The number of entries.
    pub fn entries(&self) -> u64 {
        self.entries
    }
}

impl BatchSource for EmptySource {
    type Plan = ();

    fn plan_fields(&self, fields: &[&str]) -> Result<(Vec<String>, ())> {
        match fields.first() {
            None => Ok((Vec::new(), ())),
            Some(f) => Err(Error::InvalidArgument(format!(
                "no column '{f}': an empty source of {} entries has no columns",
                self.entries
            ))),
        }
    }

    fn read_planned(&self, _: &(), range: Range<u64>, _: &mut Recycler) -> Result<Vec<Array>> {
        match range.end <= self.entries {
            true => Ok(Vec::new()),
            false => Err(Error::InvalidArgument(format!(
                "entries {}..{} of an empty source of {}",
                range.start, range.end, self.entries
            ))),
        }
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

    fn source(entries: u64) -> EmptySource {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build();
        EmptySource::new(entries, Arc::new(pool.expect("a pool")))
    }

    #[test]
    fn clusters_cover_the_entries_and_stay_few() {
        assert!(source(0).clusters().unwrap().is_empty());
        assert_eq!(
            source(25_000).clusters().unwrap(),
            vec![0..10_000, 10_000..20_000, 20_000..25_000]
        );
        let huge = source(1 << 40).clusters().unwrap();
        assert_eq!(huge.len() as u64, MOST_CLUSTERS);
        assert_eq!(huge.last().unwrap().end, 1 << 40);
        assert!(huge.windows(2).all(|w| w[0].end == w[1].start));
    }

    #[test]
    fn it_has_no_columns_and_reads_within_its_entries() {
        let s = source(10);
        let (names, plan) = s.plan_fields(&[]).unwrap();
        assert!(names.is_empty());
        assert!(s
            .read_planned(&plan, 0..10, &mut Recycler::new())
            .unwrap()
            .is_empty());
        let e = s.plan_fields(&["x"]).unwrap_err().to_string();
        assert!(e.contains("no column 'x'"), "{e}");
        assert!(s.read_planned(&plan, 5..11, &mut Recycler::new()).is_err());
    }
}
