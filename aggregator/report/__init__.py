"""Self-contained HTML reports of a run and of a comparison.

:mod:`.charts` builds Vega-Lite specs as plain dicts, :mod:`.html` assembles one page
with the vendored Vega/Vega-Lite bundles (``assets/``) inlined, and
:mod:`.run_report` / :mod:`.comparison_report` lay out what each report shows.
See docs/reports.md.
"""
