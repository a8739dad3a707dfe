/* The script at the end of every roofline.figure() notebook output (roofline/hosts/notebook.py).
 *
 * An output carries, as inert <script type="text/x-roofline" data-roofline="NAME"> text, only
 * the pieces no earlier output of the kernel session carried: BokehJS and the loader (in the
 * first output), and each shared callback module (as its exact JSON string). Its block's
 * json_item names those modules by placeholder ("roofline-code:HASH", listed in the item's
 * data-roofline-code) and waits (data-roofline-state="waiting", which the loader skips).
 *
 * Each run of this script, in any output and in page order or not: evaluate BokehJS and the
 * loader once, from whichever output on the page has them; then every waiting block whose
 * pieces are all on the page gets its modules back in place and is drawn. A block whose pieces
 * are not on the page (the output that carried them was cleared) keeps its static first frame
 * and shows its note. No network: everything comes from the page. */
(function () {
  "use strict";
  var VERSION = "__BOKEH_VERSION__";
  var BOKEH = __BOKEH_PIECES__;

  function piece(name) {
    return document.querySelector('script[type="text/x-roofline"][data-roofline="' + name + '"]');
  }
  function run(name) {
    (0, eval)(piece(name).textContent); // global scope, as a <script src> would run
  }
  function haveBokeh() {
    var B = window.Bokeh;
    return !!(B && B.version === VERSION && B.embed && B.Widgets);
  }
  function haveLoader() {
    return !!(window.roofline && window.roofline.render);
  }

  if (!haveBokeh() && BOKEH.every(piece)) BOKEH.forEach(run);
  if (haveBokeh() && !haveLoader() && piece("loader")) run("loader");

  document.querySelectorAll(".roofline-notebook").forEach(function (out) {
    var block = out.querySelector(".roofline-block[data-roofline-state=waiting]");
    if (!block) return;
    var item = block.querySelector("script.roofline-item");
    var needs = (item.getAttribute("data-roofline-code") || "").split(" ").filter(Boolean);
    var codes = needs.map(function (h) { return piece("code-" + h); });
    var note = out.querySelector(".roofline-waiting");
    if (!haveLoader() || !codes.every(Boolean)) {
      if (note) note.hidden = false;
      return;
    }
    var text = item.textContent;
    needs.forEach(function (h, i) {
      text = text.split('"roofline-code:' + h + '"').join(codes[i].textContent);
    });
    item.textContent = text;
    item.removeAttribute("data-roofline-code");
    if (note) note.hidden = true;
    block.removeAttribute("data-roofline-state");
    window.roofline.render(block);
  });
})();
