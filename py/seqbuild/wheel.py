"""The seqlabs wheel the site ships beside its notebooks, so that a notebook downloaded from a lab
installs the very code that draws the figure, trained models included.

A real wheel, made by pip and setuptools (PEP 517) from a generated project that holds only the
seqlabs package and what it reads at run time: what `models.ensure` trains for the labs.
It is built without network (no build isolation: setuptools is pinned with the site's own
dependencies), with every timestamp set by SOURCE_DATE_EPOCH so the same inputs give the same
bytes, and cached under build/wheel/ by a hash of those inputs, so a warm build does not rebuild it.
"""
import ast
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from importlib.metadata import version as installed_version
from pathlib import Path

NAME = "seqlabs"
# What seqlabs opens at run time: the weights and each declaration's JSON that the build trained
# (seqlabs.trained, seqbuild.models).
PACKAGE_DATA = ["models/*.npz", "models/*.json"]
# 2024-01-01, the date the lab zip uses too; an epoch set by the caller wins.
DEFAULT_EPOCH = "1704067200"

PYPROJECT = """\
[build-system]
requires = ["setuptools>=70.1"]
build-backend = "setuptools.build_meta"

[project]
name = "{name}"
version = "{version}"
description = "The numpy code behind the labs of Sequences Before Transformers, with the models its build trained."
readme = "README.md"
requires-python = ">=3.11"
dependencies = ["numpy>=1.26"]
license = "MIT"

[tool.setuptools]
packages = ["{name}"]
include-package-data = false

[tool.setuptools.package-data]
{name} = {data}
"""

README = """\
# seqlabs

The labs of the module "Sequences Before Transformers" as plain Python: every figure of the site
is computed by one function, run with its settings by `seqlabs.api.call(name, params)`, which
returns a JSON-able dict. The site runs the same code in the browser through Pyodide.

```python
from seqlabs import api
print(sorted(api.LABS))                   # every lab, by name
name, lab = next(iter(api.LABS.items()))
print([p.name for p in lab.SCHEMA])       # its settings, each with a default, a range and a label
result = api.call(name, lab.EXAMPLES[0])  # one of the settings it is tested with
print(sorted(result))                     # what it returns, a JSON-able dict
```

What the build trained for the labs (weights, and the runs some figures draw) is included. Version {version}.
"""


def package_dir(root: Path) -> Path:
    return root / "py" / NAME


def package_version(root: Path) -> str:
    """seqlabs.__version__, read without importing the package (the build must not import it)."""
    tree = ast.parse((package_dir(root) / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__version__" for t in node.targets):
            return ast.literal_eval(node.value)
    raise SystemExit(f"{package_dir(root) / '__init__.py'} has no __version__; the wheel needs one.")


def wheel_name(root: Path) -> str:
    return f"{NAME}-{package_version(root)}-py3-none-any.whl"


def inputs(root: Path) -> list[Path]:
    """Every file that goes into the wheel, in a fixed order."""
    pkg = package_dir(root)
    files = sorted(pkg.glob("*.py"))
    for pattern in PACKAGE_DATA:
        files += sorted(pkg.glob(pattern))
    return files


def project_files(root: Path) -> dict[str, str]:
    version = package_version(root)
    data = "[" + ", ".join(f'"{p}"' for p in PACKAGE_DATA) + "]"
    return {"pyproject.toml": PYPROJECT.format(name=NAME, version=version, data=data),
            "README.md": README.format(version=version)}


def stamp(root: Path) -> str:
    """Changes with any packaged file, the generated project, the setuptools that builds it, or the epoch."""
    h = hashlib.sha256()
    for path in inputs(root):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    for name, text in sorted(project_files(root).items()):
        h.update(name.encode() + b"\0" + text.encode())
    h.update(f"setuptools {installed_version('setuptools')} epoch {epoch()}".encode())
    return h.hexdigest()[:16]


def epoch() -> str:
    return os.environ.get("SOURCE_DATE_EPOCH") or DEFAULT_EPOCH


def build(root: Path, out_dir: Path) -> Path:
    """Lays out the minimal project in a temporary folder and has pip build the wheel from it."""
    missing = [p for p in PACKAGE_DATA if not list(package_dir(root).glob(p))]
    if missing:
        raise SystemExit(f"The seqlabs wheel needs {', '.join(missing)} in py/seqlabs; train the models first.")
    with tempfile.TemporaryDirectory(prefix="seqlabs-wheel-") as tmp:
        project = Path(tmp) / "project"
        for path in inputs(root):
            dest = project / NAME / path.relative_to(package_dir(root))
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)
            dest.chmod(0o644)  # the same mode in the wheel on every machine, whatever the umask
        for name, text in project_files(root).items():
            (project / name).write_text(text)
        env = {**os.environ, "SOURCE_DATE_EPOCH": epoch(), "PYTHONHASHSEED": "0"}
        done = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
             "--quiet", "--wheel-dir", str(Path(tmp) / "dist"), str(project)],
            env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"pip could not build the seqlabs wheel:\n{done.stderr.strip()}")
        built = Path(tmp) / "dist" / wheel_name(root)
        out_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, out_dir / built.name)
    return out_dir / built.name


def ensure(root: Path) -> Path:
    """The wheel for the current sources, built only when its stamp is not in the cache yet."""
    cache = root / "build" / "wheel"
    want = cache / stamp(root)
    wheel = want / wheel_name(root)
    if not wheel.is_file():
        if cache.is_dir():  # one wheel per stamp would pile up over a session of edits
            shutil.rmtree(cache)
        print("Building the seqlabs wheel…", file=sys.stderr)
        build(root, want)
    return wheel
