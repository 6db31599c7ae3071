"""The hostile inputs of issue #25 for ``aggregate score`` / ``convert``: each is one ``FILE:LINE: reason``
line (exit 2) or a correct result, never a traceback; and the labels' literals read without ``eval``
give Python's value in memory linear in the line."""

from __future__ import annotations

import ast
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aggregator.formats.evaluate import evaluate
from aggregator.formats.literal import read_literal
from aggregator.formats.payload import payload
from tests.conftest import run_cli

ASTE = "a b c####[([0], [1], 'POS')]"
ASQP = "a b c####[['a', 'food quality', 'positive', 'b']]"
SEMEVAL = """<?xml version="1.0" encoding="{encoding}"?>
<sentences><sentence id="1"><text>food</text>
<aspectTerms><aspectTerm term="food" polarity="positive" from="{start}" to="4"/></aspectTerms></sentence></sentences>
"""


def _write(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def one_line(done: Any, where: str, reason: str) -> str:
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(f"aggregate: error: {where}") and reason in line, line
    return line


@pytest.mark.parametrize(("fmt", "good", "deep", "reason"), [
    ("aste", ASTE, "a b c####" + "[" * 100_000 + "]" * 100_000, "nested too deep"),
    ("asqp", ASQP, "a b c####" + "[" * 100_000 + "'x'" + "]" * 100_000, "nested too deep"),
    ("asqp", ASQP, "a b c####" + "[(" * 50_000 + "'x'," + ")]" * 50_000, "nested too deep"),
    ("asqp", ASQP, "a b c####" + "(" * 100_000 + "'x'" + ")" * 100_000, "not a list of quads"),  # Python: 'x'
])
def test_labels_nested_100000_deep_are_one_bad_line(tmp_path: Path, fmt: str, good: str, deep: str, reason: str) -> None:
    """A RecursionError escaped from the fast JSON path."""
    gold = _write(tmp_path / "gold", good + "\n")
    pred = _write(tmp_path / "pred", good + "\n" + deep + "\n")
    one_line(run_cli("score", gold, pred, "--format", fmt), f"{pred}:2: ", reason)


def test_an_acos_span_of_5000_digits_is_a_bad_line(tmp_path: Path) -> None:
    """Python refuses to read an integer of more than 4,300 digits (ValueError)."""
    gold = _write(tmp_path / "gold", "a b c\t0,1 FOOD#QUALITY 2 1,2\n")
    pred = _write(tmp_path / "pred", f"a b c\t0,{'9' * 5000} FOOD#QUALITY 2 1,2\n")
    one_line(run_cli("score", gold, pred, "--format", "acos"), f"{pred}:1: ", "at most 10 digits")


@pytest.mark.parametrize(("digits", "reason"), [(40, "token index beyond"), (5000, "not a Python literal")])
def test_an_aste_index_beyond_2_31_is_a_bad_line(tmp_path: Path, digits: int, reason: str) -> None:
    """A huge index was kept, and could not be written as JSON by ``convert``; past 4,300 digits Python's
    own ``eval`` refuses the literal too."""
    gold = _write(tmp_path / "gold", ASTE + "\n")
    pred = _write(tmp_path / "pred", f"a b c####[([{'9' * digits}], [1], 'POS')]\n")
    one_line(run_cli("convert", gold, pred, "--format", "aste"), f"{pred}:1: ", reason)


@pytest.mark.parametrize("encoding", ["x-unknown", "cp949", "utf-32"])
def test_semeval_xml_in_an_encoding_expat_cannot_read_is_one_line(tmp_path: Path, encoding: str) -> None:
    """An unknown encoding raised LookupError; a multi-byte one ValueError."""
    gold = _write(tmp_path / "gold", SEMEVAL.format(encoding="UTF-8", start=0))
    pred = _write(tmp_path / "pred", SEMEVAL.format(encoding=encoding, start=0))
    one_line(run_cli("score", gold, pred, "--format", "semeval14"), f"{pred}:1: ", "save the file as UTF-8")


@pytest.mark.parametrize("start", [" 1_0 ", "-5", "1e3", "٣", "0x1", "1234567890", ""])
def test_semeval_offsets_are_plain_decimal_digits(tmp_path: Path, start: str) -> None:
    """``int()`` took `` 1_0 `` as 10, -5 and Arabic-Indic digits."""
    gold = _write(tmp_path / "gold", SEMEVAL.format(encoding="UTF-8", start=0))
    pred = _write(tmp_path / "pred", SEMEVAL.format(encoding="UTF-8", start=start))
    one_line(run_cli("score", gold, pred, "--format", "semeval14"), f"{pred}:3: ", "must be character offsets")


def test_a_sentence_nested_in_another_is_an_error_not_a_silent_drop(tmp_path: Path) -> None:
    """The outer sentence's annotations were dropped silently; now the file is refused, naming both lines."""
    nested = """<sentences><sentence id="1"><text>food</text>
<sentence id="2"><text>staff</text></sentence>
<aspectTerms><aspectTerm term="food" polarity="positive" from="0" to="4"/></aspectTerms></sentence></sentences>
"""
    gold = _write(tmp_path / "gold", SEMEVAL.format(encoding="UTF-8", start=0))
    pred = _write(tmp_path / "pred", nested)
    line = one_line(run_cli("score", gold, pred, "--format", "semeval14"), f"{pred}:2: ", "<sentence> inside")
    assert "line 1" in line


@pytest.mark.parametrize("command", [["convert"], ["score", "--outdir", "out"]])
def test_a_lone_surrogate_in_an_asqp_label_is_a_bad_line(tmp_path: Path, command: list[str]) -> None:
    """``'\\ud800'`` became a str that cannot be written (UnicodeEncodeError in convert and score --outdir)."""
    gold = _write(tmp_path / "gold", ASQP + "\n")
    pred = _write(tmp_path / "pred", "a b c####[['\\ud800', 'food quality', 'positive', 'b']]\n")
    one_line(run_cli(command[0], gold, pred, "--format", "asqp", *command[1:], cwd=tmp_path), f"{pred}:1: ",
             "lone surrogate")
    assert not (tmp_path / "out").exists()


def test_gas_fixed_with_more_predicted_lines_than_gold_reports_the_crash(tmp_path: Path) -> None:
    """``--compat aste-gas-fixed`` raised ValueError; every other scorer reports ``official_crash``."""
    gold = _write(tmp_path / "gold", ASTE + "\n")
    pred = _write(tmp_path / "pred", ASTE + "\n" + "x y####[([0], [1], 'NEG')]\n")
    body = payload(evaluate(gold, pred, "aste", "aste-gas-fixed"))
    assert body["official"] is None and body["official_crash"].startswith("AssertionError")
    assert body["sound"]["f1"] == pytest.approx(2 / 3)


def test_gas_fixed_on_a_sentence_without_tokens_reports_the_crash(tmp_path: Path) -> None:
    gold = _write(tmp_path / "gold", "####[]\n")
    pred = _write(tmp_path / "pred", "a b####[([0], [1], 'POS')]\n")
    body = payload(evaluate(gold, pred, "aste", "aste-gas-fixed"))
    assert body["official"] is None and body["official_crash"].startswith("ValueError: min() arg is an empty")


def _plain(value: object) -> object:
    """Tuples as lists: how the readers see a value."""
    return [_plain(v) for v in value] if isinstance(value, (list, tuple)) else value


_atoms = st.one_of(st.integers(-(2**63), 2**63 - 1), st.text(max_size=6), st.none(), st.booleans(),
                   st.floats(allow_nan=False, allow_infinity=False))
_values = st.recursive(_atoms, lambda inner: st.lists(inner, max_size=4) | st.lists(inner, max_size=4).map(tuple),
                       max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(value=st.lists(_values, max_size=5), spaced=st.booleans(), grouped=st.booleans())
def test_a_literal_reads_as_python_reads_it(value: list[Any], spaced: bool, grouped: bool) -> None:
    """Lists, tuples (also of one item), strings with any character, numbers, None and booleans, written by
    ``repr``, with or without blanks and with parentheses that only group: the value of ``ast.literal_eval``."""
    text = repr(value)
    text = text.replace(", ", " ,  ") if spaced else text
    text = f"(({text}))" if grouped else text
    try:
        expected = _plain(ast.literal_eval(text))
    except ValueError:
        return
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text.encode().decode("unicode_escape", "ignore")):
        return
    assert _plain(read_literal(text)) == expected


def test_a_3_6_mb_label_line_is_read_in_memory_linear_in_it() -> None:
    """A line the fast path cannot take (double quotes in the terms) cost ~350× its size in ``ast.literal_eval``
    (3.6 MB -> 1.27 GB); the token-by-token path holds the text, the JSON and the value."""
    quad = "['the \"food\"', 'food quality', 'positive', 'gr\\'eat']"
    text = "[" + ", ".join([quad] * 66_000) + "]"
    assert len(text) > 3_500_000
    tracemalloc.start()
    try:
        value = read_literal(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert _plain(value) == [["the \"food\"", "food quality", "positive", "gr'eat"]] * 66_000
    assert peak < 25 * len(text), f"{peak / 1e6:.0f} MB for a {len(text) / 1e6:.1f} MB line"


def test_convert_and_score_still_read_their_files_after_the_changes(tmp_path: Path) -> None:
    gold = _write(tmp_path / "gold", ASQP + "\n")
    pred = _write(tmp_path / "pred", "a b c####[('a', 'food quality', 'positive', 'b'), "
                                      "(\"a\", 'food quality', u'positive', 'b',)]\n")
    done = run_cli("convert", gold, pred, "--format", "asqp")
    assert done.returncode == 0, done.stderr
    [row] = [json.loads(line) for line in done.stdout.splitlines()]
    assert row["runtime"]["parsed_output"]["final_result"]["final_tuples"] == row["gold_tuples"]


@pytest.mark.parametrize("command", ["score", "convert"])
def test_out_of_memory_in_score_and_convert_does_not_suggest_workers(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Their out-of-memory line suggested ``--workers 1``, an option they do not have."""
    from click.testing import CliRunner

    import aggregator.formats.evaluate
    from aggregator.commands.main import cli

    def exhausted(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr(aggregator.formats.evaluate, "evaluate", exhausted)
    monkeypatch.setattr(aggregator.formats.evaluate, "read_pairs", exhausted)
    gold = _write(tmp_path / "gold", ASTE + "\n")
    done = CliRunner().invoke(cli, [command, str(gold), str(gold), "--format", "aste"])
    assert done.exit_code == 2
    assert done.output.strip() == "aggregate: error: out of memory; retry on a machine with more memory"
