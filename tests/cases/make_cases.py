"""Regenerate the shared case files (one case per line, JSON Lines) from the Python model:

    PYTHONPATH=site_src python3 tests/cases/make_cases.py

- roofline_cases.jsonl: what Python and the browser both compute, and only that: placing an op
  on a roofline (the roofline arithmetic) and the display formatting. pytest checks each case
  against roofline.model / roofline.fmt, node against render/js/maths.mjs / format.mjs.
- payloads.jsonl: inputs, not answers: the roofline widget's payload for a few settings, the
  very JSON the browser and the build-time drawing get, for node's tests of scene.mjs (the
  scene and its label layout have one copy, in JS: their tests check properties, not a mirror).
"""

from __future__ import annotations

import json
from pathlib import Path

from roofline import fmt
from roofline.model.catalog import default_catalog
from roofline.model.maths import place
from roofline.model.ops import default_zoo
from roofline.widgets.roofline.settings import RooflineSettings

HERE = Path(__file__).parent
PLACES = (("h100-sxm", "bf16"), ("h100-sxm", "fp8"), ("a100-sxm-80gb", "bf16"), ("l4", "fp8"),
          ("b200", "fp4"))
NUMBERS = (0.00342, 0.0125, 0.25, 1, 1.2345, 2, 6.7, 42.42, 152.98, 295.34, 590.7, 1365, 2740.3,
           98765.4, 1.5e7, 0.125, 1375, 2.5, 0.0625)
PAYLOADS = {
    "lesson": {"ai": 2, "tokens": 1},
    "zoo": {},
    "ceilings": {"ceilings": ["sram", "l2", "hbm", "host", "scaleup", "vector"], "ai": 10},
    "selected": {"op": "gemm-train", "hardware": "a100-sxm-80gb"},
}


def roofline_cases() -> list[dict]:
    catalog, zoo = default_catalog(), default_zoo()
    out = []
    for h, p in PLACES:
        hw = catalog[h]
        for op in zoo.ops(catalog.precision(p).bytes_per_element):
            pt = place(op, hw, p)
            out.append({"kind": "place", "hardware": h, "precision": p, "op": op.name,
                        "cost": [op.total_flops, op.total_bytes],
                        "peak": hw.peak_flops_per_s(p), "bw": hw.hbm_bandwidth_bytes_per_s,
                        "ai": pt.intensity_flops_per_byte,
                        "attainable": pt.attainable_flops_per_s, "fraction": pt.fraction_of_peak,
                        "time": pt.time_s, "bound": pt.bound})
    out += [{"kind": "format", "fn": "num", "x": x, "digits": 3, "expected": fmt.num(x)}
            for x in NUMBERS]
    out += [{"kind": "format", "fn": "num", "x": x, "digits": 2, "expected": fmt.num(x, 2)}
            for x in (0.68, 13.4, 989.4)]
    out += [{"kind": "format", "fn": fn, "x": x, "digits": d, "expected": getattr(fmt, fn)(x, d)}
            for fn, d, xs in (("tflops", 3, (6.7e12, 989.4e12, 1978.9e12, 3.35e10)),
                              ("percent", 2, (0.000846, 0.0068, 0.0138, 0.5, 0.9996, 1.0)),
                              ("seconds", 3, (2.99e-3, 1.6e-4, 2.69e-5, 4.2e-9, 3.1e-11, 1.5)),
                              ("bandwidth", 3, (3.35e12, 64e9, 2.039e12, 33.45e12)),
                              ("capacity", 3, (80 * 2**30, 50e6, 1.2e3)))
            for x in xs]
    return out


def payloads() -> list[dict]:
    return [{"name": name, "payload": RooflineSettings.from_options(opts).payload()}
            for name, opts in PAYLOADS.items()]


def write(name: str, rows: list[dict]) -> None:
    text = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in rows)
    (HERE / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    write("roofline_cases.jsonl", roofline_cases())
    write("payloads.jsonl", payloads())
