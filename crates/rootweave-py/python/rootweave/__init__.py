"""rootweave: fast, parallel, memory-bounded reading and writing of CERN ROOT files.

Reading::

    import rootweave
    with rootweave.open("events.root") as f:
        events = f["Events"]                      # an RNTuple or a TTree
        arrays = events.arrays(["MET_pt", "Muon_pt"], library="ak")

Writing::

    with rootweave.create("out.root") as f:
        ntuple = f.mkrntuple("Events", {"x": "int32", "pt": "var * float32"})
        ntuple.extend({"x": np.arange(3, dtype=np.int32), "pt": ak.Array([[1.0], [], [2.0, 3.0]])})

The decompression, decoding, encoding and compression run in Rust with the GIL released.
NumPy is the only hard dependency; Awkward, pyarrow and Polars are imported when asked for.
"""

from __future__ import annotations

# Types of the signatures (`rootweave.Path`, ...) and the `library=` values: public, not in `__all__`.
from ._aliases import Batch as Batch, Fields as Fields, Files as Files, Path as Path, Schema as Schema
from ._dask import dask
from ._dataset import concatenate, iterate
from ._directory import Directory
from ._file import ReadOnlyFile, open
from ._fill import histogram
from ._library import LIBRARIES as LIBRARIES
from ._merge import merge
from ._objects import Axis, Efficiency, Graph, Histogram, List, Matrix, Object, ObjString, Parameter, Statistic, Vector
from ._polars import scan
from ._rdf import AddProgressBar, FromCSV, FromNumpy, FromPandas, RDataFrame, RunGraphs, VariationsFor
from ._rdf_namespace import RDF
from ._rdf_snapshot import EAlgorithm, ESnapshotOutputFormat, RSnapshotOptions
from ._rootweave import RootFileError, __version__ as __version__, release_memory
from ._steps import Report
from ._convert import convert
from ._tree import Branch, Query, RNTuple, TTree, UnreadableBranchWarning
from ._writing import (RNTupleFillContext, RNTupleParallelWriter, RNTupleWriter, TTreeFillContext, TTreeParallelWriter,
                       TTreeWriter, WritableFile, create, recreate, update)

# The names of the parallel writers before they took ROOT's (`RNTupleParallelWriter`, ...), kept
# for code written against them.
ParallelRNTupleWriter = RNTupleParallelWriter
FillContext = RNTupleFillContext
ParallelTTreeWriter = TTreeParallelWriter

__all__ = ["histogram", "open", "create", "recreate", "update", "Directory", "Branch", "ReadOnlyFile", "RNTuple", "TTree", "WritableFile", "RNTupleWriter",
           "RNTupleParallelWriter", "RNTupleFillContext", "TTreeWriter", "TTreeParallelWriter", "TTreeFillContext",
           "ParallelRNTupleWriter", "FillContext", "ParallelTTreeWriter",
           "RootFileError", "UnreadableBranchWarning", "merge", "iterate", "concatenate", "Report", "Query", "scan",
           "dask", "convert", "Object", "Histogram", "Axis", "Graph", "Statistic", "List", "ObjString", "Parameter",
           "Vector", "Matrix", "Efficiency",
           "RDataFrame", "RunGraphs", "VariationsFor", "AddProgressBar", "RSnapshotOptions", "ESnapshotOutputFormat",
           "EAlgorithm", "RDF", "FromCSV", "FromNumpy", "FromPandas", "release_memory"]
