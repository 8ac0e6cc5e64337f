/* SPDX-License-Identifier: MIT */
/* analyze.c - placeholder until issue 3 lands: says so and fails. */
#include "cmd/cmds.h"

int cmd_analyze(int argc, char **argv)
{
	sonde_error("'analyze' is not built yet (issue 3)");
	return 1;
}
