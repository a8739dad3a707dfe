"""The serving window's settings (bokeh-free; see widgets/base.py for the pattern): the
```roofline-window fence, its Sphinx directive, `roofline.figure("roofline-window")` and the
`roofline window` command all parse into WindowSettings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from roofline.errors import RooflineError
from roofline.model.example import EXAMPLE
from roofline.widgets.base import DEFAULT_HARDWARE, DEFAULT_PRECISION, Option, WidgetSettings

CONTEXTS = (1024, 2048, 4096, 8192, 16384, 32768)
"""The context lengths the page's control offers (any positive length is valid)."""
MODELS = ("llama-2-7b", "llama-3-8b", "qwen3-30b-a3b", "mixtral-8x7b", "llama-3-70b")
CHIPS = ("h100-sxm", "h200", "a100-sxm-80gb", "b200", "mi300x")
PRESET_LABELS = (("chat", "chat: 50 ms/token"), ("interactive", "fast chat: 20 ms/token"),
                 ("batch", "offline: no budget"))
"""The page's preset buttons (view.mjs PRESETS holds their latency budgets)."""
LATENCY_MS = 50.0
"""The default latency budget per generated token (time between a sequence's tokens)."""


@dataclass(frozen=True)
class WindowSettings(WidgetSettings):
    """The serving window opens on the running example's model and chip (roofline.model.example)
    decoding at its sequence length, at the chip's bundled price (data/prices.toml) and a
    50 ms-per-token budget."""
    model: str = EXAMPLE.model
    hardware: str = DEFAULT_HARDWARE
    precision: str = DEFAULT_PRECISION
    kv_precision: str = "bf16"
    """The KV cache's precision, apart from the weights': servers keep it in bf16 unless told
    (vLLM's kv_cache_dtype "auto" is the model's dtype); fp8 is a choice the reader makes."""
    context: int = EXAMPLE.seq
    tp: int = 1
    """Tensor-parallel degree: the chips one replica's weights and KV cache are split over
    (TPS), with two all-reduces per layer over the chip's scale-up link."""
    launch: str = "graphs"
    """How the step's kernels are launched (roofline.model.launch.LAUNCH_MODES): replayed as a
    CUDA graph, as serving stacks run decode, or eagerly, one by one from the host."""
    memory_utilisation: float | None = None
    """The share of the visible HBM the server allocates (weights, activations, KV cache);
    None: data/serving.toml's (vLLM's default gpu_memory_utilization)."""
    price: float | None = None
    """USD per GPU-hour; None: the chip's bundled price (none bundled: no price shown)."""
    latency_ms: float | None = LATENCY_MS
    models: tuple[str, ...] = MODELS
    chips: tuple[str, ...] = CHIPS
    url_state: bool = True
    controls: bool = True
    """False: the figure and its facts only (no controls, payload or script: a page that
    links to an interactive copy elsewhere stays light)."""

    KIND: ClassVar[str] = "roofline-window"
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("model", str, "a model id (roofline models) or a config.json path"),
        Option("hardware", str, "a catalog id"),
        Option("precision", str, "a precision the chip has: bf16 or fp8"),
        Option("kv_precision", str, "the KV cache's precision, apart from the weights': bf16 "
               "(what servers keep unless told) or fp8"),
        Option("context", int, "tokens in each sequence's KV cache"),
        Option("tp", int, "tensor-parallel degree, 1, 2, 4 or 8: the chips one replica is split "
               "over (weights and KV cache), with two all-reduces per layer over the chip's "
               "scale-up link"),
        Option("launch", str, "how the step's kernels are launched: graphs (replayed as a CUDA "
               "graph, as serving stacks run decode) or eager (one by one from the host); each "
               "mode's gap per kernel is in data/overhead.toml"),
        Option("memory_utilisation", (int, float), "the share of the HBM programs can see that "
               "the server allocates to weights, activations and KV cache, above 0 and at most 1",
               default_text="data/serving.toml's, vLLM's default 0.9"),
        Option("price", (int, float), "USD per GPU-hour", default_text="the chip's bundled price"),
        Option("latency", (int, float), "the latency budget, ms per generated token (the time "
               "between a sequence's tokens)", field="latency_ms"),
        Option("models", (list, tuple), "the models the page's control offers", items=str),
        Option("chips", (list, tuple), "the chips the page's control offers", items=str),
        Option("url", bool, "read and write the view in the page URL", field="url_state"),
        Option("controls", bool, "the controls and the script that redraws the figure"),
    )
    FIELD_OPTIONS: ClassVar[dict[str, str]] = {"latency_ms": "latency", "url_state": "url"}

    def check(self) -> None:
        from roofline.model.catalog import default_catalog
        from roofline.model.transformer import get_model
        catalog = default_catalog()
        for option, ids in (("chips", self.chips), ("models", self.models)):
            if not ids:
                raise self.fail(option, "give at least one")
        for hw in (self.hardware, *self.chips):
            try:
                catalog[hw]
            except RooflineError as exc:
                raise self.fail("hardware" if hw == self.hardware else "chips", exc.detail,
                                exc.valid) from None
        try:
            catalog[self.hardware].peak(self.precision)
        except RooflineError as exc:
            raise self.fail("precision", exc.detail, exc.valid) from None
        for m in (self.model, *self.models):
            try:
                get_model(m)
            except RooflineError as exc:
                raise self.fail("model" if m == self.model else "models", str(exc.detail),
                                exc.valid) from None
        from roofline.widgets.window.payload import KV_PRECISIONS
        if self.kv_precision not in KV_PRECISIONS:
            raise self.fail("kv_precision", f"unknown KV-cache precision {self.kv_precision!r}",
                            list(KV_PRECISIONS))
        from roofline.widgets.window.payload import TPS
        if isinstance(self.tp, bool) or self.tp not in TPS:
            raise self.fail("tp", f"must be 1, 2, 4 or 8, got {self.tp!r}",
                            [str(t) for t in TPS])
        if self.tp > 1:
            from roofline.widgets.window.payload import _link
            if _link(catalog[self.hardware]) is None:
                raise self.fail("tp", f"the catalog gives {self.hardware} no scale-up link for "
                                "the all-reduces; use tp 1")
        from roofline.model.launch import LAUNCH_MODES
        if self.launch not in LAUNCH_MODES:
            raise self.fail("launch", f"unknown launch mode {self.launch!r}", list(LAUNCH_MODES))
        if isinstance(self.context, bool) or not (isinstance(self.context, int)
                                                  and 1 <= self.context <= 1 << 21):
            raise self.fail("context", f"must be a whole number of tokens from 1 to 2,097,152, "
                            f"got {self.context!r}")
        if self.memory_utilisation is not None and not (0 < self.memory_utilisation <= 1):
            raise self.fail("memory_utilisation", f"must be a share above 0 and at most 1, got "
                            f"{self.memory_utilisation!r}")
        if self.price is not None and not (0 < self.price < 1000):
            raise self.fail("price", f"must be a price per GPU-hour in USD, above 0 and below "
                            f"1000, got {self.price!r}")
        if self.latency_ms is not None and not (0 < self.latency_ms <= 60_000):
            raise self.fail("latency", f"must be milliseconds per token, above 0 and at most "
                            f"60,000, got {self.latency_ms!r}")

    def warnings(self) -> list[tuple[str, str]]:
        if self.price is None and self.hardware not in _prices():
            return [("price", f"no price is bundled for {self.hardware} (data/prices.toml): "
                              "the window shows no price per 1M tokens; give `price`")]
        return []

    @property
    def height_px(self) -> int:
        return 0  # a static first frame: the page reserves nothing for a later draw

    @property
    def label(self) -> str:
        return ("The serving window: decode tokens per second, MFU, MBU and price against the "
                "batch")

    def payload(self) -> dict:
        from roofline.widgets.window.payload import payload
        return payload(self)

    def state(self) -> dict:
        """The view the page opens on (window.mjs's state)."""
        price = self.price if self.price is not None else (
            _prices()[self.hardware].usd_per_hour if self.hardware in _prices() else None)
        return {"model": self.model, "hardware": self.hardware, "precision": self.precision,
                "kv_precision": self.kv_precision, "context": self.context, "tp": self.tp,
                "launch": self.launch, "price": price, "latency_ms": self.latency_ms}


def _prices():
    from roofline.model.catalog import default_catalog
    from roofline.model.serving import load_prices
    return load_prices(hardware_ids=set(default_catalog().accelerators))
