"""What was measured: CPU model, cores, caches, BLAS, library versions. Every probe degrades
to a stated absence ("not available: why") rather than a guess."""

from __future__ import annotations

import os
import platform
import sys
from importlib import metadata
from pathlib import Path

import numpy as np

# Used only when the OS does not say (not Linux): typical sizes of a current x86 server core.
FALLBACK_CACHES = {"L1": 32 * 1024, "L2": 1024 * 1024, "L3": 32 * 1024 * 1024}


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def _size_bytes(text: str) -> int:
    text = text.strip().upper()
    for suffix, scale in (("K", 1024), ("M", 1024 ** 2), ("G", 1024 ** 3)):
        if text.endswith(suffix):
            return int(text[:-1]) * scale
    return int(text)


def caches() -> tuple[list[dict], str]:
    """Data/unified caches of CPU 0 from sysfs, and where the sizes came from."""
    found = []
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            kind = (index / "type").read_text().strip()
            if kind == "Instruction":
                continue
            found.append({"level": f"L{(index / 'level').read_text().strip()}", "type": kind,
                          "size_bytes": _size_bytes((index / "size").read_text()),
                          "shared_cpu_list": (index / "shared_cpu_list").read_text().strip()})
        except (OSError, ValueError):
            continue
    if found:
        return found, "sysfs"
    return ([{"level": k, "type": "assumed", "size_bytes": v, "shared_cpu_list": "?"}
             for k, v in FALLBACK_CACHES.items()], "not reported by the OS: typical sizes assumed")


def cache_sizes(found: list[dict]) -> dict[str, int]:
    return {c["level"]: c["size_bytes"] for c in found}


def blas() -> dict:
    """The BLAS numpy calls, with its thread count when threadpoolctl can tell."""
    info: dict = {}
    try:
        cfg = np.show_config(mode="dicts")
        dep = cfg.get("Build Dependencies", {}).get("blas", {})
        info["numpy_build"] = {k: dep[k] for k in ("name", "version", "openblas configuration")
                               if k in dep}
    except Exception as exc:  # numpy's config dump is informational; its absence is reported
        info["numpy_build"] = f"not available: {type(exc).__name__}"
    try:
        import threadpoolctl
    except ImportError:
        info["threadpoolctl"] = ("not installed: BLAS threads not reported "
                                 "(pip install threadpoolctl)")
    else:
        info["threadpoolctl"] = [{k: p.get(k) for k in ("internal_api", "version",
                                                        "num_threads", "threading_layer",
                                                        "architecture")}
                                 for p in threadpoolctl.threadpool_info()]
    return info


def versions(extra: dict[str, str | None] | None = None) -> dict:
    try:
        ours = metadata.version("roofline-lesson")
    except metadata.PackageNotFoundError:
        ours = None
    return {"python": platform.python_version(), "numpy": np.__version__,
            "roofline-lesson": ours, **(extra or {})}


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages, where the OS reports them: a busy machine
    under-measures its roofs, so a measurement records the load at its start and end."""
    return list(os.getloadavg()) if hasattr(os, "getloadavg") else None


def machine_record(gpu: str | None = None) -> dict:
    """This machine as a measurement records it: CPU, caches, platform, BLAS, load average."""
    found, caches_from = caches()
    model = cpu_model()
    cpus = os.cpu_count() or 1
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = cpus
    return {
        "description": gpu or f"{model}, {usable} CPU core{'s' if usable != 1 else ''}",
        "cpu_model": model, "logical_cpus": cpus, "usable_cpus": usable,
        "caches": found, "caches_from": caches_from,
        "platform": platform.platform(), "python_implementation": sys.implementation.name,
        "blas": blas(), "gpu": gpu,
        "load_average": load_average(),
    }
