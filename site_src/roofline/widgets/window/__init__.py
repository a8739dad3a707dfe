"""The serving window: decode throughput, MFU and price against the batch (```roofline-window,
`roofline window`). settings.py (the options), payload.py (the costs, from
roofline.model.serving), window.mjs (the figures: the one copy), static.mjs (the drawing),
view.mjs (the page's controls), block.py (the HTML block)."""
