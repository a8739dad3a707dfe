// The serving window on the page: its controls (model, chip, precision, KV-cache precision,
// context, launch mode, price, latency budget, presets) redraw the figure and the facts with
// static.mjs — the code the build drew the first frame with — and keep the view in the URL (?wmodel=…&whw=…). Pure helpers are
// exported for node's tests; mount() is the page's entry.
import { plainNumber, queryParams, withQuery, writeURLSoon } from "../../render/js/urlstate.mjs";
import { windowCaption, windowFigure, windowRecord, windowSource } from "./static.mjs";

export const URL_KEYS = { model: "wmodel", hardware: "whw", precision: "wprec",
                          kv_precision: "wkv", context: "wctx", tp: "wtp", launch: "wlaunch", price: "wprice",
                          latency_ms: "wlat" };
export const PRESETS = {
  chat: { latency_ms: 50, label: "chat: 50 ms per token" },
  interactive: { latency_ms: 20, label: "fast chat: 20 ms per token" },
  batch: { latency_ms: null, label: "offline batch: no latency budget" },
};

// A state from the URL's query over the block's own (untrusted input: anything not valid is
// ignored, key by key).
export function stateFromQuery(P, base, search) {
  const q = queryParams(search);
  const st = { ...base };
  const own = (o, k) => typeof k === "string" && Object.prototype.hasOwnProperty.call(o, k);
  if (own(P.models, q[URL_KEYS.model])) st.model = q[URL_KEYS.model];
  // a chip named without a price has its own bundled price, not the opening chip's
  if (own(P.chips, q[URL_KEYS.hardware])) {
    st.hardware = q[URL_KEYS.hardware];
    st.price = bundledPrice(P, st.hardware);
  }
  if (P.precisions.includes(q[URL_KEYS.precision])) st.precision = q[URL_KEYS.precision];
  const ctx = plainNumber(q[URL_KEYS.context]);
  if (ctx !== null && Number.isInteger(ctx) && ctx >= 1 && ctx <= 2 ** 21) st.context = ctx;
  if (own(P.launch, q[URL_KEYS.launch])) st.launch = q[URL_KEYS.launch];
  const tp = plainNumber(q[URL_KEYS.tp]);
  if (tp !== null && (P.tps || [1]).includes(tp)) st.tp = tp;
  if (own(P.kv_precisions, q[URL_KEYS.kv_precision])) st.kv_precision = q[URL_KEYS.kv_precision];
  const price = plainNumber(q[URL_KEYS.price]);
  if (price !== null && price > 0 && price < 1000) st.price = price;
  if (q[URL_KEYS.latency_ms] === "none") st.latency_ms = null;
  const lat = plainNumber(q[URL_KEYS.latency_ms]);
  if (lat !== null && lat > 0 && lat <= 60000) st.latency_ms = lat;
  return validState(P, st);
}

// A chip without the state's precision falls back to one it has; one without a scale-up link
// to split a replica over, to tp = 1.
export function validState(P, st) {
  const chip = P.chips[st.hardware];
  const peaks = chip.peaks;
  const out = Object.prototype.hasOwnProperty.call(peaks, st.precision) ? st
    : { ...st, precision: Object.keys(peaks)[0] };
  return (out.tp || 1) > 1 && !chip.link ? { ...out, tp: 1 } : out;
}

export function queryOf(st) {
  return Object.entries(URL_KEYS).map(([k, key]) => [key, st[k] === null ? "none" : String(st[k])]);
}

// The chip's bundled price per GPU-hour, or null.
export function bundledPrice(P, hardware) {
  return P.prices[hardware] ? P.prices[hardware].usd_per_hour : null;
}

// A chip change takes that chip's bundled price, unless the reader typed one (a price from the
// URL other than the chip's bundled one was typed too, on the page that wrote it).
export function withChip(P, st, hardware, typedPrice) {
  return validState(P, { ...st, hardware, price: typedPrice ? st.price : bundledPrice(P, hardware) });
}

// A typed price or latency budget read: {value} when the state takes it, else {error}, the
// message shown at the field (the state keeps its last good value). A blank latency budget is
// none; a blank price is refused (a chip without a bundled price starts blank, untouched).
export function readField(name, raw) {
  const text = String(raw).trim();
  const v = plainNumber(text);
  if (name === "price") {
    return v !== null && v > 0 && v < 1000 ? { value: v }
      : { error: "Type a price above $0 and under $1,000 per GPU-hour." };
  }
  if (text === "") return { value: null };
  return v !== null && v > 0 && v <= 60000 ? { value: v }
    : { error: "Type a budget above 0 and up to 60,000 ms per token, or leave it blank." };
}

