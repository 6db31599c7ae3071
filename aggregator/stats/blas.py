"""Matrix products on one BLAS thread.

A float product's last bits depend on the threads that compute it, and the outputs keep every bit, so every
product runs on one thread: the headline bootstrap (:mod:`aggregator.run.intervals`) and the comparison
(:mod:`aggregator.compare.api`) run theirs inside :func:`single_thread`.

The command line also starts OpenBLAS on one thread (:func:`one_thread`, before NumPy is imported): OpenBLAS
otherwise starts a thread per core, and an idle one spins before it sleeps (in ``aggregate RUN --families core``
on 5,000 rows that cost 0.04 of 0.97 CPU-s, medians of 12 interleaved runs, 2026-11-28). It sets
``OPENBLAS_NUM_THREADS=1`` for the process; a value the user set wins: that variable, or ``OMP_NUM_THREADS``, which
OpenBLAS reads when the first is unset (the products still run on one thread). The Python API leaves the
caller's process as it is.
"""

from __future__ import annotations

import os
import sys
from contextlib import AbstractContextManager, nullcontext

SETTING = "OPENBLAS_NUM_THREADS"
USER_SETTINGS = (SETTING, "OMP_NUM_THREADS")
_started_on_one: list[bool] = [False]
"""True once :func:`one_thread` set the setting before NumPy was imported."""


def one_thread() -> None:
    """OpenBLAS on one thread, unless the user chose its threads (module doc)."""
    if not any(name in os.environ for name in USER_SETTINGS):
        os.environ[SETTING] = "1"
        _started_on_one[0] = "numpy" not in sys.modules


def single_thread() -> AbstractContextManager[object]:
    """The products inside run on one BLAS thread: threadpoolctl's limit, or nothing when :func:`one_thread`
    started OpenBLAS on one (importing threadpoolctl and finding the loaded libraries costs ~5 ms). Another
    BLAS (MKL, BLIS, Accelerate) does not read the setting, so it always gets the limit."""
    if _started_on_one[0] and numpy_blas_is_openblas():
        return nullcontext()
    from threadpoolctl import threadpool_limits

    limit: AbstractContextManager[object] = threadpool_limits(limits=1, user_api="blas")
    return limit


def numpy_blas_is_openblas() -> bool:
    """NumPy was built with OpenBLAS (its build configuration says so; unknown: False)."""
    import numpy as np

    try:
        name = np.__config__.CONFIG["Build Dependencies"]["blas"]["name"]
    except (AttributeError, KeyError, TypeError):
        return False
    return isinstance(name, str) and "openblas" in name.lower()
