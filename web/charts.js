// Small SVG charts for the tournament's pictures (docs/web.md): lines over time or by level with shaded bands, a
// histogram, a log scale. Our own module rather than a vendored library: four charts need axes, a path and rects,
// and the client has no build step. Each chart keeps its data on its elements (data-points, data-count), so that
// what is drawn can be read back and checked against the API.

const NS = "http://www.w3.org/2000/svg";
const W = 360;
const H = 200;
const PAD = { left: 46, right: 10, top: 22, bottom: 34 };

function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

// Round steps for an axis from lo to hi: about `count` ticks at 1, 2 or 5 times a power of ten.
export function ticks(lo, hi, count = 5) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

const short = (v) => {
  if (Math.abs(v) >= 1e6) return `${+(v / 1e6).toFixed(1)}M`;
  return Math.abs(v) >= 1e4 ? `${+(v / 1e3).toFixed(1)}k` : `${+v.toFixed(2)}`;
};

// A frame with its axes: returns the svg, the group to draw in and the scales.
function frame({ title, xLabel, yLabel, x: [x0, x1], y: [y0, y1], logY = false, whole = false }) {
  const ly = (v) => (logY ? Math.log10(Math.max(v, 1e-9)) : v);
  const [a, b] = [ly(y0), ly(y1)];
  const sx = (v) => PAD.left + ((v - x0) / (x1 - x0 || 1)) * (W - PAD.left - PAD.right);
  const sy = (v) => H - PAD.bottom - ((ly(v) - a) / (b - a || 1)) * (H - PAD.top - PAD.bottom);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": title, class: "chart-svg" });
  const yTicks = logY
    ? Array.from({ length: Math.floor(b) - Math.ceil(a) + 1 }, (_, i) => 10 ** (Math.ceil(a) + i))
    : ticks(y0, y1, 4);
  for (const t of yTicks) {
    root.append(svg("line", { x1: PAD.left, x2: W - PAD.right, y1: sy(t), y2: sy(t), class: "grid" }));
    root.append(svg("text", { x: PAD.left - 4, y: sy(t) + 3, "text-anchor": "end", class: "tick" }, short(t)));
  }
  for (const t of ticks(x0, x1, 5).filter((v) => !whole || Number.isInteger(v))) {
    root.append(svg("text", { x: sx(t), y: H - PAD.bottom + 13, "text-anchor": "middle", class: "tick" }, short(t)));
  }
  root.append(
    svg("line", { x1: PAD.left, x2: W - PAD.right, y1: H - PAD.bottom, y2: H - PAD.bottom, class: "axis" }),
    svg("line", { x1: PAD.left, x2: PAD.left, y1: PAD.top, y2: H - PAD.bottom, class: "axis" }),
    svg("text", { x: W / 2, y: 14, "text-anchor": "middle", class: "title" }, title),
    svg("text", { x: (W + PAD.left) / 2, y: H - 4, "text-anchor": "middle", class: "label" }, xLabel),
    svg(
      "text",
      { x: 10, y: (H - PAD.bottom + PAD.top) / 2, "text-anchor": "middle", class: "label",
        transform: `rotate(-90 10 ${(H - PAD.bottom + PAD.top) / 2})` },
      yLabel,
    ),
  );
  return { root, sx, sy };
}

function figure(id, title, root) {
  const node = document.createElement("figure");
  node.className = "chart";
  node.id = id;
  node.dataset.title = title;
  node.append(root);
  return node;
}

