"""tests/cases/budget_cases.jsonl: what the budget widget's JS (budget_view.mjs) must show for
a few settings, each pinning a distinct behaviour, with the expected figures from the model
(roofline.model.budget, roofline.model.memory), not from a Python copy of the JS.

Line 1: {"payload": ...}, the payload for the H100 in bf16 cut down to what the cases select.
Then one case per line: {"why", "state", "expected"}. The expected texts are the payload's
templates filled with roofline.fmt (format.mjs is checked against fmt elsewhere).

    PYTHONPATH=site_src python3 tests/cases/make_budget_cases.py > tests/cases/budget_cases.jsonl
"""

from __future__ import annotations

import json
import re
import sys

from roofline import fmt
from roofline.model.budget import Assumptions, budget
from roofline.model.catalog import default_catalog
from roofline.model.ceilings import gemm_efficiency
from roofline.model.memory import Sharding
from roofline.model.transformer import get_model
from roofline.widgets.budget.payload import (SEQ, TEXTS, WATERFALL_SHORT, fix_sentence,
    fusions_of, knob_values, mask_of, payload)

HW, PRECISION = "h100-sxm", "bf16"
# The GEMM efficiency the page opens on: the chip's measured matmul ceiling ÷ its peak.
MEASURED = gemm_efficiency(default_catalog()[HW], PRECISION)
D = {"efficiency": MEASURED, "launch_us": 4.0, "dp": 8,
     "overlap": Assumptions().overlap_fraction}   # data/overlap.toml's, an assumption
CASES = (
    ("the running example, as the page opens", dict(), ("flash",)),
    ("the running example unfused", dict(), ()),
    ("nothing sharded: does not fit, ZeRO and recomputation would",
     dict(zero=0, recompute="none"), ("flash",)),
    ("ZeRO-3: optimizer and weights sharded, 1.5 x the communication; selective recompute",
     dict(zero=3, recompute="selective"), ("norm", "epilogue")),
    ("one GPU: ZeRO has nothing to shard over, and nothing fits",
     dict(dp=1, zero=1, recompute="full", model="llama-2-7b", batch=1), ("flash",)),
    ("1,024 GPUs, little overlap", dict(dp=1024, overlap=0.1), ("flash", "residual")),
    ("decode: sharding controls ignored, efficiency 1 and no launch gap",
     dict(phase="decode", batch=32, model="llama-3-8b", efficiency=1.0, launch_us=0.0, zero=3,
          recompute="full", dp=1024, overlap=1.0), ("flash", "norm", "epilogue", "residual")),
    ("off-grid slider values snap to the nearest step",
     dict(efficiency=0.73, launch_us=4.2, overlap=0.33), ("flash",)),
    ("prefill without FlashAttention: the scores are the working set",
     dict(phase="prefill", batch=8), ()),
    ("decode at batch 256: the KV cache does not fit", dict(phase="decode", batch=256), ()),
    ("70B decode: the weights alone do not fit", dict(phase="decode", batch=1,
                                                     model="llama-3-70b"), ()),
    ("batch 16 unsharded: a ZeRO stage alone does not fit, recomputation with it would",
     dict(batch=16, zero=0, recompute="none"), ("flash",)),
    ("decode at batch 1: one cause takes nearly all of peak, its label goes inside its bar",
     dict(phase="decode", batch=1, model="llama-3-8b", efficiency=1.0, launch_us=0.0),
     ("flash",)),
)


def _state(changes: dict, fusions) -> dict:
    st = {"model": "llama-2-7b", "phase": "train", "batch": 4, "zero": 1,
          "recompute": "full", **D, **changes}
    st["mask"] = mask_of(fusions)
    st["flash"] = "flash" in fusions
    return st


def _snap(name: str, x: float) -> float:
    return min(knob_values(name, MEASURED if name == "efficiency" else None),
               key=lambda v: abs(v - x))


