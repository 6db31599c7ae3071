"""Warnings in a report: a banner at the top, and each value a warning marks shown greyed with ⚠.

The banner names each warning's code, what was found and what to do (from its declaration,
:mod:`aggregator.run_warnings`); hovering a marked value shows the codes that mark it.
"""

from __future__ import annotations

from collections.abc import Sequence

from aggregator.report.html import esc, esc_code, text_html
from aggregator.run_warnings import WARNINGS, RunWarnings

MARK = "⚠"


def warning_banner(warnings: RunWarnings) -> str:
    """The run's shown warnings as a banner (empty when there are none), and the allowed codes in a line."""
    items = []
    for w in warnings.shown:
        declared = WARNINGS[w.code]
        items.append(
            f'<li><strong>{MARK} {esc(declared.title)}</strong> <code>{esc(w.code)}</code>: {text_html(w.message)}.'
            f' <span class="advice">{esc_code(declared.advice)}</span></li>'
        )
    allowed = ", ".join(w.code for w in warnings.allowed)
    note = f'<p class="note">Raised but allowed (--allow): {esc(allowed)}.</p>' if allowed else ""
    if not items:
        return note
    return (
        '<div class="warnings" role="note" id="warnings"><p><strong>Read these numbers with care.</strong> '
        f'Values marked {MARK} are affected (docs/warnings.md; silence a code with <code>--allow CODE</code>).</p>'
        f'<ul>{"".join(items)}</ul></div>{note}'
    )


def marked(text: str, codes: Sequence[str]) -> str:
    """A value's escaped text, followed by the marker when some warning marks it."""
    if not codes:
        return esc(text)
    return f'{esc(text)}<span class="mark" title="{esc(", ".join(codes))}">{MARK}</span>'

