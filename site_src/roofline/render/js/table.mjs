// The site's generated tables — the one copy of their markup and width rule: the build runs it
// for every table (roofline.render.tables.html_table calls it through the JS engine) and a page
// that makes a table in the browser (the profile drop page) runs it there.
//
// A table is an HTML <table class="rl-t"> inside a labelled container (tables.css). Each column
// has a priority: 1 = the punchline (never hidden on screens >= 1024 px), 2 = context, 3 =
// detail that gives way first. The container carries two width classes computed here from the
// cell text: rl-fit-N (the whole table needs about N rem) and rl-min-M (the priority-1 and -2
// columns need about M rem). Container queries in tables.css then hide priority-3 columns (with
// a visible note) when the column is narrower than N on a screen 1024 to 1279 px wide (from 1280
// px every column shows), and turn rows into grouped rows, every cell under its column's title,
// when it is narrower than M, or narrower than N on a screen under 1024 px, so no column is ever
// out of reach. Print shows every column.

export const FIT_MIN_REM = 16;
export const FIT_MAX_REM = 80;
const CHAR_REM = 0.36;   // one character of the .64rem table font, in rem (measured ≈ 0.34)
const PAD_REM = 1.0;     // left + right cell padding
const WRAP_CHARS = 14;   // a text column wraps at about this many characters

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" };
// Text as HTML (Python's html.escape, quotes included).
export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

const NAMED = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0",
                thinsp: "\u2009", times: "×", minus: "−", ndash: "–", mdash: "—",
                hellip: "…", le: "≤", ge: "≥", asymp: "≈" };
// A cell's HTML as the text a reader sees (tags dropped, character references decoded).
export function cellText(cellHtml, tagsAs = "") {
  return String(cellHtml).replace(/<[^>]+>/g, tagsAs).replace(
    /&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, ref) => {
      if (ref[0] === "#") {
        const code = ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16)
          : parseInt(ref.slice(1), 10);
        return String.fromCodePoint(code);
      }
      return NAMED[ref] ?? m;
    });
}

const chars = (s) => [...s].length;   // code points, as a reader counts characters
const words = (s) => s.split(/\s+/).filter(Boolean);

export function bucket(rem) {
  const n = Math.ceil(rem / 2) * 2;
  return Math.max(FIT_MIN_REM, Math.min(FIT_MAX_REM, n));
}

// The width a column needs, in rem: its longest title word, and its longest cell (text columns
// wrap at about WRAP_CHARS characters or their longest word).
export function columnRem(col, cells) {
  const title = Math.max(1, ...words(col.title).map(chars));
  const lengths = cells.length ? cells.map((c) => chars(cellText(c).trim())) : [1];
  let n;
  if (col.wrap) {
    const longest = Math.max(1, ...cells.flatMap((c) => words(cellText(c, " ")).map(chars)));
    n = Math.max(title, Math.min(Math.max(...lengths), Math.max(WRAP_CHARS, longest)));
  } else {
    n = Math.max(title, Math.max(...lengths));
  }
  return n * CHAR_REM + PAD_REM;
}

// An accessible, responsive table. `columns`: { title, align ("left"|"right"), priority, wrap };
// cells are HTML (escape text before passing it).
export function htmlTable(columns, rows, { label, cssClass = "", note = "" }) {
  const cols = columns.map((c) => ({ align: "left", priority: 2, wrap: false, ...c }));
  const widths = cols.map((c, i) => columnRem(c, rows.map((r) => r[i])));
  const full = widths.reduce((s, w) => s + w, 0);
  const core = widths.reduce((s, w, i) => s + (cols[i].priority < 3 ? w : 0), 0);
  const hidden = cols.filter((c) => c.priority >= 3).map((c) => c.title);
  const classes = ["rl-table", `rl-fit-${bucket(full)}`, `rl-min-${bucket(core)}`, cssClass]
    .filter(Boolean).join(" ");
  const cls = (c) => [`rl-p${c.priority}`, ...(c.align === "right" ? ["rl-num"] : []),
                      ...(c.wrap ? ["rl-wrap"] : [])].join(" ");
  const head = cols.map((c) => `<th scope="col" class="${cls(c)}">${escapeHtml(c.title)}</th>`)
    .join("");
  const body = rows.map((r) => "<tr>" + cols.slice(0, r.length).map((c, i) => {
    const tag = i === 0 ? "th" : "td";
    const scope = i === 0 ? ' scope="row"' : "";
    return `<${tag}${scope} class="${cls(c)}" data-label="${escapeHtml(c.title)}">${r[i]}</${tag}>`;
  }).join("") + "</tr>").join("");
  const cue = hidden.length
    ? `<p class="rl-cue">Not shown at this width: ${escapeHtml(hidden.join(", "))}` +
      " (widen the window or print to see every column).</p>" : "";
  return `\n<div class="${classes}" role="region" tabindex="0" data-search-exclude ` +
    `data-scroll-cue aria-label="${escapeHtml(label)}"><div class="rl-in">` +
    `<table class="rl-t"><thead><tr>${head}</tr></thead><tbody>${body}` +
    `</tbody></table>${cue}${note}</div></div>\n`;
}
