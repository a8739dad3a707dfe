// The measurement overlay's labels are laid out by the scene's own label layout (labels.mjs),
// around the scene's labels and points, and off the scene's lines and the overlay's own roofs:
// checked over the bundled measurement in every chip and precision of the zoo payload, at
// desktop and phone frames, with a geometry checker apart from the layout. Plus a seeded
// collision the layout must avoid.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { labelColumns, layoutOverlay, overlayData } from "../../site_src/roofline/widgets/measurement/measure.mjs";
import { overlaps, segmentsOf, toPx } from "../../site_src/roofline/render/js/labels.mjs";
import { nearerOtherMark, readAsOne } from "./labelgate.mjs";
import { scene, sceneLines } from "../../site_src/roofline/widgets/roofline/scene.mjs";

const P = readFileSync(new URL("../cases/payloads.jsonl", import.meta.url), "utf8").split("\n")
  .filter(Boolean).map((l) => JSON.parse(l)).find((r) => r.name === "zoo").payload;
const bundled = JSON.parse(readFileSync(
  new URL("../../site_src/roofline/data/measurement-build-machine.json", import.meta.url)));

function enters(g, b) {
  const n = Math.max(2, Math.ceil(Math.hypot(g[2] - g[0], g[3] - g[1]) * 4));
  for (let i = 0; i <= n; i += 1) {
    const x = g[0] + (g[2] - g[0]) * i / n, y = g[1] + (g[3] - g[1]) * i / n;
    if (x > b[0] && x < b[2] && y > b[1] && y < b[3]) return true;
  }
  return false;
}

test("overlay labels meet no scene label, point, line or roof, and stay in the frame", () => {
  const problems = [];
  let shownTotal = 0;
  for (const [id, hw] of Object.entries(P.hardware)) {
    for (const precision of hw.precisions) {
      for (const frame of [[574, 336], [260, 330]]) {
        const st = { hardware: id, precision, vector: false, ai: 2 };
        const S = scene({ ...P, y_extra: [1e-6, 1e4] }, st, frame);
        const ov = overlayData(bundled, S.x[0], S.x[1]);
        const taken = S.labels.filter((l) => l.shown).map((l) => l.box);
        const lines = sceneLines(S.ceilings, S.vector, S.launch, S.roof);
        const placed = layoutOverlay(ov, S.x, S.y, frame[0], frame[1], taken, undefined, lines, S.points);
        const segs = segmentsOf(lines.concat(ov.roofs.xs.map((xs, i) => [xs, ov.roofs.ys[i]])),
                                S.x, S.y, frame[0], frame[1]);
        const shown = placed.filter((l) => l.shown);
        shownTotal += shown.length;
        for (const [i, l] of shown.entries()) {
          const b = l.box;
          const at = `${id} ${precision} ${frame}: '${l.text}'`;
          if (b[0] < 0 || b[1] < 0 || b[2] > frame[0] || b[3] > frame[1]) problems.push(`${at} leaves the frame`);
          for (const t of taken) if (overlaps(b, t, 0)) problems.push(`${at} on a scene label`);
          for (const g of segs) if (enters(g, b)) problems.push(`${at} crossed by a line`);
          for (const o of shown.slice(i + 1)) if (overlaps(b, o.box, 0)) problems.push(`${at} meets '${o.text}'`);
        }
        // the overlay's names against the overlay's and the scene's marks, and every label
        const px = (x, y) => toPx(x, y, S.x, S.y, frame[0], frame[1]);
        const marks = ov.points.x.map((x, i) => px(x, ov.points.y[i]))
          .concat(S.points.x.map((x, i) => px(x, S.points.y[i])));
        const named = shown.map((l) => ({ text: l.text, box: l.box,
                                          mark: /^measured-op-/.test(l.key) ? px(...l.mark) : null,
                                          marks: l.members && l.members.map((m) => px(m.x, m.y)) }));
        const all = named.concat(S.labels.filter((l) => l.shown).map((l) => ({ text: l.text, box: l.box })));
        for (const p of nearerOtherMark(named, marks).concat(readAsOne(all))) {
          problems.push(`${id} ${precision} ${frame}: ${p}`);
        }
      }
    }
  }
  assert.ok(shownTotal > 100, `${shownTotal} labels shown`);
  assert.deepEqual(problems.slice(0, 20), []);
});

test("seeded: a label whose only place is taken is left out, never drawn on top", () => {
  const overlay = { labels: { x: [], y: [], text: [], align: [], dy: [] },
                    points: { x: [1], y: [1], text: ["RMSNorm"] } };
  const free = layoutOverlay(overlay, [0.1, 10], [0.1, 10], 200, 200, []);
  assert.equal(free[0].shown, true);
  assert.equal(labelColumns(free).text.length, 1);
  // Take the whole frame: every candidate collides, so the label must not be shown.
  const none = layoutOverlay(overlay, [0.1, 10], [0.1, 10], 200, 200, [[0, 0, 200, 200]]);
  assert.equal(none[0].shown, false);
});
