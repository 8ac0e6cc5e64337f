/* SPDX-License-Identifier: MIT */
/* analyze-out.c - CSV, JSON and HTML outputs of `sonde analyze -o DIR` (see analyze-view.h). */
#include "lib/analyze-view.h"

#include <errno.h>

int av_write_dir(const struct av_ctx *c, const char *dir, char *err, size_t errlen)
{
	return -ENOSYS;
}
