"""PyROOT's histogram models (`ROOT.RDF.TH1DModel`, ...): tuples of the arguments, as
`Histo1D` and the others take a model, so that code booking with them runs unchanged."""

from __future__ import annotations

from typing import Any


class _Model(tuple[Any, ...]):
    """A model's arguments, in ROOT's order; at least a name and a title."""

    def __new__(cls, *args: Any) -> _Model:
        if len(args) < 2:
            raise ValueError(f"{cls.__name__} takes a name, a title and its axes")
        return super().__new__(cls, args)


class TH1DModel(_Model):
    """`TH1DModel(name, title, nbins, low, high)` or `(name, title, nbins, edges)`."""


class TH2DModel(_Model):
    """`TH2DModel(name, title, nx, xlow, xup, ny, ylow, yup)`, edges for either axis."""


class TH3DModel(_Model):
    """`TH3DModel(name, title, nx, xlow, xup, ny, ylow, yup, nz, zlow, zup)`, or edges."""


class TProfile1DModel(_Model):
    """`TProfile1DModel(name, title, nbins, low, high[, ylow, yup][, option])`."""


class TProfile2DModel(_Model):
    """`TProfile2DModel(name, title, nx, xlow, xup, ny, ylow, yup[, zlow, zup][, option])`."""
