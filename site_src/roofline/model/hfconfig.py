"""A Hugging Face config.json as a TransformerConfig, and the bundled catalog of popular models
(data/model_catalog.toml: each model's config.json fields, with a source).

Only the architectural fields are read; the rest of a config (token ids, dropout, RoPE scaling)
changes no FLOP or byte. A missing field, a wrong type, a size that is not a positive integer or
an unknown model_type is one error naming the file and the field. Where a config leaves a field
out and Hugging Face's class for that model_type has a default, the default is used and said in
the config's `notes`; so is every feature the roofline does not model (sliding windows).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from roofline.errors import RooflineError
from roofline.model import datafile as _toml
from roofline.model.architecture import TransformerConfig
from roofline.model.mla import MLA
from roofline.model.moe import MoE

CATALOG_PATH = _toml.DATA_DIR / "model_catalog.toml"


@dataclass(frozen=True)
class Family:
    """What a model_type's Hugging Face modelling code builds beyond a Llama layer."""
    moe: str = ""             # "", "mixtral", "qwen_moe", "deepseek"
    mla: bool = False
    qkv_bias: bool = False    # always on (Qwen2); else from `attention_bias`
    qk_norm: bool = False
    sandwich_norms: bool = False
    tied_default: bool = False
    act_key: str = "hidden_act"
    sliding: str = ""         # "" none, "set": when sliding_window is set, "flag": use_sliding_window
    every_other: bool = False  # the sliding window applies to every other layer (Gemma 2)


FAMILIES = {
    "llama": Family(),
    "mistral": Family(sliding="set"),
    "mixtral": Family(moe="mixtral", sliding="set"),
    "qwen2": Family(qkv_bias=True, sliding="flag"),
    "qwen2_moe": Family(moe="qwen_moe", qkv_bias=True, sliding="flag"),
    "qwen3": Family(qk_norm=True, sliding="flag"),
    "qwen3_moe": Family(moe="qwen_moe", qk_norm=True, sliding="flag"),
    "gemma": Family(tied_default=True, act_key="hidden_activation"),
    "gemma2": Family(sandwich_norms=True, tied_default=True, act_key="hidden_activation",
                     sliding="set", every_other=True),
    "deepseek_v2": Family(moe="deepseek", mla=True),
    "deepseek_v3": Family(moe="deepseek", mla=True),
}
ACTS = {"silu": "silu", "swish": "silu", "gelu": "gelu", "gelu_new": "gelu",
        "gelu_pytorch_tanh": "gelu", "gelu_fast": "gelu"}


class _Reader:
    """Typed access to a config dict; errors name the file (and catalog entry) and the field."""

    def __init__(self, data: dict, where: str, entry: str = "", prefix: str = "") -> None:
        self.data, self.where, self.entry, self.prefix = data, where, entry, prefix

    def error(self, key: str, message: str) -> RooflineError:
        return RooflineError(message, where=self.where, entry=self.entry,
                             field=self.prefix + key)

    def has(self, key: str) -> bool:
        return self.data.get(key) is not None

    def int(self, key: str, *, default: int | None = None, minimum: int = 1,
            why: str = "") -> int:
        value = self.data.get(key)
        if value is None:
            if default is not None:
                return default
            raise self.error(key, "missing" + (f" ({why})" if why else ""))
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            noun = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
            raise self.error(key, f"must be {noun}, got {value!r}")
        return value

    def bool(self, key: str, default: bool) -> bool:
        value = self.data.get(key, default)
        value = default if value is None else value
        if not isinstance(value, bool):
            raise self.error(key, f"must be true or false, got {value!r}")
        return value

    def str(self, key: str) -> str:
        value = self.data.get(key)
        if not isinstance(value, str) or not value:
            raise self.error(key, "missing" if value is None else f"must be text, got {value!r}")
        return value

    def int_list(self, key: str) -> list[int]:
        value = self.data.get(key) or []
        if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool)
                                                  and v >= 0 for v in value):
            raise self.error(key, f"must be a list of layer indices, got {value!r}")
        return value


