"""The Sphinx extension's public name: `extensions = ["roofline.sphinx"]` in conf.py.

A stable name users write, whatever folder the implementation lives in (hosts/sphinx.py, which
adds the `roofline` directive for reStructuredText and MyST); tests/test_public_names.py holds
the docs to it.
"""

from __future__ import annotations

from roofline.hosts.sphinx import setup

__all__ = ["setup"]
