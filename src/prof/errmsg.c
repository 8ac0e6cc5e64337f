/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>

#include "prof/errmsg.h"

int errmsg(char *err, size_t len, int code, const char *fmt, ...)
{
	va_list ap;
	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return code;
}
