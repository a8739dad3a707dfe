"""```roofline: the interactive roofline's settings (see widgets/base.py for the pattern).

`RooflineSettings` is the only copy of the widget's defaults, options, validation and reserved
height; widgets/roofline/payload.py builds what roofline.mjs draws every frame from, and
widgets/roofline/layout.py the (empty) Bokeh layout it draws into.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from roofline.errors import RooflineError
from roofline.widgets.base import DEFAULT_HARDWARE, DEFAULT_PRECISION, Option, WidgetSettings
from roofline.widgets.roofline.payload import AI_MAX, AI_MIN, payload, tokens_ops

if TYPE_CHECKING:
    from roofline.model.catalog import Accelerator, Catalog
    from roofline.model.ops import OpZoo

CEILINGS = ("sram", "l2", "hbm", "host", "scaleup", "vector")
HEIGHT_MIN, HEIGHT_MAX = 240, 1200
CONTROLS_HEIGHT_PX = 250
"""Selects, slider, verdict and readout under the plot."""
TOKENS_MAX = 2 ** 20
TOKENS_CONTROLS_PX = 64
"""The tokens-per-step slider and its marks, when the widget has them."""
TOKENS_MODEL = "llama-2-7b"


@dataclass(frozen=True)
class RooflineSettings(WidgetSettings):
    """Validated options of the interactive roofline (the ```roofline fence's keys)."""
    hardware: str = DEFAULT_HARDWARE
    precision: str = DEFAULT_PRECISION
    ops: tuple[str, ...] | None = None  # None: the whole op zoo
    ai: float | None = None  # None: the selected op's AI, else 10
    op: str | None = None
    ceilings: tuple[str, ...] = ()
    height: int = 400
    url_state: bool = True
    measurement: str | None = None  # a measurement JSON: package data name or a path
    catalog: str | None = None  # another hardware.toml (CLI --catalog); None: the default
    tokens: int | None = None  # None: no tokens-per-step slider
    tokens_model: str = TOKENS_MODEL  # whose projection GEMMs the tokens slider moves

    KIND: ClassVar[str] = "roofline"
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("hardware", str, "a catalog id (`roofline hardware` lists them)"),
        Option("precision", str, "a precision the chip has"),
        Option("ops", (list, tuple), "op-zoo ids drawn as points and offered as presets "
               "(`roofline ops` lists them)", items=str, default_text="every op of the zoo"),
        Option("ai", (int, float), f"initial arithmetic intensity, FLOP/byte, {AI_MIN:g}–"
               f"{AI_MAX:,g}", default_text="the selected op's, else 10"),
        Option("op", str, "the preset selected at first", default_text="none"),
        Option("ceilings", (list, tuple), "extra roofs from the chip's memory tiers and its "
               "vector units: " + ", ".join(CEILINGS) + " (a tier the chip has no figure for "
               "is a warning)", items=str, default_text="none"),
        Option("height", int, f"plot height in pixels, {HEIGHT_MIN}–{HEIGHT_MAX}"),
        Option("url", bool, "read and write the view in the page URL",
               field="url_state"),
        Option("measurement", str, "a measurement JSON drawn over the roofline (package data "
               "name, or a path under docs/)", default_text="none"),
        Option("tokens", int, f"tokens per step at first (1–{TOKENS_MAX:,}); adds a slider that "
               "moves the model's projection GEMMs along the roofline",
               default_text="none: no slider"),
        Option("model", str, "the transformer whose projection GEMMs the tokens slider "
               "moves: a bundled model (`roofline models` lists them) or a Hugging Face "
               "config.json, its path relative to the docs folder", field="tokens_model"),
    )
    FIELD_OPTIONS: ClassVar[dict[str, str]] = {"ceiling": "ceilings", "url_state": "url",
                                               "tokens_model": "model"}

    def check(self) -> None:
        catalog, zoo = self.model()
        try:
            hw = catalog[self.hardware]
        except RooflineError as exc:
            raise self.fail("hardware", exc.detail, exc.valid) from None
        try:
            hw.peak(self.precision)
        except RooflineError as exc:
            raise self.fail("precision", f"{exc.detail} on {self.hardware}", exc.valid) from None
        for op_id in self.ops or ():
            if op_id not in zoo.presets:
                raise self.fail("ops", f"unknown op {op_id!r}", list(zoo.presets))
        if self.tokens is None and self.tokens_model != TOKENS_MODEL:
            raise self.fail("model", "model only applies with tokens (it names whose ops the "
                            "tokens slider moves)")
        if self.tokens is not None:
            if not (isinstance(self.tokens, int) and not isinstance(self.tokens, bool)
                    and 1 <= self.tokens <= TOKENS_MAX):
                raise self.fail("tokens", f"tokens must be an integer from 1 to "
                                f"{TOKENS_MAX:,}, got {self.tokens!r}")
            from roofline.widgets.model_option import model_config
            try:
                model_config(self.tokens_model)
            except RooflineError as exc:
                # A config file's error names the file and its field; a name, the valid ones.
                raise self.fail("model", str(exc) if exc.where else exc.detail,
                                None if exc.where else exc.valid) from None
        if self.op is not None:
            shown = self.ops if self.ops is not None else tuple(zoo.presets)
            if self.tokens is not None:
                shown = (*shown, *(p["id"] for p in tokens_ops(self.tokens_model, catalog)))
            if self.op not in shown:
                raise self.fail("op", f"unknown op {self.op!r}", list(shown))
        if self.ai is not None and not (isinstance(self.ai, (int, float))
                                        and not isinstance(self.ai, bool)
                                        and AI_MIN <= self.ai <= AI_MAX):
            raise self.fail("ai", f"ai must be a number from {AI_MIN:g} to {AI_MAX:g}, "
                            f"got {self.ai!r}")
        for kind in self.ceilings:
            if kind not in CEILINGS:
                raise self.fail("ceilings", f"unknown ceiling {kind!r}", list(CEILINGS))
        if self.ceilings and not any(missing(h, k) is None for h in catalog
                                     for k in self.ceilings):
            # No chip the reader could pick draws any of them: the option would do nothing.
            raise self.fail("ceilings", "nothing to draw: no chip in the catalog has "
                            + " or ".join(dict.fromkeys(missing(hw, k) for k in self.ceilings)))
        if not (isinstance(self.height, int) and not isinstance(self.height, bool)
                and HEIGHT_MIN <= self.height <= HEIGHT_MAX):
            raise self.fail("height", f"height must be an integer from {HEIGHT_MIN} to "
                            f"{HEIGHT_MAX} (pixels), got {self.height!r}")
        if self.measurement is not None:
            self.overlay().check()

    def warnings(self) -> list[tuple[str, str]]:
        """Each requested ceiling the first chip has no figure for (drawn for the chips that
        have one, when the reader picks them)."""
        catalog, _ = self.model()
        hw = catalog[self.hardware]
        out = []
        for kind in dict.fromkeys(self.ceilings):
            lacks = missing(hw, kind)
            if lacks is None:
                continue
            others = sum(missing(h, kind) is None for h in catalog)
            what = _WHAT[kind].split(" ", 1)[1]
            out.append(("ceilings", f"{kind!r} is not drawn for {self.hardware}: the catalog "
                        f"has no {what} for it ({others} other chips have one)" if others else
                        f"{kind!r} is not drawn: no chip in the catalog has {lacks}"))
        return out

    def data_files(self) -> list[str]:
        from roofline.widgets.model_option import model_file
        config = model_file(self.tokens_model) if self.tokens is not None else None
        files = [str(config)] if config is not None else []
        if self.catalog:
            files += [self.catalog, str(Path(self.catalog).parent / "precisions.toml")]
        overlay = self.overlay()
        return files + (overlay.data_files() if overlay else [])

    def model(self) -> tuple[Catalog, OpZoo]:
        from roofline.model.catalog import default_catalog
        from roofline.model.ops import default_zoo
        return default_catalog(self.catalog), default_zoo()

    def overlay(self):
        """The measurement overlay's settings (None without a measurement)."""
        from roofline.widgets.measurement.settings import OverlaySettings
        return OverlaySettings(self.measurement) if self.measurement is not None else None

    @property
    def height_px(self) -> int:
        """Plot, controls and (with a measurement) the file picker and its status line."""
        overlay = self.overlay()
        return (self.height + CONTROLS_HEIGHT_PX + (overlay.height_px if overlay else 0)
                + (TOKENS_CONTROLS_PX if self.tokens is not None else 0))

    @property
    def label(self) -> str:
        return f"Interactive roofline: {self.hardware}, {self.precision}"

    def payload(self, catalog: Catalog | None = None, zoo: OpZoo | None = None) -> dict:
        """What roofline.mjs draws every frame from (JSON-able)."""
        if catalog is None or zoo is None:
            model_catalog, model_zoo = self.model()
            catalog, zoo = catalog or model_catalog, zoo or model_zoo
        return payload(self, catalog, zoo)


# What a chip needs for each extra roof to be drawn (scene.mjs draws a tier's diagonal only
# with a bandwidth, the vector roof only with a vector peak; the HBM roof is always drawn).
_WHAT = {"sram": "an SRAM bandwidth", "l2": "an L2 bandwidth", "host": "a host-link bandwidth",
         "scaleup": "a GPU-to-GPU (scale-up) bandwidth", "vector": "a vector (non-tensor) peak"}


def missing(hw: Accelerator, kind: str) -> str | None:
    """What chip `hw` lacks for ceiling `kind` to be drawn ("an L2 bandwidth"), or None when
    it is drawn."""
    if kind == "hbm":
        return None
    if kind == "vector":
        drawn = hw.vector_peak is not None or any(hw.vector_peak_for(p) for p in hw.peaks)
    else:
        tier = hw.tier(kind)
        drawn = tier is not None and bool(tier.bandwidth_bytes_per_s)
    return None if drawn else _WHAT[kind]
