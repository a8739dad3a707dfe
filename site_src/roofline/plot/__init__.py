"""Renderers that produce Bokeh objects: the interactive roofline widget and how it is embedded.

Only this package (and the MkDocs plugin) imports bokeh; the model stays numpy-only.
"""
