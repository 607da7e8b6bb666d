"""layertax: measures the tax each layer under a program charges."""
__version__ = "0.1.0"
