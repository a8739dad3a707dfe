"""Public names a package imports on first use (PEP 562): importing the package, or one of its
submodules, then loads none of the modules behind them."""

from __future__ import annotations

import importlib
from collections.abc import Callable


def lazy_names(package: str, modules: dict[str, tuple[str, ...]], namespace: dict
               ) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """A package's `__getattr__` and `__dir__` for `modules` ({submodule: its public names});
    a name, once looked up, is kept in the package's `namespace`."""
    where = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> object:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{where[name]}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *where})
    return __getattr__, __dir__
