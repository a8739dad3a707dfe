// A profiler op's FLOPs and bytes from its recorded shapes and dtypes — the one copy, run by the
// browser (the drop page) and by the build's JS engine (`roofline profile`, the fence).
//
// The lesson's cost functions (roofline.model.ops: gemm, attention_fused, rmsnorm, layernorm,
// softmax, activation, embedding) stay in Python; they arrive here as their exact multilinear
// terms (roofline.profile.terms: coefficient × product of shape variables, solved from the
// functions and checked), so a matmul is priced by the model's own formula, not a copy of it.
// Ops the model has no function for but whose cost follows from the same convention (each
// operand read once, each result written once) are priced here: other elementwise ops,
// reductions, foreach (optimizer) ops, copies and casts. Views and allocations move no data and
// do no math. Anything else is null: the report lists it as unmodelled, with its time, never
// guessed.
//
//     costOf("aten::mm", args, hasChildren, terms) -> { family, flops, bytes, useful_flops, basis }

export const DTYPE_BYTES = {
  float: 4, double: 8, "c10::Half": 2, "c10::BFloat16": 2, "long int": 8, int: 4,
  "short int": 2, "signed char": 1, "unsigned char": 1, bool: 1, "c10::Float8_e4m3fn": 1,
  "c10::Float8_e5m2": 1, "c10::complex<float>": 8,
};
export const FAMILIES = ["matmul", "attention", "norm", "softmax", "elementwise", "embedding",
                         "optimizer", "copy", "views"];
// Families whose FLOPs count as useful in the MFU (the budget's: matrix math).
export const USEFUL = ["matmul", "attention"];

const set = (s) => new Set(s.split(" "));
const MATMUL = set("aten::mm aten::addmm aten::bmm aten::baddbmm aten::linear aten::matmul " +
                   "aten::_addmm_activation");
const ATTENTION = set("aten::scaled_dot_product_attention " +
  "aten::_scaled_dot_product_flash_attention aten::_scaled_dot_product_efficient_attention " +
  "aten::_scaled_dot_product_flash_attention_for_cpu aten::_scaled_dot_product_cudnn_attention " +
  "aten::_flash_attention_forward aten::_efficient_attention_forward");
// The fused attention backward ops: their inputs are (grad_out, query, key, value, out, …).
const ATTENTION_BACKWARD = set("aten::_scaled_dot_product_flash_attention_for_cpu_backward " +
  "aten::_scaled_dot_product_flash_attention_backward " +
  "aten::_scaled_dot_product_efficient_attention_backward " +
  "aten::_scaled_dot_product_cudnn_attention_backward aten::_flash_attention_backward " +
  "aten::_efficient_attention_backward");
// Where each attention op's is_causal flag sits among its inputs (its "Concrete Inputs"), from
// the op's schema in torch's native_functions.yaml.
export const CAUSAL_AT = {
  "aten::scaled_dot_product_attention": 5,
  "aten::_scaled_dot_product_flash_attention": 4,
  "aten::_scaled_dot_product_flash_attention_for_cpu": 4,
  "aten::_scaled_dot_product_efficient_attention": 6,
  "aten::_scaled_dot_product_cudnn_attention": 6,
  "aten::_flash_attention_forward": 8,
  "aten::_efficient_attention_forward": 10,
  "aten::_scaled_dot_product_flash_attention_for_cpu_backward": 7,
  "aten::_scaled_dot_product_flash_attention_backward": 11,
  "aten::_scaled_dot_product_efficient_attention_backward": 9,
  "aten::_flash_attention_backward": 11,
};
const NORMS = { "aten::layer_norm": "layernorm", "aten::native_layer_norm": "layernorm",
                "aten::rms_norm": "rmsnorm", "aten::_fused_rms_norm": "rmsnorm" };
const SOFTMAX = set("aten::softmax aten::_softmax aten::log_softmax aten::_log_softmax " +
                    "aten::_safe_softmax");
// The activations the model prices (its `activation` kinds); others are elementwise below.
const ACTIVATIONS = { "aten::silu": "silu", "aten::silu_": "silu", "aten::gelu": "gelu",
                      "aten::gelu_": "gelu" };
const ELEMENTWISE = set("add sub mul div pow rsqrt sqrt exp log neg abs sigmoid tanh clamp " +
  "clamp_min clamp_max where masked_fill maximum minimum lerp addcmul addcdiv fill zero " +
  "reciprocal sign cos sin square threshold_backward silu_backward gelu_backward rsub sgn ne eq " +
  "gt lt ge le relu _softmax_backward_data native_layer_norm_backward ones_like zeros_like triu " +
  "tril mean sum amax max min norm var std prod all any");
const REDUCTIONS = set("mean sum amax max min norm var std prod all any");
const COPIES = set("aten::copy_ aten::cat aten::clone aten::stack aten::index_select " +
                   "aten::gather aten::scatter aten::index aten::index_put_");