// Lines through points ([x, y] each), over shaded bands ([from, to, label]) such as a tournament's levels; `step`
// draws each value until the next point, as a count that changes at moments.
// `whole`: the x axis counts (levels, places), so its ticks are whole numbers.
// `plan`: a second line, dashed, of what was expected (a structure's estimate) beside the actual; `planBand`: the
// spread around it ([x, low, high]: the runs' p10 to p90), shaded; `marks`: vertical lines at moments ([x, label]),
// such as a projected end; `now`: where a step line ends (the axis' end without it).
export function lineChart({
  id,
  title,
  xLabel,
  yLabel,
  points,
  bands = [],
  logY = false,
  step = false,
  x,
  whole,
  plan = [],
  planBand = [],
  marks = [],
  now,
}) {
  const xs = points.map((p) => p[0]);
  const ys = [...points, ...plan].map((p) => p[1]).concat(planBand.map((p) => p[2]));
  const [x0, x1] = x || [Math.min(...xs), Math.max(...xs)];
  const low = logY ? 10 ** Math.floor(Math.log10(Math.max(Math.min(...ys), 1e-9))) : Math.min(0, ...ys);
  const high = logY ? 10 ** Math.ceil(Math.log10(Math.max(...ys, 1e-9))) : Math.max(...ys) * 1.05 || 1;
  const span = [x0, x1 > x0 ? x1 : x0 + 1];
  const { root, sx, sy } = frame({ title, xLabel, yLabel, x: span, y: [low, high], logY, whole });
  const under = svg("g", { class: "bands" }); // under the grid and the line, in the levels' order
  root.insertBefore(under, root.firstChild);
  bands.forEach(([from, to, label], index) => {
    const left = sx(Math.max(from, x0));
    const right = sx(Math.min(to, span[1]));
    if (right <= left) return;
    const band = svg("rect", {
      x: left,
      y: PAD.top,
      width: right - left,
      height: H - PAD.top - PAD.bottom,
      class: index % 2 ? "band odd" : "band",
      "data-label": label,
    });
    under.append(band);
    const middle = (left + right) / 2;
    if (right - left > 9)
      root.append(svg("text", { x: middle, y: PAD.top + 9, "text-anchor": "middle", class: "band-label" }, label));
  });
  let d = "";
  points.forEach(([px, py], i) => {
    if (i === 0) d += `M${sx(px).toFixed(1)},${sy(py).toFixed(1)}`;
    else if (step) d += `H${sx(px).toFixed(1)}V${sy(py).toFixed(1)}`;
    else d += `L${sx(px).toFixed(1)},${sy(py).toFixed(1)}`;
  });
  if (step && points.length) d += `H${sx(Math.min(now ?? span[1], span[1])).toFixed(1)}`; // the count holds until now
  if (planBand.length) {
    const edge = (index) => planBand.map((p) => `${sx(p[0]).toFixed(1)},${sy(p[index]).toFixed(1)}`);
    const outline = [...edge(2), ...edge(1).reverse()].join(" ");
    root.append(svg("polygon", { points: outline, class: "plan-band", "data-points": JSON.stringify(planBand) }));
  }
  if (plan.length) {
    const planned = plan.map(([px, py], i) => `${i ? "L" : "M"}${sx(px).toFixed(1)},${sy(py).toFixed(1)}`).join("");
    root.append(svg("path", { d: planned, class: "plan-line", "data-points": JSON.stringify(plan) }));
  }
  for (const [mx, label] of marks) {
    if (mx < x0 || mx > span[1]) continue;
    root.append(
      svg("line", { x1: sx(mx), x2: sx(mx), y1: PAD.top, y2: H - PAD.bottom, class: "mark", "data-x": mx }),
      svg("text", { x: sx(mx) - 3, y: PAD.top + 20, "text-anchor": "end", class: "mark-label" }, label),
    );
  }
  root.append(svg("path", { d, class: "line", "data-points": JSON.stringify(points) }));
  if (!step) for (const [px, py] of points)
    root.append(svg("circle", { cx: sx(px), cy: sy(py), r: 2.2, class: "dot" }));
  return figure(id, title, root);
}

// A histogram of `values` in `bins` equal bins from 0 to the largest; each bar says its range and count.
export function histogram({ id, title, xLabel, yLabel, values, bins = 12 }) {
  const top = Math.max(...values, 1);
  const width = top / bins;
  const counts = Array(bins).fill(0);
  for (const v of values) counts[Math.min(bins - 1, Math.floor(v / width))]++;
  const { root, sx, sy } = frame({ title, xLabel, yLabel, x: [0, top], y: [0, Math.max(...counts, 1) * 1.1] });
  counts.forEach((count, i) => {
    const x = sx(i * width);
    root.append(
      svg("rect", {
        x: x + 0.5,
        y: sy(count),
        width: Math.max(0, sx((i + 1) * width) - x - 1),
        height: sy(0) - sy(count),
        class: "bar",
        "data-from": +(i * width).toFixed(2),
        "data-to": +((i + 1) * width).toFixed(2),
        "data-count": count,
      }),
    );
  });
  return figure(id, title, root);
}
