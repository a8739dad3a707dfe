"""Renderers: model values → strings (Markdown, CSV, JSON, text). No MkDocs, no Bokeh here."""
