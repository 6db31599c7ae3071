"""The command line: ``aggregate`` and its subcommands, option parsing, exit codes and what reaches the terminal.

The top of the flow: commands call the Python API and the wings below it, never the reverse.
"""
