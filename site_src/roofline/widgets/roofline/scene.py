"""The roofline widget's scene: what the plot shows for one state, as plain data.

The live plot is drawn by widgets/roofline/scene.mjs (`scene`, `marker` and their helpers); this
module is its mirror for the one drawing Python makes, the build-time SVG (plot/svg.py), and
for the texts the test cases pin. tests/cases/scene_cases.json holds this module's output for
many states; node checks scene.mjs against it to 1e-9, so the two cannot drift. No bokeh.

Coordinates: AI in FLOP/byte, performance in TFLOP/s; label offsets and boxes in px of a frame
of the given size (y down), placed from estimated text boxes (CHAR_W × font size per glyph).
"""

from __future__ import annotations

import math

from roofline import fmt
from roofline.model.maths import attainable, bound, intensity, ridge, time_lower_bound

# The label layout is plot/labels.py (the mirror of labels.mjs); its names stay importable
# from here, where the SVG, the overlay and the tests have always found them.
from roofline.render.labels import (CHAR_W, LEADER_PX, LINE_H, POINT_R, crosses, from_px,
    label_box, layout_labels, leader_lines, names_point, overlaps, to_px)


# ---------------------------------------------------------------- maths on payload dicts

def place(cost: list[float], peak: float, bw: float) -> dict:
    flops, bytes_ = cost
    ai = intensity(flops, bytes_)
    att = attainable(ai, peak, bw)
    return {"ai": ai, "attainable": att, "fraction": att / peak,
            "time": time_lower_bound(flops, bytes_, peak, bw), "bound": bound(ai, ridge(peak, bw))}


# ---------------------------------------------------------------- tokens per step, launch floor

def tokens_cost(coeffs: list[float], tokens: float) -> list[float]:
    """[FLOPs, bytes] at `tokens` per step of a tokens op's cost [f0, f1, b0, b1] (affine in
    the tokens, as transformer.layer_ops builds a layer; widgets/roofline.tokens_ops), and for
    routed experts [f0, f1, b0, b1, w, E, k]: plus the weights w of all E experts times the
    share of them T tokens touch, 1 − (1 − k/E)^T (roofline.model.moe)."""
    f0, f1, b0, b1, *experts = coeffs
    touched = 0.0
    if experts:
        w, e, k = experts
        touched = w * (1 - (1 - k / e) ** tokens)
    return [f0 + f1 * tokens, b0 + b1 * tokens + touched]


def tokens_ops(payload: dict, prec: str, tokens: float | None) -> dict:
    """The tokens slider's ops (the model's projection GEMMs and RMSNorm) at `tokens` per
    step, shaped like payload["ops"] entries."""
    t = payload.get("tokens")
    if not t or not tokens:
        return {}
    return {p["id"]: {"label": p["label"], "short": p["label"],
                      "cost": {prec: tokens_cost(p["cost"][prec], tokens)}} for p in t["ops"]}


def op_cost(payload: dict, st: dict) -> list[float] | None:
    """The selected op's [FLOPs, bytes] (a zoo op, or a projection at st["tokens"])."""
    op = st.get("op")
    if not op:
        return None
    if op in payload["ops"]:
        return payload["ops"][op]["cost"][st["precision"]]
    moved = tokens_ops(payload, st["precision"], st.get("tokens"))
    return moved[op]["cost"][st["precision"]] if op in moved else None


def launch_cap(payload: dict, cost: list[float] | None) -> float | None:
    """FLOP/s the launch floor allows an op of this cost: FLOPs / launch time."""
    launch = payload.get("launch")
    return cost[0] / launch["seconds"] if launch and cost else None


def launch_note(payload: dict, st: dict, peak: float, bw: float) -> str:
    """The readout's launch clause: only when the launch outlasts both roofline floors."""
    cost = op_cost(payload, st)
    launch = payload.get("launch")
    if not cost or not launch:
        return ""
    t = launch["seconds"]
    if t <= time_lower_bound(cost[0], cost[1], peak, bw):
        return ""
    return (f" · launch floor {fmt.seconds(t)} ({launch['basis']}) binds: overhead-bound, "
            f"≤ {fmt.tflops(cost[0] / t)}")


def overhead_verdict(payload: dict, st: dict, peak: float, bw: float) -> list[str] | None:
    """[class, text] when the selected op's launch outlasts both its roofline floors."""
    cost = op_cost(payload, st)
    launch = payload.get("launch")
    if not cost or not launch:
        return None
    floor = time_lower_bound(cost[0], cost[1], peak, bw)
    if launch["seconds"] <= floor:
        return None
    return ["overhead", f"Overhead-bound — its {fmt.seconds(launch['seconds'])} launch outlasts "
            f"its roofline floor of {fmt.seconds(floor)}"]


