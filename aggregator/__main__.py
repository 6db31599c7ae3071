"""``python -m aggregator`` is the ``aggregate`` command."""

from aggregator.cli import main

main()
