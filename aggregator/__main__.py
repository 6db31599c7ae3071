"""``python -m aggregator`` is the ``aggregate`` command."""

from aggregator.commands.main import main

main()
