"""Metric declarations: one registry, from which the CSV, the Markdown table and the docs come."""
