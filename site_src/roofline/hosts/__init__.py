"""Where a widget is shown: the one door (settings → render), the MkDocs plugin and fences,
Sphinx, Jupyter, and the on-disk build cache they share."""
