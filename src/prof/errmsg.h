/* SPDX-License-Identifier: MIT */
/* errmsg.h - the library's way of returning an error with a one-line reason. */
#ifndef SONDE_LIB_ERRMSG_H
#define SONDE_LIB_ERRMSG_H

#include <stddef.h>

/*
 * Format a one-line reason into err (when err and len are non-zero) and return code,
 * a -errno value: `return errmsg(err, len, -EINVAL, "bad record at %zu", off);`
 */
int errmsg(char *err, size_t len, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
