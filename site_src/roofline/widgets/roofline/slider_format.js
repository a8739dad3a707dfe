// Body of the AI slider's CustomJSTickFormatter (a function body, not a module: Bokeh's
// CustomJSTickFormatter takes no modules). The slider's value is log10(AI); readers, and screen
// readers through aria-valuetext, see the AI itself. Mirrors num() in roofline.mjs to 3 figures.
const ai = 10 ** tick;
const v = Number(ai.toPrecision(3));
return v >= 100 ? Math.round(v).toLocaleString("en-US") : String(v);
