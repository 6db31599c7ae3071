"""The research script's command line (LEGACY.md section 2), parsed as the script parsed it: Python
``argparse``, so ``--flag value`` and ``--flag=value``, unambiguous prefixes, ``int()`` values and
``choices`` behave the same, and an argument error prints a usage message and exits 2."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

PROFILES = ("smoke", "regression", "paper_main")
SANITY_MODES = ("gold_gold", "pred_pred", "ref_split")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="aggregate legacy",
        description="The research script structural_error_aggregator.py: its command line and every file it writes "
                    "(docs/migration.md).",
    )
    p.add_argument("--input", required=True, help="scorecards JSONL file (single run or merged), or a run directory")
    p.add_argument("--outdir", default="results/metrics",
                   help="structural_metrics.csv and its table; stage_summary.* beside a folder named metrics")
    p.add_argument("--profile", choices=PROFILES, default=None, help="aggregate only rows of this profile (metrics only)")
    p.add_argument("--export_triptych_table", default=None, help="per-sample triptych table (.csv: CSV, else TSV)")
    p.add_argument("--triptych_sample_n", type=int, default=0, help="first N rows for the triptych and risk details (0: all)")
    p.add_argument("--triptych_include_text", type=int, choices=[0, 1], default=1, help="text column")
    p.add_argument("--triptych_include_debug", type=int, choices=[0, 1], default=0,
                   help="rq1_bucket and evidence_rationale columns")
    p.add_argument("--export_triptych_risk_details", default=None, help="risk details JSONL")
    p.add_argument("--diagnostics_dir", default=None, help="B1 check, then five diagnostics files")
    p.add_argument("--sanity_check", action="store_true", help="B1 check (gold against itself) before writing")
    p.add_argument("--sanity-mode", dest="sanity_mode", choices=SANITY_MODES, default=None,
                   help="write only sanity_checks.md for this mode and stop")
    p.add_argument("--sanity-sample-n", dest="sanity_sample_n", type=int, default=50, help="rows for --sanity-mode")
    p.add_argument("--snapshot_eval_inputs", default=None, help="JSON snapshot of the first rows' pairs")
    p.add_argument("--snapshot_sample_n", type=int, default=5, help="rows for the snapshot")
    p.add_argument("--log_tuple_sources", default=None, help="tab-separated log of each row's tuple sources")
    p.add_argument("--log_sample_n", type=int, default=10, help="first N rows for the log (0: all)")
    p.add_argument("--traces", default=None, help="accepted and ignored")
    p.add_argument("--verbose", action="store_true", help="one informative line on stderr")
    return p


def parse(args: Sequence[str]) -> argparse.Namespace:
    """The options; an argument error exits with status 2 (argparse's usage message on stderr)."""
    return parser().parse_args(list(args))
