"""Reading ELF files and asking the dynamic loader: the ELF reader and its checks, the library
search as ld.so does it, glibc's LD_DEBUG statistics and the loader views made of them, the
loader cost model, and the loader's phases counted under callgrind. Used by `inspect` and the
loadtime experiment; it builds on the engine and launch/, and never imports above them."""
