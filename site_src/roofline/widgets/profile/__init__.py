"""```roofline-profile: a team's own torch.profiler trace as a static report in their docs —
the op families on the measured roofline, the waterfall of the step and the leaks
(roofline.profile.analyse computes it; profile.mjs draws it)."""
