"""Our ES modules as one inline script: a page (or a BokehJS blob module) cannot import a
sibling file from file://, so the files are joined in order and their `import` lines dropped.
Node's tests import the very same files, imports and all."""

from __future__ import annotations

from pathlib import Path


def join(*paths: Path) -> str:
    """The modules' text in order, without their `import … from "./x.mjs"` lines (each import
    must name a file that comes earlier in `paths`)."""
    return "\n".join("\n".join(line for line in p.read_text(encoding="utf-8").splitlines()
                               if not line.startswith("import ")) for p in paths)
