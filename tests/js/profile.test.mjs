// The profile's JavaScript: reader.mjs cuts a real torch trace into the same events as
// JSON.parse of the whole text, whatever the size of the pieces it is given; bad text is one
// TraceInputError; costs.mjs prices ops from the model's terms; analyse.mjs's waterfall of a
// tiny hand-made step sums to its wall time, part by part as worked here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";

import { TraceInputError, TraceReader } from "../../site_src/roofline/profile/reader.mjs";
import { costOf, evalTerms } from "../../site_src/roofline/profile/costs.mjs";
import * as a from "../../site_src/roofline/profile/analyse.mjs";

const TRAIN = new URL("../fixtures/traces/torch-cpu-train.json.gz", import.meta.url);
const text = gunzipSync(readFileSync(TRAIN)).toString("utf-8");

function read(t, size) {
  const r = new TraceReader(), events = [], meta = [];
  for (let i = 0; i < t.length; i += size) {
    const got = r.push(t.slice(i, i + size));
    events.push(...got.events);
    meta.push(...got.meta);
  }
  const got = r.end();
  return { events: [...events, ...got.events], meta: [...meta, ...got.meta] };
}

test("the reader gives JSON.parse's events and fields for pieces of any size", () => {
  const whole = JSON.parse(text);
  const want = whole.traceEvents;
  const wantMeta = Object.entries(whole).filter(([k]) => k !== "traceEvents");
  for (const size of [1, 7, 4093, 1 << 20]) {
    const { events, meta } = read(text, size);
    assert.equal(events.length, want.length, `pieces of ${size}`);
    assert.deepEqual(events, want);
    assert.deepEqual(meta, wantMeta);
  }
});

test("bad text is one TraceInputError saying what and where", () => {
  const cases = [
    ["", /the file is empty/],
    ["[1, 2]", /expected '\{' \(a trace is one JSON object\) at character 0/],
    ['{"traceEvents": {}}', /expected '\[' \(traceEvents is an array\)/],
    ['{"traceEvents": [{"ph": X}]}', /not JSON at character 17/],
    ['{"traceEvents": [{"ph": "X"}', /truncated JSON/],
    ['{"traceEvents": [{"ph": "X"}]', /truncated JSON/],
    ['{"schemaVersion": 1}', /no traceEvents array/],
    ['{"traceEvents": []} x', /nothing after the closing/],
    ['{"traceEvents": [] "a": 1}', /expected ',' or '\}'/],
  ];
  for (const [t, message] of cases) {
    for (const size of [1, 1000]) {
      assert.throws(() => read(t, size), (e) => e instanceof TraceInputError &&
                    message.test(e.message), `${JSON.stringify(t)} in pieces of ${size}`);
    }
  }
  // a string with an escaped quote and brackets inside is one value
  const { events, meta } = read('{"a": "x\\"]}", "traceEvents": [{"name": "[{\\\\"}], "b": 2}', 3);
  assert.deepEqual(events, [{ name: "[{\\" }]);
  assert.deepEqual(meta, [["a", 'x"]}'], ["b", 2]]);
});

// The model's terms as roofline.profile.terms writes them, for two functions worked here.
const TERMS = {
  gemm: { name: "gemm", flops: [[2, ["m", "n", "k"]]],
          bytes: [[1, ["m", "k", "b"]], [1, ["n", "k", "b"]], [1, ["m", "n", "b"]]] },
  softmax: { name: "softmax", flops: [[5, ["rows", "d"]]], bytes: [[2, ["rows", "d", "b"]]] },
};

