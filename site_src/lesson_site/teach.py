"""The markers that teach by deriving, registered together: the §3 worked examples, the
tokens-per-step rule and first roofline picture (derive.py), "FLOPs are not time", the launch
floor and the ranked leaks (steptime.py), and the Checkpoint's problems, predict-then-reveal and
glossary (exercises.py). Shared helpers: teachkit.py."""

from __future__ import annotations

from lesson_site import derive, exercises, figures, leaks, steptime
from lesson_site.exercises import predict_answers, predict_cases
from lesson_site.steptime import _budget, flops_vs_time, step_share
