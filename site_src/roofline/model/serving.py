"""The serving window's costs: one decode step of a model as exact functions of the batch B
(sequences decoding at once, one new token each) and the context length C (tokens already in
each sequence's KV cache), so the browser can price any chip, batch and context as the reader
moves a control, and the CLI runs the same JavaScript (widgets/window/window.mjs) on them.

Every kernel of a decode step (roofline.model.kernels.step_kernels, the budget's own list) has

    FLOPs = f0 + f1·B + f2·B·C
    bytes = b0 + b1·B + b2·B·C + w·(1 − (1 − k/E)^B)

per copy: weights read once per step (b0), each sequence's token in and out (b1), attention
over each sequence's cache (f2, b2), and for a mixture of experts the weights of the experts the
batch touches (w: every routed expert's weight bytes; E experts, top-k per token; at B = 1 only
k of them, roofline.model.moe's uniform-routing estimate). `coefficients()` finds the terms from
the budget's kernels at a few (B, C) and checks them at others: a kernel whose cost is not of
this form is a bug here, raised, never a silently wrong window.

Memory per chip (roofline.model.memory.step_memory, decode): the weights, plus per sequence its
KV cache (kv elements per token × C × bytes) and its share of the largest working set (with
FlashAttention, independent of C), against the HBM programs can use.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from roofline.model.kernels import step_kernels
from roofline.model.memory import inference_working_bytes, kv_cache_bytes
from roofline.model.transformer import TransformerConfig

FIT_AT = ((1, 1024), (2, 1024), (3, 1024), (1, 2048))
"""(B, C) at which the terms are solved for (the fourth only for an MoE's touched experts)."""
CHECK_AT = ((5, 3000), (37, 8192), (256, 512))
"""(B, C) at which the solved terms must give the budget's kernels back exactly."""
RTOL = 1e-9


@dataclass(frozen=True)
class KernelTerms:
    name: str
    op_class: str
    count: int
    launches: int
    flops: tuple[float, float, float]
    useful_flops: tuple[float, float, float]
    bytes: tuple[float, float, float, float]


def _touched(cfg: TransformerConfig, batch: float) -> float:
    """1 − (1 − k/E)^B: the share of routed experts a batch touches (0 for a dense model)."""
    moe = cfg.moe
    return 0.0 if moe is None else moe.expected_experts(batch) / moe.experts


def _basis(cfg: TransformerConfig, batch: int, ctx: int, touched: bool) -> list[float]:
    row = [1.0, float(batch), float(batch * ctx)]
    return row + [_touched(cfg, batch)] if touched else row


def _solve(cfg, values: list[float], touched: bool) -> list[float]:
    """The terms at FIT_AT that give `values`; fit points that do not determine them are a
    bug here, raised by name."""
    points = FIT_AT if touched else (FIT_AT[0], FIT_AT[1], FIT_AT[3])
    a = np.array([_basis(cfg, batch, ctx, touched) for batch, ctx in points])
    try:
        return [float(v) for v in np.linalg.solve(a, np.array(values, float))]
    except np.linalg.LinAlgError:
        raise AssertionError(f"{cfg.name}: the fit points {points} do not determine the terms"
                             ) from None


def coefficients(cfg: TransformerConfig, bytes_per_element: float,
                 fusions=frozenset({"flash"})) -> list[KernelTerms]:
    """Each decode kernel's cost terms at `bytes_per_element` (see the module docstring)."""
    moe = cfg.moe is not None
    pts = FIT_AT if moe else (FIT_AT[0], FIT_AT[1], FIT_AT[3])
    lists = [step_kernels(cfg, "decode", batch, ctx, bytes_per_element, fusions)[0]
             for batch, ctx in pts]
    names = [[(k.name, k.count, k.launches) for k in ks] for ks in lists]
    if any(n != names[0] for n in names):
        raise AssertionError(f"{cfg.name}: the decode kernel list changes with the batch or the "
                             "context; the serving window's terms assume it does not")
    out = []
    for i, k in enumerate(lists[0]):
        flops = _solve(cfg, [ks[i].flops for ks in lists], moe)
        useful = _solve(cfg, [ks[i].useful_flops for ks in lists], moe)
        bytes_ = _solve(cfg, [ks[i].bytes for ks in lists], moe)
        # FLOPs do not depend on which experts are touched: the routed rows are B·k either way.
        if moe and abs(flops[3]) > RTOL * max(1.0, *map(abs, flops)):
            raise AssertionError(f"{cfg.name}: {k.name}'s FLOPs depend on the experts touched")
        out.append(KernelTerms(k.name, k.op_class, k.count, k.launches,
                               tuple(float(v) for v in flops[:3]),
                               tuple(float(v) for v in useful[:3]),
                               tuple(float(v) for v in bytes_[:3]) + (
                                   float(bytes_[3]) if moe else 0.0,)))
    _check(cfg, bytes_per_element, fusions, out)
    return out


def cost_at(cfg: TransformerConfig, t: KernelTerms, batch: float, ctx: float
            ) -> tuple[float, float, float]:
    """(FLOPs, useful FLOPs, bytes) per copy of a kernel from its terms (as window.mjs)."""
    f0, f1, f2 = t.flops
    u0, u1, u2 = t.useful_flops
    b0, b1, b2, w = t.bytes
    return (f0 + f1 * batch + f2 * batch * ctx, u0 + u1 * batch + u2 * batch * ctx,
            b0 + b1 * batch + b2 * batch * ctx + w * _touched(cfg, batch))


def _check(cfg, bytes_per_element, fusions, terms: list[KernelTerms]) -> None:
    for batch, ctx in CHECK_AT:
        kernels = step_kernels(cfg, "decode", batch, ctx, bytes_per_element, fusions)[0]
        for k, t in zip(kernels, terms):
            got = cost_at(cfg, t, batch, ctx)
            for want, have, what in ((k.flops, got[0], "FLOPs"), (k.useful_flops, got[1],
                                     "useful FLOPs"), (k.bytes, got[2], "bytes")):
                if abs(want - have) > RTOL * max(1.0, abs(want)):
                    raise AssertionError(f"{cfg.name}: {k.name}'s {what} at B={batch}, "
                                         f"C={ctx} are {want!r}, the terms give {have!r}")


def memory_terms(cfg: TransformerConfig, bytes_per_element: float) -> dict[str, float]:
    """Bytes per chip of a decode step: `weights` + B × (`per_sequence_per_token` × C +
    `working_per_sequence`) (roofline.model.memory: weights, KV cache, FlashAttention's
    working set), checked against the memory model at a few (B, C)."""
    weights = cfg.params * bytes_per_element
    per_token = kv_cache_bytes(cfg, 1, 1, bytes_per_element)
    working = inference_working_bytes(cfg, 1, 1, 1024, bytes_per_element, flash=True)
    for batch, ctx in CHECK_AT:
        want = (kv_cache_bytes(cfg, batch, ctx, bytes_per_element)
                + inference_working_bytes(cfg, batch, 1, ctx, bytes_per_element, flash=True))
        have = batch * (per_token * ctx + working)
        if abs(want - have) > RTOL * want:
            raise AssertionError(f"{cfg.name}: decode memory is not weights + B·(KV·C + "
                                 f"working) at B={batch}, C={ctx}")
    return {"weights": float(weights), "per_sequence_per_token": float(per_token),
            "working_per_sequence": float(working)}


# ---------------------------------------------------------------- rental prices

BASES = ("quoted", "derived")


@dataclass(frozen=True)
class Price:
    hardware: str
    usd_per_hour: float
    range_usd_per_hour: tuple[float, float]
    basis: str
    tier: str
    date: str
    source: str
    source_title: str
    url: str
    note: str


def load_prices(path=None, hardware_ids=None) -> dict[str, Price]:
    """data/prices.toml (or `path`): each chip's default price per GPU-hour, with its source,
    date and range. `hardware_ids`: the catalog's, to refuse a price for a chip it lacks. Read
    once per version of the file (path, mtime, size: an edit is seen); a build asks ~20 times."""
    from pathlib import Path

    from roofline.model import datafile as _toml

    path = Path(path) if path else _toml.DATA_DIR / "prices.toml"
    ids = None if hardware_ids is None else frozenset(hardware_ids)
    return dict(_cached_prices(_toml.file_key(path), ids))


@functools.lru_cache(maxsize=8)
def _cached_prices(key: tuple[str, int, int], hardware_ids: frozenset[str] | None
                   ) -> dict[str, Price]:
    import re
    from pathlib import Path

    from roofline.errors import RooflineError
    from roofline.model import datafile as _toml

    path = Path(key[0])
    data = _toml.load(path)
    where = str(path)
    sources = data.get("sources", {})
    top = _toml.Fields(data, where=where, entry="")
    top.get("schema_version", int)
    top.get("sources", dict)
    prices = top.get("price", dict)
    top.finish()
    out = {}
    for hw, table in prices.items():
        f = _toml.Fields(table, where=where, entry=f"price.{hw}")
        if hardware_ids is not None and hw not in hardware_ids:
            raise RooflineError("no such chip in the hardware catalog", where=where,
                                entry=f"price.{hw}", valid=sorted(hardware_ids))
        usd = f.positive("usd_per_hour")
        lo_hi = f.get("range_usd_per_hour", list)
        if (len(lo_hi) != 2 or not all(isinstance(v, (int, float)) for v in lo_hi)
                or not lo_hi[0] <= usd <= lo_hi[1]):
            raise RooflineError(f"must be [low, high] around usd_per_hour ({usd}), got "
                                f"{lo_hi!r}", where=where, entry=f"price.{hw}",
                                field="range_usd_per_hour")
        basis = f.get("basis", str)
        if basis not in BASES:
            raise RooflineError(f"unknown basis {basis!r}", where=where, entry=f"price.{hw}",
                                field="basis", valid=list(BASES))
        date = f.get("date", str)
        if not re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", date):
            raise RooflineError(f"expected YYYY-MM or YYYY-MM-DD, got {date!r}", where=where,
                                entry=f"price.{hw}", field="date")
        source = f.get("source", str)
        if source not in sources:
            raise RooflineError(f"unknown source {source!r}", where=where, entry=f"price.{hw}",
                                field="source", valid=sorted(sources))
        s = _toml.Fields(sources[source], where=where, entry=f"sources.{source}")
        title, url = s.get("title", str), s.get("url", str)
        s.finish()
        tier, note = f.get("tier", str), f.get("note", str)
        f.finish()
        out[hw] = Price(hw, usd, (float(lo_hi[0]), float(lo_hi[1])), basis, tier, date, source,
                        title, url, note)
    return out


# ---------------------------------------------------------------- memory a server leaves itself

@dataclass(frozen=True)
class MemoryUtilisation:
    value: float
    basis: str
    date: str
    source: str
    source_title: str
    url: str
    note: str


def load_memory_utilisation(path=None) -> MemoryUtilisation:
    """data/serving.toml (or `path`): the share of the visible HBM a serving stack allocates
    (weights, activations, KV cache), with its source. Read once per version of the file."""
    from pathlib import Path

    from roofline.model import datafile as _toml

    path = Path(path) if path else _toml.DATA_DIR / "serving.toml"
    return _cached_utilisation(_toml.file_key(path))


@functools.lru_cache(maxsize=4)
def _cached_utilisation(key: tuple[str, int, int]) -> MemoryUtilisation:
    from pathlib import Path

    from roofline.errors import RooflineError
    from roofline.model import datafile as _toml

    path = Path(key[0])
    data = _toml.load(path)
    where = str(path)
    sources = data.get("sources", {})
    f = _toml.Fields(data.get("memory_utilisation"), where=where, entry="memory_utilisation")
    value = f.positive("value")
    if value > 1:
        raise RooflineError(f"a share of memory is at most 1, got {value!r}", where=where,
                            entry="memory_utilisation", field="value")
    basis, date, source = f.get("basis", str), f.get("date", str), f.get("source", str)
    note = f.get("note", str)
    f.finish()
    if source not in sources:
        raise RooflineError(f"unknown source {source!r}", where=where,
                            entry="memory_utilisation", field="source", valid=sorted(sources))
    s = _toml.Fields(sources[source], where=where, entry=f"sources.{source}")
    title, url = s.get("title", str), s.get("url", str)
    s.finish()
    return MemoryUtilisation(value, basis, date, source, title, url, note)
