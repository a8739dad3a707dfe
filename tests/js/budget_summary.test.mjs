// The budget explorer's summary (#49): the waterfall's figures as a table in the page's type
// (budget_view.mjs waterfallHtml), not a plain-text dump, saying what the text lines say; and
// the key to the op-class chart's pale bars, a line of the readout whenever the step fits (so
// the static first frame and paper carry it too). Against tests/cases/budget_cases.jsonl.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import * as bv from "../../site_src/roofline/widgets/budget/budget_view.mjs";

const LINES = readFileSync(new URL("../cases/budget_cases.jsonl", import.meta.url), "utf8")
  .trim().split("\n").map((l) => JSON.parse(l));
const P = LINES[0].payload;
const CASES = LINES.slice(1);
const viewOf = (st) => bv.viewAt(P, P.combos[`${st.model}|${st.phase}|${st.batch}`][st.mask], st);
const plain = (html) => html.replace(/<[^>]+>/g, "\u0001").split("\u0001").filter(Boolean);
const active = (mask) => [0, 1, 2, 3].filter((i) => (mask >> i) & 1);

// The table's cells, row by row: what the text lines say, cell for cell.
function summaryFaults(html, lines) {
  if (!html.startsWith("<table")) return html.includes(lines) ? [] : ["misfit text lost"];
  const rows = [...html.matchAll(/<tr>(.*?)<\/tr>/g)].map((m) => plain(m[1]));
  const [head, ...body] = lines.split("\n");
  const foot = body.pop();
  const out = [];
  if (!html.includes(`<caption>${head}</caption>`)) out.push("no caption");
  if (rows.length !== body.length + 2) out.push(`${rows.length - 2} rows for ${body.length}`);
  body.forEach((line, i) => {
    const [label, drop, time] = rows[i + 1] || [];
    if (`${label}: ${drop} of step time (${time})` !== line) out.push(`row ${i}: ${rows[i + 1]} vs ${line}`);
  });
  if ((rows.at(-1) || [])[0] !== foot) out.push("no MFU at the foot");
  return out;
}

test("the summary is a table of the waterfall's causes, the MFU at its foot", () => {
  for (const c of CASES) {
    const v = viewOf(c.state);
    const html = bv.waterfallHtml(v, P);
    assert.deepEqual(summaryFaults(html, bv.waterfallLines(v, P)), [], c.why);
    assert.ok(v.fits ? html.includes('class="rl-wf"') : html.includes("rl-wf-none"), c.why);
  }
});

test("seeded: a summary missing a cause, or with a figure changed, is reported", () => {
  const c = CASES.find((x) => x.expected.fits);
  const v = viewOf(c.state);
  const html = bv.waterfallHtml(v, P), lines = bv.waterfallLines(v, P);
  const dropped = html.replace(/<tbody><tr>.*?<\/tr>/, "<tbody>");
  assert.ok(summaryFaults(dropped, lines).some((f) => f.includes("rows for")));
  const changed = html.replace(/(<td>)[^<]*(%<\/td>)/, "$19.99$2");
  assert.ok(summaryFaults(changed, lines).some((f) => f.startsWith("row 0")));
});

test("a cause's name is text, never markup", () => {
  const c = CASES.find((x) => x.expected.fits);
  const v = viewOf(c.state);
  const key = v.terms[0].key;
  const html = bv.waterfallHtml(v, { ...P, labels: { ...P.labels, [key]: "a <b> & c" } });
  assert.ok(html.includes("a &lt;b&gt; &amp; c") && !html.includes("<b>"));
});

test("the readout keys the op-class chart's pale bars whenever the step fits", () => {
  for (const c of CASES) {
    const f = bv.frameAt(P, { ...c.state, active: active(c.state.mask) });
    assert.equal(f.readout.endsWith(`\n${bv.CLASS_KEY}`), f.fits, c.why);
    assert.equal(f.summary, bv.waterfallHtml(viewOf(c.state), P), c.why);
  }
  assert.match(bv.CLASS_KEY, /solid.*pale/);
});
