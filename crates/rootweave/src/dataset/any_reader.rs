//! A reader of either format behind one type: what a dataset of files holds, whichever
//! format each file's object is stored in.

use std::ops::Range;
use std::sync::Arc;

use crate::array::{Array, Recycler};
use crate::container::read_streamers;
use crate::container::RootFile;
use crate::error::{Error, Result};
use crate::parallel::ReadOptions;
use crate::rntuple::RNTupleReader;
use crate::streamer::is_tree_class;
use crate::ttree::TTreeReader;

use super::batches::{BatchSource, Batches};
use super::memory_source::MemorySource;

/// The classes read as TTrees.
/// The class of an RNTuple's anchor.
const RNTUPLE_CLASS: &str = "ROOT::RNTuple";

/// An RNTuple or a TTree reader, chosen by the class of the object's key, or the entries
/// of a source without a file.
#[derive(Debug)]
pub enum AnyReader {
    /// An RNTuple.
    RNTuple(RNTupleReader),
    /// A TTree (or TNtuple).
    TTree(TTreeReader),
    /// Entries held in memory (RDataFrame's `FromNumpy`, or `RDataFrame(n)` without
    /// columns).
    Memory(MemorySource),
}

/// The fields of one read planned by either reader.
#[derive(Debug)]
pub enum AnyPlan {
    /// An RNTuple's plan.
    RNTuple(<RNTupleReader as BatchSource>::Plan),
    /// A TTree's plan.
    TTree(<TTreeReader as BatchSource>::Plan),
    /// A memory source's plan (the columns' positions).
    Memory(Vec<usize>),
}

impl AnyReader {
    /// Opens the object `name` of `file` (`dir/name` or `name;cycle` for a TTree), or, if
    /// `name` is `None`, the one RNTuple or TTree of the file's top directory (an error if
    /// it has none or several).
    pub fn open(file: Arc<RootFile>, name: Option<&str>, options: ReadOptions) -> Result<Self> {
        let key = match name {
            Some(name) => file.get_key(name)?,
            None => only_readable_key(&file)?,
        };
        let name = name.map_or_else(|| key.name.clone(), str::to_string);
        if key.class_name == RNTUPLE_CLASS {
            return Ok(AnyReader::RNTuple(RNTupleReader::from_file(
                file, &name, options,
            )?));
        }
        if is_tree_class(&key.class_name) {
            let streamers = Arc::new(read_streamers(&file)?);
            return Ok(AnyReader::TTree(TTreeReader::from_file(
                file, streamers, &name, options,
            )?));
        }
        Err(Error::InvalidArgument(format!(
            "{}: '{name}' is a {}, neither an RNTuple nor a TTree",
            file.name(),
            key.class_name
        )))
    }

    /// Number of entries.
    pub fn entries(&self) -> u64 {
        match self {
            AnyReader::RNTuple(r) => r.entries(),
            AnyReader::TTree(t) => t.entries(),
            AnyReader::Memory(m) => m.entries(),
        }
    }

    /// The names read when no field is asked for: the RNTuple's top-level fields, or the
    /// TTree's branches.
    pub fn field_names(&self) -> Vec<String> {
        match self {
            AnyReader::RNTuple(r) => r.field_names(),
            AnyReader::TTree(t) => t.branch_names(),
            AnyReader::Memory(m) => m.names(),
        }
    }

    /// A plan that reads no field: batches of entries only (an event loop that counts).
    pub fn plan_nothing(&self) -> AnyPlan {
        match self {
            AnyReader::RNTuple(_) => AnyPlan::RNTuple(Vec::new()),
            AnyReader::TTree(_) => AnyPlan::TTree(Vec::new()),
            AnyReader::Memory(_) => AnyPlan::Memory(Vec::new()),
        }
    }

    /// The columns an analysis graph lists (`GetColumnNames`): the RNTuple's fields and
    /// record members as RDataFrame names them (see [`RNTupleReader::column_names`]), or
    /// the tree's branches, a leaf list's leaves as `branch.leaf` (see
    /// [`TTreeReader::column_names`]).
    pub fn column_names(&self) -> Vec<String> {
        match self {
            AnyReader::RNTuple(r) => r.column_names(),
            AnyReader::TTree(t) => t.column_names(),
            AnyReader::Memory(m) => m.names(),
        }
    }

    /// Every name an analysis graph may read: [`AnyReader::column_names`] and the
    /// top-level fields or branches (an RNTuple's records among them, which a snapshot
    /// copies whole), and a tree's branches of one leaf as `branch.leaf` (see
    /// [`TreeMeta::leaf_names`](crate::ttree::TreeMeta::leaf_names)).
    pub fn readable_names(&self) -> Vec<String> {
        let mut names = self.field_names();
        let mut seen: std::collections::HashSet<String> = names.iter().cloned().collect();
        let leaves = match self {
            AnyReader::TTree(t) => t.meta().leaf_names(),
            _ => Vec::new(),
        };
        for name in self.column_names().into_iter().chain(leaves) {
            if seen.insert(name.clone()) {
                names.push(name);
            }
        }
        names
    }

