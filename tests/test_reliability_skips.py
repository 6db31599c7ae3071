"""No silent loss: with --skip-bad-lines, aggregated + skipped = non-blank lines, every skip listed.

Files mix valid rows, blank lines and bad lines of known kinds at known places; the skipped
lines (in ``run_metadata.json`` and on stderr) must be exactly the planted ones, each with its reason.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from aggregator.outputs.run_files import METADATA_JSON
from scorecards.errors import BadLineError, InputError
from tests.conftest import run_cli
from tests.outcomes import check_api, check_cli
from tests.strategies import blank_lines, fuzz_budgets, jsonl, line_bytes, to_line, valid_row

PROFILES = ("paper_main", "smoke")
BAD_KINDS: dict[str, tuple[st.SearchStrategy[bytes], str]] = {
    "garbage": (line_bytes.map(lambda data: b"x" + data), "not valid JSON|invalid UTF-8"),
    "not an object": (st.sampled_from([b"[]", b"3", b'"row"', b"null", b"true"]), "not a JSON object"),
    "no key": (st.just(to_line({"meta": {"text_id": ""}, "gold_tuples": []})), "no sample key"),
    "unknown polarity": (st.just(to_line({"meta": {"text_id": "p"}, "gold_tuples": [{"polarity": "good"}]})),
                         "unknown polarity 'good'"),
    "tuple list not a list": (st.just(to_line({"meta": {"text_id": "q"}, "gold_tuples": "x"})), "wrong type"),
    "not UTF-8 in an unread field": (st.just(to_line({"meta": {"text_id": "u"}, "note": "@"}).replace(b"@", b"\xe3\x80")),
                                     "invalid UTF-8 at byte"),
}


@st.composite
def planted(draw: st.DrawFn) -> tuple[bytes, dict[int, str], dict[str, int]]:
    """A file, its bad lines ``{line: reason pattern}`` and its valid rows per profile."""
    lines: list[bytes] = []
    bad: dict[int, str] = {}
    profiles = dict.fromkeys(PROFILES, 0)
    valid: list[bytes] = []
    for index, kind in enumerate(draw(st.lists(st.sampled_from(["valid", "blank", "duplicate", *BAD_KINDS]),
                                               min_size=1, max_size=14))):
        number = len(lines) + 1
        if kind == "blank":
            lines.append(draw(blank_lines))
        elif kind == "valid":
            profile = draw(st.sampled_from(PROFILES))
            row = draw(valid_row(f"key{index}"))
            lines.append(to_line({**row, "profile": profile}))
            valid.append(lines[-1])
            profiles[profile] += 1
        elif kind == "duplicate" and valid:
            lines.append(draw(st.sampled_from(valid)))
            bad[number] = "duplicate sample key"
        elif kind in BAD_KINDS:
            strategy, reason = BAD_KINDS[kind]
            lines.append(draw(strategy))
            bad[number] = reason
    return jsonl(lines, crlf=draw(st.booleans())), bad, profiles


def check_accounting(case: tuple[bytes, dict[int, str], dict[str, int]], profile: str | None) -> None:
    data, bad, profiles = case
    non_blank = sum(1 for line in data.split(b"\n") if line.strip())
    valid = sum(profiles.values())
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run" / "scorecards.jsonl"
        path.parent.mkdir()
        path.write_bytes(data)
        strict = check_api(path, Path(tmp) / "strict", profile=profile)
        result = check_api(path, Path(tmp) / "skip", skip_bad_lines=True, profile=profile)
    if bad:
        assert isinstance(strict, BadLineError) and strict.bad.line == min(bad)
    wanted = valid if profile is None or not profiles[profile] else profiles[profile]  # no match: every row
    if isinstance(result, InputError):
        assert wanted == 0, result
        return
    assert result.rows_read == non_blank == valid + len(bad)
    assert result.rows_skipped == len(bad) and result.rows_aggregated == wanted
    assert result.rows_aggregated + result.rows_skipped + (valid - wanted) == result.rows_read
    assert [s.line for s in result.skipped_lines] == sorted(bad)
    for skipped in result.skipped_lines:
        assert re.search(bad[skipped.line], skipped.reason), (skipped, bad[skipped.line])


test_every_bad_line_is_skipped_and_listed, test_every_bad_line_is_skipped_and_listed_slow = fuzz_budgets(
    30, 1000, case=planted(), profile=st.sampled_from([None, *PROFILES])
)(check_accounting)


def test_the_cli_lists_every_skip_in_metadata_and_the_first_few_on_stderr(tmp_path: Path) -> None:
    good = [to_line({"meta": {"text_id": f"k{i}"}, "gold_tuples": [{"aspect_ref": "a#b", "polarity": "pos"}]})
            for i in range(30)]
    lines: list[bytes] = []
    bad: list[int] = []
    for i, line in enumerate(good):
        lines.append(line)
        if i % 4 == 0:
            lines += [b"", b"{truncated"]
            bad.append(len(lines))
    lines.append(good[3])
    bad.append(len(lines))
    path = tmp_path / "run" / "scorecards.jsonl"
    path.parent.mkdir()
    path.write_bytes(jsonl(lines))
    done = run_cli(path, "--outdir", tmp_path / "out", "--skip-bad-lines", "--quiet")
    metadata: dict[str, Any] = check_cli(done, tmp_path / "out")[METADATA_JSON]
    assert [s["line"] for s in metadata["skipped_lines"]] == bad
    assert all(s["reason"] for s in metadata["skipped_lines"])
    assert metadata["skipped_lines"][-1]["reason"].startswith("duplicate sample key 'k3'")
    assert (metadata["rows_read"], metadata["rows_aggregated"], metadata["rows_skipped"]) == (39, 30, 9)
    stderr = done.stderr.splitlines()
    assert stderr[0] == "aggregate: skipped 9 bad line(s):"
    assert stderr[1:6] == [f"  {path}:{s['line']}: {s['reason']}" for s in metadata["skipped_lines"][:5]]
    assert stderr[6] == "  ... and 4 more (listed in run_metadata.json)"
