"""The Python API: :func:`aggregator.aggregate_run` and its typed result (:mod:`~aggregator.api.run`),
and the checks its arguments share with :func:`aggregator.compare_runs` (:mod:`~aggregator.api.arguments`).
"""
