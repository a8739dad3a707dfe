"""The lesson's op cost functions (roofline.model.ops) as exact multilinear terms, for the
profile's JavaScript (costs.mjs), so the browser and the build price a profiled op with the
model's own formulas rather than a copy of them.

Each function used by the profile is multilinear in its shape variables (degree at most one in
each: 2mnk, (mk + kn + mn)·b, …). Its 2ⁿ coefficients follow from its values on a grid of two
points per variable (a tensor-product interpolation, exact in integers); the terms are then
checked against the function at other points, so a function that stops being multilinear is an
error here, not a silent mispricing.

    terms()["gemm"] == {"name": "gemm", "vars": ["m", "n", "k", "b"],
                        "flops": [[2, ["m", "n", "k"]]], "bytes": [[1, ["m", "k", "b"]], …]}
"""

from __future__ import annotations

import functools
import itertools
import random
from pathlib import Path
from typing import Callable

from roofline.model import ops as model

# name → (variables, their two grid points, the model call). The grid keeps each variable's
# constraints (heads a multiple of kv_heads).
FUNCTIONS: dict[str, tuple[tuple[str, ...], tuple[tuple[int, int], ...], Callable]] = {
    "gemm": (("m", "n", "k", "b"), ((1, 2),) * 4, lambda m, n, k, b: model.gemm(m, n, k, b)),
    "rmsnorm": (("rows", "d", "b"), ((1, 2),) * 3, model.rmsnorm),
    "layernorm": (("rows", "d", "b"), ((1, 2),) * 3, model.layernorm),
    "softmax": (("rows", "d", "b"), ((1, 2),) * 3, model.softmax),
    "embedding": (("tokens", "d", "b"), ((1, 2),) * 3, model.embedding),
    "activation_silu": (("n", "b"), ((1, 2),) * 2, lambda n, b: model.activation(n, b, "silu")),
    "activation_gelu": (("n", "b"), ((1, 2),) * 2, lambda n, b: model.activation(n, b, "gelu")),
    "attention_fused": (
        ("batch", "heads", "kv_heads", "head_dim", "q_len", "kv_len", "b", "v_head_dim"),
        ((1, 2), (4, 8), (1, 2), (1, 2), (1, 2), (1, 2), (1, 2), (1, 3)),
        lambda batch, heads, kv_heads, head_dim, q_len, kv_len, b, v_head_dim:
            model.attention_fused(batch, heads, kv_heads, head_dim, q_len, kv_len, b,
                                  v_head_dim=v_head_dim)),
}


class NotMultilinear(ValueError):
    """A model function the profile prices is not multilinear in its shape variables."""


def solve(variables, grid, fn) -> dict:
    """The terms of `fn`'s flops and bytes (see the module docstring)."""
    n = len(variables)
    values = {}
    for corner in itertools.product((0, 1), repeat=n):
        op = fn(*(grid[i][c] for i, c in enumerate(corner)))
        values[corner] = (op.flops, op.bytes)
    out = {"vars": list(variables)}
    for w, what in enumerate(("flops", "bytes")):
        # p(x) = Π_i (c0_i + c1_i x_i) expanded one variable at a time: the values on the grid
        # become coefficients of 1 and x_i (exact: the grid's steps are small integers).
        table = {c: float(v[w]) for c, v in values.items()}
        for i in range(n):
            x0, x1 = grid[i]
            nxt = {}
            for c, v in table.items():
                if c[i] == 1:
                    continue
                hi = table[c[:i] + (1,) + c[i + 1:]]
                slope = (hi - v) / (x1 - x0)
                nxt[c] = v - slope * x0                # the coefficient without x_i
                nxt[c[:i] + (1,) + c[i + 1:]] = slope  # the coefficient of x_i
            table = nxt
        out[what] = [[coef, [variables[i] for i in range(n) if c[i]]]
                     for c, coef in sorted(table.items()) if coef != 0]
    return out


COSTS_JS = Path(__file__).with_name("costs.mjs")


def evaluate(t: dict, point: dict) -> dict:
    """{"flops", "bytes"} of terms `t` at `point`, by costs.mjs's evalTerms (the code that
    prices a profiled op), so the check below checks the JavaScript too."""
    from roofline.render.jsengine import call
    return call(COSTS_JS, "evalTerms", t, point)


def check(name: str, t: dict, grid, fn, tries: int = 6) -> None:
    rng = random.Random(name)
    for _ in range(tries):
        at = {v: grid[i][0] * rng.randint(1, 9) for i, v in enumerate(t["vars"])}
        if "heads" in at:  # a multiple of kv_heads, as the function asks
            at["heads"] = at["kv_heads"] * rng.randint(1, 6)
        op = fn(*(at[v] for v in t["vars"]))
        value = evaluate(t, at)
        for what, want in (("flops", op.flops), ("bytes", op.bytes)):
            got = value[what]
            if abs(got - want) > 1e-9 * max(1.0, abs(want)):
                raise NotMultilinear(f"roofline.model.ops {name}: {what} at {at} is {want!r}, "
                                     f"its multilinear terms give {got!r}")


@functools.lru_cache(maxsize=1)
def terms() -> dict:
    """Every function the profile prices, by name (computed once: the functions are code)."""
    out = {}
    for name, (variables, grid, fn) in FUNCTIONS.items():
        t = {"name": name, **solve(variables, grid, fn)}
        check(name, t, grid, fn)
        out[name] = t
    return out
