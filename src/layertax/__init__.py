"""layertax: measures the tax each layer under a program charges."""
from layertax import blas_threads

__version__ = "0.1.0"

# Before anything of ours imports numpy or scipy: their OpenBLAS must not start a thread
# that spins on the CPU we measure on (blas_threads.py).
blas_threads.install()
