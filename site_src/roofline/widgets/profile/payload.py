"""The profile report's payload: what profile.mjs draws and, for a drop zone, what drop.mjs
reads beside it. Built from a ProfileSettings (widgets/profile/settings.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from roofline.widgets.profile.settings import ProfileSettings


def payload(settings: ProfileSettings) -> dict | None:
    """The trace's report (None for a drop zone with no trace of its own); with `drop`, what
    the page's script needs beside it: the CPU roof, the model's cost terms
    (roofline.profile.terms), and for a GPU trace the device rules, the chips they name and
    the kernel families (roofline.profile.kinds)."""
    report = settings.report() if settings.trace else None
    if not settings.drop:
        return report
    from roofline.profile.kinds import chip_roofs, device_rules, kernel_kinds
    from roofline.profile.terms import terms
    return {"report": report, "roof": settings.roof(), "terms": terms(),
            "devices": device_rules(), "chips": chip_roofs(), "kinds": kernel_kinds()}
