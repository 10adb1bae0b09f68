"""seqlabs: the numpy code behind the module's figures and labs.

The same files run under CPython at build time and in Pyodide in the browser,
so they use numpy only and keep no global state; every random draw takes a seed.
"""

__version__ = "0.1.0"
