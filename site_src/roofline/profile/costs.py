"""A profiler op's FLOPs and bytes from its recorded shapes and dtypes, by roofline.model.ops's
cost functions (the lesson's own): a matmul is `gemm`, attention `attention_fused`, a norm
`rmsnorm`/`layernorm`, softmax `softmax`, an activation `activation`, an embedding `embedding`.
Ops the model has no function for but whose cost follows from the same convention (each operand
read once, each result written once) are priced by it here: other elementwise ops, reductions,
foreach (optimizer) ops, copies and casts. Views and allocations move no data and do no math.
Anything else is None: the report lists it as unmodelled, with its time, never guessed.

    cost("aten::mm", args) -> Cost(family="matmul", flops=..., bytes=..., useful_flops=...)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from roofline.model import ops as model

DTYPE_BYTES = {"float": 4, "double": 8, "c10::Half": 2, "c10::BFloat16": 2, "long int": 8,
               "int": 4, "short int": 2, "signed char": 1, "unsigned char": 1, "bool": 1,
               "c10::Float8_e4m3fn": 1, "c10::Float8_e5m2": 1, "c10::complex<float>": 8}
FAMILIES = ("matmul", "attention", "norm", "softmax", "elementwise", "embedding", "optimizer",
            "copy", "views")
USEFUL = ("matmul", "attention")
"""Families whose FLOPs count as useful in the MFU (the budget's: matrix math)."""

MATMUL = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::linear",
          "aten::matmul", "aten::_addmm_activation"}
ATTENTION = {"aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention",
             "aten::_scaled_dot_product_efficient_attention",
             "aten::_scaled_dot_product_flash_attention_for_cpu",
             "aten::_scaled_dot_product_cudnn_attention", "aten::_flash_attention_forward",
             "aten::_efficient_attention_forward"}
NORMS = {"aten::layer_norm": "layernorm", "aten::native_layer_norm": "layernorm",
         "aten::rms_norm": "rmsnorm", "aten::_fused_rms_norm": "rmsnorm"}
SOFTMAX = {"aten::softmax", "aten::_softmax", "aten::log_softmax", "aten::_log_softmax",
           "aten::_safe_softmax"}
ACTIVATIONS = {"aten::silu": "silu", "aten::silu_": "silu", "aten::gelu": "gelu",
               "aten::gelu_": "gelu", "aten::relu": "relu", "aten::relu_": "relu"}
ELEMENTWISE = {"add", "sub", "mul", "div", "pow", "rsqrt", "sqrt", "exp", "log", "neg", "abs",
               "sigmoid", "tanh", "clamp", "clamp_min", "clamp_max", "where", "masked_fill",
               "maximum", "minimum", "lerp", "addcmul", "addcdiv", "fill", "zero", "reciprocal",
               "sign", "cos", "sin", "square", "threshold_backward", "silu_backward",
               "gelu_backward", "rsub", "sgn", "ne", "eq", "gt", "lt", "ge", "le",
               "_softmax_backward_data", "native_layer_norm_backward", "ones_like",
               "zeros_like", "triu", "tril", "mean", "sum", "amax", "max", "min", "norm",
               "var", "std", "prod", "all", "any"}
REDUCTIONS = {"mean", "sum", "amax", "max", "min", "norm", "var", "std", "prod", "all", "any"}
COPIES = {"aten::copy_", "aten::cat", "aten::clone", "aten::stack", "aten::index_select",
          "aten::gather", "aten::scatter", "aten::index", "aten::index_put_"}
VIEWS = {"view", "reshape", "_reshape_alias", "transpose", "t", "permute", "expand",
         "expand_as", "as_strided", "detach", "alias", "_unsafe_view", "unsqueeze", "squeeze",
         "select", "slice", "narrow", "split", "split_with_sizes", "chunk", "unbind", "empty",
         "empty_like", "empty_strided", "resolve_conj", "resolve_neg", "result_type", "item",
         "_local_scalar_dense", "set_", "lift_fresh", "is_nonzero", "view_as", "unflatten",
         "flatten", "contiguous", "numpy_T", "_has_compatible_shallow_copy_type", "new_empty",
         "new_empty_strided", "to", "_to_copy", "type_as", "requires_grad_", "zeros", "ones",
         "full", "arange", "scalar_tensor", "is_same_size", "lift", "detach_", "movedim"}
"""Ops that move no data of their own (a cast's copy is its aten::copy_ child, a zeros' fill
its aten::fill_/zero_): their time is dispatch."""
WRAPPERS = {"aten::to", "aten::_to_copy", "aten::contiguous", "aten::zeros", "aten::ones",
            "aten::full", "aten::clone", "aten::type_as", "aten::new_zeros", "aten::zeros_like",
            "aten::ones_like", "aten::full_like"}
"""Ops that are their children's cost when they have children (a cast runs aten::copy_)."""


@dataclass(frozen=True)
class Cost:
    family: str
    flops: float
    bytes: float
    useful_flops: float = 0.0
    basis: str = ""
    """Which function priced it: "model.gemm", … or "convention" (each operand once)."""


def _numel(dims) -> int:
    return math.prod(dims) if dims else 1


def _tensors(args: dict) -> list[tuple[list[int], float]]:
    """(dims, bytes per element) of each tensor input (scalars and empty slots left out)."""
    out = []
    dims, types = args.get("Input Dims") or [], args.get("Input type") or []
    for d, t in zip(dims, types):
        if t in DTYPE_BYTES and isinstance(d, list) and all(isinstance(x, int) for x in d):
            out.append((d, float(DTYPE_BYTES[t])))
    return out


def _broadcast(shapes: list[list[int]]) -> list[int]:
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for i, v in enumerate(reversed(s)):
            j = n - 1 - i
            out[j] = max(out[j], v)
    return out


