"""The optional dependencies and the extras that install them: a call that needs a package
the environment lacks says which `pip install 'rootweave[extra]'` brings it."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

# The extra (pyproject.toml's optional-dependencies) that brings each optional package.
EXTRA_OF = {
    "awkward": "awkward",
    "pyarrow": "arrow",
    "polars": "polars",
    "pandas": "pandas",
    "awkward_pandas": "pandas",
    "dask": "dask",
    "dask_awkward": "dask",
    "distributed": "dask",
    "hist": "hist",
    "boost_histogram": "hist",
}


@contextmanager
def hint() -> Iterator[None]:
    """Turns the failed import of an optional package into an error naming its extra."""
    try:
        yield
    except ModuleNotFoundError as error:
        package = (error.name or "").partition(".")[0]
        if package not in EXTRA_OF:
            raise
        raise ModuleNotFoundError(f"this call needs {package}, which is not installed: "
                                  f"pip install 'rootweave[{EXTRA_OF[package]}]'", name=error.name) from None
