"""RDataFrame's `Describe`: a node's description as ROOT's `RDFDescription` gives it."""

from __future__ import annotations


class RDFDescription:
    """Where the data come from (the brief part), the graph's numbers and every column with
    its type and origin, laid out as ROOT 6.40 lays them out."""

    def __init__(self, brief: str, full: str) -> None:
        self._brief, self._full = brief, full

    def AsString(self, shortFormat: bool = False) -> str:  # noqa: N802, N803
        """The description as text: the brief part alone with `shortFormat`."""
        return self._brief if shortFormat else f"{self._brief}\n\n{self._full}\n"

    def Print(self, shortFormat: bool = False) -> None:  # noqa: N802, N803
        """Prints `AsString(shortFormat)`."""
        text = self.AsString(shortFormat)
        print(text, end="" if text.endswith("\n") else "\n")

    def __repr__(self) -> str:
        return self.AsString()
