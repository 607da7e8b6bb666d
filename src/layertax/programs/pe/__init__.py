"""Pietrek's load-time program as he built it: PE32+ (x86-64) EXE and DLLs, built here with
mingw-w64, bound by our own binder, and proved to be what each variant claims by reading
every file back (pefile) before anything is timed.

generate: the C sources and .def files; build: the build.ninja and the variant
directories; binder: the bound import directory; verify: the claims, checked.
"""
