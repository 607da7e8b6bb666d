"""The generic measurement core: build kernels (build/), measure them (measure/), turn samples
into statistics (analysis/) and keep the results (store/). Nothing here knows about any one
experiment, the dynamic loader (loader/) or the command line; it reads the experiment contract
(layertax.experiment) and nothing above it."""
