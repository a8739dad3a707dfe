"""The budget page's static tables (the text alternative to the widget): configurations,
fusion savings, the chip's ceilings, and what one step holds in memory."""

from __future__ import annotations

from .. import fmt
from ..budget import FUSION_LABELS, FUSIONS, budget
from ..budget_widget import BATCHES, SEQ
from ..catalog import Catalog, default_catalog
from ..errors import RooflineError, unknown_id
from ..transformer import PHASES


def summary_table(kind: str, *, model: str = "llama-2-7b", batch: int = 4,
                  hardware: str = "h100-sxm", precision: str = "bf16"):
    """The budget's headline figures as a Table value (Markdown/CSV/JSON alike)."""
    from ..render.table import Column, Table
    from ..transformer import get_model

    catalog = default_catalog()
    hw = catalog[hardware]
    b = catalog.precision(precision).bytes_per_element
    cfg = get_model(model)
    if not (isinstance(batch, int) and batch > 0):
        raise RooflineError(f"must be a positive integer, got {batch!r}", field="batch")
    if kind == "configs":
        rows = []
        for phase in PHASES:
            n = batch if phase == "train" else BATCHES[phase][-2 if phase == "decode" else 0]
            for label, fz in (("none", ()), ("FlashAttention", ("flash",)), ("all four", FUSIONS)):
                bg = budget(cfg, phase, n, SEQ[phase], hw, precision, b, frozenset(fz))
                rows.append({"phase": phase, "batch": f"{n} × {SEQ[phase]:,}", "fused": label,
                             "step_time_s": bg.step_time_s, "bytes": bg.bytes,
                             "bound": bg.mfu_upper_bound, "estimate": bg.mfu_estimate})
        cols = (Column("phase", "Phase"), Column("batch", "Batch × tokens"),
                Column("fused", "Fused"),
                Column("step_time_s", "Step at the roofline", fmt.seconds, "right"),
                Column("bytes", "HBM traffic", fmt.capacity, "right"),
                Column("bound", "MFU upper bound", lambda x: fmt.percent(x, 3), "right"),
                Column("estimate", "After overheads", lambda x: fmt.percent(x, 3), "right"))
        return Table(cols, tuple(rows))
    if kind == "fusions":
        base = budget(cfg, "train", batch, SEQ["train"], hw, precision, b)
        rows = []
        for f in FUSIONS:
            bg = budget(cfg, "train", batch, SEQ["train"], hw, precision, b, frozenset({f}))
            rows.append({"fusion": FUSION_LABELS[f], "saved": bg.bytes_saved()[f],
                         "share": bg.bytes_saved()[f] / base.bytes,
                         "kernels": base.launches - bg.launches,
                         "bound": bg.mfu_upper_bound - base.mfu_upper_bound})
        cols = (Column("fusion", "Fusion (alone)"),
                Column("saved", "Bytes kept off HBM per step", fmt.capacity, "right"),
                Column("share", "of all traffic", fmt.percent, "right"),
                Column("kernels", "Kernels fewer", lambda x: f"{x:,}", "right"),
                Column("bound", "MFU bound gain", lambda x: f"+{fmt.num(x * 100, 3)} pt",
                       "right"))
        return Table(cols, tuple(rows))
    if kind == "ceilings":
        return ceilings_table(hw, catalog)
    raise unknown_id("table", kind, ["configs", "fusions", "ceilings"], field="table")


def ceilings_table(hw, catalog: Catalog):
    """Every roof and diagonal of one chip with its figure's source (for the hierarchy plot)."""
    from ..render.table import Column, Table

    rows = []
    for p, peak in hw.peaks.items():
        label = catalog.precision(p).label
        rows.append({"ceiling": f"{label} roof" if peak.unit in label.lower()
                     else f"{label} {peak.unit} roof",
                     "value": fmt.tflops(peak.flops_per_s), "basis": peak.basis,
                     "source": catalog.sources[peak.source].title})
    for t in hw.tiers:
        if t.kind == "registers":
            continue
        rows.append({"ceiling": f"{t.name} diagonal",
                     "value": (fmt.bandwidth(t.bandwidth_bytes_per_s)
                               if t.bandwidth_bytes_per_s else "not published: no diagonal"),
                     "basis": t.basis, "source": catalog.sources[t.source].title})
    cols = (Column("ceiling", "Ceiling"), Column("value", "Figure", align="right"),
            Column("basis", "Basis"), Column("source", "Source"))
    return Table(cols, tuple(rows))
