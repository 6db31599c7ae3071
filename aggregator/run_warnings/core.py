"""The core warning codes: outputs that look like results but cannot be read as one.

Each check reads the per-sample table after ``--profile`` (and the run's metrics) and returns
a :class:`~aggregator.run_warnings.declare.Finding` with the numbers when its code is raised.
Without gold every check but ``gold_missing`` and ``polarity_defaulted`` stays silent: the
columns the others mark are all blank then, and ``gold_missing`` says so once.
"""

from __future__ import annotations

from collections.abc import Sequence

from aggregator.run_warnings.declare import CheckInput, Finding, WarningCode, WarningRegistry

MIN_SAMPLES = 30
EMPTY_SHARE = 0.25
FALLBACK_SHARE = 0.5
MIN_COLLAPSE_TUPLES = 10
TRANSITION_METRICS = ("delta_f1*", "fix_rate*", "break_rate*", "net_gain*", "cda", "break_count")
HEADLINE_METRICS = ("tuple_f1_s1*", "tuple_f1_s2", "tuple_f1_s2_otepol", "tuple_f1_s2_attrpol", *TRANSITION_METRICS)
REF_METRICS = (
    "tuple_f1_s1", "tuple_f1_s2", "tuple_f1_s1_attrpol", "tuple_f1_s2_attrpol", "delta_f1", "delta_f1_attrpol",
    "fix_rate", "fix_rate_attrpol", "break_rate", "break_rate_attrpol", "net_gain", "net_gain_attrpol", "cda",
    "break_count", "tuple_f1_s2_refpol_*", "tuple_f1_s2_attrpol_*", "tuple_f1_s2_explicit_only", "ref_coverage_rate*",
    "errors_*refpol*", "errors_*attrpol*",
)


def _sums(run: CheckInput, columns: Sequence[str], *, gold_only: bool = True) -> dict[str, int]:
    import polars as pl

    rows = run.table.filter(pl.col("has_gold")) if gold_only else run.table
    sums = rows.select(pl.col(c).cast(pl.Int64).sum() for c in columns).row(0, named=True)
    return {c: int(sums[c] or 0) for c in columns}


def _share(part: int, whole: int) -> str:
    return f"{part} of {whole} ({100 * part / whole:.0f}%)"


def _from_final(run: CheckInput) -> int:
    """Rows whose stage 1 is their final set, for want of stage-1 tuples in the input."""
    return int((run.table.get_column("stage1_source") == "final").sum())


def _gold(run: CheckInput) -> bool:
    return bool(run.metrics.get("gold_available"))


def ref_unmeasurable(run: CheckInput) -> Finding | None:
    if not _gold(run):
        return None
    s = _sums(run, [f"{c}{k}" for c in ("s1_ref_", "s2_ref_") for k in ("filled", "valid", "copies_term")] + ["n_s1", "n_s2"])
    predicted = s["n_s1"] + s["n_s2"]
    if predicted == 0:
        return None
    valid, filled = s["s1_ref_valid"] + s["s2_ref_valid"], s["s1_ref_filled"] + s["s2_ref_filled"]
    copies = s["s1_ref_copies_term"] + s["s2_ref_copies_term"]
    copied = f", {copies} of them a copy of the tuple's own term" if copies else ""
    if valid == 0:
        return Finding(
            f"no predicted tuple carries a taxonomy ref ({filled} of {predicted} stage-1 and final tuples "
            f"on samples with gold have a ref{copied}; none is a taxonomy key): Ref-F1 and Attr-F1 are 0 "
            "by construction, not a finding", predicted)
    if filled and copies == filled:
        return Finding(
            f"every predicted ref is a copy of its tuple's term ({copies} of {predicted} tuples on samples with "
            "gold): Ref-F1 and Attr-F1 measure the terms, not the taxonomy", copies)
    return None


def no_stage_change(run: CheckInput) -> Finding | None:
    if not _gold(run) or _sums(run, ("changed",), gold_only=False)["changed"] > 0:
        return None
    n = run.table.height
    from_final = _from_final(run)
    why = f"; {_share(from_final, n)} rows have no stage-1 tuples, so stage 1 is their final set" if from_final else ""
    return Finding(f"the final set equals stage 1 on all {n} samples{why}: ΔF1, fix and break rates are 0 "
                   "by construction", n)


