/*
 * tl_lanes_cmd -- :lane STREAM|next|prev [TSC]: switch to a lane's stream at a time
 * (the cursor's, or TSC), as a click on a lane does (tl_lanes.h).  Apart
 * from the lanes so that the timeline does not include the streams' view
 * (which includes the browser, which includes the timeline).
 */
#ifndef TL_LANES_CMD_H
#define TL_LANES_CMD_H

#include <stdint.h>

struct ui;
struct cmd_table;

/* :lane (cmd.h). */
extern const struct cmd_table tl_lanes_cmds;

/* Switch to stream @stream at TSC @tsc: the first row at or after it (the
 * last row if none).  Returns UI_DRAW_*. */
int tl_lanes_switch_at(struct ui *ui, int stream, uint64_t tsc);

#endif /* TL_LANES_CMD_H */
