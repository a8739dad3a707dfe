"""The serving window's payload: what window.mjs evaluates. Per model and precision, each
decode kernel's cost terms (roofline.model.serving.coefficients) and the memory terms; per chip,
its peaks, HBM bandwidth and usable capacity; the launch gap; the bundled prices with their
sources. Python computes the costs, the JavaScript every figure drawn from them."""

from __future__ import annotations

import copy
import functools
from pathlib import Path

from roofline.model import datafile as _toml
from roofline.model import serving
from roofline.model.launch import LAUNCH_MODES, MODE_LABELS, load_launch
from roofline.model.catalog import default_catalog
from roofline.model.memory import usable_capacity_bytes
from roofline.model.transformer import get_model


PRECISIONS = ("bf16", "fp8")
"""The precisions the page's control offers (each chip shows those it has a peak for)."""
TPS = (1, 2, 4, 8)
"""The tensor-parallel degrees the window offers (one node's GPUs)."""
KV_PRECISIONS = ("bf16", "fp8")
"""The KV cache's precisions (catalog ids; any chip can store either)."""


def _clean(v: float, scale: float) -> float:
    """A solved term without the solver's rounding noise (below 1e-9 of the kernel's largest)."""
    return 0.0 if abs(v) <= 1e-9 * scale else float(f"{v:.12g}")


def kernel_rows(cfg, bytes_per_element: float, fusions=frozenset({"flash"})) -> list[dict]:
    """Each decode kernel's terms as window.mjs reads them, one named object per kernel:
    {count, launches, flops: [f0, f1, f2], useful_flops: [u0, u1, u2], bytes: [b0, b1, b2, w]}
    (roofline.model.serving.KernelTerms)."""
    rows = []
    for t in serving.coefficients(cfg, bytes_per_element, fusions):
        scale = max(1.0, *map(abs, t.flops + t.useful_flops + t.bytes))
        rows.append({"count": t.count, "launches": t.launches,
                     **{k: [_clean(v, scale) for v in getattr(t, k)]
                        for k in ("flops", "useful_flops", "bytes")}})
    return rows


def _data_keys(model_id: str) -> tuple:
    """What a model's terms are computed from: the model files and the op zoo's conventions
    (and the config.json a path names), each as (path, mtime_ns, size), so an edit is seen."""
    files = [_toml.DATA_DIR / n for n in ("models.toml", "model_catalog.toml", "ops.toml",
                                          "precisions.toml")]
    if Path(model_id).suffix == ".json":
        files.append(Path(model_id))
    return tuple(_toml.file_key(f) for f in files)


def model_entry(model_id: str, precisions, catalog) -> dict:
    """A model's payload entry: its terms at each precision. Solving and checking the terms
    is the slow part; a build asks for the same model in every block and marker, so
    the entry is kept per version of the files it reads (a copy is returned: callers own it)."""
    byte_sizes = tuple((p, catalog.precision(p).bytes_per_element) for p in precisions)
    return copy.deepcopy(_model_entry(model_id, byte_sizes, _data_keys(model_id)))


@functools.lru_cache(maxsize=64)
def _model_entry(model_id: str, byte_sizes: tuple, keys: tuple) -> dict:
    cfg = get_model(model_id)
    moe = cfg.moe
    out = {"label": cfg.name, "params": cfg.params, "layers": cfg.layers,
           "d_model": cfg.d_model, "kv_heads": cfg.kv_heads, "mla": cfg.mla is not None,
           "moe": None if moe is None else {"experts": moe.experts, "top_k": moe.top_k},
           "precisions": {}}
    for p, bytes_per_element in byte_sizes:
        out["precisions"][p] = {"bytes_per_element": bytes_per_element,
                                "kernels": kernel_rows(cfg, bytes_per_element),
                                "memory": serving.memory_terms(cfg, bytes_per_element)}
    _check_kv_scales(cfg.name, out["precisions"])
    return out


