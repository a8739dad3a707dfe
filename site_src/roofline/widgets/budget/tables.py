"""The budget page's static tables (the text alternative to the widget): configurations,
fusion savings, the chip's ceilings, and what one step holds in memory."""

from __future__ import annotations

from roofline import fmt
from roofline.model.budget import FUSION_LABELS, FUSIONS, Assumptions, budget
from roofline.model.example import EXAMPLE
from roofline.widgets.budget.payload import BATCHES, SEQ
from roofline.model.memory import Sharding, sharding_text, usable_capacity_bytes
from roofline.model.catalog import Catalog, default_catalog
from roofline.errors import RooflineError, unknown_id
from roofline.model.transformer import PHASES


def summary_table(kind: str, *, model: str = EXAMPLE.model, batch: int = EXAMPLE.batch,
                  hardware: str = EXAMPLE.hardware, precision: str = EXAMPLE.precision):
    """The budget's headline figures as a Table value (Markdown/CSV/JSON alike)."""
    from roofline.render.table_value import Column, Table
    from roofline.model.transformer import get_model

    catalog = default_catalog()
    hw = catalog[hardware]
    b = catalog.precision(precision).bytes_per_element
    cfg = get_model(model)
    if not (isinstance(batch, int) and batch > 0):
        raise RooflineError(f"must be a positive integer, got {batch!r}", field="batch")
    if kind == "configs":
        # Training as the running example shards it (roofline.model.example); a row that still
        # does not fit shows no time.
        rows = []
        for phase in PHASES:
            n = batch if phase == "train" else BATCHES[phase][-2 if phase == "decode" else 0]
            sharding = EXAMPLE.sharding if phase == "train" else Sharding()
            for label, fz in (("none", ()), ("FlashAttention", ("flash",)), ("all four", FUSIONS)):
                bg = budget(cfg, phase, n, SEQ[phase], hw, precision, b, frozenset(fz),
                            sharding=sharding)
                m = bg.memory
                fits = m.fits
                rows.append({"phase": phase if phase != "train" else
                             f"train ({sharding_text(sharding)})",
                             "batch": f"{n} × {SEQ[phase]:,}", "fused": label,
                             "memory": (f"{fmt.capacity(m.total)}" if fits else
                                        f"does not fit: {fmt.capacity(m.total)}, "
                                        f"{fmt.capacity(m.overflow)} over"),
                             "step_time_s": bg.step_time_s if fits else None,
                             "bytes": bg.bytes if fits else None,
                             "bound": bg.mfu_upper_bound if fits else None,
                             "estimate": bg.mfu_estimate if fits else None})
        cols = (Column("phase", "Phase"), Column("batch", "Batch × tokens"),
                Column("fused", "Fused"), Column("memory", "Memory per GPU", align="right"),
                Column("step_time_s", "Step at the roofline", fmt.seconds, "right"),
                Column("bytes", "HBM traffic", fmt.capacity, "right"),
                Column("bound", "MFU upper bound", lambda x: fmt.percent(x, 3), "right"),
                Column("estimate", "After overheads", lambda x: fmt.percent(x, 3), "right"))
        return Table(cols, tuple(rows))
    if kind == "memory":
        return memory_table(hw, precision, b)
    if kind == "fusions":
        base = budget(cfg, "train", batch, SEQ["train"], hw, precision, b,
                      sharding=EXAMPLE.sharding)
        rows = []
        for f in FUSIONS:
            bg = budget(cfg, "train", batch, SEQ["train"], hw, precision, b, frozenset({f}),
                        sharding=EXAMPLE.sharding)
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
    if kind in ("leaks", "recompute"):
        # The running example (its fusions, sharding and assumptions) at this model and batch.
        from roofline.model.budget import example_budget
        bg = example_budget(catalog, model=model, batch=batch, hardware=hardware,
                            precision=precision)
        return leak_table(bg) if kind == "leaks" else recompute_table(bg)
    raise unknown_id("table", kind, ["configs", "fusions", "ceilings", "memory", "leaks",
                                     "recompute"], field="table")


