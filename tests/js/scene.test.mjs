// The scene (scene.mjs) and its label layout (labels.mjs) have one copy, in JS: the live plot
// and the build-time static drawing both run it. So they are checked here by what a reader
// must see, in every state of every payload in tests/cases/payloads.jsonl (every chip,
// precision, vector toggle, a spread of AIs, desktop, medium and phone frames), with a
// geometry checker written apart from the layout: no label leaves the frame, meets another or
// is crossed by a drawn line (roofs, ceilings, the ridge, the AI line, the launch ceiling) or by
// another label's leader, and a name placed away from its point has a leader; no name lies
// nearer another mark than its own, and no two labels read as one phrase (labelgate.mjs).
// Seeded defects show the checker fails.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import * as sc from "../../site_src/roofline/widgets/roofline/scene.mjs";
import { toPx } from "../../site_src/roofline/render/js/labels.mjs";
import { nearerOtherMark, readAsOne } from "./labelgate.mjs";

const PAYLOADS = readFileSync(new URL("../cases/payloads.jsonl", import.meta.url), "utf8")
  .split("\n").filter(Boolean).map((l) => JSON.parse(l));
const FRAMES = [[574, 336], [366, 256], [206, 272], [260, 330]];

// Whether segment [x0, y0, x1, y1] enters the open box [l, t, r, b] (sampled: independent of
// the layout's clipping code, and exact enough at 0.25 px steps for boxes 12 px tall).
function segmentInBox(g, b) {
  const n = Math.max(2, Math.ceil(Math.hypot(g[2] - g[0], g[3] - g[1]) * 4));
  for (let i = 0; i <= n; i += 1) {
    const x = g[0] + (g[2] - g[0]) * i / n, y = g[1] + (g[3] - g[1]) * i / n;
    if (x > b[0] && x < b[2] && y > b[1] && y < b[3]) return true;
  }
  return false;
}

export function defects(S, st, frame) {
  const [w, h] = frame;
  const px = (x, y) => toPx(x, y, S.x, S.y, w, h);
  const segs = [];
  const poly = (xs, ys, what) => {
    for (let i = 1; i < xs.length; i += 1) segs.push([...px(xs[i - 1], ys[i - 1]), ...px(xs[i], ys[i]), what]);
  };
  poly(S.roof.x, S.roof.y, "roof");
  S.ceilings.xs.forEach((xs, i) => poly(xs, S.ceilings.ys[i], "ceiling"));
  if (S.vector.x.length) poly(S.vector.x, S.vector.y, "vector roof");
  if (S.launch.x.length) poly(S.launch.x, S.launch.y, "launch ceiling");
  poly([S.ridge, S.ridge], S.y, "ridge");
  if (st.ai > 0) poly([st.ai, st.ai], S.y, "AI line");
  const leaders = S.leaders.x0.map((x, i) => [...px(x, S.leaders.y0[i]), ...px(S.leaders.x1[i], S.leaders.y1[i])]);
  const shown = S.labels.filter((l) => l.shown);
  const out = [];
  for (const l of shown) {
    const b = l.box;
    if (b[0] < -0.01 || b[1] < -0.01 || b[2] > w + 0.01 || b[3] > h + 0.01) out.push(`'${l.text}' leaves the frame`);
    for (const g of segs) if (segmentInBox(g, b)) out.push(`the ${g[4]} crosses '${l.text}'`);
    for (const g of leaders) {
      // a label's own leader ends on its box's edge: it does not enter it
      if (segmentInBox(g, [b[0] + 0.5, b[1] + 0.5, b[2] - 0.5, b[3] - 0.5])) out.push(`a leader crosses '${l.text}'`);
    }
    if (/^(op|proj)-/.test(l.key)) {
      const [x, y] = px(...(l.mark || [l.x, l.y])); // the point it names
      const d = Math.hypot(x - Math.min(Math.max(x, b[0]), b[2]), y - Math.min(Math.max(y, b[1]), b[3]));
      const tied = leaders.some((g) => Math.hypot(g[0] - x, g[1] - y) < 6);
      if (d > 12 && !tied) out.push(`'${l.text}' is ${Math.round(d)} px from its point with no leader`);
    }
  }
  shown.forEach((a, i) => shown.slice(i + 1).forEach((c) => {
    const [p, q] = [a.box, c.box];
    if (p[0] < q[2] && q[0] < p[2] && p[1] < q[3] && q[1] < p[3]) out.push(`'${a.text}' meets '${c.text}'`);
  }));
  const marks = S.points.x.map((x, i) => px(x, S.points.y[i]))
    .concat(S.projections.x.map((x, i) => px(x, S.projections.y[i])));
  const named = shown.map((l) => ({ text: l.text, box: l.box,
                                    mark: /^(op|proj)-/.test(l.key) ? px(...(l.mark || [l.x, l.y])) : null,
                                    marks: l.members && l.members.map((m) => px(m.x, m.y)) }));
  return out.concat(nearerOtherMark(named, marks), readAsOne(named));
}

