"""One run, from decoded records to its per-sample table, run-level metrics and headline intervals.

Records come from :mod:`scorecards`, per-sample values from :mod:`aggregator.units` and the metric
families; what this wing builds goes to :mod:`aggregator.outputs` and the report.
"""