def _short(name: str) -> str:
    base = name.split("::", 1)[-1]
    return base[:-1] if base.endswith("_") and not base.startswith("_") else base


def _gemm_cost(m, n, k, batch, b) -> Cost:
    op = model.gemm(m, n, k, b)
    return Cost("matmul", batch * op.flops, batch * op.bytes, batch * op.flops, "model.gemm")


def _matmul(name: str, ts: list[tuple[list[int], float]]) -> Cost | None:
    mats = [(d, b) for d, b in ts if len(d) >= 2]
    if name == "aten::addmm" and len(mats) >= 2:
        (a, b), (w, _) = mats[-2], mats[-1]
        return _gemm_cost(a[0], w[1], a[1], 1, b)
    if name == "aten::linear" and len(mats) >= 2:
        (x, b), (w, _) = mats[0], mats[1]
        return _gemm_cost(_numel(x[:-1]), w[0], x[-1], 1, b)
    if len(mats) < 2:
        return None
    (a, b), (w, _) = mats[-2], mats[-1]
    if name in ("aten::baddbmm",) and len(mats) >= 3:
        (a, b), (w, _) = mats[1], mats[2]
    if len(a) == 2 and len(w) == 2:
        return _gemm_cost(a[0], w[1], a[1], 1, b)
    if len(w) == 2:  # [..., m, k] x [k, n]: the leading dims are rows
        return _gemm_cost(_numel(a[:-1]), w[1], a[-1], 1, b)
    batch = _numel(_broadcast([a[:-2], w[:-2]]))
    return _gemm_cost(a[-2], w[-1], a[-1], batch, b)


def _attention(ts) -> Cost | None:
    if len(ts) < 3 or any(len(d) != 4 for d, _ in ts[:3]):
        return None
    (q, b), (k, _), (v, _) = ts[:3]
    op = model.attention_fused(q[0], q[1], k[1], q[3], q[2], k[2], b, v_head_dim=v[3])
    # useful: the two matrix products (QK^T and S·V), not the softmax between them
    useful = 2 * q[0] * q[1] * q[2] * k[2] * (q[3] + v[3])
    return Cost("attention", op.flops, op.bytes, float(useful), "model.attention_fused")


def _elementwise(name: str, ts) -> Cost | None:
    short = _short(name)
    if not ts:
        return None
    out_dims = _broadcast([d for d, _ in ts])
    n = _numel(out_dims)
    b_out = ts[0][1]
    read = sum(_numel(d) * b for d, b in ts)
    if short in REDUCTIONS:
        # a reduction reads its input; what it writes is one value per kept row, dwarfed
        # unless it keeps most dims: counted as the input's numel ÷ its last dim
        write = _numel(ts[0][0][:-1]) * b_out
    else:
        write = n * b_out
    if name in ACTIVATIONS:
        op = model.activation(n, b_out, ACTIVATIONS[name])
        return Cost("elementwise", op.flops, op.bytes, 0.0, "model.activation")
    # in place or not, the inputs are read once and the result written once
    return Cost("elementwise", float(n), float(read + write), 0.0, "convention")


def _foreach(name: str, args: dict) -> Cost | None:
    dims = args.get("Input Dims") or []
    types = args.get("Input type") or []
    lists = [d for d, t in zip(dims, types) if t == "TensorList"]
    if not lists:
        return None
    n = sum(_numel(t) for t in lists[0])
    b = 4.0  # optimizer state and fp32 master weights: the model's AdamW convention
    inplace = name.endswith("_")
    moved = (len(lists) + (0 if inplace else 1)) * n * b + (n * b if inplace else 0)
    return Cost("optimizer", float(n * len(lists)), float(moved), 0.0, "convention")


def cost(name: str, args: dict, has_children: bool) -> Cost | None:
    """The cost of one profiler op (see the module docstring); None: not modelled."""
    ts = _tensors(args)
    short = _short(name)
    if name in WRAPPERS and has_children:
        return None  # its children carry its cost
    if name in MATMUL:
        return _matmul(name, ts)
    if name in ATTENTION:
        return _attention(ts)
    if name in NORMS and ts:
        d = ts[0][0][-1]
        rows = _numel(ts[0][0][:-1])
        fn = model.rmsnorm if NORMS[name] == "rmsnorm" else model.layernorm
        op = fn(rows, d, ts[0][1])
        return Cost("norm", op.flops, op.bytes, 0.0, f"model.{NORMS[name]}")
    if name in SOFTMAX and ts:
        op = model.softmax(_numel(ts[0][0][:-1]), ts[0][0][-1], ts[0][1])
        return Cost("softmax", op.flops, op.bytes, 0.0, "model.softmax")
    if name == "aten::embedding" and len(ts) >= 2:
        (w, b), (idx, _) = ts[0], ts[1]
        op = model.embedding(_numel(idx), w[-1], b)
        return Cost("embedding", op.flops, op.bytes, 0.0, "model.embedding")
    if name.startswith("aten::_foreach_"):
        return _foreach(name, args)
    if name in COPIES and ts:
        n = sum(_numel(d) * b for d, b in ts) if name != "aten::copy_" else \
            _numel(ts[0][0]) * (ts[0][1] + (ts[1][1] if len(ts) > 1 else ts[0][1]))
        moved = 2 * n if name in ("aten::cat", "aten::stack", "aten::clone") else n
        return Cost("copy", 0.0, float(moved), 0.0, "convention")
    if name.startswith("aten::") and (short in VIEWS or name.split("::", 1)[-1] in VIEWS):
        return Cost("views", 0.0, 0.0, 0.0, "no data moved")
    if name in ACTIVATIONS or name.startswith("aten::") and short in ELEMENTWISE:
        return _elementwise(name, ts)
    return None
