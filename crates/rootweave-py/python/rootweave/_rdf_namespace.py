"""ROOT's `ROOT.RDF` namespace over rootweave's calls, so that a port from PyROOT changes
the package's name only: `rootweave.RDF.RunGraphs`, `rootweave.RDF.RSnapshotOptions`,
`rootweave.RDF.Experimental.VariationsFor`, ..."""

from __future__ import annotations

from ._rdf import AddProgressBar, FromNumpy, RunGraphs, VariationsFor
from ._rdf_snapshot import ESnapshotOutputFormat, RSnapshotOptions


class _Experimental:
    """`ROOT.RDF.Experimental`: `VariationsFor`, `AddProgressBar`."""

    VariationsFor = staticmethod(VariationsFor)
    AddProgressBar = staticmethod(AddProgressBar)


class RDF:
    """`ROOT.RDF`: `RunGraphs`, `FromNumpy`, `RSnapshotOptions`, `ESnapshotOutputFormat`,
    and `Experimental`."""

    RunGraphs = staticmethod(RunGraphs)
    FromNumpy = staticmethod(FromNumpy)
    RSnapshotOptions = RSnapshotOptions
    ESnapshotOutputFormat = ESnapshotOutputFormat
    Experimental = _Experimental