// Ops that move no data of their own (a cast's copy is its aten::copy_ child, a zeros' fill its
// aten::fill_/zero_): their time is dispatch.
const VIEWS = set("view reshape _reshape_alias transpose t permute expand expand_as as_strided " +
  "detach alias _unsafe_view unsqueeze squeeze select slice narrow split split_with_sizes chunk " +
  "unbind empty empty_like empty_strided resolve_conj resolve_neg result_type item " +
  "_local_scalar_dense set_ lift_fresh is_nonzero view_as unflatten flatten contiguous numpy_T " +
  "_has_compatible_shallow_copy_type new_empty new_empty_strided to _to_copy type_as " +
  "requires_grad_ zeros ones full arange scalar_tensor is_same_size lift detach_ movedim");
// Ops that are their children's cost when they have children (a cast runs aten::copy_).
const WRAPPERS = set("aten::to aten::_to_copy aten::contiguous aten::zeros aten::ones " +
  "aten::full aten::clone aten::type_as aten::new_zeros aten::zeros_like aten::ones_like " +
  "aten::full_like");

const numel = (dims) => dims.reduce((a, b) => a * b, 1);

// A model function's value from its terms: Σ coefficient × Π the named shape variables.
export function evalTerms(fn, values) {
  const out = {};
  for (const what of ["flops", "bytes"]) {
    let s = 0;
    for (const [coef, vars] of fn[what]) {
      let p = coef;
      for (const v of vars) {
        if (!(v in values)) throw new Error(`${fn.name}: no value for ${v}`);
        p *= values[v];
      }
      s += p;
    }
    out[what] = s;
  }
  return out;
}

function model(terms, name, values) {
  const fn = terms[name];
  if (!fn) throw new Error(`no terms for the model's ${name} (roofline.profile.terms)`);
  return evalTerms(fn, values);
}

// (dims, bytes per element) of each tensor input (scalars and empty slots left out).
export function tensors(args) {
  const dims = args["Input Dims"] || [], types = args["Input type"] || [];
  const out = [];
  for (let i = 0; i < Math.min(dims.length, types.length); i++) {
    const d = dims[i], t = types[i];
    if (Object.prototype.hasOwnProperty.call(DTYPE_BYTES, t) && Array.isArray(d) &&
        d.every(Number.isInteger)) out.push([d, DTYPE_BYTES[t]]);
  }
  return out;
}

function broadcast(shapes) {
  const n = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array(n).fill(1);
  for (const s of shapes) {
    for (let i = 0; i < s.length; i++) {
      const j = n - 1 - i;
      out[j] = Math.max(out[j], s[s.length - 1 - i]);
    }
  }
  return out;
}

function short(name) {
  const i = name.indexOf("::");
  const base = i < 0 ? name : name.slice(i + 2);
  return base.endsWith("_") && !base.startsWith("_") ? base.slice(0, -1) : base;
}

function cost(family, flops, bytes, useful, basis) {
  return { family, flops, bytes, useful_flops: useful, basis };
}

function gemmCost(terms, m, n, k, batch, b) {
  const op = model(terms, "gemm", { m, n, k, b });
  return cost("matmul", batch * op.flops, batch * op.bytes, batch * op.flops, "model.gemm");
}

function matmul(terms, name, ts) {
  const mats = ts.filter(([d]) => d.length >= 2);
  if (name === "aten::addmm" && mats.length >= 2) {
    const [[a, b], [w]] = mats.slice(-2);
    return gemmCost(terms, a[0], w[1], a[1], 1, b);
  }
  if (name === "aten::linear" && mats.length >= 2) {
    const [[x, b], [w]] = mats;
    return gemmCost(terms, numel(x.slice(0, -1)), w[0], x[x.length - 1], 1, b);
  }
  if (mats.length < 2) return null;
  let [[a, b], [w]] = mats.slice(-2);
  if (name === "aten::baddbmm" && mats.length >= 3) [[a, b], [w]] = [mats[1], mats[2]];
  if (a.length === 2 && w.length === 2) return gemmCost(terms, a[0], w[1], a[1], 1, b);
  if (w.length === 2) {   // [..., m, k] x [k, n]: the leading dims are rows
    return gemmCost(terms, numel(a.slice(0, -1)), w[1], a[a.length - 1], 1, b);
  }
  const batch = numel(broadcast([a.slice(0, -2), w.slice(0, -2)]));
  return gemmCost(terms, a[a.length - 2], w[w.length - 1], a[a.length - 1], batch, b);
}

// Whether an attention op ran causal (its is_causal input was True).
function causal(name, args) {
  const at = CAUSAL_AT[name], ci = args["Concrete Inputs"];
  return at !== undefined && Array.isArray(ci) && String(ci[at]) === "True";
}

