"""CLI command modules mounted by cli.py; each holds one command group and stays thin."""
