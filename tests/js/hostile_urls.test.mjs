// Hostile URL state, checked where it is handled: the widgets' URL parsers (parseState, clampAI,
// stateQuery in roofline.mjs; parseState, clampNumber, stateQuery in budget.mjs) are pure, so
// every payload × state key × query-or-hash runs here in milliseconds. A handful of the same
// payloads still go end to end through Chromium (tests/test_quality_hostile_urls.py), loading
// tests/cases/hostile_urls.json's `end_to_end` URLs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import * as rl from "../../site_src/roofline/widgets/roofline/roofline.mjs";
import * as bj from "../../site_src/roofline/widgets/budget/budget.mjs";

const load = (name) => JSON.parse(readFileSync(new URL(`../cases/${name}`, import.meta.url)));
const H = load("hostile_urls.json");
// The ids a widget knows: the zoo payload's (tests/cases/payloads.jsonl).
const P = readFileSync(new URL("../cases/payloads.jsonl", import.meta.url), "utf8").split("\n")
  .filter(Boolean).map((l) => JSON.parse(l)).find((r) => r.name === "zoo").payload;
const known = { hardware: Object.keys(P.hardware), precision: Object.keys(P.precisions),
                op: Object.keys(P.ops) };
const PAYLOADS = [...H.scripts, ...H.numbers, ...H.ids];

// Every payload under every key, in the query and in the hash, plus the raw URLs.
function expand(keys) {
  const out = [];
  for (const p of PAYLOADS) {
    for (const k of keys) {
      out.push([`?${k}=${encodeURIComponent(p)}`, ""]);
      out.push(["", `#${k}=${encodeURIComponent(p)}`]);
      out.push([`?${k}=${p}`, ""]); // unencoded, as a hand-typed link would be
    }
  }
  for (const url of H.raw) {
    const at = url.indexOf("#");
    out.push(at < 0 ? [url, ""] : [url.slice(0, at), url.slice(at)]);
  }
  for (const url of H.end_to_end) {
    const at = url.indexOf("#");
    out.push(at < 0 ? [url, ""] : [url.slice(0, at), url.slice(at)]);
  }
  return out;
}