// Fused attention. Causal: FlashAttention computes only the blocks on or below the diagonal, so
// the score matrix's FLOPs (its products and its softmax) are counted half — what ran, where the
// lesson's MFU convention counts them whole; Q, K, V and O are still each read or written once.
// Backward: the lesson's FlashAttention convention (model/kernels.py): 2.5 × the forward's matrix
// FLOPs (it recomputes QKᵀ), of which 2 × are useful, and the softmax's FLOPs again; its bytes
// twice the forward's (it reads Q, K, V, O and dO and writes dQ, dK and dV: eight tensors of the
// forward's shapes against four).
function attention(terms, name, ts, args, backward) {
  const qkv = backward ? ts.slice(1, 4) : ts.slice(0, 3);
  if (qkv.length < 3 || qkv.some(([d]) => d.length !== 4)) return null;
  const [[q, b], [k], [v]] = qkv;
  const op = model(terms, "attention_fused", { batch: q[0], heads: q[1], kv_heads: k[1],
    head_dim: q[3], q_len: q[2], kv_len: k[2], b, v_head_dim: v[3] });
  const half = causal(name, args) ? 0.5 : 1;
  // the two matrix products (QK^T and S·V), not the softmax between them
  const matrix = 2 * q[0] * q[1] * q[2] * k[2] * (q[3] + v[3]);
  const softmax = op.flops - matrix;
  const basis = `model.attention_fused${half < 1 ? ", causal" : ""}` +
    (backward ? ", FlashAttention backward" : "");
  if (!backward) return cost("attention", half * op.flops, op.bytes, half * matrix, basis);
  return cost("attention", half * (2.5 * matrix + softmax), 2 * op.bytes, half * 2 * matrix, basis);
}

function elementwise(terms, name, ts) {
  if (!ts.length) return null;
  const n = numel(broadcast(ts.map(([d]) => d)));
  const bOut = ts[0][1];
  if (name in ACTIVATIONS) {
    const op = model(terms, `activation_${ACTIVATIONS[name]}`, { n, b: bOut });
    return cost("elementwise", op.flops, op.bytes, 0, "model.activation");
  }
  const read = ts.reduce((s, [d, b]) => s + numel(d) * b, 0);
  // a reduction reads its input; what it writes is one value per kept row, counted as the
  // input's numel ÷ its last dim
  const write = REDUCTIONS.has(short(name)) ? numel(ts[0][0].slice(0, -1)) * bOut : n * bOut;
  // in place or not, the inputs are read once and the result written once
  return cost("elementwise", n, read + write, 0, "convention");
}

function foreach(name, args) {
  const dims = args["Input Dims"] || [], types = args["Input type"] || [];
  const lists = dims.filter((d, i) => types[i] === "TensorList");
  if (!lists.length) return null;
  const n = lists[0].reduce((s, t) => s + numel(t), 0);
  const b = 4;   // optimizer state and fp32 master weights: the model's AdamW convention
  const inplace = name.endsWith("_");
  const moved = (lists.length + (inplace ? 0 : 1)) * n * b + (inplace ? n * b : 0);
  return cost("optimizer", n * lists.length, moved, 0, "convention");
}

// The cost of one profiler op (see the head of this file); null: not modelled.
export function costOf(name, args, hasChildren, terms) {
  const ts = tensors(args || {});
  const s = short(name);
  if (WRAPPERS.has(name) && hasChildren) return null;   // its children carry its cost
  if (MATMUL.has(name)) return matmul(terms, name, ts);
  if (ATTENTION.has(name)) return attention(terms, name, ts, args || {}, false);
  if (ATTENTION_BACKWARD.has(name)) return attention(terms, name, ts, args || {}, true);
  if (name in NORMS && ts.length) {
    const d0 = ts[0][0];
    const op = model(terms, NORMS[name], { rows: numel(d0.slice(0, -1)), d: d0[d0.length - 1],
                                           b: ts[0][1] });
    return cost("norm", op.flops, op.bytes, 0, `model.${NORMS[name]}`);
  }
  if (SOFTMAX.has(name) && ts.length) {
    const d0 = ts[0][0];
    const op = model(terms, "softmax", { rows: numel(d0.slice(0, -1)), d: d0[d0.length - 1],
                                         b: ts[0][1] });
    return cost("softmax", op.flops, op.bytes, 0, "model.softmax");
  }
  if (name === "aten::embedding" && ts.length >= 2) {
    const [[w, b], [idx]] = ts;
    const op = model(terms, "embedding", { tokens: numel(idx), d: w[w.length - 1], b });
    return cost("embedding", op.flops, op.bytes, 0, "model.embedding");
  }
  if (name.startsWith("aten::_foreach_")) return foreach(name, args || {});
  if (COPIES.has(name) && ts.length) {
    const n = name !== "aten::copy_" ? ts.reduce((acc, [d, b]) => acc + numel(d) * b, 0)
      : numel(ts[0][0]) * (ts[0][1] + (ts.length > 1 ? ts[1][1] : ts[0][1]));
    const moved = ["aten::cat", "aten::stack", "aten::clone"].includes(name) ? 2 * n : n;
    return cost("copy", 0, moved, 0, "convention");
  }
  const bare = name.includes("::") ? name.slice(name.indexOf("::") + 2) : name;
  if (name.startsWith("aten::") && (VIEWS.has(s) || VIEWS.has(bare))) {
    return cost("views", 0, 0, 0, "no data moved");
  }
  if (name in ACTIVATIONS || (name.startsWith("aten::") && ELEMENTWISE.has(s))) {
    return elementwise(terms, name, ts);
  }
  return null;
}
