"""What every marker reads: the catalog, the op zoo and the model configs, loaded once per build
(the catalog honours ROOFLINE_CATALOG, so a test can rebuild against an edited copy)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from roofline.model.catalog import Accelerator, Catalog, default_catalog
from roofline.model.maths import OpPoint, place
from roofline.model.ops import OpZoo, default_zoo
from roofline.widgets.base import DEFAULT_HARDWARE, DEFAULT_PRECISION

# The lesson's running example: "Take an NVIDIA H100 (SXM) as the running example" — the
# widgets' default chip and precision, typed once in widgets/base.py.
LESSON_HW = DEFAULT_HARDWARE
LESSON_PRECISION = DEFAULT_PRECISION


@dataclass(frozen=True)
class Context:
    catalog: Catalog
    zoo: OpZoo
    results: dict = field(default_factory=dict, compare=False, repr=False)
    """What once() has computed for this context (one page's markers)."""

    def once(self, key: tuple, compute: Callable[[], Any]) -> Any:
        """compute(), once per key for this context: a page's markers ask for the same
        comparison several times (the hardware page: eight times)."""
        if key not in self.results:
            self.results[key] = compute()
        return self.results[key]

    def hw(self, hardware_id: str) -> Accelerator:
        return self.catalog[hardware_id]

    def points(self, hardware_id: str, precision: str,
               ids: list[str] | None = None) -> list[OpPoint]:
        acc = self.hw(hardware_id)
        b = self.catalog.precision(precision).bytes_per_element
        return [place(op, acc, precision) for op in self.zoo.ops(b, ids)]

    def point(self, op_id: str, hardware_id: str, precision: str) -> OpPoint:
        return self.points(hardware_id, precision, [op_id])[0]


def load_context() -> Context:
    return Context(default_catalog(), default_zoo())
