"""The generated test programs, Pietrek's load-time program above all: its sources in any
shape (generate.py), its Linux link variants (variants.py) and their build (build.py), the
size and time a shape would take to build (estimate.py), and the PE32+ program with its
binder and verifier (pe/). Used by the loadtime experiment, `inspect` and windows/ alike."""
