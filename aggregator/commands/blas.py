"""One BLAS thread for the command line, chosen before NumPy loads.

Every matrix product the commands compute already runs on one BLAS thread (``threadpool_limits`` around the
headline bootstrap, :mod:`aggregator.run.intervals`, and around the comparison, :mod:`aggregator.compare.api`):
a product's last bits depend on the threads, and the outputs keep every bit. OpenBLAS still starts a thread per
core when NumPy is imported, and an idle OpenBLAS thread spins before it sleeps: in ``aggregate RUN --families
core`` on 5,000 rows that cost 0.04 of 0.97 CPU-s (medians of 12 interleaved runs, 2026-11-28).

:func:`one_thread` sets ``OPENBLAS_NUM_THREADS=1`` for the process, before NumPy is imported. A value the user
set wins: that variable, or ``OMP_NUM_THREADS``, which OpenBLAS reads when the first is unset (the products
still run on one thread). The Python API leaves the caller's process as it is.
"""

from __future__ import annotations

import os

SETTING = "OPENBLAS_NUM_THREADS"
USER_SETTINGS = (SETTING, "OMP_NUM_THREADS")


def one_thread() -> None:
    """OpenBLAS on one thread, unless the user chose its threads (module doc)."""
    if not any(name in os.environ for name in USER_SETTINGS):
        os.environ[SETTING] = "1"
