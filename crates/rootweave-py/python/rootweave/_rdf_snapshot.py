"""`Snapshot`'s settings as RDataFrame spells them: `RSnapshotOptions` (its fields named as
ROOT's, so that ROOT's own object is taken as well), the output formats and compression
algorithms by ROOT's numbers."""

from __future__ import annotations

from typing import Any, NamedTuple


class ESnapshotOutputFormat:
    """`ROOT.RDF.ESnapshotOutputFormat`: the format a snapshot writes (`kDefault`: a TTree)."""

    kDefault, kTTree, kRNTuple = 0, 1, 2


class EAlgorithm:
    """`ROOT.RCompressionSetting.EAlgorithm`: compression algorithms by ROOT's numbers
    (`kUndefined`, `kInherit`, `kUseGlobal`: the format's default)."""

    kInherit, kUseGlobal, kZLIB, kLZMA, kOldCompressionAlgo, kLZ4, kZSTD, kUndefined = -1, 0, 1, 2, 3, 4, 5, 6


#: The codecs of ROOT's algorithm numbers (3, ROOT's legacy deflate, is read, not written).
_CODECS = {1: "zlib", 2: "lzma", 4: "lz4", 5: "zstd"}


class RSnapshotOptions:
    """How `Snapshot` writes, with the fields of ROOT's `RSnapshotOptions` (an instance of
    ROOT's own class is taken too). Honoured: `fMode` ("RECREATE" or "UPDATE"), `fLazy`
    (written with the graph's next run, not at the call), `fCompressionAlgorithm` and
    `fCompressionLevel` (ROOT's numbers; level 0 is no compression), `fOutputFormat`,
    `fOverwriteIfExists`. The layout settings (`fAutoFlush`, `fSplitLevel`, `fBasketSize`,
    page and cluster sizes) are taken and left to rootweave's writers, whose clusters follow
    the input's batches; `fIncludeVariations` is refused."""

    def __init__(self, mode: str = "RECREATE", comprAlgo: int = EAlgorithm.kUndefined,  # noqa: N803
                 comprLevel: int = 0, autoFlush: int = 0, splitLevel: int = 99,  # noqa: N803
                 lazy: bool = False, overwriteIfExists: bool = False,  # noqa: N803
                 outputFormat: int = ESnapshotOutputFormat.kDefault) -> None:  # noqa: N803
        self.fMode, self.fCompressionAlgorithm, self.fCompressionLevel = mode, comprAlgo, comprLevel
        self.fAutoFlush, self.fSplitLevel, self.fLazy = autoFlush, splitLevel, lazy
        self.fOverwriteIfExists, self.fOutputFormat = overwriteIfExists, outputFormat
        self.fBasketSize, self.fIncludeVariations, self.fVector2RVec = -1, False, True


class Settings(NamedTuple):
    """What a snapshot does, in rootweave's terms."""

    format: str
    compression: str | None
    mode: str
    overwrite_if_exists: bool
    lazy: bool


def settings(options: Any) -> Settings:
    """The settings of an `RSnapshotOptions` (rootweave's or ROOT's).

    Args:
        options: An object with `RSnapshotOptions`' fields.
    """
    if bool(getattr(options, "fIncludeVariations", False)):
        raise NotImplementedError("Snapshot: fIncludeVariations (varied columns written) is not supported")
    output = int(getattr(options, "fOutputFormat", ESnapshotOutputFormat.kDefault))
    if output not in (0, 1, 2):
        raise ValueError(f"Snapshot: no output format {output} (kDefault 0, kTTree 1, kRNTuple 2)")
    return Settings("rntuple" if output == ESnapshotOutputFormat.kRNTuple else "ttree",
                    compression(int(getattr(options, "fCompressionAlgorithm", EAlgorithm.kUndefined)),
                                int(getattr(options, "fCompressionLevel", 0))),
                    str(getattr(options, "fMode", "RECREATE")),
                    bool(getattr(options, "fOverwriteIfExists", False)), bool(getattr(options, "fLazy", False)))


def compression(algorithm: int, level: int) -> str | None:
    """rootweave's spelling of ROOT's algorithm and level: None for the format's default
    (no algorithm chosen), "none" for level 0 of a chosen one.

    Args:
        algorithm: ROOT's `EAlgorithm` number.
        level: The level (0: no compression).
    """
    if algorithm in (EAlgorithm.kInherit, EAlgorithm.kUseGlobal, EAlgorithm.kUndefined):
        return None
    if algorithm not in _CODECS:
        raise ValueError(f"Snapshot: no compression algorithm {algorithm} (ROOT's EAlgorithm)")
    return "none" if level <= 0 else f"{_CODECS[algorithm]}:{level}"
