# src/tools/reuse/build.mk - sonde reuse's own build rules (included by the top Makefile).
# rt-reuse.c includes the exact engine (rt-stack.c) and inlines it in its every-access
# hook: libsonde.so links that copy only (rt-stack.o's, 22 KiB more, was never called);
# rt-stack.o stays in librt-pure.a for u-reuse-stack.
RT_SO_EXCLUDE += src/tools/reuse/rt-stack.c
