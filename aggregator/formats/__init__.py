"""The field's ABSA formats: readers into typed tuples, sound scoring, and each official scorer's compat semantics.

Data flows as for scorecards: file -> :class:`~aggregator.formats.model.Sentence` with typed
tuples -> units (:mod:`aggregator.formats.units`) -> per-sentence counts -> micro P/R/F1.
``aggregate score`` and ``aggregate convert`` are the commands; only this module's names are
imported for ``aggregate --help``.
"""

FORMAT_NAMES = ("nikluge", "aste", "asqp", "acos", "semeval14", "semeval16")