const RL_CASES = expand(["hardware", "precision", "op", "ai"]);
const BUDGET_KEYS = ["model", "phase", "batch", "fuse", "eff", "launch", "dp", "overlap"];
const BJ_CASES = expand(BUDGET_KEYS);
const BJ_KNOWN = {
  models: ["llama-2-7b", "llama-3-8b", "llama-3-70b"], phases: ["train", "prefill", "decode"],
  fusions: ["norm", "epilogue", "residual", "flash"],
  limits: { efficiency: [0.3, 1], launch_us: [0, 50], dp: [1, 1024], overlap: [0, 1] },
};
// What encodeURIComponent may leave in a query: nothing that can open a tag or an attribute.
const SAFE_QUERY = /^\?[A-Za-z0-9%_.!~*'()=&-]*$/;

function prototypeUntouched() {
  assert.equal(Object.prototype.ai, undefined);
  assert.equal(Object.prototype.hardware, undefined);
  assert.equal({}.constructor, Object);
}

test("the hostile case list is long (≥ 500 parser cases from the shared file)", () => {
  assert.ok(PAYLOADS.length >= 40, `${PAYLOADS.length} payloads`);
  assert.ok(RL_CASES.length >= 500 && BJ_CASES.length >= 500);
  assert.ok(H.end_to_end.length >= 1 && H.end_to_end.length <= 6);
});

// The gate: what parseState may return for any URL. Returns the problems found (none = pass).
function rooflineStateProblems(parseState, cases = RL_CASES) {
  const problems = [];
  const keys = new Set(["hardware", "precision", "op", "ai"]);
  for (const [search, hash] of cases) {
    const what = `${search.slice(0, 60)} ${hash.slice(0, 60)}`;
    let st;
    try {
      st = parseState(search, hash, known);
    } catch (e) {
      problems.push(`${what}: threw ${e}`);
      continue;
    }
    for (const k of Object.keys(st)) if (!keys.has(k)) problems.push(`${what}: key ${k}`);
    if ("hardware" in st && !known.hardware.includes(st.hardware)) {
      problems.push(`${what}: hardware ${String(st.hardware).slice(0, 60)}`);
    }
    if ("precision" in st && !known.precision.includes(st.precision)) {
      problems.push(`${what}: precision ${String(st.precision).slice(0, 60)}`);
    }
    if ("op" in st && st.op !== "custom" && !known.op.includes(st.op)) {
      problems.push(`${what}: op ${String(st.op).slice(0, 60)}`);
    }
    if ("ai" in st && !(typeof st.ai === "number" && Number.isFinite(st.ai) &&
                        st.ai >= rl.AI_MIN && st.ai <= rl.AI_MAX)) {
      problems.push(`${what}: ai ${String(st.ai).slice(0, 60)}`);
    }
    if (Object.prototype.ai !== undefined || Object.prototype.hardware !== undefined) {
      problems.push(`${what}: polluted Object.prototype`);
    }
  }
  return problems;
}

test("roofline parseState: only known ids and a finite AI in range survive hostile URLs", () => {
  assert.deepEqual(rooflineStateProblems(rl.parseState), []);
  prototypeUntouched();
});

test("seeded: the gate reports a parser that passes URL values through", () => {
  const raw = (search, hash) => Object.fromEntries(new URLSearchParams(hash.slice(1) || search));
  const problems = rooflineStateProblems(raw);
  assert.ok(problems.some((p) => p.includes("<script>")), problems.slice(0, 3).join("\n"));
  // and one that keeps ids but trusts any number
  const loose = (search, hash, k) => {
    const st = rl.parseState(search, hash, k);
    const ai = new URLSearchParams(hash.slice(1) || search).get("ai");
    return ai === null ? st : { ...st, ai: Number(ai) };
  };
  assert.ok(rooflineStateProblems(loose).some((p) => /ai (NaN|Infinity)/.test(p)));
});

test("roofline: a script payload never survives into the state", () => {
  for (const p of H.scripts) {
    for (const k of ["hardware", "precision", "op", "ai"]) {
      assert.deepEqual(rl.parseState(`?${k}=${encodeURIComponent(p)}`, "", known), {}, `${k}=${p}`);
      assert.deepEqual(rl.parseState("", `#${k}=${encodeURIComponent(p)}`, known), {}, `#${k}=${p}`);
    }
  }
});

test("roofline clampAI: hostile numbers are ignored or clamped, never NaN or infinite", () => {
  for (const n of [...H.numbers, ...H.scripts, ...H.ids, null, undefined, {}, [], NaN, -Infinity]) {
    const v = rl.clampAI(n);
    assert.ok(v === null || (Number.isFinite(v) && v >= rl.AI_MIN && v <= rl.AI_MAX),
              `clampAI(${String(n).slice(0, 40)}) = ${v}`);
  }
  assert.equal(rl.clampAI("1e999"), null);
  assert.equal(rl.clampAI("-5"), null);
  assert.equal(rl.clampAI("0"), null);
  assert.equal(rl.clampAI("1e-9"), rl.AI_MIN);
  assert.equal(rl.clampAI("1e9"), rl.AI_MAX);
  assert.equal(rl.clampAI("9".repeat(400)), null); // past double range, like 1e999
  assert.equal(rl.clampAI("9".repeat(300)), rl.AI_MAX);
});

test("roofline: the hash wins over the query, malformed escapes drop only their pair", () => {
  assert.deepEqual(rl.parseState("?ai=50", "#ai=NaN", known), {});
  assert.deepEqual(rl.parseState("", "#hardware=a100-sxm-80gb&ai=-3", known),
                   { hardware: "a100-sxm-80gb" });
  assert.deepEqual(rl.parseState("?%E0%A4%A=1&ai=%&hardware=h200", "", known),
                   { hardware: "h200" });
  assert.deepEqual(rl.parseState("?__proto__[ai]=5&constructor[prototype][ai]=5", "", known), {});
  assert.deepEqual(rl.parseState("?" + Array.from({ length: 300 }, (_, k) => `ai=${k}`).join("&"),
                                 "", known), { ai: 299 });
});

test("roofline stateQuery: hostile foreign parameters come back encoded, state round-trips", () => {
  const base = { hardware: "h100-sxm", precision: "bf16", ai: 2, op: "custom" };
  for (const [search, hash] of RL_CASES) {
    const what = `${search.slice(0, 80)} ${hash.slice(0, 80)}`;
    const st = { ...base, ...rl.parseState(search, hash, known) };
    const q = rl.stateQuery(search, st);
    assert.match(q, SAFE_QUERY, what);
    const back = rl.parseState(q, "", known);
    assert.equal(back.hardware, st.hardware, what);
    assert.equal(back.precision, st.precision, what);
    assert.ok(Math.abs(back.ai - st.ai) <= 5e-4 * st.ai, `${what}: ai ${back.ai} vs ${st.ai}`);
    prototypeUntouched();
  }
});

test("budget parseState: known ids only, numbers clamped to the limits, under hostile URLs", () => {
  const L = BJ_KNOWN.limits;
  const within = (x, [lo, hi]) => Number.isFinite(x) && x >= lo && x <= hi;
  for (const [search, hash] of BJ_CASES) {
    const what = `${search.slice(0, 80)} ${hash.slice(0, 80)}`;
    const st = bj.parseState(search, hash, BJ_KNOWN);
    for (const k of Object.keys(st)) {
      assert.ok(["model", "phase", "batch", "fuse", "eff", "launch", "dp", "overlap"].includes(k),
                `${what}: key ${k}`);
    }
    if ("model" in st) assert.ok(BJ_KNOWN.models.includes(st.model), what);
    if ("phase" in st) assert.ok(BJ_KNOWN.phases.includes(st.phase), what);
    // a batch is used only when it is one of the phase's listed batches, so any count will do
    if ("batch" in st) assert.ok(st.batch >= 0 && !Number.isNaN(st.batch) &&
                                 (Number.isInteger(st.batch) || st.batch === Infinity), what);
    if ("fuse" in st) assert.ok(st.fuse.every((f) => BJ_KNOWN.fusions.includes(f)), what);
    if ("eff" in st) assert.ok(within(st.eff, L.efficiency), what);
    if ("launch" in st) assert.ok(within(st.launch, L.launch_us), what);
    if ("dp" in st) assert.ok(within(st.dp, L.dp) && Number.isInteger(st.dp), what);
    if ("overlap" in st) assert.ok(within(st.overlap, L.overlap), what);
    prototypeUntouched();
  }
  for (const p of H.scripts) {
    for (const k of BUDGET_KEYS) {
      const st = bj.parseState(`?${k}=${encodeURIComponent(p)}`, "", BJ_KNOWN);
      assert.deepEqual(st, k === "fuse" ? { fuse: [] } : {}, `${k}=${p}`);
    }
  }
});

test("budget stateQuery: hostile foreign parameters come back encoded", () => {
  const base = { model: "llama-2-7b", phase: "train", batch: 4, fuse: [], eff: 0.7, launch: 4,
                 dp: 8, overlap: 0.8 };
  for (const [search, hash] of BJ_CASES) {
    const st = { ...base, ...bj.parseState(search, hash, BJ_KNOWN) };
    const q = bj.stateQuery(search, st);
    assert.match(q, SAFE_QUERY, `${search.slice(0, 80)} ${hash.slice(0, 80)}`);
    prototypeUntouched();
  }
});
