"""Op costs from shapes: FLOPs (2 per multiply-add) and HBM bytes (each operand read once,
each result written once; separate kernels share nothing, a fused op moves only its
inputs and outputs)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from pathlib import Path

from roofline.model import datafile as _toml
from roofline.model.datafile import Fields
from roofline.errors import RooflineError

# Op classes, used to group a time budget.
GEMM, ATTENTION, NORM, ELEMENTWISE, SOFTMAX, EMBEDDING, OPTIMIZER = (
    "gemm", "attention", "norm", "elementwise", "softmax", "embedding", "optimizer")


@dataclass(frozen=True)
class Op:
    name: str
    kind: str  # the cost function that made it, e.g. "gemm", "rmsnorm"
    op_class: str
    flops: float
    bytes: float
    shape: dict[str, float] = field(default_factory=dict)
    bytes_per_element: float = 2.0
    count: int = 1  # how many times it runs per layer/step (multiplies flops and bytes)

    @property
    def intensity_flops_per_byte(self) -> float:
        return self.flops / self.bytes if self.bytes else float("inf")

    def scaled(self, count: int) -> "Op":
        return replace(self, count=count)

    @property
    def total_flops(self) -> float:
        return self.flops * self.count

    @property
    def total_bytes(self) -> float:
        return self.bytes * self.count

    def shape_text(self) -> str:
        return " × ".join(f"{k}={_int(v)}" for k, v in self.shape.items())


def _int(v: float) -> str:
    return f"{int(v):,}" if float(v).is_integer() else f"{v:g}"


@dataclass(frozen=True)
class Conventions:
    gelu_flops_per_element: float = 8.0
    silu_flops_per_element: float = 4.0
    silu_mul_flops_per_element: float = 5.0
    gelu_mul_flops_per_element: float = 9.0
    rmsnorm_flops_per_element: float = 4.0
    layernorm_flops_per_element: float = 8.0
    softmax_flops_per_element: float = 5.0
    adamw_flops_per_param: float = 12.0


def _check(name: str, **dims: float) -> None:
    for key, value in dims.items():
        if not (isinstance(value, (int, float)) and value > 0 and value != float("inf")):
            raise RooflineError(f"shape must be a positive number, got {value!r}",
                                entry=name, field=key)


def gemm(m: float, n: float, k: float, b: float, name: str = "gemm") -> Op:
    """C[m,n] = A[m,k] · B[k,n]: 2mnk FLOPs; reads A and B, writes C."""
    _check(name, m=m, n=n, k=k, bytes_per_element=b)
    return Op(name, "gemm", GEMM, 2 * m * n * k, (m * k + k * n + m * n) * b,
              {"m": m, "n": n, "k": k}, b)


def gemv(n: float, k: float, b: float, name: str = "gemv") -> Op:
    """y[n] = W[n,k] · x[k]: a GEMM with m = 1."""
    _check(name, n=n, k=k, bytes_per_element=b)
    return Op(name, "gemv", GEMM, 2 * n * k, (n * k + k + n) * b, {"n": n, "k": k}, b)


def bias_add(rows: float, cols: float, b: float, name: str = "bias_add") -> Op:
    """y = x + bias: reads x and the bias row, writes y."""
    _check(name, rows=rows, cols=cols, bytes_per_element=b)
    return Op(name, "bias_add", ELEMENTWISE, rows * cols, (2 * rows * cols + cols) * b,
              {"rows": rows, "cols": cols}, b)


def residual_add(n: float, b: float, name: str = "residual_add") -> Op:
    """y = x + r: reads two tensors, writes one."""
    _check(name, n=n, bytes_per_element=b)
    return Op(name, "residual_add", ELEMENTWISE, n, 3 * n * b, {"n": n}, b)


def activation(n: float, b: float, kind: str = "gelu", name: str | None = None,
               conv: Conventions = Conventions()) -> Op:
    """GELU / SiLU read one tensor and write one; SiLU·mul (SwiGLU) reads two."""
    name = name or kind
    _check(name, n=n, bytes_per_element=b)
    if kind == "gelu":
        return Op(name, "gelu", ELEMENTWISE, conv.gelu_flops_per_element * n, 2 * n * b,
                  {"n": n}, b)
    if kind == "silu":
        return Op(name, "silu", ELEMENTWISE, conv.silu_flops_per_element * n, 2 * n * b,
                  {"n": n}, b)
    if kind == "silu_mul":
        return Op(name, "silu_mul", ELEMENTWISE, conv.silu_mul_flops_per_element * n,
                  3 * n * b, {"n": n}, b)
    if kind == "gelu_mul":  # GeGLU (Gemma): GELU of the gate times the up projection
        return Op(name, "gelu_mul", ELEMENTWISE, conv.gelu_mul_flops_per_element * n,
                  3 * n * b, {"n": n}, b)
    raise RooflineError(f"unknown activation {kind!r}", field="kind",
                        valid=["gelu", "silu", "silu_mul", "gelu_mul"])


def rmsnorm(rows: float, d: float, b: float, name: str = "rmsnorm",
            conv: Conventions = Conventions()) -> Op:
    """Reads x and gamma, writes y."""
    _check(name, rows=rows, d=d, bytes_per_element=b)
    return Op(name, "rmsnorm", NORM, conv.rmsnorm_flops_per_element * rows * d,
              (2 * rows * d + d) * b, {"rows": rows, "d": d}, b)


def layernorm(rows: float, d: float, b: float, name: str = "layernorm",
              conv: Conventions = Conventions()) -> Op:
    """Reads x, gamma and beta, writes y."""
    _check(name, rows=rows, d=d, bytes_per_element=b)
    return Op(name, "layernorm", NORM, conv.layernorm_flops_per_element * rows * d,
              (2 * rows * d + 2 * d) * b, {"rows": rows, "d": d}, b)


def softmax(rows: float, d: float, b: float, name: str = "softmax",
            conv: Conventions = Conventions()) -> Op:
    """Row softmax: reads the scores, writes the probabilities."""
    _check(name, rows=rows, d=d, bytes_per_element=b)
    return Op(name, "softmax", SOFTMAX, conv.softmax_flops_per_element * rows * d,
              2 * rows * d * b, {"rows": rows, "d": d}, b)


def embedding(tokens: float, d: float, b: float, name: str = "embedding") -> Op:
    """Gathers one row per token and writes it: no FLOPs at all."""
    _check(name, tokens=tokens, d=d, bytes_per_element=b)
    return Op(name, "embedding", EMBEDDING, 0.0, 2 * tokens * d * b, {"tokens": tokens, "d": d}, b)


def adamw(params: float, state_bytes: float = 4.0, name: str = "adamw",
          conv: Conventions = Conventions()) -> Op:
    """One AdamW step: reads param, grad, m, v and writes param, m, v (all `state_bytes`)."""
    _check(name, params=params, state_bytes=state_bytes)
    return Op(name, "adamw", OPTIMIZER, conv.adamw_flops_per_param * params,
              7 * params * state_bytes, {"params": params}, state_bytes)


def _attn_dims(name: str, batch, heads, kv_heads, head_dim, q_len, kv_len, b,
               v_head_dim=None, kv_shared=False) -> dict:
    _check(name, batch=batch, heads=heads, kv_heads=kv_heads, head_dim=head_dim, q_len=q_len,
           kv_len=kv_len, bytes_per_element=b)
    if heads % kv_heads:
        raise RooflineError(f"heads ({heads}) must be a multiple of kv_heads ({kv_heads})",
                            entry=name, field="kv_heads")
    shape = {"batch": batch, "heads": heads, "kv_heads": kv_heads, "head_dim": head_dim,
             "q_len": q_len, "kv_len": kv_len}
    # Only attention that differs from the plain kind records the extra dimensions.
    if v_head_dim is not None and v_head_dim != head_dim:
        _check(name, v_head_dim=v_head_dim)
        shape["v_head_dim"] = v_head_dim
    if kv_shared:
        shape["kv_shared"] = 1
    return shape


def attention_fused(batch: float, heads: float, kv_heads: float, head_dim: float, q_len: float,
                    kv_len: float, b: float, name: str = "attention",
                    conv: Conventions = Conventions(), *, v_head_dim: float | None = None,
                    kv_shared: bool = False) -> Op:
    """FlashAttention-style: scores stay on chip. Reads Q, K, V once, writes O. With grouped-query
    heads K and V hold kv_heads heads. Causal masking is ignored (it halves FLOPs and bytes of the
    scores alike). Decode is q_len = 1 against a kv_len cache.

    `head_dim` is the query/key width of a head and `v_head_dim` (default: the same) the value
    and output width; `kv_shared`: V is the first v_head_dim columns of K, one tensor read once
    (MLA's compressed cache attended in its latent space)."""
    shape = _attn_dims(name, batch, heads, kv_heads, head_dim, q_len, kv_len, b, v_head_dim,
                       kv_shared)
    dv = head_dim if v_head_dim is None else v_head_dim
    scores = batch * heads * q_len * kv_len
    flops = 2 * scores * (head_dim + dv) + conv.softmax_flops_per_element * scores
    q_o = batch * q_len * heads * (head_dim + dv)
    k_v = batch * kv_len * kv_heads * (head_dim + (0 if kv_shared else dv))
    return Op(name, "attention_fused", ATTENTION, flops, (q_o + k_v) * b, shape, b)


def attention_fused_like(op: Op) -> Op:
    """The fused attention of the same shape as an unfused QKᵀ (or S·V) op."""
    s = op.shape
    return attention_fused(s["batch"], s["heads"], s["kv_heads"], s["head_dim"], s["q_len"],
                           s["kv_len"], op.bytes_per_element, v_head_dim=s.get("v_head_dim"),
                           kv_shared=bool(s.get("kv_shared")))


def attention_unfused(batch: float, heads: float, kv_heads: float, head_dim: float,
                      q_len: float, kv_len: float, b: float, prefix: str = "attn",
                      conv: Conventions = Conventions(), *, v_head_dim: float | None = None,
                      kv_shared: bool = False) -> list[Op]:
    """QKᵀ, softmax and S·V as three kernels: the score matrix goes to HBM and back twice.
    (`v_head_dim`, `kv_shared`: as attention_fused; S·V, a kernel of its own, reads V again.)"""
    shape = _attn_dims(prefix, batch, heads, kv_heads, head_dim, q_len, kv_len, b, v_head_dim,
                       kv_shared)
    dv = head_dim if v_head_dim is None else v_head_dim
    scores = batch * heads * q_len * kv_len
    q = batch * q_len * heads * head_dim
    kv = batch * kv_len * kv_heads * head_dim
    v, o = batch * kv_len * kv_heads * dv, batch * q_len * heads * dv
    qk = Op(f"{prefix}_qk", "attention_qk", ATTENTION, 2 * scores * head_dim,
            (q + kv + scores) * b, shape, b)
    sm = Op(f"{prefix}_softmax", "softmax", SOFTMAX, conv.softmax_flops_per_element * scores,
            2 * scores * b, {"rows": batch * heads * q_len, "d": kv_len}, b)
    sv = Op(f"{prefix}_sv", "attention_sv", ATTENTION, 2 * scores * dv,
            (scores + v + o) * b, shape, b)
    return [qk, sm, sv]


# ---------------------------------------------------------------- the op zoo (lesson §4)

@dataclass(frozen=True)
class Preset:
    id: str
    label: str
    op: str
    context: str
    shape: dict[str, float]

    def build(self, bytes_per_element: float, conv: Conventions) -> Op:
        s = self.shape
        b = bytes_per_element
        builders = {
            "rmsnorm": lambda: rmsnorm(s["rows"], s["d"], b, self.id, conv),
            "layernorm": lambda: layernorm(s["rows"], s["d"], b, self.id, conv),
            "softmax": lambda: softmax(s["rows"], s["d"], b, self.id, conv),
            "gelu": lambda: activation(s["n"], b, "gelu", self.id, conv),
            "silu": lambda: activation(s["n"], b, "silu", self.id, conv),
            "silu_mul": lambda: activation(s["n"], b, "silu_mul", self.id, conv),
            "bias_add": lambda: bias_add(s["rows"], s["cols"], b, self.id),
            "residual_add": lambda: residual_add(s["n"], b, self.id),
            "gemm": lambda: gemm(s["m"], s["n"], s["k"], b, self.id),
            "gemv": lambda: gemv(s["n"], s["k"], b, self.id),
            "attention_fused": lambda: attention_fused(
                s["batch"], s["heads"], s["kv_heads"], s["head_dim"], s["q_len"], s["kv_len"],
                b, self.id, conv),
        }
        return builders[self.op]()


OP_KINDS = ("rmsnorm", "layernorm", "softmax", "gelu", "silu", "silu_mul", "bias_add",
            "residual_add", "gemm", "gemv", "attention_fused")
_SHAPE_KEYS = {"rmsnorm": ("rows", "d"), "layernorm": ("rows", "d"), "softmax": ("rows", "d"),
               "gelu": ("n",), "silu": ("n",), "silu_mul": ("n",), "bias_add": ("rows", "cols"),
               "residual_add": ("n",), "gemm": ("m", "n", "k"), "gemv": ("n", "k"),
               "attention_fused": ("batch", "heads", "kv_heads", "head_dim", "q_len", "kv_len")}


@dataclass(frozen=True)
class OpZoo:
    conventions: Conventions
    presets: dict[str, Preset]
    source: str

    def ops(self, bytes_per_element: float, ids: list[str] | None = None) -> list[Op]:
        chosen = ids if ids is not None else list(self.presets)
        return [self.preset(i).build(bytes_per_element, self.conventions) for i in chosen]

    def preset(self, preset_id: str) -> Preset:
        try:
            return self.presets[preset_id]
        except KeyError:
            from roofline.errors import unknown_id
            raise unknown_id("op", preset_id, list(self.presets)) from None


def load_zoo(path: Path | str | None = None) -> OpZoo:
    path = Path(path) if path else _toml.DATA_DIR / "ops.toml"
    data = _toml.load(path)
    where = str(path)
    cf = Fields(data.get("conventions", {}), where=where, entry="conventions")
    conv = Conventions(**{k: cf.positive(k) for k in Conventions.__dataclass_fields__})
    source = cf.get("source", str)
    cf.finish()
    presets: dict[str, Preset] = {}
    for i, raw in enumerate(data.get("preset", [])):
        f = Fields(raw, where=where, entry=str(raw.get("id", f"preset #{i}")
                                               if isinstance(raw, dict) else i))
        pid, kind = f.get("id", str), f.get("op", str)
        if kind not in OP_KINDS:
            raise RooflineError(f"unknown op {kind!r}", where=where, entry=pid, field="op",
                                valid=list(OP_KINDS))
        sf = f.sub("shape")
        shape = {k: sf.positive(k) for k in _SHAPE_KEYS[kind]}
        sf.finish()
        if pid in presets:
            raise RooflineError("duplicate id", where=where, entry=pid, field="id")
        presets[pid] = Preset(pid, f.get("label", str), kind, f.get("context", str), shape)
        f.finish()
    if not presets:
        raise RooflineError("no [[preset]] entries", where=where, field="preset")
    return OpZoo(conv, presets, source)


def default_zoo() -> OpZoo:
    """The bundled op zoo, cached per (path, mtime_ns, size): an edit is seen at once."""
    return _cached_zoo(_toml.file_key(_toml.DATA_DIR / "ops.toml"))


@functools.lru_cache(maxsize=4)
def _cached_zoo(key: tuple[str, int, int]) -> OpZoo:
    return load_zoo(key[0])
