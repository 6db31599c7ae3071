"""aggregate legacy: the research script structural_error_aggregator.py, its command line and files."""
