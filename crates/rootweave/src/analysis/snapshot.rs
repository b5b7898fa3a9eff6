//! `Snapshot`: the events a node keeps, with chosen columns (read or defined), written to a
//! TTree or an RNTuple (laid out as [`snapshot_layout`](super::snapshot_layout) says)
//! through the parallel writers within their memory budget, batch k of the dataset as the
//! writer's sequence number k, so the output keeps the input's entry order for any number
//! of threads (RDataFrame's multithreaded Snapshot does not). A new file appears once
//! complete, and a file updated lists the new tree only once it is; the results booked on
//! the graph, and other snapshots of it ([`snapshot_all`]), are filled in the same pass.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::batch::{BatchState, Plan};
use super::column_type::{holds_chars, holds_long};
use super::graph::Frame;
use super::run::{run_with, BatchSink};
use super::snapshot_classes::{class_column, class_values, ClassColumn};
use crate::array::{Array, ColumnData, Recycler, StdCollection};
use crate::compress::Compression;
use crate::dataset::{BatchSource, Dataset, Source};
use crate::error::{Error, Result};
use crate::rntuple::{
    Field, FieldType, RNTupleFillContext, RNTupleParallelOptions, RNTupleParallelWriter,
    RNTupleWriteOptions,
};
use crate::tree_layout::{field_type_of, FieldOptions, TreeLayout};
use crate::ttree::{
    TTreeFillContext, TTreeParallelOptions, TTreeParallelWriter, TTreeWriteOptions,
};

/// The format a snapshot is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SnapshotFormat {
    /// A TTree (RDataFrame's default): lists as `std::vector` branches, those read from
    /// counted arrays (NanoAOD's) as counted arrays with their counters.
    #[default]
    TTree,
    /// An RNTuple.
    RNTuple,
}

/// How a snapshot is written (RDataFrame's `RSnapshotOptions`).
#[derive(Debug, Clone, Default)]
pub struct SnapshotOptions {
    /// The format.
    pub format: SnapshotFormat,
    /// The compression (default: ROOT's for the format).
    pub compression: Option<Compression>,
    /// The writer's memory budget in bytes (default 256 MiB).
    pub memory_budget: Option<u64>,
    /// Adds the tree to the file at the path if there is one (`fMode = "UPDATE"`), keeping
    /// its other objects, instead of replacing the file.
    pub update: bool,
    /// With `update`, replaces an object of the tree's name already in the file
    /// (`fOverwriteIfExists`); without it, such an object is an error before any reading.
    pub overwrite_if_exists: bool,
}

/// The writer of a snapshot and a fill context per pool slot.
enum Output {
    TTree {
        writer: TTreeParallelWriter,
        layout: TreeLayout,
        contexts: Vec<Mutex<TTreeFillContext>>,
    },
    RNTuple {
        writer: RNTupleParallelWriter,
        contexts: Vec<Mutex<RNTupleFillContext>>,
    },
}

/// What a run hands each batch to: the node, the columns (with how those of ROOT's classes
/// are written), the writer.
struct Writing {
    node: usize,
    columns: Vec<String>,
    classes: Vec<Option<ClassColumn>>,
    output: Output,
}

impl BatchSink for Writing {
    fn needs(&self) -> (usize, Vec<String>) {
        (self.node, self.columns.clone())
    }

    fn arrays(&self, state: &mut BatchState) -> Result<Vec<Array>> {
        self.columns
            .iter()
            .zip(&self.classes)
            .map(|(c, class)| {
                let array = state
                    .output_array(self.node, c)
                    .map_err(|e| Error::InvalidArgument(format!("Snapshot column '{c}': {e}")))?;
                Ok(match class {
                    Some(class) => class_values(class, array),
                    None => array,
                })
            })
            .collect()
    }

    fn batch(&self, slot: usize, sequence: u64, arrays: Vec<Array>) -> Result<()> {
        let batch = column_data(&self.columns, &arrays)?;
        match &self.output {
            Output::TTree {
                layout, contexts, ..
            } => {
                let mut context = contexts[slot].lock().unwrap_or_else(|p| p.into_inner());
                layout.with_branch_batches(&batch, |branches| {
                    context.extend_sequence(sequence, branches)
                })
            }
            Output::RNTuple { contexts, .. } => {
                let mut context = contexts[slot].lock().unwrap_or_else(|p| p.into_inner());
                context.extend_sequence(sequence, &batch)
            }
        }
    }
}