def tokens_note(payload: dict, st: dict) -> str:
    t = st.get("tokens") if payload.get("tokens") else None
    return f" · {fmt.num(t, 6)} token{'' if t == 1 else 's'} per step" if t else ""


def launch_bottom(payload: dict, prec: str) -> float:
    """With a tokens slider, the y range reaches down to half the smallest launch cap of its
    ops (at one token), so the floor of a batch-1 RMSNorm is on the plot (TFLOP/s)."""
    if not payload.get("tokens") or not payload.get("launch"):
        return math.inf
    return min(tokens_cost(p["cost"][prec], 1)[0] for p in payload["tokens"]["ops"]) / (
        payload["launch"]["seconds"] * 1e12 * 2)


def roof_xy(peak: float, bw: float, x0: float, x1: float) -> dict:
    """The roofline as a polyline in (FLOP/byte, TFLOP/s)."""
    r = ridge(peak, bw)
    if r <= x0:
        return {"x": [x0, x1], "y": [peak / 1e12, peak / 1e12]}
    if r >= x1:
        return {"x": [x0, x1], "y": [x0 * bw / 1e12, x1 * bw / 1e12]}
    return {"x": [x0, r, x1], "y": [x0 * bw / 1e12, peak / 1e12, peak / 1e12]}


def vector_for(hw: dict, prec: str) -> dict | None:
    """The vector roof for elementwise math in `prec` (fp32's where the chip gives none)."""
    return hw.get("vectors", {}).get(prec) or hw["vector"]


def y_range(hw: dict, prec: str, ceilings: list[str], x0: float,
            extra: list[float] | None = None) -> list[float]:
    """TFLOP/s from half the slowest slope's start to 4× the top roof, widened to `extra`
    (a measurement overlay's extent) if given."""
    bws = [hw["bw"]] + [t["bw"] for k, t in hw["tiers"].items() if k in ceilings]
    top = hw["peaks"][prec]
    v = vector_for(hw, prec)
    if v:
        top = max(top, v["peak"])
    lo, hi = x0 * min(bws) / 1e12 / 2, top * 4 / 1e12
    return [min(lo, extra[0]), max(hi, extra[1])] if extra else [lo, hi]


# ---------------------------------------------------------------- texts

def readout_text(hw: dict, precision: str, ai: float, op: str | None, ops: dict) -> str:
    peak, bw = hw["peaks"][precision], hw["bw"]
    att = attainable(ai, peak, bw)
    text = (f"AI {fmt.num(ai)} FLOP/byte · best {fmt.tflops(att)} · "
            f"{fmt.percent(att / peak)} of the {fmt.tflops(peak)} peak")
    if op is not None:
        name = ops[op].get("short") or op
        text += f" · {name} takes ≥ {fmt.seconds(place(ops[op]['cost'][precision], peak, bw)['time'])}"
    return text


def verdict_text(hw: dict, precision: str, ai: float) -> tuple[str, str]:
    r = hw["peaks"][precision] / hw["bw"]
    units = "tensor cores" if hw["units"][precision] == "tensor" else "ALUs"
    if ai < r:
        return "memory", f"Memory-bound — the {units} idle (ridge at {fmt.num(r)} FLOP/byte)"
    return "compute", f"Compute-bound — at the roof (ridge at {fmt.num(r)} FLOP/byte)"


def group_points(ais: list[float]) -> list[list[int]]:
    """Ops within ×1.1 of each other share one label, at the first op's point."""
    groups: list[list[int]] = []
    for i in sorted(range(len(ais)), key=lambda i: (ais[i], i)):
        if groups and ais[i] <= ais[groups[-1][0]] * 1.1:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def _above(dx: float, dy: float, align: str) -> dict:
    return {"dx": dx, "dy": dy, "align": align, "baseline": "bottom"}


def _below(dx: float, dy: float, align: str) -> dict:
    return {"dx": dx, "dy": -dy, "align": align, "baseline": "top"}


def _label(key: str, x: float, y: float, size: int, style: str, color: str, text: str,
           at: list[dict]) -> dict:
    return {"key": key, "x": x, "y": y, "size": size, "style": style, "color": color,
            "text": text, "at": at}


# ---------------------------------------------------------------- the scene

