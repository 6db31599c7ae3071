"""A comparison of many conditions for report tests: one merged scorecards file, every run a copy
of a real run (its gold, stage-1 and final tuples and sentences only) under a long condition name,
with some finals emptied so that the conditions differ."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import RUNS

BASE = RUNS / "cr_n50_m1_v2__seed42" / "scorecards.jsonl"


def condition_name(i: int) -> str:
    return f"cr_n50_review_with_memory_and_debate_prompt_variant_{i:02d}_v2"


def write_grid(path: Path, conditions: int, seeds: int) -> Path:
    """``conditions`` × ``seeds`` runs in one file; run ``(i, s)`` empties the final set of sample
    ``j`` when ``(j + 3i + s) mod 10 < i mod 4``."""
    rows = [json.loads(line) for line in BASE.read_text(encoding="utf-8").splitlines() if line.strip()]
    lines = []
    for i in range(conditions):
        for s in range(seeds):
            run_id = f"{condition_name(i)}__seed{s + 1}_proposed"
            for j, row in enumerate(rows):
                result = row["runtime"]["parsed_output"]["final_result"]
                final = [] if (j + 3 * i + s) % 10 < i % 4 else result["final_tuples"]
                copy = {"run_id": run_id, "meta": {**{k: row["meta"][k] for k in ("text_id", "input_text")}},
                        "inputs": {"gold_tuples": row["inputs"]["gold_tuples"]},
                        "runtime": {"parsed_output": {"final_result": {"stage1_tuples": result["stage1_tuples"],
                                                                       "final_tuples": final}}}}
                lines.append(json.dumps(copy, ensure_ascii=False))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