MEMORY_ROWS = (
    (EXAMPLE.model, "train", EXAMPLE.batch, (), Sharding()),
    (EXAMPLE.model, "train", EXAMPLE.batch, ("flash",), Sharding()),
    (EXAMPLE.model, "train", EXAMPLE.batch, ("flash",), Sharding(EXAMPLE.zero_stage)),
    (EXAMPLE.model, "train", EXAMPLE.batch, EXAMPLE.fusions, EXAMPLE.sharding),
    (EXAMPLE.model, "train", 1, ("flash",), Sharding(EXAMPLE.zero_stage)),
    (EXAMPLE.model, "prefill", 8, (), Sharding()),
    (EXAMPLE.model, "decode", 32, (), Sharding()),
    (EXAMPLE.model, "decode", 256, (), Sharding()),
    ("llama-3-70b", "decode", 1, (), Sharding()),
)
"""The running example's step unsharded, with FlashAttention, with its ZeRO stage only and as
it runs; a smaller batch; inference; and a model whose weights alone do not fit."""


def memory_table(hw, precision: str, b: float):
    """What one step holds per GPU (roofline.model.memory) against the chip's HBM, for the
    configurations the page discusses: the plain ones that do not fit and the sharding that
    makes training fit."""
    from roofline.render.table_value import Column, Table
    from roofline.model.transformer import get_model

    rows = []
    for model, phase, batch, fz, sharding in MEMORY_ROWS:
        cfg = get_model(model)
        bg = budget(cfg, phase, batch, SEQ[phase], hw, precision, b, frozenset(fz),
                    Assumptions(dp_degree=EXAMPLE.dp_degree), sharding)
        m = bg.memory
        how = ", ".join(filter(None, ["FlashAttention" if fz else "",
                                      sharding_text(sharding) if phase == "train" else ""]))
        rows.append({"config": f"{cfg.name}, {phase}, {batch} × {SEQ[phase]:,}"
                               + (f" ({how})" if how else ""),
                     "verdict": ("fits" if m.fits else
                                 f"does not fit: {fmt.capacity(m.overflow)} over"),
                     "total": m.total, "weights": m.weights,
                     "state": m.gradients + m.optimizer, "activations": m.activations,
                     "kv": m.kv_cache})
    cap = usable_capacity_bytes(hw.hbm)
    # The verdict and the total come first: they are the punchline.
    cols = (Column("config", f"Step (training: {EXAMPLE.dp_degree}-way data parallel)"),
            Column("verdict", f"In the {fmt.capacity(cap)} programs can use?"
                   if cap != hw.hbm.capacity_bytes else f"In {fmt.memory_and_bytes(cap)}?"),
            Column("total", "Per GPU", fmt.capacity, "right"),
            Column("weights", "Weights", fmt.capacity, "right"),
            Column("state", "Gradients + AdamW", fmt.capacity, "right"),
            Column("activations", "Activations", fmt.capacity, "right"),
            Column("kv", "KV cache", fmt.capacity, "right"))
    return Table(cols, tuple(rows))



