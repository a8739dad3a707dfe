/* Roofline block loader: finds every `.roofline-block` on the page, loads BokehJS from this
 * script's own folder when a block comes near the viewport (so the text is readable at once and
 * the page stays light), embeds the inline json_item, and keeps the plots' colours in step with
 * Material's light/dark toggle (or the OS preference on a plain page).
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
      s.onload = resolve;
      s.onerror = function () { reject(new Error("roofline: cannot load " + src)); };
      document.head.appendChild(s);
    });
  }

  function loadBokeh() {
    if (haveBokeh()) return Promise.resolve(window.Bokeh);
    if (!loading) {
      loading = FILES.reduce(function (p, f) {
        return p.then(function () { return loadScript(base + f); });
      }, Promise.resolve()).then(function () { return window.Bokeh; });
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

  function palette() {
    var d = dark();
    return {
      dark: d,
      bg: cssVar("--md-default-bg-color", d ? "#1e2029" : "#ffffff"),
      ink: d ? "#e2e4e9" : "#1f2328",
      muted: d ? "#a4a9b6" : "#57606a",
      grid: d ? "#3b3f4f" : "#e3e6ea",
    };
  }

  var documents = [];

  function hasTag(m, tag) {
    return Array.isArray(m.tags) && m.tags.indexOf(tag) >= 0;
  }

  function applyTheme(doc) {
    var p = palette();
    doc.all_models.forEach(function (m) {
      var t = m.type;
      if (t === "Figure" || t === "Plot") {
        m.setv({ background_fill_color: p.bg, border_fill_color: p.bg,
                 outline_line_color: p.grid });
      } else if (t === "LogAxis" || t === "LinearAxis") {
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
    });
  }

  function retheme() {
    documents.forEach(applyTheme);
    document.querySelectorAll(".roofline-block").forEach(function (b) {
      b.setAttribute("data-roofline-theme", dark() ? "dark" : "light");
    });
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

  function render(block) {
    if (block.getAttribute("data-roofline-state")) return;
    block.setAttribute("data-roofline-state", "loading");
    loadBokeh().then(function (Bokeh) {
      var data = block.querySelector("script.roofline-item");
      var target = block.querySelector(".roofline-target");
      var item = JSON.parse(data.textContent);
      return Bokeh.embed.embed_item(item, target).then(function (views) {
        var firsts = [];
        views.roots.forEach(function (view) {
          var doc = view.model.document;
          if (doc && documents.indexOf(doc) < 0) {
            documents.push(doc);
            applyTheme(doc);
            firsts = firsts.concat(firstFrames(doc));
          }
        });
        return Promise.all(firsts);
      }).then(function () {
        labelSliders(block);
        block.setAttribute("data-roofline-state", "ready");
        block.setAttribute("data-roofline-theme", dark() ? "dark" : "light");
        block.dispatchEvent(new CustomEvent("roofline:ready", { bubbles: true }));
      });
    }).catch(function (err) {
      block.setAttribute("data-roofline-state", "failed");
      var note = document.createElement("p");
      note.className = "roofline-error";
      note.textContent = "The interactive plot could not load: " + err.message;
      block.appendChild(note);
      console.error(err);
    });
  }

  function start() {
    var blocks = Array.prototype.slice.call(document.querySelectorAll(".roofline-block"));
    if (!blocks.length) return;
    if ("IntersectionObserver" in window) {
      var io = new IntersectionObserver(function (entries) {
        entries.forEach(function (e) {
          if (e.isIntersecting) { io.unobserve(e.target); render(e.target); }
        });
      }, { rootMargin: "800px 0px" });
      blocks.forEach(function (b) { io.observe(b); });
    } else {
      blocks.forEach(render);
    }
    if (document.body) {
      new MutationObserver(retheme).observe(document.body,
        { attributes: true,
          attributeFilter: ["data-md-color-scheme"].concat(SPHINX_THEME_ATTRS) });
      new MutationObserver(retheme).observe(document.documentElement,
        { attributes: true, attributeFilter: SPHINX_THEME_ATTRS });
    }
    if (window.matchMedia) {
      var mq = window.matchMedia("(prefers-color-scheme: dark)");
      if (mq.addEventListener) mq.addEventListener("change", retheme);
    }
  }

  // A test or host page can force a block to render now: roofline.render(element).
  window.roofline = window.roofline || {};
  window.roofline.render = render;
  window.roofline.documents = documents;

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
