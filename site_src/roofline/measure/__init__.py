"""Measure the machine in front of you: STREAM-style bandwidth, matmul FLOP/s and the
lesson's ops, timed with numpy (or torch on a CUDA device when one answers), written as a
JSON document the site and the widget overlay on the catalog roofline.

Needs only numpy. torch is imported only for `device="cuda"`, and only if installed."""

from __future__ import annotations

from roofline.measure.plan import PLANS, Plan
from roofline.measure.runner import measure
from roofline.measure.schema import FORMAT, SCHEMA_PATH, SCHEMA_VERSION, load, validate

__all__ = ["FORMAT", "PLANS", "Plan", "SCHEMA_PATH", "SCHEMA_VERSION", "load", "measure",
           "validate"]
