"""ROOT's `ROOT.RDF` namespace over rootweave's calls, so that a port from PyROOT changes
the package's name only: `rootweave.RDF.RunGraphs`, `rootweave.RDF.RSnapshotOptions`,
`rootweave.RDF.Experimental.VariationsFor`, ..."""

from __future__ import annotations

from ._rdf import (AddProgressBar, AsRNode, FromCSV, FromNumpy, FromPandas, FromRNTuple, FromSpec, RDataFrame,
                   RunGraphs, SaveGraph, VariationsFor)
from ._rdf_models import TH1DModel, TH2DModel, TH3DModel, TProfile1DModel, TProfile2DModel
from ._rdf_snapshot import ESnapshotOutputFormat, RSnapshotOptions


class _Dask:
    """`ROOT.RDF.Experimental.Distributed.Dask`: its `RDataFrame(..., daskclient=client,
    npartitions=n)` is rootweave's, which takes the same keywords."""

    RDataFrame = RDataFrame


class _Distributed:
    """`ROOT.RDF.Experimental.Distributed`: `Dask`."""

    Dask = _Dask


class _Experimental:
    """`ROOT.RDF.Experimental`: `VariationsFor`, `AddProgressBar`, `FromSpec`, and
    `Distributed.Dask.RDataFrame`."""

    Distributed = _Distributed

    VariationsFor = staticmethod(VariationsFor)
    FromSpec = staticmethod(FromSpec)
    AddProgressBar = staticmethod(AddProgressBar)


class RDF:
    """`ROOT.RDF`: `RunGraphs`, `SaveGraph`, `FromNumpy`, `FromCSV`, `FromPandas`,
    `FromRNTuple`, `AsRNode`, `RSnapshotOptions`, `ESnapshotOutputFormat`, the histogram models
    (`TH1DModel`, ...), `Experimental` and `Distributed` (ROOT 6.40 has both)."""

    RunGraphs = staticmethod(RunGraphs)
    SaveGraph = staticmethod(SaveGraph)
    FromRNTuple = staticmethod(FromRNTuple)
    AsRNode = staticmethod(AsRNode)
    Distributed = _Distributed
    FromNumpy = staticmethod(FromNumpy)
    FromCSV = staticmethod(FromCSV)
    FromPandas = staticmethod(FromPandas)
    RSnapshotOptions = RSnapshotOptions
    ESnapshotOutputFormat = ESnapshotOutputFormat
    TH1DModel, TH2DModel, TH3DModel = TH1DModel, TH2DModel, TH3DModel
    TProfile1DModel, TProfile2DModel = TProfile1DModel, TProfile2DModel
    Experimental = _Experimental