export function mount(root) {
  const P = JSON.parse(root.querySelector("script.rl-window-data").textContent);
  const form = root.querySelector(".rl-window-controls");
  const fig = root.querySelector(".rl-window-figure");
  const facts = root.querySelector(".rl-window-facts");
  const caption = root.querySelector(".rl-window-caption");
  const key = root.querySelector(".rl-window-key");
  const source = root.querySelector(".rl-window-source");
  const record = root.querySelector(".rl-window-record");
  const field = (name) => form.elements.namedItem(name);
  let st = P.url_state && typeof location !== "undefined"
    ? stateFromQuery(P, P.state, location.search) : P.state;
  let typedPrice = st.price !== null && st.price !== bundledPrice(P, st.hardware);
  // A refused value stays in its field, with its message, until the reader mends it.
  const refused = new Set();
  const check = (name) => {
    const el = field(name);
    const got = readField(name, el.value);
    const msg = root.querySelector(`#${el.getAttribute("aria-describedby")}`);
    el.setAttribute("aria-invalid", got.error ? "true" : "false");
    if (msg) { msg.textContent = got.error || ""; msg.hidden = !got.error; }
    if (got.error) refused.add(name); else refused.delete(name);
    return got;
  };
  const show = () => {
    field("model").value = st.model;
    field("hardware").value = st.hardware;
    field("precision").value = st.precision;
    field("launch").value = st.launch;
    field("tp").value = String(st.tp || 1);
    for (const o of field("tp").options) o.disabled = o.value !== "1" && !P.chips[st.hardware].link;
    field("kv_precision").value = st.kv_precision;
    const peaks = P.chips[st.hardware].peaks;
    for (const o of field("precision").options) {
      o.disabled = !Object.prototype.hasOwnProperty.call(peaks, o.value);
    }
    const ctxSelect = field("context");
    if (![...ctxSelect.options].some((o) => o.value === String(st.context))) {
      ctxSelect.add(new Option(`${st.context} tokens`, String(st.context)));
    }
    ctxSelect.value = String(st.context);
    if (!refused.has("price")) field("price").value = st.price === null ? "" : String(st.price);
    if (!refused.has("latency")) {
      field("latency").value = st.latency_ms === null ? "" : String(st.latency_ms);
    }
    const F = windowFigure(P, st);
    fig.innerHTML = F.svg;
    if (caption) caption.textContent = windowCaption(P, st);
    if (key) key.innerHTML = F.key;
    if (source) source.innerHTML = windowSource(P, st, true);
    if (record) record.textContent = windowRecord(P, st);
    facts.innerHTML = F.facts.map((f) => `<li>${f.replace(/&/g, "&amp;").replace(/[<]/g, "&lt;")}</li>`).join("");
    root.setAttribute("data-rl-window", JSON.stringify({ wall: F.figures.wall,
                                                          best: F.figures.best && F.figures.best.batch }));
    if (P.url_state) writeURLSoon((search) => withQuery(search, Object.values(URL_KEYS), queryOf(st)));
  };
  form.addEventListener("change", (ev) => {
    const name = ev.target.name;
    if (name === "hardware") st = withChip(P, st, field("hardware").value, typedPrice);
    else if (name === "model") st = { ...st, model: field("model").value };
    else if (name === "precision") st = validState(P, { ...st, precision: field("precision").value });
    else if (name === "context") st = { ...st, context: Number(field("context").value) };
    else if (name === "launch") st = { ...st, launch: field("launch").value };
    else if (name === "tp") st = validState(P, { ...st, tp: Number(field("tp").value) });
    else if (name === "kv_precision") st = { ...st, kv_precision: field("kv_precision").value };
    else if (name === "price") {
      const got = check("price");
      if (got.error) return;
      st = { ...st, price: got.value };
      typedPrice = true;
    } else if (name === "latency") {
      const got = check("latency");
      if (got.error) return;
      st = { ...st, latency_ms: got.value };
    }
    show();
  });
  // The message follows each keystroke; the figure, the value once it is entered (change).
  form.addEventListener("input", (ev) => {
    if (ev.target.name === "price" || ev.target.name === "latency") check(ev.target.name);
  });
  form.addEventListener("submit", (ev) => ev.preventDefault());
  for (const b of form.querySelectorAll("button[data-preset]")) {
    b.addEventListener("click", () => {
      st = { ...st, latency_ms: PRESETS[b.dataset.preset].latency_ms };
      refused.delete("latency");
      show();
      check("latency");
    });
  }
  form.hidden = false;
  show();
  root.setAttribute("data-rl-window-state", "ready");
}
