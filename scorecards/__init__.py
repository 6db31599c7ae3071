"""Reading ABSA pipeline scorecards into typed evaluation tuples.

>>> from scorecards import read_scorecards
>>> result = read_scorecards("results/cr_n50_m1_v2__seed42")  # doctest: +SKIP
>>> result.items[0].gold  # doctest: +SKIP
frozenset({EvalTuple(aspect_ref='제품 전체#일반', aspect_term='아이립밤', polarity='positive')})
"""

from scorecards.errors import BadLine, BadLineError, InputError
from scorecards.inputs import resolve_input
from scorecards.normalize import norm_polarity, norm_ref, norm_term
from scorecards.read_result import ReadResult
from scorecards.reader import read_scorecards, start_read
from scorecards.record import SampleRecord
from scorecards.tuples import EvalTuple, TupleSet

__all__ = [
    "BadLine",
    "BadLineError",
    "EvalTuple",
    "InputError",
    "ReadResult",
    "SampleRecord",
    "TupleSet",
    "norm_polarity",
    "norm_ref",
    "norm_term",
    "read_scorecards",
    "resolve_input",
    "start_read",
]