// Every chip × precision × vector toggle × a spread of AIs; with a tokens slider, also each of
// its marks' tokens with no op, a projection or the RMSNorm selected (its launch ceiling).
function* states(P) {
  const marks = P.tokens ? P.tokens.marks.map((m) => m.tokens) : [P.state.tokens];
  const ops = P.tokens ? [null, "input_layernorm", "gate_proj"] : [P.state.op];
  for (const [id, hw] of Object.entries(P.hardware)) {
    for (const precision of hw.precisions) {
      for (const vector of [false, true]) {
        for (const ai of [0.01, 2, 300, 10000]) {
          yield { hardware: id, precision, vector, ai, op: P.state.op, tokens: P.state.tokens };
        }
        if (!P.tokens || vector) continue;
        for (const tokens of marks) {
          for (const op of ops) yield { hardware: id, precision, vector, ai: 2, op, tokens };
        }
      }
    }
  }
}

test("in every state and frame, no label leaves the frame, meets another or is crossed", () => {
  let n = 0;
  const problems = [];
  for (const { name, payload: P } of PAYLOADS) {
    for (const st of states(P)) {
      for (const frame of FRAMES) {
        n += 1;
        const S = sc.scene(P, st, frame);
        for (const d of defects(S, st, frame)) {
          problems.push(`${name} ${st.hardware} ${st.precision} v=${st.vector} ai=${st.ai} ${frame}: ${d}`);
        }
      }
    }
  }
  assert.ok(n > 2000, `${n} scenes`);
  assert.deepEqual(problems.slice(0, 20), []);
});

test("at desktop width the roof, the slope and the ridge are named, and a selected op in bold", () => {
  for (const { name, payload: P } of PAYLOADS) {
    for (const st of states(P)) {
      const S = sc.scene(P, { ...st, ai: 2 }, FRAMES[0]);
      const shown = new Set(S.labels.filter((l) => l.shown).map((l) => l.key));
      // (with more than two extra ceilings the slopes crowd: the key under the plot names
      // the lines, widgets/roofline/static.key_html)
      const crowded = P.ceilings.filter((c) => c !== "vector" && c !== "hbm").length > 2;
      for (const k of crowded ? ["roof", "ridge"] : ["roof", "hbm", "ridge"]) {
        assert.ok(shown.has(k), `${name} ${st.hardware} ${st.precision}: ${k}`);
      }
      if (P.state.op && P.ops[P.state.op]) {
        const l = S.labels.find((x) => x.key === `op-${P.state.op}`);
        // (it leads its group's label where other points overlap it: "GEMM (training), 8")
        const first = l.text.split(", ")[0].replace(/ \+[0-9]+$/, "");
        assert.ok(l.shown && l.style === "bold" && P.ops[P.state.op].short.startsWith(first),
                  `${name} ${st.hardware} ${st.precision}: ${l.text}`);
      }
    }
  }
});

test("every op point is named or numbered; numbers are the ops' own, listed in the key", () => {
  const P = PAYLOADS.find((p) => p.name === "zoo").payload;
  const S = sc.scene(P, { ...P.state, ai: 2 }, FRAMES[0]);
  const ids = Object.keys(P.ops);
  const shown = S.labels.filter((x) => x.shown);
  let hidden = 0;
  ids.forEach((id, j) => {
    const l = shown.find((x) => (x.members || [x]).some((m) => m.key === `op-${id}`));
    if (!l) { hidden += 1; return; }
    const parts = l.text.split(", ");
    if (parts.includes(P.ops[id].short) || parts.includes(P.ops[id].short.split(" (")[0])) return;
    if (parts.includes(String(j + 1))) {
      assert.ok(S.key.some((k) => k.n === j + 1 && k.text === P.ops[id].label), `${id}: not in the key`);
    } else {
      hidden += 1; // a group's "+n": its tooltips name it
    }
  });
  assert.ok(hidden <= 3, `${hidden} ops unnamed`);
});

test("points whose markers overlap share one label, led by the selected op", () => {
  const P = PAYLOADS.find((p) => p.name === "lesson").payload;
  const S = sc.scene(P, { ...P.state, ai: 2 }, FRAMES[0]);
  const group = S.labels.find((l) => l.members && l.members.some((m) => m.key === "op-attention-train"));
  assert.ok(group && group.members.some((m) => m.key === "op-gemm-train"), "GEMM and attention (training) overlap");
  // one label for the group: no member is laid out on its own
  for (const m of group.members) assert.ok(!S.labels.some((l) => l !== group && l.key === m.key));
  const sel = sc.scene(P, { ...P.state, op: "attention-train", ai: 2 }, FRAMES[0]);
  const led = sel.labels.find((l) => l.members && l.members.some((m) => m.key === "op-gemm-train"));
  assert.equal(led.key, "op-attention-train");
  assert.equal(led.style, "bold");
});

