"""Roofline your own profile: a torch.profiler Chrome trace placed on the roofline of the
machine it ran on (`roofline profile`, the ```roofline-profile fence). trace.py reads the trace
one event at a time, costs.py prices each op with roofline.model.ops, analyse.py builds the
report."""