def stage1_missing(run: CheckInput) -> Finding | None:
    n = run.table.height
    from_final = _from_final(run)
    if not _gold(run) or from_final <= FALLBACK_SHARE * n or no_stage_change(run) is not None:
        return None
    return Finding(f"{_share(from_final, n)} rows have no stage-1 tuples (no stage1_tuples and no stage-1 trace entry), "
                   "so their stage 1 is the final set: ΔF1, fix and break rates describe the other rows only",
                   from_final)


def empty_predictions(run: CheckInput) -> Finding | None:
    import polars as pl

    if not _gold(run):
        return None
    gold = run.table.filter(pl.col("has_gold"))
    empty = int((gold.get_column("n_s2") == 0).sum())
    if empty <= EMPTY_SHARE * gold.height:
        return None
    return Finding(f"{_share(empty, gold.height)} samples with gold have an empty final set: "
                   "F1 at the final stage mostly counts missing output", empty)


def polarity_collapse(run: CheckInput) -> Finding | None:
    from aggregator.run_warnings.tuples import polarities

    if not _gold(run):
        return None
    gold = polarities(run.table, "gold")
    if len(gold) < 2:
        return None
    collapsed = []
    for stage, label in (("s1", "stage 1"), ("s2", "final")):
        predicted = polarities(run.table, stage)
        total = sum(predicted.values())
        if len(predicted) == 1 and total >= MIN_COLLAPSE_TUPLES:
            collapsed.append(f"all {total} {label} tuples are {next(iter(predicted))}")
    if not collapsed:
        return None
    return Finding(f"{' and '.join(collapsed)} while gold has {len(gold)} polarities ({', '.join(gold)}): "
                   "polarity is not being predicted", None)


def fallback_source(run: CheckInput) -> Finding | None:
    if not _gold(run):
        return None
    sources = run.table.get_column("final_source").value_counts()
    n = run.table.height
    fallback = {s: c for s, c in sources.iter_rows() if s != "final_tuples"}
    used = sum(fallback.values())
    if used <= FALLBACK_SHARE * n:
        return None
    where = ", ".join(f"{s}: {c}" for s, c in sorted(fallback.items()))
    return Finding(f"{_share(used, n)} rows have no final_tuples; their final set was read from a fallback "
                   f"field ({where}): the final stage may not be the reviewed output", used)


def gold_missing(run: CheckInput) -> Finding | None:
    if _gold(run):
        return None
    return Finding(f"no sample has gold ({run.table.height} rows): every F1, fix and break metric is blank",
                   run.table.height)


def few_samples(run: CheckInput) -> Finding | None:
    n_gold = int(run.metrics.get("N_gold") or 0)
    if n_gold == 0 or n_gold >= MIN_SAMPLES:
        return None
    return Finding(f"only {n_gold} samples have gold: means over so few samples vary widely from run to run", n_gold)


def polarity_defaulted(run: CheckInput) -> Finding | None:
    n = run.counts.get("polarity_defaulted", 0)
    if not n:
        return None
    return Finding(f"{n} tuple item(s) had no polarity (missing, null or empty) and were counted as neutral", n)


def unicode_near_matches(run: CheckInput) -> Finding | None:
    n = run.counts.get("unicode_near_matches", 0)
    if not n:
        return None
    return Finding(f"{n} predicted aspect term(s) equal a gold term only after Unicode NFC normalization or "
                   "removing invisible characters, and count as misses", n)


