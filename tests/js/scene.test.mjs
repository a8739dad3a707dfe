// The scene the live plot draws (scene.mjs `scene`, `marker`) against
// tests/cases/scene_cases.json, written by its Python mirror (roofline.widgets.roofline.scene, which draws
// the build-time SVG): the two agree to 1e-9 on every number and exactly on every text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import * as sceneJs from "../../site_src/roofline/widgets/roofline/scene.mjs";
import * as tokensJs from "../../site_src/roofline/widgets/roofline/scene_tokens.mjs";
import * as lay from "../../site_src/roofline/render/js/labels.mjs";

const rl = { ...sceneJs, ...tokensJs };

const DATA = JSON.parse(readFileSync(new URL("../cases/scene_cases.json", import.meta.url)));

function same(actual, expected, path) {
  if (typeof expected === "number") {
    assert.equal(typeof actual, "number", `${path}: ${actual}`);
    const tol = 1e-9 * Math.max(Math.abs(expected), Math.abs(actual));
    assert.ok(Math.abs(actual - expected) <= tol, `${path}: ${actual} != ${expected}`);
  } else if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${path}: not a list`);
    assert.equal(actual.length, expected.length, `${path}: length`);
    expected.forEach((e, i) => same(actual[i], e, `${path}[${i}]`));
  } else if (expected !== null && typeof expected === "object") {
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), `${path}: keys`);
    for (const k of Object.keys(expected)) same(actual[k], expected[k], `${path}.${k}`);
  } else {
    assert.equal(actual, expected, path);
  }
}

test("the scene case file covers states, frames and label layouts", () => {
  assert.ok(DATA.cases.length >= 20);
  const labels = DATA.cases.flatMap((c) => c.scene.labels);
  assert.ok(labels.length >= 300 && labels.some((l) => !l.shown));
});

// A case's payload: the shared one, its ceilings and extent, and the tokens slider's block.
const payloadOf = (c) => ({ ...DATA.payload, ceilings: c.ceilings, y_extra: c.y_extra,
                            tokens: c.tokens ? DATA.tokens : null });

test("scene() and marker() equal the Python mirror", () => {
  for (const c of DATA.cases) {
    const P = payloadOf(c);
    const what = `${JSON.stringify(c.state)} ${c.frame} ${c.ceilings}`;
    same(rl.scene(P, c.state, c.frame), c.scene, what);
    [0.5, 10, 5000].forEach((ai, i) => same(rl.marker(P, c.state, ai), c.markers[i], what));
  }
});

test("shown labels stay inside the frame and never overlap", () => {
  for (const c of DATA.cases) {
    const P = payloadOf(c);
    const boxes = rl.scene(P, c.state, c.frame).labels.filter((l) => l.shown).map((l) => l.box);
    for (const [i, b] of boxes.entries()) {
      assert.ok(b[0] >= 0 && b[1] >= 0 && b[2] <= c.frame[0] && b[3] <= c.frame[1]);
      for (const o of boxes.slice(i + 1)) assert.ok(!lay.overlaps(b, o, 0), `${b} ~ ${o}`);
    }
  }
});

// The reader's marker (r 8 px, 2 px ring) as the box labels keep off when the scene knows the AI.
function markerBox(P, c) {
  const S = rl.scene(P, c.state, c.frame), m = rl.marker(P, c.state, c.state.ai);
  const [px, py] = lay.toPx(m.x, m.y, S.x, S.y, c.frame[0], c.frame[1]);
  const r = rl.MARKER_KEEP_PX;
  return [px - r, py - r, px + r, py + r];
}
const onMarker = (P, c, st) => rl.scene(P, st, c.frame).labels
  .filter((l) => l.shown && lay.overlaps(l.box, markerBox(P, c), 0)).map((l) => l.text);
const shownOf = (P, c, st) => rl.scene(P, st, c.frame).labels.filter((l) => l.shown).length;

test("with the slider's AI known, no label lies under the marker unless that would lose one", () => {
  const cases = DATA.cases.filter((c) => c.state.ai);
  assert.ok(cases.length >= 4);
  let seeded = 0;
  for (const c of cases) {
    const P = payloadOf(c), { ai, ...blind } = c.state;
    const what = JSON.stringify(c.state);
    // Seeded: the same scene laid out without the AI puts a name under the marker.
    const before = onMarker(P, c, blind);
    if (before.length) seeded += 1;
    const after = onMarker(P, c, c.state);
    assert.ok(after.length === 0 || shownOf(P, c, c.state) === shownOf(P, c, blind) &&
              after.length <= before.length, `${what}: ${after}`);
    assert.ok(shownOf(P, c, c.state) >= shownOf(P, c, blind), `${what}: a name lost`);
  }
  assert.ok(seeded >= 4, `only ${seeded} cases had a name under the marker without the AI`);
  assert.ok(cases.filter((c) => onMarker(payloadOf(c), c, c.state).length === 0).length >= 4);
});

test("a seeded collision is caught by the overlap check the layout relies on", () => {
  const a = lay.labelBox("GEMM (training)", 11, 100, 100, { dx: 6, dy: 7, align: "left",
                                                          baseline: "bottom" });
  const b = lay.labelBox("Softmax", 11, 120, 100, { dx: 6, dy: 7, align: "left",
                                                  baseline: "bottom" });
  assert.ok(lay.overlaps(a, b, 0));
  const [l1, l2] = lay.layoutLabels(
    [{ x: 1, y: 1, text: "aaaa", size: 11, at: [{ dx: 0, dy: 0, align: "left", baseline: "top" }] },
     { x: 1, y: 1, text: "bbbb", size: 11, at: [{ dx: 0, dy: 0, align: "left", baseline: "top" }] }],
    [0.1, 10], [0.1, 10], 200, 200);
  assert.equal(l1.shown, true);
  assert.equal(l2.shown, false);
});

test("tokens slider: its ops' costs, the readout's notes and the launch floor equal Python's", () => {
  const cases = DATA.cases.filter((c) => c.tokens);
  assert.ok(cases.length >= 15);
  let floors = 0;
  for (const c of cases) {
    const P = payloadOf(c);
    const st = c.state;
    const hw = P.hardware[st.hardware];
    const what = JSON.stringify(st);
    const costs = Object.fromEntries(Object.entries(rl.tokensOps(P, st.precision, st.tokens))
      .map(([id, op]) => [id, op.cost[st.precision]]));
    same(costs, c.costs, `${what} costs`);
    const notes = rl.launchNote(P, st, hw.peaks[st.precision], hw.bw) + rl.tokensNote(P, st);
    assert.equal(notes, c.notes, what);
    assert.deepEqual(rl.overheadVerdict(P, st, hw.peaks[st.precision], hw.bw), c.overhead, what);
    if (c.scene.launch.x.length) floors += 1;
  }
  assert.ok(floors >= 5, `${floors} cases draw a launch floor`);
  assert.ok(cases.some((c) => c.overhead) && cases.some((c) => c.state.op && !c.overhead));
  // decode at batch 1 is memory-bound, a training step's projections compute-bound
  const at = (t) => cases.find((c) => c.state.tokens === t && c.state.op === "gate_proj");
  assert.equal(at(1).scene.projections.color.at(-1), DATA.payload.colors.memory);
  assert.equal(at(32768).scene.projections.color.at(-1), DATA.payload.colors.compute);
});

test("seeded: a launch floor that ignores the op's FLOPs is caught by the case check", () => {
  const c = DATA.cases.find((x) => x.tokens && x.scene.launch.x.length);
  const P = { ...payloadOf(c), launch: { ...DATA.payload.launch, seconds: 2e-6 } };
  assert.notDeepEqual(rl.scene(P, c.state, c.frame).launch.y, c.scene.launch.y);
});

test("tokens from the URL: whole numbers in range only, the hash first", () => {
  const max = DATA.tokens.max;
  assert.equal(rl.parseTokens("?tokens=256", "", max), 256);
  assert.equal(rl.parseTokens("?tokens=256", "#tokens=4096", max), 4096);
  for (const bad of ["?tokens=0", "?tokens=-1", "?tokens=1e3", "?tokens=2.5", `?tokens=${max * 2}`,
                     "?tokens=<script>", "?tokens=12abc", "?xtokens=5"]) {
    assert.equal(rl.parseTokens(bad, "", max), null, bad);
  }
  assert.equal(rl.tokensAtSlider(0), 1);
  assert.equal(rl.tokensAtSlider(Math.log2(4096)), 4096);
});

test("tokens from hostile URLs: every shared payload gives null or a whole number in range", () => {
  const H = JSON.parse(readFileSync(new URL("../cases/hostile_urls.json", import.meta.url)));
  const max = DATA.tokens.max;
  let n = 0;
  for (const p of [...H.scripts, ...H.numbers, ...H.ids]) {
    for (const [search, hash] of [[`?tokens=${encodeURIComponent(p)}`, ""],
                                  ["", `#tokens=${encodeURIComponent(p)}`],
                                  [`?tokens=${p}`, ""]]) {
      const t = rl.parseTokens(search, hash, max);
      assert.ok(t === null || (Number.isInteger(t) && t >= 1 && t <= max), `${search}${hash}: ${t}`);
      n += 1;
    }
  }
  assert.ok(n >= 100, `${n} cases`);
  // seeded: a parser that trusts the number would let these through
  const loose = (s) => Number(/tokens=([^&#]*)/.exec(s)[1]);
  assert.ok([...H.numbers].some((p) => {
    const v = loose(`?tokens=${p}`);
    return !(Number.isInteger(v) && v >= 1 && v <= max);
  }));
});

// Leader lines: a point's name farther than LEADER_PX from it is tied to it, from the point's
// edge to the nearest point of its box; one close by, or a label naming no point, is not.
test("a name moved away from its point gets a leader line, a near one none", () => {
  const xr = [0.01, 10000], yr = [0.01, 1000], w = 600, h = 300;
  const [px, py] = lay.toPx(1, 1, xr, yr, w, h);
  const at = (key, dy) => ({ key, x: 1, y: 1, shown: true, box: [px - 20, py - dy - 14, px + 20, py - dy] });
  const L = lay.leaderLines([at("op-near", 8), at("op-far", 40), at("roof", 40),
                             { ...at("proj-hidden", 60), shown: false }], xr, yr, w, h);
  assert.equal(L.x0.length, 1);
  const [ax, ay] = lay.toPx(L.x0[0], L.y0[0], xr, yr, w, h);
  const [bx, by] = lay.toPx(L.x1[0], L.y1[0], xr, yr, w, h);
  assert.ok(Math.abs(ax - px) < 1e-6 && Math.abs(ay - (py - lay.POINT_R - 1)) < 1e-6, `${ax},${ay}`);
  assert.ok(Math.abs(bx - px) < 1e-6 && Math.abs(by - (py - 40)) < 1e-6, `${bx},${by}`);
});

test("every scene's far op labels have leaders, and only they", () => {
  let total = 0;
  for (const c of DATA.cases) {
    const S = rl.scene(payloadOf(c), c.state, c.frame);
    const far = S.labels.filter((l) => l.shown && lay.namesPoint(l) && (() => {
      const [px, py] = lay.toPx(l.x, l.y, S.x, S.y, c.frame[0], c.frame[1]);
      const b = l.box;
      const dx = px - Math.min(Math.max(px, b[0]), b[2]);
      const dy = py - Math.min(Math.max(py, b[1]), b[3]);
      return Math.hypot(dx, dy) > lay.LEADER_PX;
    })());
    assert.equal(S.leaders.x0.length, far.length);
    total += far.length;
  }
  assert.ok(total >= 20, `${total} leaders in all cases`);
});

// Lines are a preference: a label takes its first place clear of the lines it is given (in its
// first CLEAR_OF_LINES places), else its first free place across one; never none for a line.
test("labels keep off lines where they can, and cross one rather than vanish", () => {
  assert.ok(lay.crosses([0, 5, 10, 5], [2, 0, 8, 10]));
  assert.ok(!lay.crosses([0, 12, 10, 12], [2, 0, 8, 10]));
  assert.ok(lay.crosses([0, 0, 10, 10], [4, 4, 6, 6]) && !lay.crosses([0, 10, 3, 7], [4, 4, 6, 6]));
  const xr = [1, 100], yr = [1, 100], w = 200, h = 200;
  const label = (at) => [{ key: "op-a", x: 10, y: 10, size: 10, style: "normal", text: "abc", at }];
  const at = [{ dx: 5, dy: 5, align: "left", baseline: "bottom" },
              { dx: 5, dy: -5, align: "left", baseline: "top" }];
  const flat = [[[1, 100], [12, 12]]]; // a line just over the point: the label goes under it
  const [l] = lay.layoutLabels(label(at), xr, yr, w, h, { x: [], y: [], lines: flat }, [], null);
  assert.equal(l.baseline, "top");
  const both = flat.concat([[[1, 100], [8, 8]]]); // lines over and under: it crosses one
  const [m] = lay.layoutLabels(label(at), xr, yr, w, h, { x: [], y: [], lines: both }, [], null);
  assert.ok(m.shown && m.baseline === "bottom");
});