test("the marker: on the roofline, or for a selected op at the FLOP/s its launch allows", () => {
  const P = PAYLOADS.find((p) => p.name === "lesson").payload;
  const hw = P.hardware["h100-sxm"];
  const none = sc.marker(P, { hardware: "h100-sxm", precision: "bf16", tokens: 1 }, 2);
  assert.equal(none.bound, "memory");
  assert.ok(Math.abs(none.y * 1e12 - 2 * hw.bw) < 1e-3 * 2 * hw.bw);
  const st = { hardware: "h100-sxm", precision: "bf16", op: "input_layernorm", tokens: 1 };
  const norm = P.tokens.ops.find((o) => o.id === "input_layernorm").cost.bf16;
  const [F, B] = [norm[0] + norm[1], norm[2] + norm[3]];
  const m = sc.marker(P, st, F / B);
  assert.equal(m.bound, "overhead");
  const want = F / (Math.max(F / hw.peaks.bf16, B / hw.bw) + P.launch.seconds);
  assert.ok(Math.abs(m.y * 1e12 - want) < 1e-9 * want, `${m.y}`);
  assert.equal(m.color, P.colors.overhead);
  // and the scene draws that as a flat line, labelled, the marker on it
  const S = sc.scene(P, { ...st, vector: false, ai: F / B }, FRAMES[0]);
  assert.ok(S.launch.y.length === 2 && Math.abs(S.launch.y[0] - m.y) < 1e-12 * m.y);
  assert.ok(S.labels.find((l) => l.key === "launch").shown);
  // a training GEMM's launch is nothing beside its roofline time: no line, the roof binds
  const big = { ...st, op: "gate_proj", tokens: 32768 };
  assert.equal(sc.scene(P, { ...big, vector: false, ai: 2 }, FRAMES[0]).launch.x.length, 0);
});

test("seeded: the checker reports a label on a line, on another label, outside, unled", () => {
  const P = PAYLOADS.find((p) => p.name === "zoo").payload;
  const st = { ...P.state, ai: 2 };
  const frame = FRAMES[0];
  const S = sc.scene(P, st, frame);
  assert.deepEqual(defects(S, st, frame), []);
  const roof = S.labels.find((l) => l.key === "roof");
  const [rx, ry] = toPx(S.ridge * 3, P.hardware[st.hardware].peaks[st.precision] / 1e12, S.x, S.y, ...frame);
  const on = (l, box) => ({ ...S, labels: S.labels.map((x) => (x === l ? { ...x, box } : x)) });
  assert.match(defects(on(roof, [rx - 20, ry - 6, rx + 40, ry + 6]), st, frame).join(), /the roof crosses/);
  const ridge = S.labels.find((l) => l.key === "ridge");
  assert.match(defects(on(ridge, roof.box), st, frame).join(), /meets/);
  assert.match(defects(on(ridge, [frame[0] - 10, 10, frame[0] + 50, 22]), st, frame).join(), /leaves the frame/);
  const named = S.labels.find((l) => l.key.startsWith("op-") && l.shown);
  const [x, y] = toPx(named.x, named.y, S.x, S.y, ...frame);
  const far = [x + 60, y - 80, x + 100, y - 68];
  const moved = { ...on(named, far), leaders: { x0: [], y0: [], x1: [], y1: [] } };
  assert.match(defects(moved, st, frame).join(), /with no leader/);
});

test("seeded: a name moved beside another op's point, and a number against the roof's label", () => {
  const P = PAYLOADS.find((p) => p.name === "lesson").payload;
  const st = { ...P.state, ai: 2 };
  const frame = FRAMES[0];
  const S = sc.scene(P, st, frame);
  assert.deepEqual(defects(S, st, frame), []);
  const on = (l, box) => ({ ...S, labels: S.labels.map((x) => (x === l ? { ...x, box } : x)) });
  // a shown op's name put right beside another op's point (far from every mark of its own)
  const ops = S.labels.filter((l) => l.key.startsWith("op-") && l.shown);
  const [a, b] = [ops[0], S.labels.find((l) => l.key.startsWith("op-")
    && Math.hypot(...toPx(l.x, l.y, S.x, S.y, ...frame).map((v, i) => v - toPx(...ops[0].mark, S.x, S.y, ...frame)[i])) > 40)];
  const [bx, by] = toPx(b.x, b.y, S.x, S.y, ...frame);
  const w = a.box[2] - a.box[0];
  assert.match(defects(on(a, [bx + 6, by - 20, bx + 6 + w, by - 7]), st, frame).join(),
               /nearer another mark/);
  // a number put 3 px after the roof's label, on its baseline: "BF16 roof 989 8"
  const roof = S.labels.find((l) => l.key === "roof");
  const num = [roof.box[2] + 3, roof.box[1] + 1, roof.box[2] + 11, roof.box[3] - 1];
  const seeded = { ...S, labels: S.labels.concat([{ key: "region", text: "8", box: num, shown: true }]) };
  assert.match(defects(seeded, st, frame).join(), /'.*roof.*' and '8' read as one/);
});
