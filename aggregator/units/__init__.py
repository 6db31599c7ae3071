"""Evaluation units and the per-sample counts below every metric family.

A sample's typed tuples are projected to units (:mod:`~aggregator.units.projection`), counted
per sample (:mod:`~aggregator.units.sample_counts`) and marked for display
(:mod:`~aggregator.units.sample_marks`); :mod:`~aggregator.units.taxonomy` is the set of valid refs.
"""