def scene(payload: dict, st: dict, frame: tuple[float, float]) -> dict:
    """st = {"hardware", "precision", "vector"} (and "op", "tokens"; "ai": labels keep off the
    reader's marker there); frame = (w, h) of the plot frame in px."""
    hw = payload["hardware"][st["hardware"]]
    prec = st["precision"]
    peak, bw = hw["peaks"][prec], hw["bw"]
    r = ridge(peak, bw)
    x0, x1 = payload["x"]
    yr = y_range(hw, prec, payload["ceilings"], x0, payload.get("y_extra"))
    yr[0] = min(yr[0], launch_bottom(payload, prec))
    colors = payload["colors"]
    slope = x0 * 1.3
    labels = [
        _label("roof", x1, peak / 1e12, 12, "normal", colors["roof"],
               f"{prec.upper()} roof {fmt.tflops(peak)}",
               [_above(-4, 6, "right"), _below(-4, 6, "right"), _above(-4, 20, "right")]),
        _label("hbm", slope, slope * bw / 1e12, 12, "normal", colors["roof"],
               f"{hw['hbm']} {fmt.bandwidth(bw)}",
               [_below(2, 5, "left"), _below(2, 18, "left"), _above(-10, 5, "left")]),
        _label("ridge", r, yr[0], 12, "bold", "ink", f"ridge {fmt.num(r)} FLOP/byte",
               [_above(-5, dy, "right") for dy in (6, 24, 42)]
               + [_above(5, dy, "left") for dy in (6, 24, 42)]
               # a narrow frame may have no room on either side: centred on the line
               + [_above(0, dy, "center") for dy in (6, 24, 42)]),
    ]
    ceilings: dict[str, list] = {"xs": [], "ys": [], "color": []}
    for kind in payload["ceilings"]:
        tier = hw["tiers"].get(kind)
        if kind in ("vector", "hbm") or tier is None:
            continue
        x_end = max(peak / tier["bw"], x0 * 1.0001)
        ceilings["xs"].append([x0, x_end])
        ceilings["ys"].append([x0 * tier["bw"] / 1e12, x_end * tier["bw"] / 1e12])
        ceilings["color"].append(colors[kind])
        labels.append(_label(f"ceiling-{kind}", slope, slope * tier["bw"] / 1e12, 11, "normal",
                             colors[kind], f"{payload['names'][kind]} {fmt.bandwidth(tier['bw'])}",
                             [_below(2, 5, "left"), _below(2, 17, "left"),
                              _above(-10, 5, "left")]))
    v = vector_for(hw, st["precision"])
    vector_on = bool(v) and bool(st["vector"])
    vector = roof_xy(v["peak"], bw, x0, x1) if vector_on else {"x": [], "y": []}
    if vector_on:
        labels.append(_label("vector", x1, v["peak"] / 1e12, 12, "normal", colors["vector"],
                             f"{v['label']} vector roof {fmt.tflops(v['peak'])}",
                             [_above(-4, 6, "right"), _below(-4, 6, "right"),
                              _below(-4, 20, "right")]))
    if r > x0 * 8:
        labels.append(_label("region", r, yr[1] / 1.6, 12, "italic", "muted", "memory-bound",
                             [{"dx": -6, "dy": dy, "align": "right", "baseline": "middle"}
                              for dy in (0, -16, -32, -48)]))
    ids = list(payload["ops"])
    placed = [place(payload["ops"][i]["cost"][prec], peak, bw) for i in ids]
    points = {"x": [p["ai"] for p in placed], "y": [p["attainable"] / 1e12 for p in placed],
              "op": ids}
    for g in group_points(points["x"]):
        for rank, j in enumerate(g):  # ops at one point stack their labels, one row each
            at = []
            for row in range(rank, rank + 8):
                dy = 7 + 14 * row
                at += [_above(6, dy, "left"), _above(-6, dy, "right"), _below(6, dy, "left"),
                       _below(-6, dy, "right"), _above(0, dy, "center"),
                       _below(0, dy, "center")]
            labels.append(_label(f"op-{ids[j]}", points["x"][g[0]], points["y"][g[0]], 11,
                                 "normal", "muted", payload["ops"][ids[j]]["short"], at))
    proj = _projections(payload, st, peak, bw, labels)
    launch = _launch(payload, st, peak, yr, labels)
    avoid = {"x": points["x"] + proj["x"], "y": points["y"] + proj["y"],
             "lines": scene_lines(ceilings, vector, launch, roof_xy(peak, bw, x0, x1)),
             "op_lines": [[[r, r], yr]]}  # op names keep off the ridge line too
    # The selected op's launch floor named first, then the other lines', then the points'
    # around them (a point's name has rows to move to; a line's has two or three places).
    labels = sorted(labels, key=lambda lab: (lab["key"] != "launch", names_point(lab)))
    laid = _clear_of_marker(lambda taken: layout_labels(labels, [x0, x1], yr, frame[0],
                                                         frame[1], avoid, taken),
                            _marker_boxes(payload, st, [x0, x1], yr, frame))
    return {"x": [x0, x1], "y": yr, "ridge": r, "memory": [x0, r], "roof": roof_xy(peak, bw, x0, x1),
            "ceilings": ceilings, "vector": vector, "points": points, "projections": proj,
            "launch": launch, "labels": laid,
            "leaders": leader_lines(laid, [x0, x1], yr, frame[0], frame[1])}


