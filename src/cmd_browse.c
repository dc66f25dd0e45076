/* cmd_browse -- placeholder until the ncurses browser lands in ui/. */
#include <stdio.h>

#include "cmds.h"

int cmd_browse_main(int argc, char **argv)
{
	char *dargv[] = { "dump", argv[argc - 1], NULL };

	fprintf(stderr, "ptbrowse: the interactive browser is not built yet; "
			"showing 'ptbrowse dump %s'\n", argv[argc - 1]);
	return cmd_dump_main(2, dargv);
}
