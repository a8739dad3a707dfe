"""The lesson site's build-time side: markers in the Markdown expanded from the model, the
restored lesson parts, generated downloads and the offline zip. MkDocs-free except build.py,
which the thin hooks in hooks/ call. It is the lesson's own build, in the repository but
not in the `roofline` wheel: hooks/roofline_site.py puts site_src/ on sys.path."""

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data"
"""The lesson's written parts (checkpoint, failure modes, prompts, problems, departures,
glossary); the model's data files are roofline.model.datafile.DATA_DIR."""
