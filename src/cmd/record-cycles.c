/* SPDX-License-Identifier: MIT */
/* record-cycles.c - placeholder until issue 3 lands: says so and fails. */
#include "cmd/cmds.h"

int cmd_record_cycles(int argc, char **argv)
{
	sonde_error("'record-cycles' is not built yet (issue 3)");
	return 1;
}