def _check_kv_scales(name: str, entries: dict) -> None:
    """window.mjs's withKvBytes holds the KV cache at its own precision by scaling each
    kernel's bytes[2], b2 (bytes ∝ B·C) and the cache's bytes per token by the bytes per element: that is
    right only if they are the cache alone, so exactly proportional to the precision's bytes.
    Checked across the precisions the entry holds (bf16 and fp8 in every payload)."""
    per_byte = [([k["bytes"][2] / e["bytes_per_element"] for k in e["kernels"]],
                 e["memory"]["per_sequence_per_token"] / e["bytes_per_element"])
                for e in entries.values()]
    for rows, per_token in per_byte[1:]:
        for have, want in zip(rows + [per_token], per_byte[0][0] + [per_byte[0][1]]):
            if abs(have - want) > 1e-9 * max(1.0, abs(want)):
                raise AssertionError(f"{name}: the bytes that grow with B·C are not the KV "
                                     "cache alone (they do not scale with the precision's "
                                     "bytes); the KV precision cannot be set apart")


def _link(hw) -> dict | None:
    """The chip's scale-up link (NVLink, Infinity Fabric, ICI) the tensor-parallel all-reduces
    run over: its name and bandwidth per direction (the catalog gives no latency for any link,
    so none is carried); None where the catalog has none."""
    tier = hw.tier("scaleup")
    if tier is None or tier.bandwidth_bytes_per_s is None:
        return None
    return {"name": tier.name, "bandwidth": tier.bandwidth_bytes_per_s}


def chip_entry(hw, precisions) -> dict:
    """`capacity`: the HBM programs can see (the catalog's visible figure; where it gives none,
    the capacity as built, and `visible` says so). window.mjs takes a share of it."""
    return {"label": hw.name, "bandwidth": hw.hbm_bandwidth_bytes_per_s,
            "capacity": usable_capacity_bytes(hw.hbm),
            "visible": getattr(hw.hbm, "visible_capacity_bytes", None) is not None,
            "link": _link(hw),
            "peaks": {p: hw.peak_flops_per_s(p) for p in precisions if p in hw.peaks}}


def utilisation_entry(value: float | None) -> dict:
    """The share of the visible HBM the server allocates: the reader's, else data/serving.toml's
    (with its source)."""
    u = serving.load_memory_utilisation()
    return {"value": u.value if value is None else value, "default": u.value,
            "source": u.source_title, "url": u.url}


def launch_entry() -> dict:
    """Each launch mode's gap per kernel (data/overhead.toml), its label and basis."""
    o = load_launch()
    basis = {"graphs": o.graphs_basis, "eager": o.basis}
    return {m: {"seconds": o.mode_seconds(m), "label": MODE_LABELS[m], "basis": basis[m],
                "source": o.source_title, "url": o.url} for m in LAUNCH_MODES}


def payload(settings) -> dict:
    catalog = default_catalog()
    precisions = tuple(dict.fromkeys((settings.precision, *PRECISIONS)))
    chips = tuple(dict.fromkeys((settings.hardware, *settings.chips)))
    models = tuple(dict.fromkeys((settings.model, *settings.models)))
    prices = serving.load_prices(hardware_ids=set(catalog.accelerators))
    return {
        "models": {m: model_entry(m, precisions, catalog) for m in models},
        "chips": {c: chip_entry(catalog[c], precisions) for c in chips},
        "precisions": list(precisions),
        "tps": list(TPS),
        "kv_precisions": {p: catalog.precision(p).bytes_per_element for p in KV_PRECISIONS},
        "launch": launch_entry(),
        "memory_utilisation": utilisation_entry(settings.memory_utilisation),
        "prices": {c: {"usd_per_hour": p.usd_per_hour, "range": list(p.range_usd_per_hour),
                       "basis": p.basis, "tier": p.tier, "date": p.date,
                       "source": p.source_title, "url": p.url}
                   for c, p in prices.items() if c in chips},
        "state": settings.state(),
        "url_state": settings.url_state,
    }