def from_dict(data: Any, *, model_id: str, name: str, source: str, where: str,
              entry: str = "", prefix: str = "") -> TransformerConfig:
    """A config.json's fields as a TransformerConfig (see the module docstring)."""
    if not isinstance(data, dict):
        raise RooflineError(f"expected a JSON object, got {type(data).__name__}", where=where,
                            entry=entry, field=prefix.rstrip("."))
    r = _Reader(data, where, entry, prefix)
    model_type = r.str("model_type")
    family = FAMILIES.get(model_type)
    if family is None:
        raise RooflineError(f"unknown model_type {model_type!r}", where=where, entry=entry,
                            field=prefix + "model_type", valid=sorted(FAMILIES))
    notes: list[str] = []
    d, layers = r.int("hidden_size"), r.int("num_hidden_layers")
    heads, vocab = r.int("num_attention_heads"), r.int("vocab_size")
    if r.has("num_key_value_heads"):
        kv_heads = r.int("num_key_value_heads")
    else:
        kv_heads = heads
        notes.append("num_key_value_heads not given: Hugging Face's default, one KV head per "
                     "query head")
    head_dim = r.int("head_dim") if r.has("head_dim") else 0
    if not head_dim and d % heads:
        raise r.error("num_attention_heads", f"must divide hidden_size ({d}) when head_dim "
                      f"is not given, got {heads}")
    if heads % kv_heads:
        raise r.error("num_key_value_heads", f"must divide num_attention_heads ({heads}), "
                      f"got {kv_heads}")
    if "tie_word_embeddings" in data:
        tied = r.bool("tie_word_embeddings", family.tied_default)
    else:
        tied = family.tied_default
        notes.append(f"tie_word_embeddings not given: {model_type}'s default, "
                     f"{'tied' if tied else 'untied'}")
    act = data.get(family.act_key) or data.get("hidden_act") or "silu"
    if not isinstance(act, str) or act not in ACTS:
        raise r.error(family.act_key, f"unsupported activation {act!r} (valid: "
                      f"{', '.join(ACTS)})")
    moe = _moe(r, family, layers, d)
    mla = _mla(r) if family.mla else None
    mtp = r.int("num_nextn_predict_layers", default=0, minimum=0)
    if mtp:
        notes.append(f"{mtp} multi-token-prediction layer{'s' if mtp > 1 else ''} counted "
                     "apart (mtp_params), not in params_total or the step")
    notes += _unmodelled(r, family, model_type)
    ffn = (r.int("intermediate_size") if not moe or moe.moe_layers < layers
           else r.int("intermediate_size", default=moe.expert_ffn))
    attention_bias = r.bool("attention_bias", False)
    return TransformerConfig(
        model_id, name, d, heads, kv_heads, ffn, layers, vocab, source,
        attn_head_dim=head_dim, tied_embeddings=tied,
        qkv_bias=family.qkv_bias or (attention_bias and not family.mla),
        o_bias=attention_bias and not family.qkv_bias and not family.mla,
        mlp_bias=r.bool("mlp_bias", False), qk_norm=family.qk_norm, mlp_act=ACTS[act],
        sandwich_norms=family.sandwich_norms, moe=moe, mla=mla, mtp_layers=mtp,
        model_type=model_type, notes=tuple(notes))


def _moe(r: _Reader, family: Family, layers: int, d: int) -> MoE | None:
    """The experts: their count, top-k and width, and which layers have them."""
    if not family.moe:
        return None
    why = "an MoE config needs its expert count"
    if family.moe == "mixtral":
        experts, ffn = r.int("num_local_experts", why=why), r.int("intermediate_size")
        moe_layers, shared, gate, bias = layers, 0, False, False
    elif family.moe == "qwen_moe":
        experts, ffn = r.int("num_experts", why=why), r.int("moe_intermediate_size")
        step = r.int("decoder_sparse_step", default=1)
        dense = set(r.int_list("mlp_only_layers"))
        moe_layers = sum(1 for i in range(layers) if i not in dense and (i + 1) % step == 0)
        shared = r.int("shared_expert_intermediate_size", default=0, minimum=0)
        gate, bias = bool(shared), False
    else:  # deepseek
        experts, ffn = r.int("n_routed_experts", why=why), r.int("moe_intermediate_size")
        first = r.int("first_k_dense_replace", default=0, minimum=0)
        freq = r.int("moe_layer_freq", default=1)
        moe_layers = sum(1 for i in range(first, layers) if i % freq == 0)
        shared = r.int("n_shared_experts", default=0, minimum=0) * ffn
        gate, bias = False, r.data.get("topk_method") == "noaux_tc"
    top_k = r.int("num_experts_per_tok", why="how many experts each token is routed to")
    if top_k > experts:
        raise r.error("num_experts_per_tok", f"exceeds the {experts} experts, got {top_k}")
    if moe_layers == 0:
        raise r.error("num_hidden_layers", "no layer is an MoE layer with these settings")
    return MoE(experts, top_k, ffn, moe_layers, shared_ffn=shared, shared_gate=gate,
               router_bias=bias)