/// The name column `column` is written as: a dotted name with underscores (`Muon.pt` as
/// `Muon_pt`), as RDataFrame writes it.
fn written_name(column: &str) -> String {
    column.replace('.', "_")
}

fn column_data<'a>(names: &[String], arrays: &'a [Array]) -> Result<Vec<ColumnData<'a>>> {
    names
        .iter()
        .zip(arrays)
        .map(|(n, a)| {
            a.as_column_data().ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "Snapshot column '{n}': a {} cannot be written",
                    a.kind()
                ))
            })
        })
        .collect()
}

/// The file at `path` opened to add `tree` to it: an object of that name already there is
/// deleted with `overwrite`, else an error (as RDataFrame's Snapshot in `"UPDATE"` mode).
fn open_existing(path: &Path, tree: &str, overwrite: bool) -> Result<crate::container::FileWriter> {
    let file = crate::update::open_for_update(path)?;
    let (dir, name) = tree.rsplit_once('/').unwrap_or(("", tree));
    let Some(at) = file.find_directory(dir) else {
        return Ok(file);
    };
    let present = file
        .listing()
        .iter()
        .any(|(d, key)| d == dir && key.name == name);
    if present && !overwrite {
        return Err(Error::InvalidArgument(format!(
            "Snapshot: '{tree}' is already in {}; set overwrite_if_exists to replace it",
            path.display()
        )));
    }
    while present && file.delete(at, name, None).is_ok() {}
    Ok(file)
}

/// One snapshot of [`snapshot_all`]: the node whose events it writes, the tree's name, the
/// file, the columns (empty: all) and how it is written.
pub struct SnapshotRequest<'a> {
    /// The node.
    pub frame: &'a Frame,
    /// The TTree's or RNTuple's name.
    pub tree: &'a str,
    /// The file.
    pub path: &'a Path,
    /// The columns, read or defined (empty: every column of the dataset and every one
    /// defined above the node).
    pub columns: &'a [&'a str],
    /// How it is written.
    pub options: &'a SnapshotOptions,
}

