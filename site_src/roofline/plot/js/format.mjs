// Number formatting as roofline.fmt does it (round half to even, thousands separators), for
// the page scripts that are inlined rather than run by Bokeh (predict.mjs, tokens.mjs). They
// import it; roofline.plot.jsmodule.join() puts it in front of them as one inline module, so
// a page makes no request for it. Kept identical to budget.mjs's copies by node tests.

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

export function percent(fraction, digits = 2) {
  const p = fraction * 100;
  if (p >= 99.95) return "100%";
  return `${num(p, digits)}%`;
}