CODES = (
    WarningCode(
        "ref_unmeasurable", "Ref-F1 cannot be measured",
        "No predicted tuple (stage 1 or final) carries a taxonomy ref, or every predicted ref is a copy of its "
        "tuple's term. The GoldUnit and the attribute unit compare refs, so Ref-F1 and Attr-F1 are 0 (and their "
        "Δ, fix and break rates 0 or blank) whatever the pipeline did.",
        "Σ valid predicted refs = 0 over the stage-1 and final tuples of the samples with gold "
        "(`s1_ref_valid`, `s2_ref_valid`), or every non-empty predicted ref is a copy of its term "
        "(`s1_ref_copies_term`, `s2_ref_copies_term`); "
        "not raised without gold or without predicted tuples.",
        "Make the pipeline emit `aspect_ref` as a taxonomy key (`entity#attribute`), or pass the dataset's "
        "taxonomy with `--taxonomy FILE`; until then report the Surface unit.",
        ref_unmeasurable, metrics=REF_METRICS),
    WarningCode(
        "no_stage_change", "Stage 2 changed nothing",
        "The final set equals stage 1 on every sample: the review did nothing, or stage 1 was not recorded.",
        "no sample with `changed` (S1 ≠ S2 as tuple sets).",
        "Check that the review stage ran and that stage-1 tuples are recorded (`stage1_tuples` or the "
        "stage-1 trace entry); compare F1 only.",
        no_stage_change, metrics=TRANSITION_METRICS),
    WarningCode(
        "stage1_missing", "Stage 1 missing in most rows",
        "Most rows carry neither `stage1_tuples` nor a stage-1 trace entry, so their stage 1 is the final set "
        "and they count as unchanged.",
        f"more than {FALLBACK_SHARE:.0%} of the rows have `stage1_source` = `final`; not raised together "
        "with `no_stage_change`, which then says it.",
        "Record the stage-1 output in the scorecards (`runtime.parsed_output.final_result.stage1_tuples`).",
        stage1_missing, metrics=TRANSITION_METRICS),
    WarningCode(
        "empty_predictions", "Empty final sets",
        "Many samples with gold have no final tuple: a parse failure or a collapsed output, not a weak model.",
        f"more than {EMPTY_SHARE:.0%} of the samples with gold have |S2| = 0.",
        "Look at those samples (`aggregate samples RUN --only misses`) and at the pipeline's parse errors.",
        empty_predictions, metrics=("tuple_f1_s2*", "delta_f1*", "net_gain*")),
    WarningCode(
        "polarity_collapse", "One polarity for everything",
        "All predicted polarities of a stage are one value while gold has several.",
        f"on the samples with gold, the stage-1 or the final tuples (at least {MIN_COLLAPSE_TUPLES}) have one "
        "polarity value and the gold tuples at least two.",
        "Check the polarity field the pipeline writes and the label mapping.",
        polarity_collapse, metrics=HEADLINE_METRICS),
    WarningCode(
        "fallback_source", "Finals from a fallback field",
        "Most rows have no `final_tuples`; their final set was read from `final_aspects` or "
        "`inputs.aspect_sentiments`, which may not be the reviewed output.",
        f"more than {FALLBACK_SHARE:.0%} of the rows have a `final_source` other than `final_tuples` "
        "(`N_agg_fallback_used` / `n`).",
        "Write the reviewed tuples to `runtime.parsed_output.final_result.final_tuples`.",
        fallback_source, metrics=("tuple_f1_s2*", *TRANSITION_METRICS)),
    WarningCode(
        "gold_missing", "No gold",
        "No sample has gold, so nothing can be scored: every metric that needs gold is blank.",
        "`N_gold` = 0 (after `--profile`).",
        "Check the gold field (`gold_tuples`, `inputs.gold_tuples`, `gold_triplets`) and the `--profile` filter.",
        gold_missing, gold_metrics=True),
    WarningCode(
        "few_samples", "Few samples",
        "Fewer samples with gold than a mean can be trusted on: one sample moves F1 by several points.",
        f"0 < `N_gold` < {MIN_SAMPLES}.",
        "Aggregate more samples, or compare runs with `aggregate compare` for intervals and p-values.",
        few_samples, metrics=HEADLINE_METRICS),
    WarningCode(
        "polarity_defaulted", "Polarities defaulted to neutral",
        "Some tuple items had no polarity; the input contract counts them as neutral, which may not be what "
        "the pipeline meant.",
        "at least one gold, stage-1 or final item with a missing, null or empty polarity.",
        "Make the pipeline always write a polarity; `--allow polarity_defaulted` if the neutral default is intended.",
        polarity_defaulted),
    WarningCode(
        "unicode_near_matches", "Terms that look like gold but do not match",
        "Some predicted aspect terms differ from a gold term of their sample only by their Unicode form "
        "(NFD against NFC, Hangul in conjoining jamo) or by invisible characters (zero-width space, soft hyphen, "
        "byte-order mark, bidirectional marks). The matching rule is the reference's (code points after the "
        "term normalization), so they count as misses while the report shows the same text.",
        "at least one distinct predicted term of a sample, at stage 1 or final, equal to a gold term of the "
        "sample once both are in NFC with every format (Cf) character removed, but not before "
        "(aggregator/run/lookalikes.py); counted in run_metadata.json `counts.unicode_near_matches`.",
        "Normalize terms to NFC and strip invisible characters in the pipeline (or in the gold); "
        "`--allow unicode_near_matches` if the difference is meant.",
        unicode_near_matches, metrics=("*otepol*", "*explicit*")),
)


def declare(registry: WarningRegistry) -> None:
    """Add the core codes."""
    registry.extend(CODES)
