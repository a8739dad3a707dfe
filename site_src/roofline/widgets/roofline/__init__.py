"""The interactive roofline: settings, payload, Bokeh layout, static first frame and JS."""
