"""A widget's `model` option: a model's name, or a path to a Hugging Face config.json relative
to the docs folder of the site being built (no bokeh here).

The host that knows its docs folder says so for the build (the MkDocs plugin: `docs_dir`; the
Sphinx extension: the source folder) through DOCS_DIR; without one (roofline.figure() in a
notebook, the CLI) a relative path is read from the working directory, then from `docs/`.
"""

from __future__ import annotations

import contextvars
from pathlib import Path

DOCS_DIR: contextvars.ContextVar[Path | None] = contextvars.ContextVar("roofline_docs_dir",
                                                                      default=None)


def docs_path(value: str) -> Path:
    """Where a relative config path named in a page lives."""
    path = Path(value)
    if path.is_absolute():
        return path
    docs = DOCS_DIR.get()
    if docs is not None:
        return Path(docs) / path
    return path if path.exists() else Path("docs") / path


def model_file(value: str) -> Path | None:
    """The config file a `model` option names (None: it names a bundled model)."""
    from roofline.model.hfconfig import looks_like_path
    from roofline.model.transformer import known_models
    if value in known_models() or not looks_like_path(value):
        return None
    return docs_path(value)


def model_config(value: str):
    """The TransformerConfig a `model` option names; a RooflineError (naming the file and
    field, or listing the valid names) if it names none."""
    from roofline.model.transformer import get_model
    path = model_file(value)
    return get_model(path if path is not None else value)
