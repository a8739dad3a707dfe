// Bokeh loads each callback module on its own (no relative imports), so the formatting helpers
// are repeated in roofline.mjs, budget.mjs and measure.mjs. This keeps the copies identical.
const FORMATTING = ["sig", "num", "si", "percent", "seconds", "tflops", "bandwidth"];
import { test } from "node:test";
import assert from "node:assert/strict";

const modules = {
  roofline: await import("../../site_src/roofline/plot/js/roofline.mjs"),
  budget: await import("../../site_src/roofline/plot/js/budget.mjs"),
  measure: await import("../../site_src/roofline/plot/js/measure.mjs"),
};

test("helpers shared between callback modules are identical copies", () => {
  const seen = new Map();
  for (const [name, mod] of Object.entries(modules)) {
    for (const [key, value] of Object.entries(mod)) {
      if (!FORMATTING.includes(key) || typeof value !== "function") continue;
      if (!seen.has(key)) seen.set(key, []);
      seen.get(key).push([name, value.toString()]);
    }
  }
  const shared = [...seen].filter(([, copies]) => copies.length > 1);
  assert.ok(shared.some(([key]) => key === "num"), "expected num() in several modules");
  for (const [key, copies] of shared) {
    for (const [name, source] of copies.slice(1)) {
      assert.equal(source, copies[0][1], `${key}() in ${name}.mjs differs from ${copies[0][0]}.mjs`);
    }
  }
});