test("ops are priced from the model's terms and by the convention", () => {
  assert.deepEqual(evalTerms(TERMS.gemm, { m: 2, n: 3, k: 4, b: 2 }), { flops: 48, bytes: 52 });
  const mm = costOf("aten::mm", { "Input Dims": [[64, 128], [128, 32]],
                                  "Input type": ["float", "float"] }, false, TERMS);
  assert.equal(mm.flops, 2 * 64 * 32 * 128);
  assert.equal(mm.bytes, (64 * 128 + 128 * 32 + 64 * 32) * 4);
  assert.equal(mm.useful_flops, mm.flops);
  // a batched matmul: the batch multiplies one GEMM
  const bmm = costOf("aten::bmm", { "Input Dims": [[8, 16, 32], [8, 32, 4]],
                                    "Input type": ["c10::BFloat16", "c10::BFloat16"] }, false, TERMS);
  assert.equal(bmm.flops, 8 * 2 * 16 * 4 * 32);
  const sm = costOf("aten::_softmax", { "Input Dims": [[4, 10], [], []],
                                        "Input type": ["float", "Scalar", "Scalar"] }, false, TERMS);
  assert.deepEqual([sm.family, sm.flops, sm.bytes], ["softmax", 200, 320]);
  // an add of two [10, 10] floats: one FLOP per element, two read and one written
  const add = costOf("aten::add", { "Input Dims": [[10, 10], [10, 10], []],
                                    "Input type": ["float", "float", "Scalar"] }, false, TERMS);
  assert.deepEqual([add.family, add.flops, add.bytes], ["elementwise", 100, 1200]);
  // relu is the convention's (the model's activation has no relu kind)
  assert.equal(costOf("aten::relu", { "Input Dims": [[5]], "Input type": ["float"] }, false,
                      TERMS).basis, "convention");
  assert.equal(costOf("aten::view", {}, false, TERMS).family, "views");
  assert.equal(costOf("aten::to", { "Input Dims": [[4]], "Input type": ["float"] }, true, TERMS),
               null);   // a wrapper with children: its children carry the cost
  assert.equal(costOf("my::op", {}, false, TERMS), null);
  assert.throws(() => costOf("aten::layer_norm", { "Input Dims": [[4, 8]], "Input type": ["float"] },
                             false, TERMS), /no terms for the model's layernorm/);
});

test("a hand-made step: its waterfall, MFU and verdicts, worked here", () => {
  const X = (name, ts, dur, dims = [], types = []) => ({ ph: "X", cat: "cpu_op", name, ts, dur,
    tid: 1, args: { "Input Dims": dims, "Input type": types } });
  const events = [
    { ph: "X", cat: "user_annotation", name: "ProfilerStep#0", ts: 0, dur: 100, tid: 1 },
    X("aten::mm", 0, 50, [[100, 100], [100, 100]], ["float", "float"]),   // 2 MFLOP, 120 kB
    X("aten::view", 50, 2), X("aten::view", 52, 4),                         // dispatch: 6 µs
    X("aten::_softmax", 60, 15, [[100, 100]], ["float"]),                  // 50 kFLOP, 80 kB
    X("mystery", 85, 10),                                                   // unmodelled
  ];
  const s = a.surveyEvents(a.newSurvey(), events);
  const info = a.finishSurvey(s);
  assert.equal(info.ops, 5);
  const w = a.pickStep(info, null);
  assert.equal(w.name, "ProfilerStep#0");
  assert.deepEqual(a.pickStep(info, 7), { error: "no ProfilerStep#7; the trace has steps 0",
                                          field: "step" });
  const roof = { label: "toy", peak_flops_per_s: 1e11, bandwidth_bytes_per_s: 1e10, basis: "" };
  const R = a.stepReport({ info, window: w, nodes: a.stepEvents(w, events), roof, terms: TERMS,
                           trace: "t.json" });
  const part = Object.fromEntries(R.waterfall.map((p) => [p.part, p.time_s]));
  const near = (x, y) => assert.ok(Math.abs(x - y) < 1e-15, `${x} vs ${y}`);
  near(part["useful matrix math at peak"], 2e6 / 1e11);            // 20 µs
  near(part["matrix ops below their roof"], 50e-6 - 20e-6);
  near(part["memory-bound ops"], 15e-6);
  near(part["dispatch and gaps"], 6e-6 + (100 - 50 - 6 - 15 - 10) * 1e-6);   // views + gaps
  near(part.unmodelled, 10e-6);
  near(R.waterfall_sum_s, 100e-6);
  near(R.mfu, 2e6 / (100e-6 * 1e11));
  assert.equal(R.families.matmul.verdict, "compute-bound");      // 2e6/120e3 = 16.7 ≥ ridge 10
  assert.equal(R.families.softmax.verdict, "memory-bound");
  assert.deepEqual(R.unmodelled.map((u) => [u.name, u.count]), [["mystery", 1]]);
  near(R.unmodelled[0].time_s, 10e-6);
  assert.deepEqual(R.leaks.map((l) => l.leak), ["matmul", "dispatch", "memory"]);
});

test("no shapes, no ops, no events: each says so", () => {
  const noShapes = a.surveyEvents(a.newSurvey(), [{ ph: "X", cat: "cpu_op", name: "aten::mm",
                                                    ts: 0, dur: 1, args: {} }]);
  assert.match(a.finishSurvey(noShapes).error, /record_shapes=True/);
  assert.match(a.finishSurvey(a.newSurvey()).error, /no events/);
  assert.match(a.finishSurvey(a.surveyEvents(a.newSurvey(), [{ ph: "M" }])).error, /no CPU ops/);
  assert.equal(a.deviceOf({ kernels: 3 }), "gpu");
  assert.equal(a.deviceOf({ kernels: 0 }), "cpu");
  const legacy = a.surveyEvents(a.newSurvey(), [{ ph: "X", cat: "Operator", name: "aten::mm",
                                                  ts: 0, dur: 1, args: {} }]);
  assert.match(a.finishSurvey(legacy).error, /older Kineto format.*torch 1.8 to 1.10/);
  assert.match(a.cpuRoof({}).error, /not a roofline measure JSON/);
});

test("pass 1 numbers the chunks by their time span; pass 2 needs only the step's", () => {
  const X = (ts, dur) => ({ ph: "X", cat: "cpu_op", name: "aten::view", ts, dur, tid: 1,
                            args: { "Input Dims": [[1]], "Input type": ["float"] } });
  const s = a.newSurvey();
  a.surveyEvents(s, [X(0, 5), X(5, 5)], [], 0);
  a.surveyEvents(s, [{ ph: "X", cat: "user_annotation", name: "ProfilerStep#1", ts: 20,
                       dur: 10, tid: 1 }, X(21, 2)], [], 1);
  a.surveyEvents(s, [X(40, 1), { ph: "M" }], [], 2);
  a.surveyEvents(s, [{ ph: "M" }], [], 3);             // no ops: no span, never wanted
  assert.deepEqual(s.chunks, { 0: [0, 10], 1: [20, 30], 2: [40, 41] });
  const info = a.finishSurvey(s);
  assert.deepEqual(a.chunksFor(info, a.pickStep(info, 1)), [1]);
  assert.deepEqual(a.chunksFor(info, { ts: 8, dur: 40 }), [0, 1, 2]);
});
