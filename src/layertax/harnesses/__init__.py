"""Kernel harnesses for languages other than C (the C one lives in native/)."""
