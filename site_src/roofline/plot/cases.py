"""Write tests/cases/roofline_cases.json: inputs and expected outputs that pytest checks against
the Python model and `node --test` against plot/js/roofline.mjs, so the two never drift.

    python -m roofline.plot.cases > tests/cases/roofline_cases.json
"""

from __future__ import annotations

import json
import sys

from .. import fmt
from ..catalog import default_catalog
from ..ops import default_zoo
from . import widget

HARDWARE = ("h100-sxm", "a100-sxm-80gb", "h200", "l4", "tpu-v5e", "b200")
PLACES = (("h100-sxm", "bf16"), ("h100-sxm", "fp8"), ("a100-sxm-80gb", "bf16"),
          ("l4", "fp8"), ("b200", "fp4"))


def build() -> dict:
    catalog, zoo = default_catalog(), default_zoo()
    data = widget.payload(widget.Options(), catalog, zoo)
    hardware = {h: data["hardware"][h] for h in HARDWARE}
    cases: dict[str, list] = {}
    cases["place"] = [
        {"hardware": h, "precision": p, "op": op, "cost": data["ops"][op]["cost"][p],
         **widget.place(data["ops"][op]["cost"][p], hardware[h]["peaks"][p], hardware[h]["bw"]),
         "ridge": hardware[h]["peaks"][p] / hardware[h]["bw"]}
        for h, p in PLACES for op in data["ops"]]
    cases["attainable"] = [
        {"ai": ai, "peak": peak, "bw": bw, "expected": min(peak, ai * bw)}
        for ai, peak, bw in ((0.01, 989.4e12, 3.35e12), (2, 989.4e12, 3.35e12),
                             (1365, 989.4e12, 3.35e12), (295.34, 989.4e12, 3.35e12),
                             (10000, 312e12, 2.039e12))]
    numbers = (0.00342, 0.0125, 0.25, 1, 1.2345, 2, 6.7, 42.42, 152.98, 295.34, 590.7, 1365,
               2740.3, 98765.4, 1.5e7, 0.125, 1375, 2.5, 0.0625)
    cases["format"] = (
        [{"fn": "num", "x": x, "digits": 3, "expected": fmt.num(x)} for x in numbers]
        + [{"fn": "num", "x": x, "digits": 2, "expected": fmt.num(x, 2)}
           for x in (0.68, 13.4, 989.4)]
        + [{"fn": "tflops", "x": x, "digits": 3, "expected": fmt.tflops(x)}
           for x in (6.7e12, 989.4e12, 1978.9e12, 3.35e10)]
        + [{"fn": "percent", "x": x, "digits": 2, "expected": fmt.percent(x)}
           for x in (0.000846, 0.0068, 0.0138, 0.5, 0.9996, 1.0)]
        + [{"fn": "seconds", "x": x, "digits": 3, "expected": fmt.seconds(x)}
           for x in (2.99e-3, 1.6e-4, 2.69e-5, 4.2e-9, 3.1e-11, 1.5)]
        + [{"fn": "bandwidth", "x": x, "digits": 3, "expected": fmt.bandwidth(x)}
           for x in (3.35e12, 64e9, 2.039e12, 33.45e12)])
    cases["clamp_ai"] = [
        {"input": v, "expected": e} for v, e in (
            ("2", 2.0), ("1365", 1365.0), ("0.5", 0.5), ("1e3", 1000.0), ("0.0001", 0.01),
            ("1e9", 10000.0), ("-5", None), ("0", None), ("abc", None), ("2;alert(1)", None),
            ("<script>", None), ("Infinity", None), ("NaN", None), ("", None), (" 7 ", 7.0))]
    known = {"hardware": list(data["hardware"]), "precision": list(data["precisions"]),
             "op": list(data["ops"])}
    cases["parse_state"] = [
        {"search": s, "hash": h, "expected": e} for s, h, e in (
            ("?hardware=a100-sxm-80gb&precision=bf16&ai=2", "",
             {"hardware": "a100-sxm-80gb", "precision": "bf16", "ai": 2.0}),
            ("", "#hardware=h100-sxm&precision=fp8&op=gemm-train",
             {"hardware": "h100-sxm", "precision": "fp8", "op": "gemm-train"}),
            ("?hardware=h100-sxm", "#hardware=l4", {"hardware": "l4"}),
            ("?hardware=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&ai=1e99", "", {"ai": 10000.0}),
            ("?precision=fp9&op=rm%sn&ai=-3", "", {}),
            ("?foo=bar&ai=0.001", "#section-6", {"ai": 0.01}),
            ("?op=custom&ai=50", "", {"op": "custom", "ai": 50.0}),
            ("", "", {}))]
    cases["readout"] = []
    for h, p, ai, op in (("h100-sxm", "bf16", 2.0, None), ("h100-sxm", "bf16", 1365.0, None),
                         ("h100-sxm", "fp8", 590.0, None), ("a100-sxm-80gb", "bf16", 100.0,
                                                             "rmsnorm"),
                         ("h100-sxm", "fp32", 10.0, "gemm-train"), ("l4", "fp8", 0.25,
                                                                    "softmax")):
        bound, verdict = widget.verdict_text(data["hardware"][h], p, ai)
        cases["readout"].append({
            "hardware": h, "precision": p, "ai": ai, "op": op,
            "readout": widget.readout_text(data["hardware"][h], p, ai, op, data["ops"]),
            "bound": bound, "verdict": verdict})
    ids = list(data["ops"])
    cases["point_labels"] = []
    for h, p in (("h100-sxm", "bf16"), ("tpu-v5e", "bf16")):
        ais = [widget.place(data["ops"][i]["cost"][p], 1, 1)["ai"] for i in ids]
        cases["point_labels"].append({"ids": ids, "ais": ais, "x_max": widget.AI_MAX,
                                      "expected": widget.point_labels(ids, ais, widget.AI_MAX)})
    cases["roof_xy"] = [
        {"peak": peak, "bw": bw, "x0": widget.AI_MIN, "x1": widget.AI_MAX,
         "expected": dict(zip(("x", "y"), widget.roof_xy(peak, bw, widget.AI_MIN, widget.AI_MAX)))}
        for peak, bw in ((989.4e12, 3.35e12), (1e9, 1e12), (1e18, 1e12))]
    return {"about": "Generated by `python -m roofline.plot.cases`; checked by "
                     "tests/test_widget_cases.py (Python) and tests/js/roofline.test.mjs (JS).",
            "hardware": hardware, "ops": data["ops"], "known": known, "cases": cases}


def main() -> None:
    sys.stdout.write(json.dumps(build(), indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
