"""Both reports rendered in headless Chromium (Debian's ``chromium``), as a reader opens them from disk.

Each page must draw its charts with no console error or warning, request nothing but
its own file, show the headline numbers, and survive hostile text. Screenshots of each
(first screen and full page) go to ``test-artifacts/`` for a person to look at.
CI installs chromium (.ci/run); elsewhere the test is skipped when it is absent.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from aggregator.compare import compare_runs
from aggregator.compare.cells import interval, mean_sd
from aggregator.outputs.cells import markdown_cell
from aggregator.report.run_report import run_report
from aggregator.run.pipeline import evaluate_run
from tests.compare_grid import condition_name, write_grid
from tests.conftest import CONFORMANCE, FIFTY_CONDITIONS, RUNS, run_cli
from tests.scorecard_rows import item, row, write_rows

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]
HOSTILE = "<script>alert(1)</script>"

if CHROMIUM is None:
    pytest.skip("chromium is not installed (CI installs Debian's chromium: see .ci/run)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (Python) is not installed: pip install -e '.[test]'")


@dataclass
class Visit:
    """What happened while a page was open."""

    page: object
    file_url: str
    console: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def foreign_requests(self) -> list[str]:
        return [url for url in self.requests if url != self.file_url]


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_api.sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=FLAGS,
            viewport={"width": 1400, "height": 900},
        )
        yield context
        context.close()


def visit(context: object, path: Path) -> Visit:
    """Open ``path`` from disk and wait until every chart holder has an SVG."""
    page = context.new_page()  # type: ignore[attr-defined]
    seen = Visit(page, path.resolve().as_uri())
    page.on("console", lambda m: m.type in ("error", "warning") and seen.console.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: seen.console.append(f"pageerror: {e}"))
    page.on("request", lambda r: seen.requests.append(r.url))
    page.on("dialog", lambda d: (seen.dialogs.append(d.message), d.dismiss()))
    page.goto(seen.file_url)
    holders = page.locator("[data-chart]").count()
    assert holders > 0
    page.wait_for_function(
        f"document.querySelectorAll('[data-chart] svg, .chart-error').length >= {holders}", timeout=15_000
    )
    return seen


def screenshot(seen: Visit, name: str) -> None:
    """``NAME.png``: what a reader sees first (1400 × 900); ``NAME-full.png``: the whole page."""
    ARTIFACTS.mkdir(exist_ok=True)
    seen.page.screenshot(path=str(ARTIFACTS / f"{name}.png"))  # type: ignore[attr-defined]
    seen.page.screenshot(path=str(ARTIFACTS / f"{name}-full.png"), full_page=True)  # type: ignore[attr-defined]


def assert_clean(seen: Visit) -> None:
    assert seen.console == []
    assert seen.foreign_requests() == []
    assert seen.dialogs == []
    assert seen.page.locator(".chart-error").count() == 0  # type: ignore[attr-defined]


def test_run_report_in_chromium(browser: object, tmp_path: Path) -> None:
    source = CONFORMANCE / "synth_pub" / "scorecards.jsonl"
    done = run_cli(source, "--outdir", tmp_path, "--quiet")
    assert done.returncode == 0, done.stderr
    metrics = evaluate_run(source, workers=1).metrics
    seen = visit(browser, tmp_path / "report.html")
    page = seen.page
    text = page.inner_text("body")
    for name in ("tuple_f1_s1", "tuple_f1_s2", "fix_rate", "break_rate", "tuple_f1_s2_otepol", "tuple_f1_s2_attrpol"):
        assert markdown_cell(metrics[name]) in text, name
    assert f"{metrics['delta_f1']:+.4f}" in text
    assert page.locator("#charts [data-chart] svg").count() == 2
    assert page.locator("table.samples tbody tr").count() == 25
    screenshot(seen, "run_report")

    page.click("button[data-filter=break]")
    assert page.locator("table.samples tbody tr").count() == metrics["break_count"]
    assert f"of {metrics['break_count']} samples" in page.inner_text(".pager")
    page.click("button[data-filter=fix]")
    assert page.locator("table.samples .badge.fix").count() == min(25, page.locator("table.samples tbody tr").count())
    page.select_option("#sample-unit", "attrpol")
    page.click("button[data-filter=all]")
    page.click("text=Next →")
    assert "26–50 of 200 samples" in page.inner_text(".pager")
    assert_clean(seen)


def test_a_warned_run_shows_the_banner_and_greys_the_numbers_it_affects(browser: object, tmp_path: Path) -> None:
    """A real run: Ref-F1 cannot be measured. The banner names the code, the Ref-F1 numbers are
    greyed and marked, the Surface ones are not; the sample table marks tuples per unit."""
    done = run_cli(RUNS / "cr_n50_m1_v2__seed42", "--outdir", tmp_path, "--quiet")
    assert done.returncode == 0, done.stderr
    seen = visit(browser, tmp_path / "report.html")
    page = seen.page
    assert "ref_unmeasurable" in page.inner_text(".warnings")  # type: ignore[attr-defined]
    reason = "Ref-F1 cannot be measured in this run (ref_unmeasurable): showing Surface-F1."
    assert page.inner_text("#lead-reason") == reason  # type: ignore[attr-defined]
    assert page.locator(".card-label").first.inner_text() == "Surface-F1 final"  # type: ignore[attr-defined]
    assert page.locator(".card-value.warned").count() == 0  # type: ignore[attr-defined]
    assert page.inner_text("table.headline tr.primary th").startswith("Surface-F1")  # type: ignore[attr-defined]
    headline = page.locator("table.headline tbody tr")  # type: ignore[attr-defined]
    assert headline.nth(0).locator("td.warned .mark").count() == 6
    assert headline.nth(1).locator("td.warned").count() == 0
    grey = headline.nth(0).locator("td.warned").first.evaluate("e => getComputedStyle(e).color")
    assert grey == "rgb(140, 149, 159)"
    screenshot(seen, "run_report_warnings")
    assert page.input_value("#sample-unit") == "otepol"  # type: ignore[attr-defined]  # the table opens on Surface
    assert page.locator("table.samples .tuple.in-gold").count() > 0  # type: ignore[attr-defined]
    page.select_option("#sample-unit", "refpol")  # type: ignore[attr-defined]
    assert page.locator("table.samples .tuple.in-gold").count() == 0  # type: ignore[attr-defined]
    assert_clean(seen)


def test_hostile_text_stays_text(browser: object, tmp_path: Path) -> None:
    path = write_rows(tmp_path / "run" / "scorecards.jsonl", [
        row(f"</script><b>{HOSTILE}", gold=[item("본품#일반", HOSTILE)], stage1=[item("본품#일반", HOSTILE)],
            final=[item(HOSTILE, "<img src=x onerror=alert(2)>")], run_id=HOSTILE),
        row("k2", gold=[item("본품#품질", "x")], final=[item("본품#품질", "x")]),
    ])
    report = tmp_path / "report.html"
    report.write_bytes(run_report(evaluate_run(path, workers=1)))
    seen = visit(browser, report)
    seen.page.fill("input[type=search]", "<script>")  # type: ignore[attr-defined]
    text = seen.page.inner_text("table.samples")  # type: ignore[attr-defined]
    assert HOSTILE in text and "<img src=x onerror=alert(2)>" in text
    assert HOSTILE in seen.page.inner_text("h1")  # type: ignore[attr-defined]
    assert seen.page.locator("main img, table.samples b").count() == 0  # type: ignore[attr-defined]
    assert_clean(seen)


def test_large_run_renders_one_page_of_rows(browser: object, tmp_path: Path) -> None:
    rows = [row(f"k{i:05d}", gold=[item("본품#일반", f"t{i}")], stage1=[item("본품#일반", f"t{i}")],
                final=[item("본품#품질" if i % 3 else "본품#일반", f"t{i}")]) for i in range(6000)]
    path = write_rows(tmp_path / "run" / "scorecards.jsonl", rows)
    report = tmp_path / "report.html"
    report.write_bytes(run_report(evaluate_run(path, workers=1)))
    seen = visit(browser, report)
    assert seen.page.locator("table.samples tbody tr").count() == 25  # type: ignore[attr-defined]
    seen.page.click("button[data-filter=break]")  # type: ignore[attr-defined]
    assert "of 4000 samples" in seen.page.inner_text(".pager")  # type: ignore[attr-defined]
    assert_clean(seen)


def test_comparison_report_in_chromium(browser: object, tmp_path: Path) -> None:
    runs = sorted(RUNS.iterdir())
    done = run_cli("compare", *runs, "--outdir", tmp_path, "--quiet", "--resamples", "200")
    assert done.returncode == 0, done.stderr
    result = compare_runs(runs, resamples=200)
    seen = visit(browser, tmp_path / "comparison_report.html")
    page = seen.page
    text = page.inner_text("body")  # type: ignore[attr-defined]
    for r in result.conditions.filter(metric="tuple_f1_s2_otepol").iter_rows(named=True):
        assert mean_sd(r) in text and interval(r["ci_low"], r["ci_high"]) in text
    for r in result.paired.filter(metric="tuple_f1_s2_otepol").iter_rows(named=True):
        assert interval(r["ci_low"], r["ci_high"], sign=True) in text
    assert page.locator("[data-chart] svg").count() == 2  # type: ignore[attr-defined]
    headers = page.locator("[data-chart=conditions] svg .role-column-header text").evaluate_all(  # type: ignore[attr-defined]
        "nodes => nodes.map(n => n.textContent)")
    assert headers == ["Surface", "Ref ⚠", "Attr ⚠"]  # the first panel: Surface, the unit Ref-F1 cannot be read in
    assert "Ref-F1 cannot be measured in these runs (ref_unmeasurable)" in page.inner_text("#lead-reason")  # type: ignore[attr-defined]
    screenshot(seen, "comparison_report")
    page.select_option("[data-chart=conditions] select", "ΔF1 (S2 − S1)")  # type: ignore[attr-defined]
    page.select_option("[data-chart=paired] select", "ΔF1 (S2 − S1)")  # type: ignore[attr-defined]
    page.wait_for_timeout(200)  # type: ignore[attr-defined]
    assert_clean(seen)


def check_readable(browser: object, report: Path, conditions: int) -> None:
    """Compact charts whose axis shows the conditions without their long common prefix (full names
    in the tooltips and tables), tables paged with a filter, no page wider than the window, no
    negative tick on an axis of values that are all 0; a screenshot."""
    seen = visit(browser, report)
    page = seen.page
    width, height = page.evaluate("[document.documentElement.scrollWidth, document.body.scrollHeight]")  # type: ignore[attr-defined]
    assert width <= 1400 and height < 12_000, (width, height)
    labels = page.locator("[data-chart=conditions] svg .role-axis-label text").evaluate_all(  # type: ignore[attr-defined]
        "nodes => nodes.map(n => n.textContent)")
    assert not any(label.startswith(("−", "-")) for label in labels), labels
    screenshot(seen, f"comparison_{conditions}_conditions")
    if conditions > 1:
        assert "…variant_49_v2" in labels and condition_name(49) not in labels
        tables = page.locator("table.data").count()  # type: ignore[attr-defined]
        assert page.locator("table.data tbody tr:visible").count() <= tables * 25  # type: ignore[attr-defined]
        flips = page.locator("section", has_text="Flips")  # type: ignore[attr-defined]
        flips.locator("input[type=search]").fill("variant_07_")
        visible = flips.locator("table.data tbody tr:visible")
        assert 0 < visible.count() <= 25 and all("variant_07_" in t for t in visible.all_inner_texts())
    assert_clean(seen)


def test_a_comparison_of_one_condition_stays_readable(browser: object, tmp_path: Path) -> None:
    source = write_grid(tmp_path / "grid" / "scorecards.jsonl", 1, 3)
    done = run_cli("compare", source, "--outdir", tmp_path / "out", "--quiet", "--resamples", "50")
    assert done.returncode == 0, done.stderr
    check_readable(browser, tmp_path / "out" / "comparison_report.html", 1)


@FIFTY_CONDITIONS
def test_a_comparison_of_fifty_conditions_stays_readable(browser: object, fifty_conditions: tuple[object, Path]) -> None:
    check_readable(browser, fifty_conditions[1] / "comparison_report.html", 50)


def test_edge_pages_render_cleanly(browser: object, tmp_path: Path) -> None:
    """No gold at all, and a comparison of two seeds of one condition: empty and one-value charts draw
    without a warning."""
    done = run_cli(CONFORMANCE / "nogold" / "scorecards.jsonl", "--outdir", tmp_path / "nogold", "--quiet")
    assert done.returncode == 0, done.stderr
    done = run_cli("compare", *sorted(RUNS.iterdir())[:2], "--outdir", tmp_path / "one", "--quiet", "--resamples", "20")
    assert done.returncode == 0, done.stderr
    for report in (tmp_path / "nogold" / "report.html", tmp_path / "one" / "comparison_report.html"):
        assert_clean(visit(browser, report))


def test_the_error_anatomy_draws_per_unit_and_filters_the_sample_table(browser: object, tmp_path: Path) -> None:
    """A real run: the review moved classes under refpol and attrpol only (a chart each, a note for
    otepol); the Error select keeps the samples with such an error under the unit (as the CLI does)."""
    run = RUNS / "cr_n50_m1_v2__seed42"
    done = run_cli(run, "--outdir", tmp_path, "--quiet")
    assert done.returncode == 0, done.stderr
    seen = visit(browser, tmp_path / "report.html")
    page = seen.page
    assert page.locator("#errors [data-chart] svg").count() == 2  # type: ignore[attr-defined]
    assert "no error under this unit" in page.inner_text("#errors")  # type: ignore[attr-defined]
    page.select_option("#sample-unit", "otepol")  # type: ignore[attr-defined]
    page.select_option("#sample-error", "b")  # type: ignore[attr-defined]
    listed = run_cli("samples", run, "--unit", "otepol", "--only", "error:boundary", "--limit", "0", "--json").stdout
    keys = [s["sample_key"] for s in json.loads(listed)["samples"]]
    shown = page.locator("table.samples td.key").evaluate_all("cells => cells.map(c => c.firstChild.textContent)")  # type: ignore[attr-defined]
    assert shown == keys and f"of {len(keys)} samples" in page.inner_text(".pager")  # type: ignore[attr-defined]
    page.select_option("#sample-error", "")  # type: ignore[attr-defined]
    assert "of 50 samples" in page.inner_text(".pager")  # type: ignore[attr-defined]
    screenshot(seen, "run_report_errors")
    assert_clean(seen)
