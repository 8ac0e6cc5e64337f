/* SPDX-License-Identifier: MIT */
/*
 * analyze-cfg.h - a function's control-flow graph drawn as SVG, laid out in C (no graphviz):
 * blocks in address order top to bottom, one box per block (index, address range, share of
 * the function's cycles, fill shaded by that share), fall-through edges straight down, other
 * edges as curves on the side (forward jumps right, backward jumps left).
 */
#ifndef SONDE_LIB_ANALYZE_CFG_H
#define SONDE_LIB_ANALYZE_CFG_H

#include <stdint.h>
#include <stdio.h>

#include "analyze/analyze.h"

/*
 * Write v's CFG to f as one <svg> element (no XML declaration, so it can also be inlined in
 * HTML).  weight[b] is block b's weight (cycles, or samples), shares are of their sum; unit
 * names it in labels ("cycles").  id makes the element ids unique in a page.  Each block is
 * one <rect>; each successor edge one <path class="edge ..." data-from data-to>.
 * 0, or -EIO when f failed.  Not handler-safe.
 */
int cfg_svg_write(FILE *f, const struct an_func_view *v, const uint64_t *weight,
		  const char *unit, int id);

#endif
