"""The documentation site's hook for the playground page (mkdocs.yml: `hooks`).

- `on_post_page`: the playground page (docs/playground.md) gets its stylesheet and its
  script (docs/playground/playground.css and .js, copied by MkDocs as they are, with the
  script's Web Worker, worker.js, beside them), linked relative to the page wherever
  MkDocs puts it.
- `on_post_build`: `vendor` puts beside them, in site/playground/, what the page runs:
  Pyodide's files (pyodide/) and refimpl as a zip (maskref.zip, its embedded vocabularies
  with it) — so the page fetches nothing from anywhere but the site.

Pyodide comes from the npm package, pinned in tools/playground/package.json and its
package-lock.json: `npm ci` there installs it into tools/playground/node_modules/ (git
ignored), which the hook does itself when that folder is missing (npm must then be on
the PATH and reach the npm registry); MASKREF_PYODIDE=DIR names another folder holding
Pyodide's files instead.
"""
import os
import shutil
import subprocess
import zipfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NPM_PROJECT = os.path.join(REPO, "tools", "playground")
PYODIDE_FILES = ("pyodide.js", "pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json")
PAGE = "playground.md"


class PlaygroundError(Exception):
    """Pyodide or refimpl could not be put into the site (the message says what to do)."""


def pyodide_dir() -> str:
    """The folder of Pyodide's files: MASKREF_PYODIDE, or the npm package installed in
    tools/playground (by `npm ci` there, run now if it was not)."""
    given = os.environ.get("MASKREF_PYODIDE")
    folder = given or os.path.join(NPM_PROJECT, "node_modules", "pyodide")
    if not given and not os.path.exists(os.path.join(folder, "pyodide.asm.wasm")):
        npm = shutil.which("npm")
        if npm is None:
            raise PlaygroundError("the playground needs Pyodide: install Node.js's npm, or set MASKREF_PYODIDE to "
                                  "a folder of Pyodide's files (npm ci in tools/playground installs them)")
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=NPM_PROJECT,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        if done.returncode != 0:
            raise PlaygroundError("npm ci in %s failed:\n%s" % (NPM_PROJECT, done.stdout))
    missing = [f for f in PYODIDE_FILES if not os.path.exists(os.path.join(folder, f))]
    if missing:
        raise PlaygroundError("%s lacks Pyodide's %s" % (folder, ", ".join(missing)))
    return folder


def refimpl_zip(path: str) -> None:
    """refimpl as a zip: its modules and the data it reads (the embedded vocabularies),
    at fixed times so that the same tree gives the same bytes."""
    package = os.path.join(REPO, "refimpl")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for top, dirs, files in os.walk(package):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith((".py", ".json.gz", ".md", ".typed")):
                    full = os.path.join(top, name)
                    info = zipfile.ZipInfo(os.path.relpath(full, REPO).replace(os.sep, "/"), (2020, 1, 1, 0, 0, 0))
                    info.compress_type = zipfile.ZIP_DEFLATED
                    with open(full, "rb") as f:
                        z.writestr(info, f.read())


def vendor(site_dir: str) -> str:
    """Pyodide and refimpl into site_dir/playground/; the folder."""
    out = os.path.join(site_dir, "playground")
    target = os.path.join(out, "pyodide")
    os.makedirs(target, exist_ok=True)
    source = pyodide_dir()
    for name in PYODIDE_FILES:
        shutil.copyfile(os.path.join(source, name), os.path.join(target, name))
    refimpl_zip(os.path.join(out, "maskref.zip"))
    return out


def on_post_page(output, page, config):
    """The playground page's stylesheet and script, linked relative to the page."""
    if page.file.src_uri != PAGE:
        return output
    try:
        from properdocs.utils import get_relative_url
    except ImportError:  # MkDocs itself
        from mkdocs.utils import get_relative_url

    css = get_relative_url("playground/playground.css", page.url)
    js = get_relative_url("playground/playground.js", page.url)
    output = output.replace("</head>", '<link rel="stylesheet" href="%s">\n</head>' % css, 1)
    return output.replace("</body>", '<script src="%s"></script>\n</body>' % js, 1)


def on_post_build(config):
    """Pyodide and refimpl into the built site (vendor)."""
    try:
        vendor(config["site_dir"])
    except PlaygroundError as e:
        try:
            from properdocs.exceptions import PluginError
        except ImportError:  # MkDocs itself
            from mkdocs.exceptions import PluginError

        raise PluginError("playground: %s" % e) from None
