"""A measurement drawn over the roofline, and its tables: settings, overlay and JS."""
