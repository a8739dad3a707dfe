"""Measure the machine in front of you: STREAM-style bandwidth, matmul FLOP/s and the
lesson's ops, timed with numpy (or torch on a CUDA device when one answers), written as a
JSON document the site and the widget overlay on the catalog roofline.

Needs only numpy. torch is imported only for `device="cuda"`, and only if installed."""

from __future__ import annotations

from roofline._lazy import lazy_names

# Imported on first use, so a site build that reads a measurement (schema) never imports the
# timing code, or numpy with it.
__getattr__, __dir__ = lazy_names(__name__, {
    "plan": ("PLANS", "Plan"), "runner": ("measure",),
    "schema": ("FORMAT", "SCHEMA_PATH", "SCHEMA_VERSION", "load", "validate")}, globals())

__all__ = ["FORMAT", "PLANS", "Plan", "SCHEMA_PATH", "SCHEMA_VERSION", "load", "measure",
           "validate"]
