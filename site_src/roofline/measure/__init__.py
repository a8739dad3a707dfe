"""Measure the machine in front of you: STREAM-style bandwidth, matmul FLOP/s and the
lesson's ops, timed with numpy (or torch on a CUDA device when one answers), written as a
JSON document the site and the widget overlay on the catalog roofline.

Needs only numpy. torch is imported only for `device="cuda"`, and only if installed."""

from __future__ import annotations

import importlib

_FROM = {"PLANS": "plan", "Plan": "plan", "measure": "runner", "FORMAT": "schema",
         "SCHEMA_PATH": "schema", "SCHEMA_VERSION": "schema", "load": "schema",
         "validate": "schema"}
"""Where each public name lives: imported on first use, so a site build that reads a
measurement (schema) never imports the timing code, or numpy with it."""


def __getattr__(name: str):
    if name not in _FROM:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_FROM[name]}"), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_FROM})


__all__ = ["FORMAT", "PLANS", "Plan", "SCHEMA_PATH", "SCHEMA_VERSION", "load", "measure",
           "validate"]