# The reader's marker (r 8 px and a 2 px white ring, drawn over the canvas): where the scene
# is laid out with the slider's AI known (st["ai"]), no label goes under it (scene.mjs).
MARKER_KEEP_PX = 9


def _clear_of_marker(layout, boxes: list) -> list[dict]:
    """Labels laid out clear of the marker, unless that leaves out a label that fits beside it
    (a name under the marker until the slider moves beats a name missing)."""
    laid = layout(boxes)
    if not boxes or all(lb["shown"] for lb in laid):  # nothing left out: done
        return laid
    without = layout([])
    return laid if sum(lb["shown"] for lb in laid) >= sum(lb["shown"] for lb in without) \
        else without


def _marker_boxes(payload: dict, st: dict, xr: list, yr: list, frame) -> list[list[float]]:
    ai = st.get("ai")
    if not ai or ai <= 0:
        return []
    m = marker(payload, st, ai)
    px, py = to_px(m["x"], m["y"], xr, yr, frame[0], frame[1])
    r = MARKER_KEEP_PX
    return [[px - r, py - r, px + r, py + r]]


def scene_lines(ceilings: dict, vector: dict, launch: dict, roof: dict) -> list:
    """The scene's drawn lines as polylines [[xs, ys], ...]: labels keep off them."""
    lines = [[roof["x"], roof["y"]]] + [[xs, ys] for xs, ys in zip(ceilings["xs"],
                                                                   ceilings["ys"])]
    return lines + [[d["x"], d["y"]] for d in (vector, launch) if d["x"]]


def _projections(payload: dict, st: dict, peak: float, bw: float, labels: list[dict]) -> dict:
    """The tokens slider's ops at st["tokens"]: points coloured by bound, labelled."""
    ops = tokens_ops(payload, st["precision"], st.get("tokens"))
    out: dict[str, list] = {"x": [], "y": [], "op": [], "color": []}
    for pid, op in ops.items():
        pl = place(op["cost"][st["precision"]], peak, bw)
        out["x"].append(pl["ai"])
        out["y"].append(pl["attainable"] / 1e12)
        out["op"].append(pid)
        out["color"].append(payload["colors"][pl["bound"]])
    for g in group_points(out["x"]):
        for rank, j in enumerate(g):
            at = []
            for row in range(rank, rank + 4):
                dy = 8 + 14 * row
                at += [_below(8, dy, "left"), _above(-8, dy, "right"), _below(-8, dy, "right"),
                       _above(8, dy, "left")]
            labels.append(_label(f"proj-{out['op'][j]}", out["x"][g[0]], out["y"][g[0]], 11,
                                 "bold", payload["colors"]["projection"],
                                 ops[out["op"][j]]["short"], at))
    return out


def _launch(payload: dict, st: dict, peak: float, yr: list[float], labels: list[dict]) -> dict:
    """The launch floor of the selected op: attainable ≤ FLOPs / launch time, a flat line
    across the plot where it lies under the roof and inside the frame."""
    cap = launch_cap(payload, op_cost(payload, st))
    x0, x1 = payload["x"]
    if cap is None or not (yr[0] < cap / 1e12 < peak / 1e12):
        return {"x": [], "y": []}
    y = cap / 1e12
    t = payload["launch"]["seconds"]
    labels.append(_label("launch", x1, y, 11, "normal", "ink",
                         f"launch floor {fmt.seconds(t)} ({payload['launch']['basis']}): "
                         f"≤ {fmt.tflops(cap)}",
                         [_below(-4, 4, "right"), _above(-4, 4, "right"), _below(-4, 18, "right"),
                          _above(-4, 18, "right")]))
    return {"x": [x0, x1], "y": [y, y]}


def marker(payload: dict, st: dict, ai: float) -> dict:
    hw = payload["hardware"][st["hardware"]]
    peak = hw["peaks"][st["precision"]]
    b = bound(ai, peak / hw["bw"])
    return {"x": ai, "y": attainable(ai, peak, hw["bw"]) / 1e12, "bound": b,
            "color": payload["colors"]["memory" if b == "memory" else "compute"]}
