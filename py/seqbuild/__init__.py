"""Build glue for the MkDocs site: vendoring the offline runtime, bundling the JS, the hooks.

Nothing here ships to the browser; the lab code the browser runs lives in `seqlabs`.
"""
