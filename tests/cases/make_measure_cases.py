"""Regenerate tests/cases/measure_cases.json: a base document and its invalid variants, each
with the field it must be rejected at, by the schema checker's two copies (Python's
roofline.measure.schema for `roofline measure` and the build, the browser's measure.mjs for a
picked file). The overlay drawn from a document has one copy, measure.mjs, tested by node."""
import datetime as dt
import json
import sys
from pathlib import Path

from roofline.measure import measure

OUT = Path("tests/cases/measure_cases.json")
# The base is a real timing run, so each run's numbers differ: regenerating keeps the file's
# base (only the layouts and texts drawn from it are made again) unless --new-base is given.
keep = OUT.exists() and "--new-base" not in sys.argv
base = (json.loads(OUT.read_text(encoding="utf-8"))["base"] if keep else
        measure("cpu", "tiny", label="Case-file machine", progress=False,
                now=lambda: dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)))
# Keep the file small: a few samples, no machine details beyond what the schema needs.
for group in ([] if keep else ("stream", "matmul", "ops")):
    for e in base[group]:
        e["time_s"]["samples"] = e["time_s"]["samples"][:3]
        e["time_s"]["min"] = min(e["time_s"]["min"], *e["time_s"]["samples"])
        e["time_s"]["max"] = max(e["time_s"]["max"], *e["time_s"]["samples"])
if not keep:
    base["machine"] = {"description": "Case-file CPU, 2 CPU cores",
                       "cpu_model": "Case-file CPU", "logical_cpus": 2, "gpu": None}
invalid = [
    {"name": "wrong format", "set": [[["format"], "something-else"]], "field": "format"},
    {"name": "newer schema", "set": [[["schema_version"], 3]], "field": "schema_version"},
    {"name": "boolean schema version", "set": [[["schema_version"], True]],
     "field": "schema_version"},
    {"name": "ceilings missing", "delete": [["ceilings"]], "field": "ceilings"},
    {"name": "negative median", "set": [[["stream", 0, "time_s", "median"], -1]],
     "field": "stream[0].time_s.median"},
    {"name": "FLOPs as text", "set": [[["ops", 0, "flops"], "lots"]], "field": "ops[0].flops"},
    {"name": "unknown field", "set": [[["extra"], 1]], "field": "extra"},
    {"name": "unknown kernel", "set": [[["stream", 0, "kernel"], "memset"]],
     "field": "stream[0].kernel"},
    {"name": "spread out of order", "set": [[["stream", 0, "time_s", "min"], 1e9],
                                            [["stream", 0, "time_s", "max"], 2e9]],
     "field": "stream[0].time_s"},
    {"name": "no roof for the memory level", "set": [[["ceilings", "memory_level"], "HBM"]],
     "field": "ceilings.bandwidth"},
    {"name": "op without a compute roof", "set": [[["ops", 0, "precision"], "bf16"]],
     "field": "ops[0].precision"},
    {"name": "empty label", "set": [[["label"], ""]], "field": "label"},
    {"name": "no checks (a version 1 file)", "delete": [["checks"]], "field": "checks"},
    {"name": "an op as a roof (before #32)",
     "set": [[["ceilings", "bandwidth", 0, "kernel"], "gemv"]],
     "field": "ceilings.bandwidth[0].kernel"},
    {"name": "a roof without its working set",
     "delete": [["ceilings", "bandwidth", 0, "array_bytes"]],
     "field": "ceilings.bandwidth[0].array_bytes"},
    {"name": "stream run without its array size", "delete": [["stream", 0, "array_bytes"]],
     "field": "stream[0].array_bytes"},
    {"name": "no STREAM runs", "set": [[["stream"], []]], "field": "stream"},
    {"name": "not an object", "replace": [1, 2, 3], "field": "(top level)"},
]
cases = {"$comment": __doc__.strip() + " Made by measure('cpu', 'tiny'); regenerate with "
         "python tests/cases/make_measure_cases.py.",
         "base": base, "invalid": invalid}
with open(OUT, "w", encoding="utf-8") as fh:
    json.dump(cases, fh, indent=1, ensure_ascii=False)
    fh.write("\n")
