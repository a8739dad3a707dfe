// The budget widget's JS helpers against the shared case file (pytest checks the same file
// against roofline.budget): the file the browser runs is the file imported here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import * as bj from "../../site_src/roofline/plot/js/budget.mjs";

const CASES = JSON.parse(readFileSync(new URL("../cases/budget_cases.json", import.meta.url)));
const LABELS = {
  peak: "100 % of peak", memory: "memory-bound ops", attention: "attention",
  gemm: "GEMMs off the roof", bound: "= roofline MFU bound", efficiency: "kernels below roof",
  launch: "launch overhead", communication: "exposed all-reduce", mfu: "= MFU estimate",
};
const ROWS = Object.keys(LABELS);

function close(actual, expected, what) {
  const tol = 1e-9 * Math.max(Math.abs(expected), Math.abs(actual));
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} != ${expected}`);
}

function viewOf(c) {
  const a = c.assumptions;
  return bj.budgetView(c.entry, { efficiency: a.kernel_efficiency, launchS: a.launch_overhead_s,
                                  dp: a.dp_degree, overlap: a.overlap_fraction },
                       c.params, c.grad_bytes_per_element, c.link_bw, c.phase);
}

test("the case file holds at least 40 views and the formatting cases", () => {
  assert.ok(CASES.views.length >= 40);
  assert.ok(CASES.format.length >= 40);
});

test("waterfall levels, bound and MFU agree with roofline.budget to 1e-9", () => {
  for (const c of CASES.views) {
    const v = viewOf(c);
    const what = `${c.model}/${c.phase}/${c.batch}/${c.fusions}`;
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
  }
});

test("the waterfall's drops add up to 100 % minus the MFU it shows", () => {
  for (const c of CASES.views) {
    const v = viewOf(c);
    const drops = v.terms.reduce((s, t) => s + (t.before - t.after), 0);
    close(1 - drops, v.mfu, `${c.model}/${c.phase}`);
    assert.ok(v.mfu > 0 && v.mfu <= v.bound && v.bound <= 1);
  }
});

test("waterfall bars and text are what Python draws", () => {
  for (const c of CASES.views) {
    const v = viewOf(c);
    const bars = bj.waterfallBars(v, ROWS, LABELS);
    assert.deepEqual(bars.row, c.expected.bars.row);
    assert.deepEqual(bars.text, c.expected.bars.text);
    assert.deepEqual(bars.color, c.expected.bars.color);
    assert.deepEqual(bars.align, c.expected.bars.align);
    assert.deepEqual(bars.dx, c.expected.bars.dx);
    bars.tx.forEach((x, i) => close(x, c.expected.bars.tx[i], "tx"));
    bars.right.forEach((x, i) => close(x, c.expected.bars.right[i], "right"));
    bars.left.forEach((x, i) => close(x, c.expected.bars.left[i], "left"));
    assert.equal(bj.waterfallText(v, LABELS), c.expected.text);
  }
});

test("formatting matches roofline.fmt", () => {
  for (const c of CASES.format) assert.equal(bj[c.fn](...c.args), c.out, `${c.fn}(${c.args})`);
});

test("fusion checkboxes map to the precomputed combination", () => {
  assert.equal(bj.maskOf([]), 0);
  assert.equal(bj.maskOf([0, 3]), 9);
  assert.equal(bj.maskOf([3, 2, 1, 0]), 15);
  assert.equal(bj.maskOf([7, -1, 1.5]), 0);
  for (const c of CASES.views) assert.ok(c.mask >= 0 && c.mask < 16);
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
  assert.equal(bj.allreduceTime(1e9, 2, 1, 450e9), 0);
  close(bj.allreduceTime(1e9, 2, 8, 450e9), 2 * 7 / 8 * 2e9 / 450e9, "dp 8");
  assert.equal(bj.allreduceTime(1e9, 2, 8, 0), 0);
});

test("a URL's data-parallel degree snaps to the nearest listed one", () => {
  const opts = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
  assert.equal(bj.nearestOption(opts, 1024), 1024);
  assert.equal(bj.nearestOption(opts, 5), 4);
  assert.equal(bj.nearestOption(opts, 7), 8);
  assert.equal(bj.nearestOption(opts, 1), 1);
});