    /// The RNTuple's or the tree's name (empty for a source in memory).
    pub fn name(&self) -> &str {
        match self {
            AnyReader::RNTuple(r) => &r.descriptor().name,
            AnyReader::TTree(t) => &t.meta().name,
            AnyReader::Memory(_) => "",
        }
    }

    /// Bytes of all stored pages or baskets (what reading everything reads).
    pub fn stored_bytes(&self) -> Result<u64> {
        match self {
            AnyReader::RNTuple(r) => r.stored_bytes(&[]),
            AnyReader::TTree(t) => Ok(t.stored_bytes(&[])),
            AnyReader::Memory(_) => Ok(0),
        }
    }

    /// The file (`None` for a source in memory).
    pub fn file(&self) -> Option<&Arc<RootFile>> {
        match self {
            AnyReader::RNTuple(r) => Some(r.file()),
            AnyReader::TTree(t) => Some(t.file()),
            AnyReader::Memory(_) => None,
        }
    }

    /// The file's name as errors give it ("memory" for a source in memory).
    pub fn file_name(&self) -> &str {
        self.file().map_or("memory", |f| f.name())
    }

    /// Batches of `fields` over `range` (see [`Batches::new`]).
    pub fn batches(
        &self,
        fields: &[&str],
        range: Range<u64>,
        step: u64,
    ) -> Result<Batches<'_, Self>> {
        Batches::new(self, fields, range, step)
    }
}

/// The key of the one RNTuple or TTree in the file's top directory.
fn only_readable_key(file: &RootFile) -> Result<crate::container::KeyInfo> {
    let mut found: Vec<&crate::container::KeyInfo> = Vec::new();
    for key in file.keys() {
        let readable = key.class_name == RNTUPLE_CLASS || is_tree_class(&key.class_name);
        if readable && !found.iter().any(|k| k.name == key.name) {
            found.push(key);
        }
    }
    match found.as_slice() {
        [key] => file.get_key(&key.name),
        [] => Err(Error::InvalidArgument(format!(
            "{}: no RNTuple or TTree in the top directory; name one as 'file.root:name'",
            file.name()
        ))),
        many => Err(Error::InvalidArgument(format!(
            "{}: several RNTuples and TTrees ({}); name one as 'file.root:name'",
            file.name(),
            many.iter()
                .map(|k| k.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

impl BatchSource for AnyReader {
    type Plan = AnyPlan;

    fn plan_fields(&self, fields: &[&str]) -> Result<(Vec<String>, Self::Plan)> {
        Ok(match self {
            AnyReader::RNTuple(r) => {
                let (names, plan) = BatchSource::plan_fields(r, fields)?;
                (names, AnyPlan::RNTuple(plan))
            }
            AnyReader::TTree(t) => {
                let (names, plan) = BatchSource::plan_fields(t, fields)?;
                (names, AnyPlan::TTree(plan))
            }
            AnyReader::Memory(m) => {
                let (names, plan) = m.plan_fields(fields)?;
                (names, AnyPlan::Memory(plan))
            }
        })
    }

    fn read_planned(
        &self,
        plan: &Self::Plan,
        range: Range<u64>,
        recycler: &mut Recycler,
    ) -> Result<Vec<Array>> {
        match (self, plan) {
            (AnyReader::RNTuple(r), AnyPlan::RNTuple(p)) => r.read_planned(p, range, recycler),
            (AnyReader::TTree(t), AnyPlan::TTree(p)) => t.read_planned(p, range, recycler),
            (AnyReader::Memory(m), AnyPlan::Memory(p)) => m.read_planned(p, range, recycler),
            _ => Err(Error::InvalidArgument(
                "a plan of one format handed to a reader of the other".into(),
            )),
        }
    }

    fn clusters(&self) -> Result<Vec<Range<u64>>> {
        match self {
            AnyReader::RNTuple(r) => BatchSource::clusters(r),
            AnyReader::TTree(t) => BatchSource::clusters(t),
            AnyReader::Memory(m) => m.clusters(),
        }
    }

    fn entry_count(&self) -> u64 {
        self.entries()
    }

    fn pool(&self) -> &rayon::ThreadPool {
        match self {
            AnyReader::RNTuple(r) => r.thread_pool(),
            AnyReader::TTree(t) => t.thread_pool(),
            AnyReader::Memory(m) => m.pool(),
        }
    }
}
