/* Roofline block loader: finds every `.roofline-block` as the page parses, loads BokehJS (core
 * and widgets in parallel) from this script's own folder when a block comes within 1500 px of
 * the viewport (so the text is readable at once and the page stays light), embeds the block's
 * json_item (inline, or from its hashed item script), themes it and draws its first frame
 * before the first paint, and keeps the plots' colours in step with Material's light/dark
 * toggle (or the OS preference on a plain page).
 * No network beyond this folder; works over http and from file://. */
(function () {
  "use strict";
  var FILES = __BOKEH_FILES__;
  var VERSION = "__BOKEH_VERSION__";
  var me = document.currentScript;
  var base = me && me.src ? me.src.slice(0, me.src.lastIndexOf("/") + 1) : "";
  var loading = null;

  function haveBokeh() {
    var B = window.Bokeh;
    return !!(B && B.version === VERSION && B.embed && B.Widgets);
  }

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = src;
      s.async = false; // fetched in parallel with its siblings, run in insertion order
      s.onload = resolve;
      s.onerror = function () { reject(new Error("roofline: cannot load " + src)); };
      document.head.appendChild(s);
    });
  }

  function loadBokeh() {
    if (haveBokeh()) return Promise.resolve(window.Bokeh);
    if (!loading) {
      // Core and widgets are requested at once; async=false keeps core running first.
      loading = Promise.all(FILES.map(function (f) { return loadScript(base + f); }))
        .then(function () { return window.Bokeh; });
    }
    return loading;
  }

  // ---------------------------------------------------------------- theme
  function dark() {
    var scheme = document.body && document.body.getAttribute("data-md-color-scheme");
    if (scheme) return scheme === "slate";
    var sphinx = sphinxScheme();
    if (sphinx) return sphinx === "dark";
    return !!(window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
  }

  // Sphinx themes (roofline.sphinx, issue #16): furo sets body[data-theme], pydata-sphinx-theme
  // html[data-theme], to "light" or "dark" ("auto": the OS preference decides). A page whose
  // CSS declares only a light color-scheme (roofline-sphinx.css does for alabaster) stays light.
  var SPHINX_THEME_ATTRS = ["data-theme"];
  function sphinxScheme() {
    var found = [document.body, document.documentElement].map(function (el) {
      return el ? el.getAttribute("data-theme") : null;
    }).filter(function (t) { return t === "dark" || t === "light"; });
    if (found.length) return found[0];
    var cs = document.body ? getComputedStyle(document.body).colorScheme : "";
    return cs === "light" ? "light" : null;
  }

  function cssVar(name, fallback) {
    var v = document.body ? getComputedStyle(document.body).getPropertyValue(name).trim() : "";
    return v || fallback;
  }

  // The charts' palette is CSS (render/blockstyle.py PALETTE_CSS: --rl-ink, --rl-muted,
  // --rl-grid, --rl-bg), read from a block once its theme attribute is set, so the live plot
  // paints what the static drawing painted; the fallbacks hold on a page without that CSS.
  function palette(block) {
    var d = dark();
    var style = block ? getComputedStyle(block) : null;
    function rl(name, light, darkValue) {
      var v = style ? style.getPropertyValue("--rl-" + name).trim() : "";
      return v || (d ? darkValue : light);
    }
    return {
      dark: d,
      bg: rl("bg", cssVar("--md-default-bg-color", "#ffffff"),
             cssVar("--md-default-bg-color", "#1e2029")),
      ink: rl("ink", "#1f2328", "#e2e4e9"),
      muted: rl("muted", "#57606a", "#a4a9b6"),
      grid: rl("grid", "#e3e6ea", "#3b3f4f"),
    };
  }

  var documents = [];

  function hasTag(m, tag) {
    return Array.isArray(m.tags) && m.tags.indexOf(tag) >= 0;
  }

  function applyTheme(doc) {
    var p = palette(doc.rooflineBlock);
    doc.all_models.forEach(function (m) {
      var t = m.type;
      if (t === "Figure" || t === "Plot") {
        m.setv({ background_fill_color: p.bg, border_fill_color: p.bg,
                 outline_line_color: p.grid });
      } else if (t === "LogAxis" || t === "LinearAxis" || t === "CategoricalAxis") {
        m.setv({ axis_line_color: p.muted, major_tick_line_color: p.muted,
                 minor_tick_line_color: p.muted, major_label_text_color: p.ink,
                 axis_label_text_color: p.ink });
      } else if (t === "Grid") {
        m.setv({ grid_line_color: p.grid });
      } else if (t === "Title") {
        m.setv({ text_color: p.ink });
      } else if (t === "Legend") {
        m.setv({ background_fill_color: p.bg, label_text_color: p.ink, border_line_color: p.grid });
      }
      // Models tagged "ink" are text or lines drawn in the page's foreground colour.
      if (hasTag(m, "ink")) {
        if ("text_color" in m.properties) m.text_color = p.ink;
        if ("line_color" in m.properties) m.line_color = p.ink;
      }
      if (hasTag(m, "ink-muted")) {
        if ("text_color" in m.properties) m.text_color = p.muted;
        if ("line_color" in m.properties) m.line_color = p.muted;
      }
      // A label's halo: its text in the background colour, filled and stroked, under it.
      if (hasTag(m, "halo")) m.setv({ text_color: p.bg, text_outline_color: p.bg });
    });
  }

  function retheme() {
    document.querySelectorAll(".roofline-block").forEach(function (b) {
      b.setAttribute("data-roofline-theme", dark() ? "dark" : "light");
    });
    documents.forEach(applyTheme);
  }

  // ---------------------------------------------------------------- accessibility
  var TEXT_CHANGES = { childList: true, subtree: true, characterData: true };
  // noUiSlider handles (Bokeh's Slider) carry no accessible name and announce the raw value;
  // name each after its slider's title and announce the value as the title shows it.
  function shadowRoots(node, out) {
    node.querySelectorAll("*").forEach(function (el) {
      if (el.shadowRoot) { out.push(el.shadowRoot); shadowRoots(el.shadowRoot, out); }
    });
    return out;
  }

  // Bokeh's Checkbox puts its text in a sibling <div>, not a <label>: name the input after it.
  function labelCheckbox(root) {
    var box = root.querySelector("input[type=checkbox]");
    var text = root.querySelector(".bk-label");
    if (!box || !text || box.getAttribute("data-roofline-a11y")) return;
    box.setAttribute("data-roofline-a11y", "1");
    var sync = function () { box.setAttribute("aria-label", text.textContent.trim()); };
    sync();
    new MutationObserver(sync).observe(text, TEXT_CHANGES);
  }

  function labelSliders(block) {
    shadowRoots(block, []).forEach(function (root) {
      labelCheckbox(root);
      var handle = root.querySelector("[role=slider]");
      var title = root.querySelector(".bk-slider-title");
      if (!handle || !title || handle.getAttribute("data-roofline-a11y")) return;
      handle.setAttribute("data-roofline-a11y", "1");
      var sync = function () {
        var value = title.querySelector(".bk-slider-value");
        var name = (title.firstChild && title.firstChild.nodeType === 3
          ? title.firstChild.textContent : title.textContent).replace(/:\s*$/, "").trim();
        if (handle.getAttribute("aria-label") !== name) handle.setAttribute("aria-label", name);
        var text = value ? value.textContent.trim() : "";
        if (text && handle.getAttribute("aria-valuetext") !== text) {
          handle.setAttribute("aria-valuetext", text);
        }
      };
      sync();
      new MutationObserver(sync).observe(title, TEXT_CHANGES);
      new MutationObserver(sync).observe(handle,
        { attributes: true, attributeFilter: ["aria-valuetext"] });
    });
  }

  // The AI slider's keys (its value is log10 of the AI): arrows 1/20 of a decade, PageUp/Down a
  // decade, Home/End the ends. noUiSlider's own steps (×1.023 a press) never see these keys.
  var KEY_STEPS = { ArrowRight: 0.05, ArrowUp: 0.05, ArrowLeft: -0.05, ArrowDown: -0.05,
                    PageUp: 1, PageDown: -1 };

  function sliderKeys(block, doc) {
    var slider = doc.get_model_by_name("ai-slider");
    if (!slider) return;
    shadowRoots(block, []).forEach(function (root) {
      var handle = root.querySelector("[role=slider]");
      var title = root.querySelector(".bk-slider-title");
      if (!handle || !title || handle.getAttribute("data-roofline-keys")) return;
      if (title.textContent.indexOf(slider.title) !== 0) return;
      handle.setAttribute("data-roofline-keys", "1");
      handle.addEventListener("keydown", function (e) {
        var v = slider.value;
        var next = e.key === "Home" ? slider.start : e.key === "End" ? slider.end
          : KEY_STEPS[e.key] !== undefined ? Math.round((v + KEY_STEPS[e.key]) * 20) / 20 : null;
        if (next === null) return;
        e.preventDefault();
        e.stopImmediatePropagation();
        slider.value = Math.min(slider.end, Math.max(slider.start, next));
      }, true);
    });
  }

  // ---------------------------------------------------------------- embedding
  // The JS draws every frame, the first included: run each callback tagged for it now (they
  // also run on document_ready, for hosts without this loader; a second call does nothing).
  function firstFrames(doc) {
    var out = [];
    doc.all_models.forEach(function (m) {
      if (m.type === "CustomJS" && hasTag(m, "roofline-first-frame")) out.push(m);
    });
    out.sort(function (a, b) { return a.id < b.id ? -1 : 1; });
    return out.reduce(function (p, m) {
      return p.then(function () { return m.execute(m); });
    }, Promise.resolve());
  }

  // The plot's json_item: inline, or (MkDocs plugin) in a hashed script file that assigns it to
  // window.rooflineItems[key] — a <script data-src> fetched only now, which works from file://.
  function itemOf(block) {
    var s = block.querySelector("script.roofline-item");
    if (!s) return Promise.reject(new Error("roofline: the block has no plot item"));
    var key = s.getAttribute("data-roofline-item");
    if (!key) return Promise.resolve().then(function () { return JSON.parse(s.textContent); });
    var registry = window.rooflineItems || {};
    if (registry[key]) return Promise.resolve(registry[key]);
    // One request per item file, whoever asks first (the warm-up below, or the render).
    if (!fetching[key]) {
      fetching[key] = new Promise(function (resolve, reject) {
        var src = s.getAttribute("data-src");
        var tag = document.createElement("script");
        tag.src = src;
        tag.onload = function () { resolve((window.rooflineItems || {})[key]); };
        tag.onerror = function () {
          delete fetching[key];
          reject(new Error("roofline: cannot load " + src));
        };
        document.head.appendChild(tag);
      });
    }
    return fetching[key];
  }
  var fetching = {};

  function remember(doc) {
    if (doc && documents.indexOf(doc) < 0) documents.push(doc);
    return doc;
  }

  // Colours and the first frame are set on the models before any view exists, so the first
  // paint is the finished, themed plot (BokehJS 3 exports what this needs; else embed_item).
  function documentClass(Bokeh) {
    try {
      return Bokeh.require("document").Document;
    } catch (e) {
      return null;
    }
  }

  function embed(Bokeh, item, target) {
    var E = Bokeh.embed;
    var block = target.closest(".roofline-block");
    var Doc = Bokeh.require ? documentClass(Bokeh) : null;
    if (Doc && Doc.from_json && E.add_document_standalone) {
      var doc = Doc.from_json(item.doc);
      doc.rooflineBlock = block; // its palette (the block's CSS variables) themes it
      remember(doc);
      applyTheme(doc);
      var roots = {};
      roots[item.root_id] = target;
      return firstFrames(doc).then(function () {
        return E.add_document_standalone(doc, target, roots);
      }).then(function () { return [doc]; });
    }
    return E.embed_item(item, target).then(function (views) {
      var docs = [];
      views.roots.forEach(function (view) {
        var d = view.model.document;
        if (d && documents.indexOf(d) < 0) {
          d.rooflineBlock = block;
          docs.push(remember(d));
          applyTheme(d);
        }
      });
      return Promise.all(docs.map(firstFrames)).then(function () { return docs; });
    });
  }

  function render(block) {
    if (block.getAttribute("data-roofline-state")) return;
    block.setAttribute("data-roofline-state", "loading");
    block.setAttribute("data-roofline-theme", dark() ? "dark" : "light");
    // In a promise from the start: an error ends in "failed", never a block left "loading".
    Promise.resolve().then(function () {
      return Promise.all([loadBokeh(), itemOf(block)]);
    }).then(function (got) {
      return embed(got[0], got[1], block.querySelector(".roofline-target"));
    }).then(function (docs) {
      labelSliders(block);
      docs.forEach(function (d) { sliderKeys(block, d); });
      block.setAttribute("data-roofline-state", "ready");
      block.setAttribute("data-roofline-theme", dark() ? "dark" : "light");
      block.dispatchEvent(new CustomEvent("roofline:ready", { bubbles: true }));
    }).catch(function (err) {
      block.setAttribute("data-roofline-state", "failed");
      var note = document.createElement("p");
      note.className = "roofline-error";
      note.textContent = "The interactive plot could not load: " + err.message;
      block.appendChild(note);
      console.error(err);
    });
  }

  var io = null, seen = [];

  // A block the parser has finished: its item script, the last thing it needs, is there and
  // something follows the block (its closing tag has been read).
  function complete(block) {
    return !!(block.querySelector("script.roofline-item") && block.nextSibling);
  }

  // Watch each block as soon as the parser has made it; BokehJS starts loading when one comes
  // within 1500 px of the viewport.
  function watch() {
    document.querySelectorAll(".roofline-block").forEach(function (b) {
      if (seen.indexOf(b) >= 0) return;
      // While the page parses, a block can be in the DOM before its children are: take it
      // once its plot item is (a later mutation, or DOMContentLoaded, calls this again).
      if (document.readyState === "loading" && !complete(b)) return;
      seen.push(b);
      if (io) io.observe(b);
      else render(b);
    });
  }

  function watchTheme() {
    new MutationObserver(retheme).observe(document.body,
      { attributes: true,
        attributeFilter: ["data-md-color-scheme"].concat(SPHINX_THEME_ATTRS) });
    new MutationObserver(retheme).observe(document.documentElement,
      { attributes: true, attributeFilter: SPHINX_THEME_ATTRS });
    if (window.matchMedia) {
      var mq = window.matchMedia("(prefers-color-scheme: dark)");
      if (mq.addEventListener) mq.addEventListener("change", retheme);
    }
  }

  // A reader who interacts (scrolls, clicks, types) may jump to a plot at any moment: evaluate
  // BokehJS in the next idle time, so the jump costs only the embed. A page nobody touches (a
  // bot, a Lighthouse run) never pays for it until a plot nears view.
  function warmOnInteraction() {
    var events = ["scroll", "pointerdown", "keydown", "touchstart"];
    var warm = function () {
      events.forEach(function (e) { window.removeEventListener(e, warm, true); });
      if (!seen.length) return;
      var idle = window.requestIdleCallback || function (f) { return setTimeout(f, 200); };
      // The plots' item files (a few KB each) come too, so a jump waits on no request.
      idle(function () {
        loadBokeh().catch(function () {});
        seen.forEach(function (b) { itemOf(b).catch(function () {}); });
      }, { timeout: 2000 });
    };
    events.forEach(function (e) { window.addEventListener(e, warm, { capture: true, passive: true }); });
  }

  function start() {
    if ("IntersectionObserver" in window) {
      io = new IntersectionObserver(function (entries) {
        entries.forEach(function (e) {
          if (e.isIntersecting) { io.unobserve(e.target); render(e.target); }
        });
      }, { rootMargin: "1500px 0px" });
    }
    watch();
    warmOnInteraction();
    if (document.readyState === "loading") {
      // Loaded early (async, from <head>): pick blocks up while the page parses, not after.
      var mo = new MutationObserver(watch);
      mo.observe(document.documentElement, { childList: true, subtree: true });
      document.addEventListener("DOMContentLoaded", function () {
        mo.disconnect();
        watch();
        watchTheme();
      });
    } else {
      watchTheme();
    }
  }

  // The plugin may load this file twice (early from <head>, and in the page's scripts).
  if (window.roofline && window.roofline.render) return;
  // A test or host page can force a block to render now: roofline.render(element).
  window.roofline = window.roofline || {};
  window.roofline.render = render;
  window.roofline.documents = documents;
  start();
})();
