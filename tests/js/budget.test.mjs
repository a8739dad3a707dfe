// The budget widget's JS helpers against the shared case file (pytest checks the same file
// against roofline.budget): the file the browser runs is the file imported here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import * as bj from "../../site_src/roofline/widgets/budget/budget.mjs";
import * as bv from "../../site_src/roofline/widgets/budget/budget_view.mjs";
import * as fmt from "../../site_src/roofline/render/js/format.mjs";

const CASES = JSON.parse(readFileSync(new URL("../cases/budget_cases.json", import.meta.url)));
const P = CASES.payload;
const LABELS = P.labels;
const ROWS = P.rows;

function close(actual, expected, what) {
  const tol = 1e-9 * Math.max(Math.abs(expected), Math.abs(actual));
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} != ${expected}`);
}

const viewOf = (c) => bv.budgetView(P, c.entry, c.state);

test("the case file holds at least 40 views and the formatting cases", () => {
  assert.ok(CASES.views.length >= 40);
  assert.ok(CASES.format.length >= 40);
  // Both sides of the memory check occur: cases that fit and cases that do not.
  assert.ok(CASES.views.some((c) => c.expected.fits) && CASES.views.some((c) => !c.expected.fits));
});

test("waterfall, bound, MFU and memory agree with roofline.budget / roofline.memory to 1e-9", () => {
  for (const c of CASES.views) {
    const v = viewOf(c);
    const what = `${c.state.model}/${c.state.phase}/${c.state.batch}/${c.fusions}`;
    assert.deepEqual(v.terms.map((t) => t.key), c.expected.terms.map((t) => t.key));
    v.terms.forEach((t, i) => {
      const e = c.expected.terms[i];
      close(t.time, e.time, `${what} ${t.key} time`);
      close(t.before, e.before, `${what} ${t.key} before`);
      close(t.after, e.after, `${what} ${t.key} after`);
    });
    close(v.bound, c.expected.bound, `${what} bound`);
    close(v.mfu, c.expected.mfu, `${what} mfu`);
    close(v.allreduce, c.expected.allreduce, `${what} allreduce`);
    for (const k of ["weights", "gradients", "optimizer", "activations", "kv_cache", "total",
                     "capacity", "overflow"]) {
      close(v.memory[k], c.expected.memory[k], `${what} memory ${k}`);
    }
    assert.equal(v.fits, c.expected.fits, `${what} fits`);
    assert.deepEqual(v.fix, c.expected.fix, `${what} fix`);
  }
});

test("the waterfall's losses add up to 100 % minus the MFU, each in proportion to its time", () => {
  for (const c of CASES.views) {
    const v = viewOf(c);
    const drops = v.terms.reduce((s, t) => s + (t.before - t.after), 0);
    close(1 - drops, v.mfu, `${c.state.model}/${c.state.phase}`);
    const total = c.entry.ideal + v.terms.reduce((s, t) => s + t.time, 0);
    for (const t of v.terms) close(t.before - t.after + 1, t.time / total + 1, t.key);
    assert.ok(v.mfu > 0 && v.mfu <= v.bound && v.bound <= 1);
  }
});

test("any order of the causes gives each the same loss (order-independent attribution)", () => {
  const times = [["a", 0.3], ["b", 2.5], ["c", 0], ["d", 1e-3], ["e", 7]];
  const base = Object.fromEntries(bv.waterfallTerms(1.2, times).map((t) => [t.key, t.before - t.after]));
  let seed = 7;
  for (let n = 0; n < 200; n++) {
    const shuffled = times.slice();
    for (let i = shuffled.length - 1; i > 0; i--) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const j = seed % (i + 1);
      [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
    }
    for (const t of bv.waterfallTerms(1.2, shuffled)) close(t.before - t.after, base[t.key], t.key);
  }
});

test("waterfall bars, text and readout are what Python draws", () => {
  for (const c of CASES.views) {
    const v = viewOf(c);
    const bars = bv.waterfallBars(v, ROWS, LABELS);
    assert.deepEqual(bars.row, c.expected.bars.row);
    assert.deepEqual(bars.text, c.expected.bars.text);
    assert.deepEqual(bars.color, c.expected.bars.color);
    assert.deepEqual(bars.align, c.expected.bars.align);
    assert.deepEqual(bars.dx, c.expected.bars.dx);
    bars.tx.forEach((x, i) => close(x, c.expected.bars.tx[i], "tx"));
    bars.right.forEach((x, i) => close(x, c.expected.bars.right[i], "right"));
    bars.left.forEach((x, i) => close(x, c.expected.bars.left[i], "left"));
    assert.equal(bv.waterfallText(v, LABELS), c.expected.text);
    assert.equal(bv.readoutText(P, c.entry, v, c.state.model, c.state.phase, c.state.batch),
                 c.expected.readout);
  }
});

test("a step that does not fit shows no time: empty bars, a plain 'does not fit'", () => {
  const misfits = CASES.views.filter((c) => !c.expected.fits);
  assert.ok(misfits.length > 0);
  for (const c of misfits) {
    const v = viewOf(c);
    const bars = bv.waterfallBars(v, ROWS, LABELS);
    assert.ok(bars.right.every((x) => x === 0));
    assert.ok(!/\d+ (ms|s|µs)\b/.test(bars.text.join(" ") + bv.waterfallText(v, LABELS)));
    const text = bv.readoutText(P, c.entry, v, c.state.model, c.state.phase, c.state.batch);
    assert.ok(text.startsWith("Does not fit: ") && text.includes(" more than its "), text);
  }
});

test("every reachable memory state gets roofline.memory's verdict (issue #13)", () => {
  assert.ok(CASES.reachable.length > 2000);
  let misfits = 0;
  for (const [model, phase, batch, flash, dp, zero, recompute, total, fits] of CASES.reachable) {
    const m = bv.stepMemory(P, model, phase, batch, flash, phase === "train" ? dp : 1, zero,
                            recompute);
    close(m.total, total, `${model}/${phase}/${batch}/${flash}/${dp}/${zero}/${recompute}`);
    assert.equal(m.fits, fits);
    if (!fits) misfits += 1;
  }
  assert.ok(misfits > 500, `${misfits}`);
});

test("formatting matches roofline.fmt", () => {
  for (const c of CASES.format) assert.equal(fmt[c.fn](...c.args), c.out, `${c.fn}(${c.args})`);
});

test("fusion checkboxes map to the precomputed combination", () => {
  assert.equal(bv.maskOf([]), 0);
  assert.equal(bv.maskOf([0, 3]), 9);
  assert.equal(bv.maskOf([3, 2, 1, 0]), 15);
  assert.equal(bv.maskOf([7, -1, 1.5]), 0);
  for (const c of CASES.views) assert.ok(c.state.mask >= 0 && c.state.mask < 16);
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

test("the all-reduce is a ring: nothing on one GPU, 2 (N-1)/N of the gradients otherwise", () => {
  assert.equal(bv.allreduceTime(1e9, 2, 1, 450e9), 0);
  close(bv.allreduceTime(1e9, 2, 8, 450e9), 2 * 7 / 8 * 2e9 / 450e9, "dp 8");
  assert.equal(bv.allreduceTime(1e9, 2, 8, 0), 0);
});

test("a URL's data-parallel degree snaps to the nearest listed one", () => {
  const opts = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
  assert.equal(bj.nearestOption(opts, 1024), 1024);
  assert.equal(bj.nearestOption(opts, 5), 4);
  assert.equal(bj.nearestOption(opts, 7), 8);
  assert.equal(bj.nearestOption(opts, 1), 1);
});