def _mla(r: _Reader) -> MLA:
    return MLA(r.int("q_lora_rank", default=0, minimum=0), r.int("kv_lora_rank"),
               r.int("qk_nope_head_dim"), r.int("qk_rope_head_dim"), r.int("v_head_dim"))


def _unmodelled(r: _Reader, family: Family, model_type: str) -> list[str]:
    out = []
    window = r.data.get("sliding_window")
    used = (family.sliding == "set" and window is not None
            or family.sliding == "flag" and r.bool("use_sliding_window", False)
            and window is not None)
    if used:
        which = "every other layer" if family.every_other else "every layer"
        out.append(f"sliding_window {window} on {which} is not modelled: attention and the KV "
                   "cache count the whole context (an upper bound beyond the window)")
    quant = r.data.get("quantization_config")
    if isinstance(quant, dict):
        out.append(f"quantization_config ({quant.get('quant_method', '?')}) is not read: "
                   "weights are priced at the run's precision")
    return out


# ---------------------------------------------------------------- files

def looks_like_path(text: str) -> bool:
    return text.endswith(".json") or "/" in text or "\\" in text or Path(text).exists()


def read_json(path: Path) -> Any:
    """The file's JSON, or one error naming it: missing, a folder, unreadable or not JSON."""
    if path.is_dir():
        hint = "; name its config.json" if (path / "config.json").is_file() else ""
        raise RooflineError(f"is a folder, not a config.json{hint}", where=str(path))
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RooflineError("no such file", where=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RooflineError(f"cannot read: {getattr(exc, 'strerror', None) or exc}",
                            where=str(path)) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RooflineError(f"not valid JSON: {exc.msg} (line {exc.lineno}, column "
                            f"{exc.colno})", where=str(path)) from None


def load_config(path: Path | str) -> TransformerConfig:
    """A config.json from disk (cached per (path, mtime_ns, size): an edit is seen at once)."""
    path = Path(path)
    if path.is_dir():
        read_json(path)  # raises, naming the folder
    return _cached_config(_toml.file_key(path))


@functools.lru_cache(maxsize=16)
def _cached_config(key: tuple[str, int, int]) -> TransformerConfig:
    path = Path(key[0])
    data = read_json(path)
    given = data.get("_name_or_path") if isinstance(data, dict) else None
    name = given if isinstance(given, str) and given else (
        f"{path.parent.name}/{path.name}" if path.parent.name else path.name)
    return from_dict(data, model_id=str(path), name=name, source=str(path), where=str(path))


# ---------------------------------------------------------------- the bundled catalog

def load_catalog(path: Path | str | None = None) -> dict[str, TransformerConfig]:
    path = Path(path) if path else CATALOG_PATH
    data = _toml.load(path)
    where = str(path)
    out = {}
    for mid, raw in data.get("model", {}).items():
        f = _toml.Fields(raw, where=where, entry=mid)
        name, source = f.get("name", str), f.get("source", str)
        config = f.get("config", dict)
        f.finish()
        out[mid] = from_dict(config, model_id=mid, name=name, source=source, where=where,
                             entry=mid, prefix="config.")
    if not out:
        raise RooflineError("no [model.*] tables", where=where, field="model")
    return out


def bundled_models() -> dict[str, TransformerConfig]:
    """The bundled catalog, cached per (path, mtime_ns, size): an edit is seen at once."""
    return dict(_cached_catalog(_toml.file_key(CATALOG_PATH)))


@functools.lru_cache(maxsize=4)
def _cached_catalog(key: tuple[str, int, int]) -> dict[str, TransformerConfig]:
    return load_catalog(key[0])
