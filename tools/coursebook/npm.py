"""JavaScript the site serves itself, from the npm registry: MathJax 3 (the pages' math) and
reveal.js (the slides). ``npm pack`` fetches a package (and checks its integrity); the
parts the site needs are unpacked into a cache folder once, then copied into each build.
Nothing is ever loaded from a CDN.

Not here: the site's own CSS and JS (docs/_static/).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["BookError", "NpmPackage", "MATHJAX", "REVEAL", "CACHE", "cache_dir", "fetch",
           "copy_parts"]


class BookError(Exception):
    """A failure with a one-line message for the user."""


@dataclass(frozen=True)
class NpmPackage:
    """An npm package the site copies parts of: `name`@`version`, its folder `root` inside
    the tarball's ``package/``, and the `parts` (files or folders under `root`) the site
    needs."""

    name: str
    version: str
    root: str
    parts: tuple[str, ...]

    @property
    def spec(self) -> str:
        return f"{self.name}@{self.version}"


MATHJAX = NpmPackage("mathjax", "3.2.2", "es5", (
    "tex-chtml.js", "input", "output/chtml.js", "output/chtml", "ui", "a11y", "sre", "adaptors"))
"""The TeX-to-CHTML bundle, the TeX extensions it autoloads, its fonts, the menu and the
accessibility parts it loads on demand."""

REVEAL = NpmPackage("reveal.js", "5.2.1", "", (
    "dist/reveal.js", "dist/reveal.css", "dist/reset.css", "dist/theme/white.css",
    "dist/theme/fonts", "plugin/notes/notes.js"))
"""reveal.js's UMD bundle, its styles and the white theme, and the speaker-notes plugin."""


CACHE = Path(__file__).resolve().parents[2] / "build" / "cache"
"""Where the packages are kept between builds: the repository's build/cache/ (`make clean`
removes it), never the user's home; npm's own download cache goes into its ``npm/``."""


def cache_dir(pkg: NpmPackage, base: Path = CACHE) -> Path:
    """Where `pkg` is kept between builds: ``base/NAME-VERSION``."""
    return base / f"{pkg.name}-{pkg.version}"


def fetch(pkg: NpmPackage, cache: Path | None = None) -> Path:
    """`pkg`'s `root` folder, from the cache or else from the npm registry. Returns it."""
    cache = cache or cache_dir(pkg)
    root = cache / (pkg.root or "package")
    if (root / pkg.parts[0]).exists():
        return root
    npm = shutil.which("npm")
    if npm is None:
        raise BookError(f"make book: {pkg.spec} comes from the npm registry and npm was not "
                        "found: install Node.js and npm (Debian: apt-get install npm) or unpack "
                        f"the npm package {pkg.spec} into {cache}")
    cache.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache.parent) as tmp:
        r = subprocess.run([npm, "pack", pkg.spec, "--silent", "--pack-destination", tmp],
                           capture_output=True, text=True,  # npm's cache and logs beside ours
                           env={**os.environ, "npm_config_cache": str(cache.parent / "npm")})
        tgz = next(Path(tmp).glob("*.tgz"), None)
        if r.returncode != 0 or tgz is None:
            detail = (r.stderr.strip().splitlines() or ["no output"])[-1]
            raise BookError(f"make book: npm pack {pkg.spec} failed ({detail}); check that "
                            "the npm registry is reachable")
        prefix = f"package/{pkg.root}/" if pkg.root else "package/"
        unpacked = Path(tmp) / "unpacked"
        with tarfile.open(tgz) as tar:
            members = [m for m in tar.getmembers() if m.name.startswith(prefix)
                       and (m.isfile() or m.isdir())]
            tar.extractall(unpacked, members=members, filter="data")
        staged = Path(tmp) / "cache"
        staged.mkdir()
        shutil.move(str(unpacked / "package" / pkg.root if pkg.root else unpacked / "package"),
                    staged / (pkg.root or "package"))
        if cache.exists():
            shutil.rmtree(cache)
        staged.rename(cache)  # atomic: a half-unpacked cache is never seen
    return root


def copy_parts(pkg: NpmPackage, root: Path, dest: Path) -> None:
    """Copy `pkg`'s `parts` from its unpacked `root` into `dest`."""
    for part in pkg.parts:
        src = root / part
        if src.is_dir():
            shutil.copytree(src, dest / part, dirs_exist_ok=True)
        elif src.is_file():
            (dest / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / part)
        else:
            raise BookError(f"the {pkg.name} cache {root.parent} lacks {part}; delete the "
                            "folder and run make book again")
