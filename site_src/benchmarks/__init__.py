"""Benchmarks of the site and the widget (development tools, not part of the wheel):
run from the repository root with `PYTHONPATH=site_src python -m benchmarks.bench`."""
