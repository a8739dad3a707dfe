// The roofline's static drawing with a measurement's overlay (a roofline-measure document's
// roofs and ops) drawn over it: static.mjs's drawing, with measure.mjs's overlay laid out among
// the scene's labels. The build's entry for every static first frame (widgets/roofline/static.py);
// the live plot draws its overlay itself (measure.mjs) and needs none of this.
import { leaderLines } from "../../render/js/labels.mjs";
import { layoutOverlay, overlayData, yBounds } from "../measurement/measure.mjs";
import { X_PAD, sceneLines } from "./scene.mjs";
import { staticDrawings } from "./static.mjs";

// The y extent a measurement's overlay needs over the plot's x range (the payload's y_extra,
// so the first frame already has room for it).
export function overlayExtent(P, doc) {
  return yBounds(overlayData(doc, P.x[0] / X_PAD, P.x[1] * X_PAD));
}

// The overlay static.mjs staticSvg draws: the measured roofs (the scene's labels keep off them)
// and, once the scene is laid out, their lines, points and labels around the scene's.
export function measuredOverlay(P, doc) {
  const ov = overlayData(doc, P.x[0] / X_PAD, P.x[1] * X_PAD);
  const C = P.colors;
  return {
    roofs: ov.roofs.xs.map((xs, i) => [xs, ov.roofs.ys[i]]),
    draw(S, st, frame) {
      const lines = ov.roofs.xs.map((xs, i) => ({ x: xs, y: ov.roofs.ys[i], color: C.measured,
                                                  width: 2.5, dash: "10 4 2 4",
                                                  cls: "rl-measured" }));
      const points = ov.points.x.map((x, i) => ({ x, y: ov.points.y[i], r: 6.5, color: C.measured,
                                                  shape: "diamond", cls: "rl-measured-op" }));
      const avoid = sceneLines(S.ceilings, S.vector, S.launch, S.roof)
        .concat([[[S.ridge, S.ridge], S.y], [[st.ai, st.ai], S.y]]); // the ridge, the AI line
      const boxes = S.labels.filter((l) => l.shown).map((l) => l.box);
      const placed = layoutOverlay(ov, S.x, S.y, frame[0], frame[1], boxes, undefined, avoid,
                                   S.points);
      return { lines, points, labels: placed.map((l) => ({ ...l, color: C.measured })),
               leaders: leaderLines(placed, S.x, S.y, frame[0], frame[1]) };
    },
  };
}

// The first frame, with the measurement `doc` drawn over it if given: every width's drawing and
// the key.
export function staticFigure(P, heightPx, doc = null) {
  return staticDrawings(P, heightPx, doc ? measuredOverlay(P, doc) : null);
}
