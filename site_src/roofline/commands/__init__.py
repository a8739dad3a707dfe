"""CLI subcommands: each module has `add_parser(subparsers)` and `run(args) -> int`."""

COMMANDS = ("hardware", "ops", "budget", "measure", "plot", "export")
