"""matplotlib for the figure scripts (dg-figures.py, lskum-convergence.py,
lskum-far-field.py): imported as it is where it is installed; otherwise a
virtual environment in OUT/venv gets it from PyPI and the script runs
itself again with that environment's Python."""
import os
import pathlib
import subprocess
import sys


def ensure_matplotlib(out, script):
    """Returns if matplotlib imports; else re-executes `script` (with the
    same arguments) under OUT/venv's Python, installing matplotlib there
    first. Exits with a message if the environment still lacks it."""
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    name = pathlib.Path(script).stem
    venv = pathlib.Path(out) / "venv"
    py = venv / "bin" / "python"
    if os.environ.get("QFLOW_FIGURES_VENV"):
        sys.exit(f"{name}: matplotlib did not install in the virtual environment")
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(py), "-m", "pip", "install", "-q", "matplotlib"], check=True)
    env = dict(os.environ, QFLOW_FIGURES_VENV="1")
    os.execve(str(py), [str(py), str(script)] + sys.argv[1:], env)
