"""The time budget of one step: settings, payload, Bokeh layout, tables and JS."""
