"""The lesson site's build-time side: markers in the Markdown expanded from the model, the
restored lesson parts, generated downloads and the offline zip. MkDocs-free except build.py,
which the thin hooks in hooks/ call."""
