// The URL state both widgets keep (roofline.mjs, budget.mjs): reading ?query and #hash, which
// are untrusted input, and writing the state back without a history entry. Node imports it as
// is (tests/js/hostile_urls.test.mjs runs hostile URLs through both widgets' parsers);
// roofline.render.jsmodule.bundle() inlines it in front of each callback.

// key -> value of a ?query or #hash; a pair with no key or a malformed escape is skipped.
export function queryParams(text) {
  const out = {};
  const body = String(text || "").replace(/^[?#]/, "");
  for (const part of body.split("&")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    let key;
    let value;
    try {
      key = decodeURIComponent(part.slice(0, eq).replace(/\+/g, " "));
      value = decodeURIComponent(part.slice(eq + 1).replace(/\+/g, " "));
    } catch (e) {
      continue; // malformed escapes: ignore that pair
    }
    out[key] = value;
  }
  return out;
}

// A plain decimal number written as a string ("12", ".5", "4e-6"), else null: no signs, hex,
// Infinity or NaN get through.
export function plainNumber(value) {
  if (typeof value !== "string" || !/^\s*[0-9]*\.?[0-9]+([eE][+-]?[0-9]+)?\s*$/.test(value)) {
    return null;
  }
  return Number(value);
}

// "?…" with the page's own parameters (those not in `ours`) kept first, then `pairs` ([key,
// value] strings), each encoded.
export function withQuery(search, ours, pairs) {
  const keep = Object.entries(queryParams(search)).filter(([k]) => !ours.includes(k));
  return "?" + keep.concat(pairs)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
}

let urlTimer = null;

// Replace the page's query with query(location.search) once the reader pauses (200 ms).
export function writeURLSoon(query) {
  if (typeof window === "undefined" || !window.history) return;
  clearTimeout(urlTimer);
  urlTimer = setTimeout(() => {
    try {
      window.history.replaceState(window.history.state, "",
                                  query(window.location.search) + window.location.hash);
    } catch (e) {
      // Some file:// setups refuse history changes; the view still works, it just isn't shared.
    }
  }, 200);
}
