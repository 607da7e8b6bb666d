"""`layertax inspect BINARY`: why does this program start slowly, and what would fix it?

static.py reads what the files ask of the loader (no execution); measure.py
times start-up with the stamp preload and reads glibc's own statistics;
split.py divides spawn->main into its stages; model.py predicts the loader's
time from the static counts and prices each fix; tables.py lays it all out.
"""
