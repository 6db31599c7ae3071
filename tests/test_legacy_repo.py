"""A research repository switched to absa-aggregator with the shim of docs/migration.md.

The fake repository holds the shim at ``scripts/structural_error_aggregator.py`` (the code block
of the migration guide, as written there), a caller that runs it by path with the exact flags of
the group's pipeline and catches failures as theirs do, and a caller that imports the four
functions inside a silent ``try/except`` as ``scorecard_from_smoke.make_scorecard`` does. Every
file and every return value is checked, in fresh Python processes.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from aggregator.run.pipeline import evaluate_run
from tests.conftest import RUNS
from tests.legacy_compare import compare_file

ROOT = Path(__file__).resolve().parents[1]
RUN = "cr_n50_m1_v2__seed42"
EXPECTED = RUNS / RUN / "expected_legacy" / "full"

PIPELINE_STEP = '''\
"""The pipeline's metrics step: runs the aggregator by path and goes on with a warning when it fails."""
import subprocess
import sys

run = sys.argv[1]
command = [sys.executable, "scripts/structural_error_aggregator.py", "--input", f"{run}/scorecards.jsonl",
           "--outdir", f"{run}/derived/metrics", "--profile", "paper_main",
           "--export_triptych_table", f"{run}/derived_subset/triptych.csv", "--triptych_sample_n", "0"]
done = subprocess.run(command)
if done.returncode != 0:
    print(f"WARNING: structural_error_aggregator failed ({done.returncode}); continuing")
'''

SCORECARD_WRITER = '''\
"""make_scorecard as the group's scorecard writer calls the aggregator's functions."""
import json
import sys


def make_scorecard(parsed_output):
    card = {"runtime": {"parsed_output": parsed_output}}
    try:
        from scripts.structural_error_aggregator import (
            _extract_final_tuples, _extract_stage1_tuples, has_stage1_structural_risk, has_stage2_structural_risk)
        record = {"runtime": {"parsed_output": parsed_output}}
        card["stage1_tuples"] = sorted(_extract_stage1_tuples(record))
        card["final_tuples"] = sorted(_extract_final_tuples(record))
        card["stage1_structural_risk"] = has_stage1_structural_risk(card)
        card["stage2_structural_risk"] = has_stage2_structural_risk(card)
    except Exception:
        pass
    return card


if __name__ == "__main__":
    outputs = [json.loads(line) for line in sys.stdin]
    print(json.dumps([make_scorecard(o) for o in outputs], ensure_ascii=False))
'''


def shim_from_the_guide() -> str:
    guide = (ROOT / "docs" / "migration.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", guide, flags=re.S)
    assert len(blocks) == 1
    return blocks[0]


def research_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "research"
    (repo / "scripts").mkdir(parents=True)
    (repo / "scripts" / "__init__.py").write_text("")
    (repo / "scripts" / "structural_error_aggregator.py").write_text(shim_from_the_guide(), encoding="utf-8")
    (repo / "scripts" / "run_metrics_step.py").write_text(PIPELINE_STEP, encoding="utf-8")
    (repo / "scripts" / "scorecard_from_smoke.py").write_text(SCORECARD_WRITER, encoding="utf-8")
    run = repo / "results" / RUN
    run.mkdir(parents=True)
    shutil.copy(RUNS / RUN / "scorecards.jsonl", run / "scorecards.jsonl")
    return repo


def python(repo: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=repo, capture_output=True, text=True, input=stdin, timeout=300)


def test_the_pipeline_step_runs_the_shim_by_path(tmp_path: Path) -> None:
    repo = research_repo(tmp_path)
    done = python(repo, "scripts/run_metrics_step.py", f"results/{RUN}")
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stdout
    run = repo / "results" / RUN
    written = {p.relative_to(run).as_posix() for p in run.rglob("*") if p.is_file()}
    assert written == {"scorecards.jsonl", "derived/metrics/structural_metrics.csv",
                       "derived/metrics/structural_metrics_table.md", "derived/stage_summary.csv",
                       "derived/stage_summary.md", "derived_subset/triptych.csv"}
    # every row of this run is paper_main, so the pipeline's files are those of the full command line
    for name, expected in (("derived/metrics/structural_metrics.csv", "derived/metrics/structural_metrics.csv"),
                           ("derived/metrics/structural_metrics_table.md", "derived/metrics/structural_metrics_table.md"),
                           ("derived/stage_summary.csv", "derived/stage_summary.csv"),
                           ("derived/stage_summary.md", "derived/stage_summary.md"),
                           ("derived_subset/triptych.csv", "triptych.csv")):
        assert compare_file(name, run / name, EXPECTED / expected) == [], name


def test_a_failing_call_is_seen_by_the_caller(tmp_path: Path) -> None:
    repo = research_repo(tmp_path)
    (repo / "results" / RUN / "scorecards.jsonl").write_text('{"meta": {"text_id": "a"}}\nnot json\n')
    done = python(repo, "scripts/run_metrics_step.py", f"results/{RUN}")
    assert "WARNING: structural_error_aggregator failed (2)" in done.stdout
    assert f"results/{RUN}/scorecards.jsonl:2: " in done.stderr
    assert not (repo / "results" / RUN / "derived").exists()


def test_the_scorecard_writer_imports_the_four_functions(tmp_path: Path) -> None:
    repo = research_repo(tmp_path)
    rows = [json.loads(line) for line in (RUNS / RUN / "scorecards.jsonl").read_text(encoding="utf-8").splitlines()]
    outputs = [row["runtime"]["parsed_output"] for row in rows[:10]]
    extra = {"final_result": {"stage1_tuples": [{"aspect_ref": "본품#품질", "aspect_term": "맛", "polarity": "pos"}],
                              "final_tuples": [{"aspect_ref": "본품#품질", "aspect_term": "맛", "polarity": "positive"},
                                               {"aspect_ref": "본품#품질", "aspect_term": "향", "polarity": "odd"}]}}
    stdin = "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in [*outputs, extra])
    done = python(repo, "-m", "scripts.scorecard_from_smoke", stdin=stdin)
    assert done.returncode == 0, done.stderr
    cards = json.loads(done.stdout)
    table = evaluate_run(RUNS / RUN, workers=1).table.sort("line").head(10)
    for card, (final, stage1, conflict) in zip(cards, table.select("final_tuples", "stage1_tuples",
                                                                   "polarity_conflict").iter_rows()):
        assert card["final_tuples"] == json.loads(final)  # sorted (ref, term, polarity) triples, as aggregate reads them
        assert card["stage1_tuples"] == json.loads(stage1)
        # no validator block and no judgement in a pipeline output: stage-1 risk is a polarity conflict
        assert card["stage1_structural_risk"] is conflict
        assert card["stage2_structural_risk"] is False
    last = cards[-1]
    assert last["stage1_tuples"] == [["본품#품질", "맛", "positive"]]
    assert last["final_tuples"] == [["본품#품질", "맛", "positive"], ["본품#품질", "향", "neutral"]]
    assert last["stage1_structural_risk"] is True  # one ref, two polarities: a polarity conflict
    assert last["stage2_structural_risk"] is False
