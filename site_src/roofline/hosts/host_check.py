"""Does the site hosting our plots load anything from another host? The plots never do (BokehJS
and the loader ship with the site), but a host site can: Material's default web fonts, an
analytics tag, a script or stylesheet from a CDN, the offline plugin's iframe-worker shim. An
author who added our plugin for offline plots would otherwise find out from a network log.

`warn_outside_assets(config)` logs ONE warning listing them (logger `mkdocs.plugins.roofline`),
or nothing. Pure inspection of the MkDocs config: no network, no Bokeh.

`warn_missing_polyfills(config, files)` warns for each local file `extra.polyfills` names that
the site does not have (a vendored shim never copied into docs/): every page would request it
and the offline plugin's search would not work from file://; `strict: true` fails on it."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

log = logging.getLogger("mkdocs.plugins.roofline")

ADVICE = ("For a site that works offline, set `theme.font: false` and add the `offline` "
          "plugin (see 'Embed these plots' in the roofline docs).")


def _is_remote(url: str) -> bool:
    return url.startswith(("http://", "https://", "//"))


def _plugin(config: Any, name: str) -> Any:
    """The enabled Material plugin `name` ('offline', 'privacy'), or None."""
    plugins = getattr(config, "plugins", None) or {}
    for key in (f"material/{name}", name):
        plugin = plugins.get(key) if hasattr(plugins, "get") else None
        if plugin is not None and getattr(plugin, "config", {}).get("enabled", True):
            return plugin
    return None


def outside_assets(config: Any) -> list[str]:
    """What the host site will load from other hosts, one short phrase each."""
    if _plugin(config, "privacy") is not None:
        return []  # Material's privacy plugin downloads them at build time and serves copies
    found: list[str] = []
    theme = config.theme
    if getattr(theme, "name", None) == "material":
        font = theme.get("font")
        if font:
            names = ", ".join(str(v) for v in font.values()) if isinstance(font, dict) else font
            found.append(f"web fonts from Google Fonts (theme.font: {names}; Material's "
                         "default)")
        analytics = (theme.get("analytics") or config.extra.get("analytics") or {})
        if isinstance(analytics, dict) and analytics.get("provider"):
            found.append(f"an analytics tag ({analytics['provider']})")
        if config.get("repo_url"):
            found.append("repository facts from the host of repo_url (stars, forks)")
    polyfills = [str(p) for p in config.extra.get("polyfills") or []]
    shim = _plugin(config, "offline") is not None  # it adds unpkg's shim unless one is vendored
    if shim and not any("iframe-worker" in p and not _is_remote(p) for p in polyfills):
        found.append("the offline plugin's iframe-worker shim from unpkg.com (vendor one in "
                     "extra.polyfills)")
    for option, values in (("extra_javascript", config.extra_javascript),
                           ("extra_css", config.extra_css),
                           ("extra.polyfills", polyfills)):
        for value in values or []:
            url = str(getattr(value, "path", value))
            if _is_remote(url) and not (shim and "iframe-worker" in url):
                found.append(f"{option} {url}")
    return list(dict.fromkeys(found))


def warn_outside_assets(config: Any) -> list[str]:
    """Log one warning naming what the host site loads from other hosts; returns the list."""
    found = outside_assets(config)
    if found:
        log.warning("roofline: the plots need nothing from the network, but this site loads "
                    "%s. %s", "; ".join(found), ADVICE)
    return found


def missing_polyfills(config: Any, files: Any) -> list[str]:
    """The local `extra.polyfills` paths that are no file of the site (`files`: MkDocs' Files,
    every plugin's and hook's generated files included)."""
    paths = [str(p) for p in config.extra.get("polyfills") or []]
    return [p for p in paths if not _is_remote(p)
            and files.get_file_from_path(p.lstrip("/")) is None]


def warn_missing_polyfills(config: Any, files: Any) -> list[str]:
    """One warning per missing polyfill file; returns them."""
    missing = missing_polyfills(config, files)
    for path in missing:
        fix = (" (copy it there with `roofline export --shim-only --out "
               f"{Path(config.docs_dir).name}/{Path(path).parent.as_posix()}`)"
               if "iframe-worker" in path else "")
        log.warning("roofline: extra.polyfills names %s, which is no file of this site: every "
                    "page would ask for it in vain%s.", path, fix)
    return missing
