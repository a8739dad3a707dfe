"""Every chip of the catalog for one workload, ranked: the roofline's step time, tokens per second
and MFU bound; whether the step fits and the least sharding that would; GPU-hours per billion
tokens, and with the reader's price per GPU-hour, dollars per million tokens.

Conventions (stated once, used everywhere):
- Every chip runs the same step (model, phase, sequences per GPU, sequence length, precision,
  fusions), timed as roofline.model.budget times it: every kernel at its roofline bound, back
  to back. It is a lower bound on time, so tokens/s, the MFU bound and the cost are bounds too
  (no real run beats them; kernel efficiency, launches and communication come on top).
  With a launch mode (roofline.model.launch.LAUNCH_MODES), each launched kernel adds that
  mode's gap: the figures are then estimates at that gap, not bounds.
- Figures are per GPU. Sharding is taken as perfect: a model split over N GPUs takes 1/N of
  the step on each, so GPU-hours per token do not change with N (communication not counted).
- "Fits": the step's bytes per GPU (roofline.model.memory) within the chip's HBM, unsharded.
  The least sharding that fits: for training, the least ZeRO stage and recomputation over the
  data-parallel GPUs (memory.what_fits), then ZeRO-3 with full recomputation over more GPUs;
  for inference, tensor parallelism over the fewest GPUs (a power of two) whose HBM holds an
  even share of the weights, KV cache and working set.
- A training step that fits only with activation recomputation is timed with it: the
  recomputed forward kernels at their roofline bounds are added to the step.
- Prices come only from the reader: they change weekly and differ by provider. (data/prices.toml
  bundles a default for some chips, the serving window's; compare names them, never uses them.)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from roofline.errors import RooflineError
from roofline.model.budget import Assumptions, budget
from roofline.model.catalog import Catalog
from roofline.model.memory import Sharding, sharding_text, step_memory, what_fits
from roofline.model.transformer import TransformerConfig

MAX_GPUS = 1024
SECONDS_PER_HOUR = 3600.0


def running_example() -> dict:
    """The lesson's running example as compare's defaults: model, phase, sequences per GPU,
    sequence length, precision (roofline.model.budget's; the one place compare reads it)."""
    from roofline.model.example import EXAMPLE
    return {k: getattr(EXAMPLE, k) for k in ("model", "phase", "batch", "seq", "precision")}


@dataclass(frozen=True)
class Row:
    hardware: str
    name: str
    step_time_s: float
    tokens_per_step: int
    mfu_upper_bound: float
    fits: bool
    memory_bytes: float
    capacity_bytes: float
    sharding: str | None
    """The least sharding that fits (None: fits as it is, or `gpus` is None: nothing does)."""
    gpus: int | None
    """GPUs the fitting step is spread over (1 when it fits; None when nothing up to MAX_GPUS
    does)."""
    price_usd_per_hour: float | None = None

    @property
    def tokens_per_s(self) -> float:
        return self.tokens_per_step / self.step_time_s

    @property
    def gpu_hours_per_billion_tokens(self) -> float:
        return self.step_time_s / self.tokens_per_step * 1e9 / SECONDS_PER_HOUR

    @property
    def usd_per_million_tokens(self) -> float | None:
        if self.price_usd_per_hour is None:
            return None
        return self.price_usd_per_hour * self.gpu_hours_per_billion_tokens / 1e3

    def as_dict(self) -> dict:
        return {"hardware": self.hardware, "name": self.name, "step_time_s": self.step_time_s,
                "tokens_per_step": self.tokens_per_step, "tokens_per_s": self.tokens_per_s,
                "mfu_upper_bound": self.mfu_upper_bound, "fits": self.fits,
                "memory_bytes": self.memory_bytes, "capacity_bytes": self.capacity_bytes,
                "fits_with": self.sharding, "gpus": self.gpus,
                "gpu_hours_per_billion_tokens": self.gpu_hours_per_billion_tokens,
                "price_usd_per_hour": self.price_usd_per_hour,
                "usd_per_million_tokens": self.usd_per_million_tokens}


@dataclass(frozen=True)
class Comparison:
    model: TransformerConfig
    phase: str
    batch: int
    seq: int
    precision: str
    fusions: frozenset[str]
    rows: tuple[Row, ...]
    skipped: tuple[tuple[str, str], ...]
    """(chip id, why) for chips left out: no peak at the precision."""
    launch: str | None = None
    """The launch mode whose gap each kernel adds (None: roofline time alone, a bound)."""
    launch_s: float = 0.0
    """That mode's gap per launched kernel (data/overhead.toml)."""

    @property
    def bounds(self) -> bool:
        """Whether the figures are bounds: only the roofline time alone is one."""
        return self.launch is None

    def as_dict(self) -> dict:
        return {"model": self.model.id, "model_name": self.model.name,
                "params_total": self.model.params, "params_active": self.model.params_active,
                "flops_per_token": self.model.flops_per_token, "phase": self.phase, "batch": self.batch, "seq": self.seq,
                "precision": self.precision, "fusions": sorted(self.fusions),
                "launch": self.launch, "launch_s": self.launch_s, "bounds": self.bounds,
                "notes": list(self.model.notes),
                "rows": [r.as_dict() for r in self.rows],
                "skipped": [{"hardware": h, "why": w} for h, w in self.skipped]}


@dataclass(frozen=True)
class Fit:
    """The least sharding that makes a step fit: how (None: as it is), over how many GPUs
    (None: nothing up to MAX_GPUS fits), and the training sharding it takes."""
    how: str | None
    gpus: int | None
    sharding: Sharding = Sharding()


def least_sharding(cfg: TransformerConfig, phase: str, batch: int, seq: int, b: float,
                   capacity: float, *, flash: bool, dp_degree: int) -> Fit:
    """The least sharding that makes the step fit (see the module docstring)."""
    if phase == "train":
        if step_memory(cfg, phase, batch, seq, b, capacity, flash=flash,
                       dp_degree=dp_degree).fits:
            return Fit(None, 1)
        fix = what_fits(cfg, batch, seq, b, capacity, flash=flash, dp_degree=dp_degree)
        if fix is not None:
            return Fit(f"{sharding_text(fix)} over {dp_degree} GPUs", dp_degree, fix)
        most, n = Sharding(3, "full"), dp_degree * 2
        while n <= MAX_GPUS:
            if step_memory(cfg, phase, batch, seq, b, capacity, flash=flash, dp_degree=n,
                           sharding=most).fits:
                return Fit(f"{sharding_text(most)} over {n} GPUs", n, most)
            n *= 2
        return Fit(None, None)
    total = step_memory(cfg, phase, batch, seq, b, capacity, flash=flash).total
    n = 1
    while n <= MAX_GPUS:
        if total / n <= capacity:
            return Fit(None if n == 1 else f"tensor parallel over {n} GPUs", n)
        n *= 2
    return Fit(None, None)


def _fits_somewhere(cfg, phase, batch, seq, catalog, b, flash, dp_degree) -> str | None:
    """The first catalog chip (by capacity, largest first) on which the step fits, sharded over
    at most MAX_GPUS GPUs as least_sharding shards it; None: on none."""
    for hw in sorted(catalog, key=lambda h: -h.hbm.capacity_bytes):
        if least_sharding(cfg, phase, batch, seq, b, hw.hbm.capacity_bytes, flash=flash,
                          dp_degree=dp_degree).gpus is not None:
            return hw.id
    return None


def check_batch_fits_somewhere(cfg: TransformerConfig, phase: str, batch: int, seq: int,
                               catalog: Catalog, b: float, *, flash: bool,
                               dp_degree: int) -> None:
    """A batch no chip of the catalog can hold, even sharded over MAX_GPUS GPUs, is refused in
    one line naming the largest batch that fits somewhere (found by bisection: memory only
    grows with the batch), as the serving window refuses a context past its cap: its figures
    would be a table of petabytes and hours, not an answer."""
    if _fits_somewhere(cfg, phase, batch, seq, catalog, b, flash, dp_degree):
        return
    if not _fits_somewhere(cfg, phase, 1, seq, catalog, b, flash, dp_degree):
        raise RooflineError(f"not even batch 1 of {seq:,} tokens fits on any chip of the "
                            f"catalog over {MAX_GPUS:,} GPUs; shorten seq", field="seq")
    lo, hi = 1, batch
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _fits_somewhere(cfg, phase, mid, seq, catalog, b, flash, dp_degree):
            lo = mid
        else:
            hi = mid
    chip = _fits_somewhere(cfg, phase, lo, seq, catalog, b, flash, dp_degree)
    raise RooflineError(f"batch {batch:,} fits on no chip of the catalog, even over "
                        f"{MAX_GPUS:,} GPUs; the largest that fits anywhere is {lo:,} (on "
                        f"{chip})", field="batch")


def compare(cfg: TransformerConfig, phase: str, batch: int, seq: int, catalog: Catalog,
            precision: str, *, fusions=frozenset({"flash"}),
            prices: dict[str, float] | None = None,
            assumptions: Assumptions | None = None, launch: str | None = None) -> Comparison:
    """One row per catalog chip that has `precision`, cheapest first when priced, else fewest
    GPU-hours per token first. `launch`: a launch mode whose gap each launched kernel adds
    (None: the roofline time alone)."""
    from roofline.model.launch import load_launch
    launch_s = 0.0 if launch is None else load_launch().mode_seconds(launch)
    prices = dict(prices or {})
    for hw_id, usd in prices.items():
        if hw_id not in catalog.accelerators:
            raise RooflineError(f"unknown hardware {hw_id!r}", field="price",
                                valid=list(catalog.accelerators))
        if not (isinstance(usd, (int, float)) and usd > 0):
            raise RooflineError(f"must be a positive price per GPU-hour, got {usd!r}",
                                field="price")
    a = assumptions or Assumptions()
    b = catalog.precision(precision).bytes_per_element
    check_batch_fits_somewhere(cfg, phase, batch, seq, catalog, b, flash="flash" in fusions,
                               dp_degree=a.dp_degree)
    rows, skipped = [], []
    for hw in catalog:
        if precision not in hw.peaks:
            skipped.append((hw.id, f"no {precision} peak"))
            continue
        bg = budget(cfg, phase, batch, seq, hw, precision, b, fusions, a)
        mem = bg.memory
        fit = least_sharding(cfg, phase, batch, seq, b, hw.hbm.capacity_bytes,
                             flash="flash" in bg.fusions, dp_degree=a.dp_degree)
        time_s = bg.step_time_s
        if fit.sharding.recompute != "none":  # the step that fits recomputes: time it so
            fitted = budget(cfg, phase, batch, seq, hw, precision, b, fusions,
                            replace(a, dp_degree=fit.gpus), fit.sharding)
            time_s += fitted.recompute_time_s
            time_s += fitted.recompute_launches * launch_s
        time_s += bg.launches * launch_s
        tokens = batch * (1 if phase == "decode" else seq)
        rows.append(Row(hw.id, hw.name, time_s, tokens, bg.ideal_time_s / time_s, mem.fits,
                        mem.total, mem.capacity, fit.how, fit.gpus, prices.get(hw.id)))
    rows.sort(key=lambda r: (r.usd_per_million_tokens is None, r.usd_per_million_tokens or 0.0,
                             r.gpu_hours_per_billion_tokens))
    return Comparison(cfg, phase, batch, seq, precision, frozenset(fusions), tuple(rows),
                      tuple(skipped), launch, launch_s)
