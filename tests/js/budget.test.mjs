// The budget widget's JS against tests/cases/budget_cases.jsonl: for each setting, the figures
// budget_view.mjs selects and sums are the model's (roofline.model.budget and .memory computed
// them; tests/test_budget_plot.py checks the file is current), and the texts are the
// payload's templates filled. The file the browser runs is the file imported here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import * as bj from "../../site_src/roofline/widgets/budget/budget.mjs";
import * as bv from "../../site_src/roofline/widgets/budget/budget_view.mjs";

const LINES = readFileSync(new URL("../cases/budget_cases.jsonl", import.meta.url), "utf8")
  .trim().split("\n").map((l) => JSON.parse(l));
const P = LINES[0].payload;
const CASES = LINES.slice(1);

function close(actual, expected, what) {
  const tol = 1e-9 * Math.max(Math.abs(expected), Math.abs(actual));
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} != ${expected}`);
}

const entryOf = (st) => P.combos[`${st.model}|${st.phase}|${st.batch}`][st.mask];
const viewOf = (st) => bv.viewAt(P, entryOf(st), st);

test("the case file pins both verdicts, every phase and the inference normalisation", () => {
  assert.ok(CASES.length >= 10);
  assert.ok(CASES.some((c) => c.expected.fits) && CASES.some((c) => !c.expected.fits));
  for (const phase of P.phases) assert.ok(CASES.some((c) => c.state.phase === phase), phase);
  assert.ok(CASES.some((c) => c.state.phase !== "train" && c.state.zero !== 0));
});

test("MFU, bound, step, every cause's time and level are the model's to 1e-9", () => {
  for (const c of CASES) {
    const v = viewOf(c.state);
    const e = c.expected;
    close(v.mfu, e.mfu, `${c.why}: mfu`);
    close(v.bound, e.bound, `${c.why}: bound`);
    close(v.step, e.step, `${c.why}: step`);
    assert.deepEqual(v.terms.map((t) => t.key), e.terms.map(([k]) => k));
    v.terms.forEach((t, i) => {
      close(t.time + 1, e.terms[i][1] + 1, `${c.why}: ${t.key} time`);
      close(t.after, e.terms[i][2], `${c.why}: ${t.key} level`);
    });
  }
});

test("memory per GPU is the model's, and so is the verdict", () => {
  for (const c of CASES) {
    const m = bv.memoryAt(P, c.state);
    for (const [k, x] of Object.entries(c.expected.memory)) {
      close(m[k === "kv_cache" ? "kv_cache" : k] + 1, x + 1, `${c.why}: ${k}`);
    }
    assert.equal(m.fits, c.expected.fits, c.why);
  }
});

test("the readout and the waterfall's text and labels are the templates filled", () => {
  for (const c of CASES) {
    const e = entryOf(c.state);
    const v = bv.viewAt(P, e, c.state);
    assert.equal(bv.readoutAt(P, e, v, c.state), c.expected.readout, c.why);
    assert.equal(bv.waterfallLines(v, P), c.expected.wf, c.why);
    const bars = bv.barsAt(v, P);
    if (c.expected.fits) {
      assert.deepEqual(bars.text.slice(1, -1), c.expected.bars, c.why);
    } else {
      // A step that does not fit shows no time: empty bars, and across the middle row how
      // much memory it lacks.
      assert.ok(bars.right.every((x) => x === 0), c.why);
      assert.deepEqual(bars.text.filter(Boolean),
                       [bv.fillText(P.texts.bar_misfit, { overflow: v.memory.overflow })]);
      assert.equal(bars.text.indexOf(bars.text.find(Boolean)), Math.floor(P.rows.length / 2));
      assert.ok(bv.classMs(P, e, v.parts, v.fits).every((x) => x === 0));
    }
  }
});

test("the drops shown add up to 100 % minus the MFU shown", () => {
  for (const c of CASES.filter((x) => x.expected.fits)) {
    const bars = bv.barsAt(viewOf(c.state), P);
    const drops = bars.right.slice(1, -1).reduce((s, hi, i) => s + hi - bars.left[i + 1], 0);
    close(100 - drops, bars.right[bars.right.length - 1], c.why);
  }
});

test("any order of the causes gives each the same loss (order-independent attribution)", () => {
  const times = [["a", 0.3], ["b", 2.5], ["c", 0], ["d", 1e-3], ["e", 7]];
  const base = Object.fromEntries(bv.lossLevels(1.2, times)
    .map((t) => [t.key, t.before - t.after]));
  let seed = 7;
  for (let n = 0; n < 200; n++) {
    const shuffled = times.slice();
    for (let i = shuffled.length - 1; i > 0; i--) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const j = seed % (i + 1);
      [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
    }
    for (const t of bv.lossLevels(1.2, shuffled)) close(t.before - t.after, base[t.key], t.key);
  }
});

test("a waterfall label: left of its drop, right where the left has no room, else inside", () => {
  const room = P.label_room;
  assert.deepEqual(bv.labelSpot(false, 0, 47, P), [47, "left", 4]);
  assert.deepEqual(bv.labelSpot(true, room, 60, P), [room, "right", -4]);
  assert.deepEqual(bv.labelSpot(true, room - 1, P.wf_end - room, P), [P.wf_end - room, "left", 4]);
  assert.deepEqual(bv.labelSpot(true, 1, 100, P), [50.5, "center", 0]);
  // Batch-1 decode loses nearly all of peak to one cause: its label goes inside the bar.
  const decode = CASES.find((c) => c.state.phase === "decode" && c.state.batch === 1
                            && c.expected.fits);
  assert.ok(bv.barsAt(viewOf(decode.state), P).align.includes("center"));
});

test("a slider value snaps to its knob's nearest step, within the table", () => {
  const k = P.knobs.efficiency;
  assert.equal(k.values[bv.snapIndex(k, 0.73)], 0.75);
  assert.equal(bv.snapIndex(k, 9), k.table.length - 1);
  assert.equal(bv.snapIndex(k, -3), 0);
  assert.equal(bv.snapIndex(k, "abc"), 0);
  assert.equal(k.values[bv.snapIndex(k, 0.7)], 0.7);
});

test("templates fill with format.mjs's formatting and leave other text alone", () => {
  assert.equal(bv.fillText("{a:percent} in {b:seconds}, {c:capacity}, {d:num}, {e}",
                           { a: 0.4709, b: 1.1228, c: 43.5e9, d: 3.9012, e: "x" }),
               "47.1% in 1.12 s, 43.5 GB, 3.9, x");
  assert.equal(bv.fillText("no fields: {}", {}), "no fields: {}");
});

test("fusion checkboxes map to the precomputed combination", () => {
  assert.equal(bv.comboIndex([]), 0);
  assert.equal(bv.comboIndex([0, 3]), 9);
  assert.equal(bv.comboIndex([3, 2, 1, 0]), 15);
  assert.equal(bv.comboIndex([7, -1, 1.5]), 0);
});

const KNOWN = {
  models: ["llama-2-7b", "llama-3-8b"], phases: ["train", "prefill", "decode"],
  fusions: ["norm", "epilogue", "residual", "flash"],
  limits: { efficiency: [0.3, 1], launch_us: [0, 50], dp: [1, 1024], overlap: [0, 1] },
};

test("URL state: known ids kept, numbers clamped, hostile values ignored", () => {
  const st = bj.parseState("?model=llama-3-8b&phase=decode&batch=32&fuse=flash,norm,evil" +
                           "&eff=7&launch=-3&dp=1e9&overlap=0.25", "", KNOWN);
  assert.deepEqual(st, { model: "llama-3-8b", phase: "decode", batch: 32,
                         fuse: ["flash", "norm"], eff: 1, overlap: 0.25, dp: 1024 });
  const bad = bj.parseState("?model=<img src=x onerror=alert(1)>&phase=serve&batch=4;x" +
                            "&eff=NaN&dp=Infinity&overlap=%E0%A4%A", "#launch=abc", KNOWN);
  assert.deepEqual(bad, {});
  assert.deepEqual(bj.parseState("?model=llama-2-7b", "#model=llama-3-8b", KNOWN),
                   { model: "llama-3-8b" });
});

test("the URL keeps the page's other parameters", () => {
  const q = bj.stateQuery("?hardware=h200&ai=12&model=old", {
    model: "llama-2-7b", phase: "train", batch: 4, fuse: ["norm", "flash"], eff: 0.7,
    launch: 4, dp: 8, overlap: 0.8 });
  assert.equal(q, "?hardware=h200&ai=12&model=llama-2-7b&phase=train&batch=4" +
                  "&fuse=norm%2Cflash&eff=0.7&launch=4&dp=8&overlap=0.8");
  assert.deepEqual(bj.parseState(q, "", KNOWN), { model: "llama-2-7b", phase: "train", batch: 4,
                   fuse: ["norm", "flash"], eff: 0.7, launch: 4, dp: 8, overlap: 0.8 });
});

test("a URL's data-parallel degree snaps to the nearest listed one", () => {
  const opts = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
  assert.equal(bj.nearestOption(opts, 1024), 1024);
  assert.equal(bj.nearestOption(opts, 5), 4);
  assert.equal(bj.nearestOption(opts, 7), 8);
  assert.equal(bj.nearestOption(opts, 1), 1);
});