/// Writes several snapshots of nodes of one graph in ONE pass over the data, with the
/// graph's pending results (as RDataFrame runs lazy snapshots in its next event loop); see
/// [`Frame::snapshot`]. Returns a graph over each written tree; if any fails, none is left
/// written (a new file is not made, an updated one stays as it was) and the error is returned.
pub fn snapshot_all(requests: &[SnapshotRequest]) -> Result<Vec<Frame>> {
    let Some(first) = requests.first() else {
        return Ok(Vec::new());
    };
    if let Some(other) = requests
        .iter()
        .find(|r| !Arc::ptr_eq(&r.frame.graph, &first.frame.graph))
    {
        return Err(Error::InvalidArgument(format!(
            "Snapshot of '{}' and '{}': nodes of two graphs run in two passes, one call each",
            first.tree, other.tree
        )));
    }
    for (k, r) in requests.iter().enumerate() {
        if requests[..k].iter().any(|o| o.path == r.path) {
            return Err(Error::InvalidArgument(format!(
                "Snapshot of '{}': {} is written by another snapshot of the same pass",
                r.tree,
                r.path.display()
            )));
        }
    }
    let mut prepared = Vec::with_capacity(requests.len());
    for r in requests {
        match r
            .frame
            .prepare_snapshot(r.tree, r.path, r.columns, r.options)
        {
            Ok(p) => prepared.push(p),
            Err(e) => {
                for p in prepared {
                    let _ = p.finish(Err(Error::InvalidArgument("not run".into())));
                }
                return Err(e);
            }
        }
    }
    let sinks: Vec<&dyn BatchSink> = prepared.iter().map(|p| &p.writing as _).collect();
    let ran = run_with(&first.frame.graph, None, &sinks);
    let mut failure = ran.err();
    let mut out = Vec::with_capacity(prepared.len());
    for p in prepared {
        let ran = match &failure {
            Some(e) => Err(Error::InvalidArgument(e.to_string())),
            None => Ok(()),
        };
        match p.finish(ran) {
            Ok(frame) => out.push(frame),
            Err(e) if failure.is_none() => failure = Some(e),
            Err(_) => {}
        }
    }
    match failure {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// A snapshot whose writer is open, waiting for its pass over the data.
struct PreparedSnapshot {
    writing: Writing,
    /// The file updated, or `None` for a new file written at `temp` and renamed to `path`.
    existing: Option<Arc<crate::container::FileWriter>>,
    temp: PathBuf,
    path: PathBuf,
    tree: String,
    slots: usize,
}

impl PreparedSnapshot {
    /// Closes the writer after the pass (`ran`): the new file renamed into place, the
    /// updated one closed; after a failed pass, the new file removed and the updated one
    /// left as it was. Returns a graph over the written tree.
    fn finish(self, ran: Result<()>) -> Result<Frame> {
        // The contexts commit what they hold when dropped, before the writer closes.
        let closed = match self.writing.output {
            Output::TTree {
                writer, contexts, ..
            } => {
                drop(contexts);
                writer.close().map(|_| ())
            }
            Output::RNTuple { writer, contexts } => {
                drop(contexts);
                writer.close().map(|_| ())
            }
        };
        let path = self.path;
        match self.existing {
            // A failed update leaves the file as it was: its header and keys lists are only
            // written when it closes.
            Some(file) => {
                ran.and(closed)?;
                let file = Arc::try_unwrap(file).map_err(|_| {
                    Error::InvalidArgument("Snapshot: the updated file is still in use".into())
                })?;
                file.close()?;
            }
            None => {
                let finished = ran.and(closed).and_then(|_| {
                    std::fs::rename(&self.temp, &path).map_err(|source| Error::Io {
                        path: path.clone(),
                        source,
                    })
                });
                if let Err(e) = finished {
                    let _ = std::fs::remove_file(&self.temp);
                    return Err(e);
                }
            }
        }
        let options = crate::parallel::ReadOptions::default().with_threads(self.slots);
        Ok(Frame::new(Dataset::new(
            vec![Source::new(&path, Some(&self.tree))],
            options,
        )?))
    }
}

impl Frame {
    /// `Snapshot(tree, path, columns, options)`: writes the events this node keeps, with
    /// `columns` (empty: every column of the dataset and every one defined above), to a new
    /// file at `path` as `tree` (or into the file there, `options.update`), in input order;
    /// runs the graph's pending results in the same pass. Returns a graph over the tree.
    pub fn snapshot(
        &self,
        tree: &str,
        path: &Path,
        columns: &[&str],
        options: &SnapshotOptions,
    ) -> Result<Frame> {
        let request = SnapshotRequest {
            frame: self,
            tree,
            path,
            columns,
            options,
        };
        let mut written = snapshot_all(&[request])?;
        Ok(written.remove(0))
    }

    /// The writer of a snapshot of this node, open and waiting for the pass.
    fn prepare_snapshot(
        &self,
        tree: &str,
        path: &Path,
        columns: &[&str],
        options: &SnapshotOptions,
    ) -> Result<PreparedSnapshot> {
        let tree_format = options.format == SnapshotFormat::TTree;
        let asked = self.snapshot_columns(columns)?;
        let laid_out = self.snapshot_layout(asked, written_name, tree_format)?;
        let (columns, tree_options, titles) = (laid_out.columns, laid_out.options, laid_out.titles);
        super::cache::fill_cached(&self.graph)?;
        let (plan, dataset) = {
            let g = self.lock();
            (Plan::new(g.nodes.clone()), g.dataset.clone())
        };
        let mut fields = self.snapshot_fields(&plan, &dataset, &columns)?;
        // Each column's C++ type, asked for once: for ROOT's classes, the TTree's leaves and
        // the RNTuple's `char` fields.
        let column_types: Vec<Option<String>> =
            columns.iter().map(|c| self.column_type(c).ok()).collect();
        if options.format == SnapshotFormat::RNTuple {
            fields = self.rntuple_fields(&columns, &column_types, fields);
        }
        collection_columns(&column_types, &mut fields, !tree_format);
        let classes = class_columns(&column_types, &mut fields, !tree_format);
        // Into an existing file: its writer continues it; else a new file, renamed once whole.
        let existing = match options.update && path.exists() {
            true => Some(Arc::new(open_existing(
                path,
                tree,
                options.overwrite_if_exists,
            )?)),
            false => None,
        };
        let temp = match existing {
            Some(_) => path.to_path_buf(),
            None => crate::io::temporary_path(path),
        };
        let slots = dataset.slots().max(1);
        let budget = options.memory_budget.unwrap_or(256 << 20);
        let output = match options.format {
            SnapshotFormat::TTree => {
                let layout = TreeLayout::new(&fields, |name| {
                    tree_options
                        .get(name)
                        .cloned()
                        .unwrap_or_else(|| FieldOptions::default().with_std_vector())
                })?;
                let write = TTreeWriteOptions {
                    compression: Some(
                        options
                            .compression
                            .unwrap_or(Compression::ROOT_FILE_DEFAULT),
                    ),
                    ..TTreeWriteOptions::default()
                };
                let parallel = TTreeParallelOptions::default()
                    .with_write(write)
                    .with_memory_budget(budget)
                    .with_ordered(true);
                // A `TString` column of the dataset (or defined as one alone) is written as
                // one, as ROOT does; so is a column of C++ `long`s (`std::size_t`, an
                // RNTuple's `std::uint64_t`). Each column's type is asked for once. An array
                // read from the dataset's tree keeps its branch's title.
                let types: std::collections::HashMap<String, &str> = columns
                    .iter()
                    .zip(&column_types)
                    .filter_map(|(c, t)| Some((written_name(c), t.as_deref()?)))
                    .collect();
                let branches = layout
                    .branches()
                    .iter()
                    .map(|b| match types.get(&b.name).copied() {
                        Some("TString") => b.clone().into_tstring(),
                        Some(t) if holds_long(t) || collection_of_longs(t) => b.clone().into_long(),
                        _ => b.clone(),
                    })
                    .map(|b| match titles.get(&b.name) {
                        Some(title) => b.with_title(title),
                        None => b,
                    })
                    .collect();
                let writer = match &existing {
                    Some(file) => {
                        TTreeParallelWriter::in_file(file.clone(), tree, branches, parallel)?
                    }
                    None => TTreeParallelWriter::recreate(&temp, tree, branches, parallel)?,
                };
                let contexts = (0..slots).map(|_| Mutex::new(writer.context())).collect();
                Output::TTree {
                    writer,
                    layout,
                    contexts,
                }
            }
            SnapshotFormat::RNTuple => {
                let write = RNTupleWriteOptions::default().with_compression(
                    options
                        .compression
                        .unwrap_or(Compression::ROOT_RNTUPLE_DEFAULT),
                );
                let parallel = RNTupleParallelOptions::default()
                    .with_write(write)
                    .with_memory_budget(budget)
                    .with_ordered(true);
                let writer = match &existing {
                    Some(file) => {
                        RNTupleParallelWriter::in_file(file.clone(), tree, fields, parallel)?
                    }
                    None => RNTupleParallelWriter::recreate(&temp, tree, fields, parallel)?,
                };
                let contexts = (0..slots).map(|_| Mutex::new(writer.context())).collect();
                Output::RNTuple { writer, contexts }
            }
        };
        let writing = Writing {
            node: self.node,
            columns,
            classes,
            output,
        };
        Ok(PreparedSnapshot {
            writing,
            existing,
            temp,
            path: path.to_path_buf(),
            tree: tree.to_string(),
            slots,
        })
    }

    /// The columns a snapshot writes: those asked (checked), or every one defined above
    /// and every column of the dataset, in that order (ROOT's).
    fn snapshot_columns(&self, asked: &[&str]) -> Result<Vec<String>> {
        if !asked.is_empty() {
            let asked: Vec<String> = asked.iter().map(|c| c.to_string()).collect();
            self.check_columns(&asked, "Snapshot")?;
            // A column and an alias of it (or two aliases) are one column, as ROOT sees them.
            let g = self.lock();
            let mut seen = std::collections::HashMap::new();
            for c in &asked {
                let (_, column) = g.resolve(self.node, c);
                if let Some(other) = seen.insert(column.clone(), c) {
                    return Err(Error::InvalidArgument(format!(
                        "Snapshot: column '{column}' is asked for twice (as '{other}' and \
                         '{c}'): only one could be read back"
                    )));
                }
            }
            drop(g);
            return Ok(asked);
        }
        // The defined columns in the order they were first defined, as ROOT writes them
        // first, then the dataset's own fields or branches in its order (not the members of
        // an RNTuple's records, which their fields hold).
        let dataset = self.lock().dataset.clone();
        let mut out = self.defined_column_names();
        if !dataset.sources().is_empty() {
            for name in dataset.open(0)?.field_names() {
                if !out.contains(&name) {
                    out.push(name);
                }
            }
        }
        Ok(out)
    }

    /// The output fields of `columns`: their types found by computing them for no events of
    /// the first source; a dotted name is written with underscores (`Muon.pt` as `Muon_pt`),
    /// as RDataFrame writes it.
    fn snapshot_fields(
        &self,
        plan: &Plan,
        dataset: &Dataset,
        columns: &[String],
    ) -> Result<Vec<Field>> {
        let inputs = {
            let g = self.lock();
            let bookings = Vec::new();
            super::run::needed_inputs_of(plan, &g.bookings, &bookings, self.node, columns)
        };
        let reader = dataset.open(0)?;
        let names: Vec<&str> = inputs.iter().map(String::as_str).collect();
        let arrays = reader.read_fields_recycling(&names, 0..0, &mut Recycler::new())?;
        let mut state = BatchState::new(plan, &arrays, 0, 0, 0..0);
        let mut taken: std::collections::HashMap<String, &String> = Default::default();
        for c in columns {
            if let Some(other) = taken.insert(written_name(c), c) {
                return Err(Error::InvalidArgument(format!(
                    "Snapshot: columns '{other}' and '{c}' would both be written as '{}'",
                    written_name(c)
                )));
            }
        }
        columns
            .iter()
            .map(|c| {
                let array = state
                    .output_array(self.node, c)
                    .map_err(|e| Error::InvalidArgument(format!("Snapshot column '{c}': {e}")))?;
                let ty = field_type_of(&array).ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "Snapshot column '{c}': its values ({}) have no type to write",
                        array.kind()
                    ))
                })?;
                Ok(Field::new(written_name(c), ty))
            })
            .collect()
    }

    /// `fields` of `columns` as an RNTuple snapshot writes them: lists as RDataFrame's
    /// `ROOT::VecOps::RVec<T>` (a defined column's lists of lists too), and columns whose C++
    /// type `column_types` names `char` (`Char_t` leaves, `char` fields and definitions) as
    /// `char` fields rather than `std::int8_t`, as ROOT writes them.
    fn rntuple_fields(
        &self,
        columns: &[String],
        column_types: &[Option<String>],
        fields: Vec<Field>,
    ) -> Vec<Field> {
        fn rvec(ty: FieldType, nested: bool) -> FieldType {
            match ty {
                FieldType::Vector(item) => FieldType::RVec(Box::new(match nested {
                    true => rvec(*item, true),
                    false => *item,
                })),
                other => other,
            }
        }
        let g = self.lock();
        columns
            .iter()
            .zip(column_types)
            .zip(fields)
            .map(|((c, t), f)| {
                let defined = g.resolve(self.node, c).0.is_some();
                let ty = rvec(f.ty, defined);
                let ty = match t.as_deref().is_some_and(holds_chars) {
                    true => ty.with_chars(),
                    false => ty,
                };
                Field::new(f.name, ty)
            })
            .collect()
    }
}

