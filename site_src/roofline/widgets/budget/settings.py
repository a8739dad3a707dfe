"""The budget fences' settings objects (bokeh-free; see widgets/base.py for the pattern):
```roofline-budget (the interactive time budget, BudgetSettings) and ```roofline-budget-table
(its static tables, BudgetTableSettings). The data the widget embeds is
roofline.widgets.budget.payload's; the Bokeh layout and the tables' renderer are in
roofline.widgets.budget.layout."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from roofline.errors import RooflineError
from roofline.model.example import EXAMPLE
from roofline.widgets.base import DEFAULT_HARDWARE, DEFAULT_PRECISION, Option, WidgetSettings


def _check_chip(settings: WidgetSettings, hardware: str, precision: str) -> None:
    from roofline.model.catalog import default_catalog
    try:
        default_catalog()[hardware].peak(precision)
    except RooflineError as exc:
        option = "hardware" if exc.field == "hardware" else "precision"
        raise settings.fail(option, exc.detail, exc.valid) from None


@dataclass(frozen=True)
class BudgetSettings(WidgetSettings):
    """Validated options of the interactive time budget. It opens by default on the running
    example (roofline.model.example): its model, phase, batch, fusions, chip, precision, ZeRO
    stage and recomputation."""
    model: str = EXAMPLE.model
    phase: str = EXAMPLE.phase
    batch: int = EXAMPLE.batch
    fusions: tuple[str, ...] = EXAMPLE.fusions
    hardware: str = DEFAULT_HARDWARE
    precision: str = DEFAULT_PRECISION
    height: int = 300
    url_state: bool = True
    zero_stage: int = EXAMPLE.zero_stage
    recompute: str = EXAMPLE.recompute

    KIND: ClassVar[str] = "roofline-budget"
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("model", str, "a transformer config id (models.toml)"),
        Option("phase", str, "train, prefill or decode"),
        Option("batch", int, "sequences per GPU: one of the phase's batches"),
        Option("fuse", (list, tuple), "fusions on at first: norm, epilogue, residual, flash",
               field="fusions", items=str),
        Option("hardware", str, "a catalog id"),
        Option("precision", str, "a precision the chip has"),
        Option("height", int, "each plot's height in pixels, 200–800"),
        Option("url", bool, "read and write the view in the page URL", field="url_state"),
        Option("zero", int, "ZeRO stage at first: 0–3", field="zero_stage"),
        Option("recompute", str, "activation recomputation at first: none, selective, full"),
    )
    FIELD_OPTIONS: ClassVar[dict[str, str]] = {"fusions": "fuse", "fusion": "fuse",
                                               "url_state": "url", "zero_stage": "zero"}

    def check(self) -> None:
        from roofline.model.budget import FUSIONS
        from roofline.widgets.budget.payload import BATCHES
        from roofline.model.memory import RECOMPUTE, ZERO_STAGES
        from roofline.model.transformer import PHASES, default_models
        models = default_models()
        if self.model not in models:
            raise self.fail("model", f"unknown model {self.model!r}", list(models))
        if self.phase not in PHASES:
            raise self.fail("phase", f"unknown phase {self.phase!r}", list(PHASES))
        if self.batch not in BATCHES[self.phase]:
            raise self.fail("batch", f"batch for {self.phase} must be one of "
                            f"{', '.join(map(str, BATCHES[self.phase]))}, got {self.batch!r}")
        for f in self.fusions:
            if f not in FUSIONS:
                raise self.fail("fuse", f"unknown fusion {f!r}", list(FUSIONS))
        _check_chip(self, self.hardware, self.precision)
        if not (isinstance(self.height, int) and not isinstance(self.height, bool)
                and 200 <= self.height <= 800):
            raise self.fail("height", f"height must be an integer from 200 to 800 (pixels), "
                            f"got {self.height!r}")
        if self.zero_stage not in ZERO_STAGES:
            raise self.fail("zero", f"must be 0, 1, 2 or 3, got {self.zero_stage!r}")
        if self.recompute not in RECOMPUTE:
            raise self.fail("recompute", f"unknown recomputation {self.recompute!r}",
                            list(RECOMPUTE))

    @property
    def height_px(self) -> int:
        """Three plots and the controls (selects, fusions, knobs, readout, text)."""
        from roofline.widgets.budget.payload import CONTROLS_HEIGHT_PX
        return 3 * self.height + CONTROLS_HEIGHT_PX

    @property
    def label(self) -> str:
        return "Where the step's time goes: interactive time budget and MFU waterfall"

    def payload(self, *, initial_only: bool = False) -> dict:
        """The live widget's payload (every setting); `initial_only`: the opening setting's
        figures alone (the static first frame's, drawn without computing the others)."""
        from roofline.widgets.budget.payload import payload
        return payload(self.hardware, self.precision, self.url_state,
                       (self.model, self.phase, self.batch) if initial_only else None)


TABLES = ("configs", "fusions", "ceilings", "memory", "leaks", "recompute")


@dataclass(frozen=True)
class BudgetTableSettings(WidgetSettings):
    """```roofline-budget-table: one static table of budget figures (the text alternative to
    the widget): configs (train, prefill and decode with three sets of fusions), fusions (the
    bytes each fusion keeps off HBM in a training step), ceilings (the chip's roofs and
    diagonals with their sources), memory (what a step holds per GPU, against the HBM), leaks
    (the running example's leaks ranked: share of step time and points of MFU recovered) or
    recompute (recomputation as a choice: the fitting batch without it, and its MFU)."""
    table: str = "configs"
    model: str = EXAMPLE.model
    batch: int = EXAMPLE.batch
    hardware: str = DEFAULT_HARDWARE
    precision: str = DEFAULT_PRECISION

    KIND: ClassVar[str] = "roofline-budget-table"
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("table", str, "which table: " + " | ".join(TABLES)),
        Option("model", str, "a transformer config id (models.toml)"),
        Option("batch", int, "sequences per GPU of the training step"),
        Option("hardware", str, "a catalog id"),
        Option("precision", str, "a precision the chip has"),
    )

    def check(self) -> None:
        from roofline.model.transformer import default_models
        if self.table not in TABLES:
            raise self.fail("table", f"unknown table {self.table!r}", list(TABLES))
        models = default_models()
        if self.model not in models:
            raise self.fail("model", f"unknown model {self.model!r}", list(models))
        if isinstance(self.batch, bool) or not (isinstance(self.batch, int) and self.batch > 0):
            raise self.fail("batch", f"must be a positive integer, got {self.batch!r}")
        _check_chip(self, self.hardware, self.precision)

    @property
    def height_px(self) -> int:
        return 0  # a static table: nothing to reserve

    @property
    def label(self) -> str:
        return f"Budget table: {self.table}"

    def payload(self) -> dict:
        return {"table": self.table, "model": self.model, "batch": self.batch,
                "hardware": self.hardware, "precision": self.precision}