def _model_budget(st: dict):
    cat = default_catalog()
    a = Assumptions(kernel_efficiency=_snap("efficiency", st["efficiency"]),
                    launch_overhead_s=_snap("launch_us", st["launch_us"]) * 1e-6,
                    dp_degree=st["dp"] if st["phase"] == "train" else 1,
                    overlap_fraction=_snap("overlap", st["overlap"]))
    return budget(get_model(st["model"]), st["phase"], st["batch"], SEQ[st["phase"]],
                  cat[HW], PRECISION, cat.precision(PRECISION).bytes_per_element,
                  fusions_of(st["mask"]), a, Sharding(st["zero"], st["recompute"]))


FORMATS = {"percent": lambda x: fmt.percent(x, 3), "seconds": fmt.seconds,
           "capacity": fmt.capacity, "num": lambda x: fmt.num(x, 3), "text": str}


def fill(template: str, values: dict) -> str:
    return re.sub(r"\{(\w+)(?::(\w+))?\}",
                  lambda m: FORMATS.get(m.group(2), str)(values[m.group(1)]), template)


def expected(st: dict, data: dict) -> dict:
    bg = _model_budget(st)
    m = bg.memory
    key = f"{st['model']}|{st['phase']}|{st['batch']}"
    terms = bg.waterfall()
    out = {"mfu": bg.mfu_estimate, "bound": bg.mfu_upper_bound, "step": bg.step_time_s,
           "terms": [[t.key, t.time_s, t.level_after] for t in terms],
           "memory": {k: getattr(m, k) for k in ("weights", "gradients", "optimizer",
                                                  "activations", "kv_cache", "total")},
           "fits": m.fits}
    if m.fits:
        out["readout"] = fill(TEXTS["fits"], {
            "what": data["what"][key], "bound": bg.mfu_upper_bound, "mfu": bg.mfu_estimate,
            "step": bg.step_time_s, "saved": fmt.sig(sum(bg.bytes_saved().values()), 6),
            "total": m.total, "hbm": data["hbm_label"]})
        out["wf"] = "\n".join([TEXTS["wf_head"]] + [fill(TEXTS["wf_line"], {
            "label": WATERFALL_SHORT[t.key], "drop": t.loss * 100, "time": t.time_s})
            for t in terms] + [fill(TEXTS["wf_foot"], {"mfu": bg.mfu_estimate})])
        out["bars"] = [fill(TEXTS["bar_drop"], {"drop": t.loss * 100}) if t.loss else
                       TEXTS["bar_none"] for t in terms]
    else:
        out["readout"] = fill(TEXTS["misfit"], {
            "what": data["what"][key], "total": m.total, "overflow": m.overflow,
            "hbm": data["hbm_label"], "fix": fix_sentence(bg)})
        out["wf"] = TEXTS["wf_misfit"]
    return out


def cut(data: dict, states: list[dict]) -> dict:
    """The payload with only the entries the states select (the rest of each table: None)."""
    keys = {f"{s['model']}|{s['phase']}|{s['batch']}" for s in states}
    shards = {f"{s['model']}|{s['phase']}" for s in states}
    out = dict(data)
    used = {(f"{s['model']}|{s['phase']}|{s['batch']}", s["mask"]) for s in states}
    out["combos"] = {k: [e if (k, i) in used or i == 0 else None for i, e in enumerate(v)]
                     for k, v in data["combos"].items() if k in keys}
    for table in ("acts", "kv", "fix", "what"):
        out[table] = {k: v for k, v in data[table].items() if k in keys}
    for table in ("shard", "state"):
        out[table] = {k: v for k, v in data[table].items() if k in shards}
    return out


def lines() -> list[str]:
    data = payload(HW, PRECISION)
    states = [_state(c, f) for _, c, f in CASES]
    out = [json.dumps({"payload": cut(data, states)}, ensure_ascii=False)]
    for (why, _, _), st in zip(CASES, states):
        out.append(json.dumps({"why": why, "state": st, "expected": expected(st, data)},
                              ensure_ascii=False))
    return out


if __name__ == "__main__":
    sys.stdout.write("\n".join(lines()) + "\n")
