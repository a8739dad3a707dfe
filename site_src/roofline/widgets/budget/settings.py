"""The ```roofline-budget widget's one settings object (bokeh-free): defaults, option schema,
validation, reserved height and payload. The data and the arithmetic the page's JavaScript
mirrors are in roofline.widgets.budget.payload; the Bokeh layout in roofline.widgets.budget.layout."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from roofline.errors import RooflineError
from roofline.widgets.base import DEFAULT_HARDWARE, DEFAULT_PRECISION, Option, WidgetSettings


@dataclass(frozen=True)
class BudgetSettings(WidgetSettings):
    """Validated options of the interactive time budget. It opens by default on the stated
    run: Llama 2 7B training at 4 × 4,096 tokens per GPU."""
    model: str = "llama-2-7b"
    phase: str = "train"
    batch: int = 4
    fusions: tuple[str, ...] = ()
    hardware: str = DEFAULT_HARDWARE
    precision: str = DEFAULT_PRECISION
    height: int = 300
    url_state: bool = True
    zero_stage: int = 0
    recompute: str = "none"

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
        from roofline.model.catalog import default_catalog
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
        catalog = default_catalog()
        try:
            catalog[self.hardware].peak(self.precision)
        except RooflineError as exc:
            option = "hardware" if exc.field == "hardware" else "precision"
            raise self.fail(option, exc.detail, exc.valid) from None
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

    def payload(self) -> dict:
        from roofline.widgets.budget.payload import payload
        return payload(self.hardware, self.precision, self.url_state)


TABLES = ("configs", "fusions", "ceilings", "memory")


@dataclass(frozen=True)
class BudgetTableSettings(WidgetSettings):
    """```roofline-budget-table: one static table of budget figures (the text alternative to
    the interactive budget): configs (step time and MFU by phase and fusion), fusions (bytes
    each fusion keeps off HBM), ceilings (the chip's roofs and diagonals, sourced) or memory
    (what one step holds per GPU, against HBM)."""
    table: str = "configs"
    model: str = BudgetSettings.model
    batch: int = BudgetSettings.batch
    hardware: str = DEFAULT_HARDWARE
    precision: str = DEFAULT_PRECISION

    KIND: ClassVar[str] = "roofline-budget-table"
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("table", str, "which table: " + " | ".join(TABLES)),
        Option("model", str, "a transformer config id (models.toml)"),
        Option("batch", int, "sequences per GPU of the training rows"),
        Option("hardware", str, "a catalog id"),
        Option("precision", str, "a precision the chip has"),
    )

    def check(self) -> None:
        from roofline.model.catalog import default_catalog
        from roofline.model.transformer import default_models
        if self.table not in TABLES:
            raise self.fail("table", f"unknown table {self.table!r}", list(TABLES))
        models = default_models()
        if self.model not in models:
            raise self.fail("model", f"unknown model {self.model!r}", list(models))
        if not (isinstance(self.batch, int) and not isinstance(self.batch, bool)
                and self.batch > 0):
            raise self.fail("batch", f"must be a positive integer, got {self.batch!r}")
        try:
            default_catalog()[self.hardware].peak(self.precision)
        except RooflineError as exc:
            option = "hardware" if exc.field == "hardware" else "precision"
            raise self.fail(option, exc.detail, exc.valid) from None

    @property
    def height_px(self) -> int:
        return 0  # a static table: nothing to reserve

    @property
    def label(self) -> str:
        return f"Budget table: {self.table}"

    def payload(self) -> dict:
        return {}
