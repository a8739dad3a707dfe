// Number formatting as roofline.fmt does it (round half to even, thousands separators, SI
// prefixes): the one copy every script of ours uses. Node imports it as is; the modules that
// import it are inlined or run by Bokeh as one blob, so roofline.render.jsmodule.join() puts
// this file in front of them (a page makes no request for it, a blob cannot import).

// Python's round() (behind roofline.fmt.sig) sends exact ties to the even digit: round(1365, -1)
// is 1360, where toPrecision gives 1370. Spot the tie in the exact decimal expansion.
export function sig(x, digits = 3) {
  if (x === 0 || !Number.isFinite(x)) return x;
  const [mantissa, exponent] = Math.abs(x).toExponential(Math.min(100, digits + 24)).split("e");
  const ds = mantissa.replace(".", "");
  if (ds[digits] === "5" && /^0*$/.test(ds.slice(digits + 1)) && Number(ds[digits - 1]) % 2 === 0) {
    const down = Number(`${ds[0]}.${ds.slice(1, digits)}e${exponent}`);
    return x < 0 ? -down : down;
  }
  return Number(x.toPrecision(digits));
}

function group(text) {
  const neg = text.startsWith("-");
  const body = neg ? text.slice(1) : text;
  const [int, frac] = body.split(".");
  return (neg ? "-" : "") + int.replace(/\B(?=(\d{3})+(?!\d))/g, ",") +
    (frac !== undefined ? "." + frac : "");
}

export function num(x, digits = 3) {
  if (!Number.isFinite(x)) return x > 0 ? "∞" : "—";
  const v = sig(x, digits);
  if (Math.abs(v) >= 10 ** (digits - 1) || Number.isInteger(v)) return group(v.toFixed(0));
  const decimals = Math.max(0, digits - 1 - Math.floor(Math.log10(Math.abs(v))));
  let s = group(v.toFixed(decimals));
  if (s.includes(".")) s = s.replace(/0+$/, "").replace(/\.$/, "");
  return s;
}

const PREFIXES = [[1e15, "P"], [1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"], [1, ""]];

export function si(x, unit, digits = 3) {
  if (x === 0) return `0 ${unit}`;
  for (const [scale, prefix] of PREFIXES) {
    if (Math.abs(x) >= scale) return `${num(x / scale, digits)} ${prefix}${unit}`;
  }
  return `${num(x, digits)} ${unit}`;
}

export function capacity(x, digits = 3) { return si(x, "B", digits); }

export function tflops(x, digits = 3) { return `${num(x / 1e12, digits)} TFLOP/s`; }

export function bandwidth(x, digits = 3) { return si(x, "B/s", digits); }

export function percent(fraction, digits = 2) {
  const p = fraction * 100;
  if (p >= 99.95) return "100%";
  return `${num(p, digits)}%`;
}

export function seconds(x, digits = 3) {
  for (const [scale, unit] of [[1, "s"], [1e-3, "ms"], [1e-6, "µs"], [1e-9, "ns"]]) {
    if (x >= scale) return `${num(x / scale, digits)} ${unit}`;
  }
  return `${num(x / 1e-9, digits)} ns`;
}
