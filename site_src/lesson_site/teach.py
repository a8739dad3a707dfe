"""The markers that teach by deriving, registered together: the §3 worked examples, the
tokens-per-step rule and first roofline picture (derive.py), "FLOPs are not time", the launch
floor (steptime.py), the ranked leaks (leaks.py), the departures' own figures (figures.py), and
the Checkpoint's problems and glossary (exercises.py) and predict-then-reveal (predict.py).
Shared helpers: teachkit.py."""

from __future__ import annotations

from lesson_site import derive, exercises, figures, leaks, predict, steptime
from lesson_site.predict import predict_cases, predict_data
from lesson_site.steptime import _budget, flops_vs_time, step_share
