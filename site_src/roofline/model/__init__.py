"""The roofline model: data files (TOML, SI units, a source for every figure), hardware,
op costs from shapes and the whole-step model. Pure Python and numpy: no Bokeh, no MkDocs."""