/// Columns of sets, lists and deques of numbers or strings (C++ types `column_types`) written as those
/// collections rather than as vectors (`fields` retyped), as ROOT writes them: every such
/// collection in a TTree, the sets in an RNTuple (ROOT's RNTuple has no lists or deques).
fn collection_columns(column_types: &[Option<String>], fields: &mut [Field], rntuple: bool) {
    for (t, f) in column_types.iter().zip(fields) {
        let Some((kind, _)) = t.as_deref().and_then(StdCollection::of_type_name) else {
            continue;
        };
        if let FieldType::Vector(item) | FieldType::RVec(item) = &f.ty {
            let writable = item.number().is_some() || **item == FieldType::String;
            if writable && (kind.in_rntuple() || !rntuple) {
                f.ty = FieldType::Collection(kind, item.clone());
            }
        }
    }
}

/// Whether C++ type `ty` is a set, list or deque of C++ `long`s (`set<long>`).
fn collection_of_longs(ty: &str) -> bool {
    StdCollection::of_type_name(ty).is_some_and(|(_, item)| holds_long(item))
}

/// How columns of ROOT's classes are written, by their C++ types `column_types` (`fields`
/// retyped as those classes), for an RNTuple or a TTree.
fn class_columns(
    column_types: &[Option<String>],
    fields: &mut [Field],
    rntuple: bool,
) -> Vec<Option<ClassColumn>> {
    column_types
        .iter()
        .zip(fields)
        .map(|(t, f)| {
            let class = class_column(t.as_deref()?, &f.ty, rntuple)?;
            f.ty = class.field_type.clone();
            Some(class)
        })
        .collect()
}