def ceilings_table(hw, catalog: Catalog):
    """Every roof and diagonal of one chip with its figure's source (for the hierarchy plot)."""
    from roofline.render.table_value import Column, Table

    rows = []
    for p, peak in hw.peaks.items():
        label = catalog.precision(p).label
        rows.append({"ceiling": f"{label} roof" if peak.unit in label.lower()
                     else f"{label} {peak.unit} roof",
                     "value": fmt.tflops(peak.flops_per_s), "basis": peak.basis,
                     "source": catalog.sources[peak.source].title})
    for p, peak in hw.vector_peaks.items():
        rows.append({"ceiling": f"{catalog.precision(p).label} vector roof",
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


def efficiency_words(bg) -> str:
    """Where a budget's GEMM efficiency comes from, in one sentence (the CLI, the budget page
    and the lesson say it the same way): the chip's measured matmul ceiling and its source,
    the reader's figure, or no measurement (the roofline bound alone)."""
    c, peak = bg.gemm_ceiling, bg.peak_flops_per_s
    if bg.efficiency_basis == "override":
        return f"GEMMs at {fmt.percent(bg.gemm_efficiency, 3)} of their roofline bound, as given"
    if c is None:
        return (f"GEMMs at their roofline bound: {bg.hardware.name} has no measured "
                f"{bg.precision} matmul ceiling in data/ceilings.toml, so none is assumed")
    return (f"GEMMs at {fmt.percent(bg.gemm_efficiency, 3)} of peak, {bg.hardware.name}'s "
            f"measured matmul ceiling ({fmt.num(c.flops_per_s / 1e12, 3)} of "
            f"{fmt.num(peak / 1e12, 3)} TFLOP/s; {c.source_short}, {c.software}, "
            f"{c.date}); other kernels at their roofline bound")



# ---------------------------------------------------------------- the leaks, ranked

LEFT_LABEL = "what is left: the useful FLOPs at peak (the MFU)"
"""The account's last row: the step's useful work, whose share of step time is the MFU."""


def points(x: float) -> str:
    """Points of MFU recovered, signed: "+18.4"; a leak that costs nothing, "0"."""
    return "0" if x * 100 == 0 else f"+{fmt.num(x * 100, 3)}"


def leak_table(bg):
    """The step's leaks ranked, largest first (roofline.model.leaks.leak_account): each one's
    seconds, its share of step time and the points of MFU removing it alone would recover, and
    the useful work left, whose share is the MFU. The one account the lesson, the budget page,
    the interview answer and `roofline budget` print."""
    from roofline.model.leaks import leak_account
    from roofline.render.table_value import Column, Table
    acc = leak_account(bg)
    rows = [{"rank": i, "leak": leak.label, "time_s": leak.time_s, "share": leak.share,
             "recovered": leak.recovered} for i, leak in enumerate(acc.leaks, 1)]
    rows.append({"rank": None, "leak": LEFT_LABEL, "time_s": acc.ideal_time_s,
                 "share": acc.mfu, "recovered": None})
    cols = (Column("rank", "Rank", str, "right"), Column("leak", "Leak"),
            Column("time_s", "Time per step", fmt.seconds, "right"),
            Column("share", "Share of step time", lambda x: fmt.percent(x, 3), "right"),
            Column("recovered", "Points of MFU recovered", points, "right"))
    return Table(cols, tuple(rows), caption=(
        "The step's leaks, largest first. Share of step time: the leak's seconds ÷ the "
        "step's. Points of MFU recovered: the MFU with that leak alone removed, minus "
        f"today's {fmt.percent(acc.mfu, 3)}:"))


def recompute_table(bg):
    """Recomputation as a choice (roofline.model.leaks.recompute_choice): the step as given,
    the same batch without recomputation and the largest batch that fits without it, each with
    its memory per GPU against the HBM and its MFU; a step that does not fit shows no MFU."""
    from roofline.model.leaks import recompute_choice
    from roofline.render.table_value import Column, Table
    words = {"none": "no recomputation", "selective": "selective recomputation",
             "full": "full recomputation"}
    rows = []
    for b in recompute_choice(bg):
        m = b.memory
        rows.append({"config": f"{b.batch:,} × {b.seq:,}, {words[b.sharding.recompute]}"
                               + (" (as given)" if b is bg else ""),
                     "tokens": b.batch * b.seq,
                     "memory": (f"{fmt.capacity(m.total)}, fits" if m.fits else
                                f"{fmt.capacity(m.total)}: does not fit, "
                                f"{fmt.capacity(m.overflow)} over"),
                     "mfu": b.mfu_estimate if m.fits else None})
    cols = (Column("config", "Batch × tokens, recomputation"),
            Column("tokens", "Tokens per GPU per step", lambda x: f"{x:,}", "right"),
            Column("memory", f"Memory per GPU (of {fmt.capacity(bg.capacity_bytes)})", align="right"),
            Column("mfu", "MFU after overheads", lambda x: fmt.percent(x, 3), "right"))
    return Table(cols, tuple(rows), caption=(
        "Recomputation is a choice: the step as given, without recomputation at the same "
        "batch, and the largest batch that fits without it (the memory model's check):"))
