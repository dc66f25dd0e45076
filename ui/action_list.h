/*
 * action_list -- every action of the browser, declared once.
 *
 * ACTION_LIST() is an X-macro: ACTION(ID, "name", "help", flags, "usage").
 * It feeds the enum below (dispatch switches on enum action), the keymap
 * parser (keymap.c looks names up here), the help screen and completion
 * (complete.c reads the usage words), so none of them can drift.
 *
 * Every action is also a prompt command (":name ARGS"), as in tmux.
 * Usage words tell completion what an argument is: COMMAND, TYPE, MARK,
 * REGION, OPTION, FILE, TABLE, KEY, TARGET (a goto target); a word like
 * "in|out" lists literal choices.  Brackets mark optional words and
 * "..." repeats the last one.
 */
#ifndef ACTION_LIST_H
#define ACTION_LIST_H

#include <stddef.h>

/* Flags of an action. */
#define ACT_COUNT	0x01	/* takes a count prefix (3j, 50%, C-u 8 C-n) */
#define ACT_KEY		0x02	/* reads one more key ({key}: m a, ' a) */
#define ACT_ARGS	0x04	/* takes arguments (prompt, or bind ... ARGS) */
#define ACT_PREFIX	0x08	/* a count prefix itself, handled by km_feed() */

#define ACTION_LIST(ACTION) \
	/* moving the cursor */ \
	ACTION(CURSOR_DOWN, "cursor-down", "Next packet", ACT_COUNT, "") \
	ACTION(CURSOR_UP, "cursor-up", "Previous packet", ACT_COUNT, "") \
	ACTION(SCROLL_DOWN, "scroll-down", "Scroll the view down a line", ACT_COUNT, "") \
	ACTION(SCROLL_UP, "scroll-up", "Scroll the view up a line", ACT_COUNT, "") \
	ACTION(PAGE_DOWN, "page-down", "Page down", ACT_COUNT, "") \
	ACTION(PAGE_UP, "page-up", "Page up", ACT_COUNT, "") \
	ACTION(HALFPAGE_DOWN, "halfpage-down", "Half a page down", ACT_COUNT, "") \
	ACTION(HALFPAGE_UP, "halfpage-up", "Half a page up", ACT_COUNT, "") \
	ACTION(SCROLL_LEFT, "scroll-left", "Scroll left", ACT_COUNT, "") \
	ACTION(SCROLL_RIGHT, "scroll-right", "Scroll right", ACT_COUNT, "") \
	ACTION(GOTO_START, "goto-start", "Go to the start, or to packet #N", ACT_COUNT, "") \
	ACTION(GOTO_END, "goto-end", "Go to the end, or to packet #N", ACT_COUNT, "") \
	ACTION(GOTO_PERCENT, "goto-percent", "Go to N percent of the file", ACT_COUNT, "") \
	ACTION(GOTO_OFFSET, "goto-offset", "Go to byte offset N (prompt without N)", ACT_COUNT, "") \
	ACTION(GOTO_PACKET, "goto-packet", "Go to packet #N (prompt without N)", ACT_COUNT, "") \
	ACTION(GOTO, "goto", "Go to an offset, %, psb N, tsc V, t 1ms, 'mark, region, #N", ACT_ARGS, "TARGET") \
	ACTION(RECENTER, "recenter", "Put the cursor in the middle and redraw", 0, "") \
	ACTION(NEXT_PSB, "next-psb", "Next sync point (PSB)", ACT_COUNT, "") \
	ACTION(PREV_PSB, "prev-psb", "Previous sync point (PSB)", ACT_COUNT, "") \
	ACTION(NEXT_ERROR, "next-error", "Next OVF, bad packet or lost sync", ACT_COUNT, "") \
	ACTION(PREV_ERROR, "prev-error", "Previous OVF, bad packet or lost sync", ACT_COUNT, "") \
	ACTION(NEXT_SAME_TYPE, "next-same-type", "Next packet of the cursor's type", ACT_COUNT, "") \
	ACTION(PREV_SAME_TYPE, "prev-same-type", "Previous packet of the cursor's type", ACT_COUNT, "") \
	/* search and filter */ \
	ACTION(SEARCH_FORWARD, "search-forward", "Search forward (prompt without PATTERN)", ACT_ARGS, "[TYPE] [ARG...]") \
	ACTION(SEARCH_BACKWARD, "search-backward", "Search backward (prompt without PATTERN)", ACT_ARGS, "[TYPE] [ARG...]") \
	ACTION(SEARCH, "search", "Search forward for a pattern (-b: backward)", ACT_ARGS, "TYPE [ARG...]") \
	ACTION(SEARCH_AGAIN, "search-again", "Repeat the last search", ACT_COUNT, "") \
	ACTION(SEARCH_REVERSE, "search-reverse", "Repeat the last search the other way", ACT_COUNT, "") \
	ACTION(FILTER, "filter", "Show only matching packets (no pattern: all)", ACT_ARGS, "[TYPE] [ARG...]") \
	ACTION(TOGGLE_HIGHLIGHT, "toggle-highlight", "Toggle search highlighting", 0, "") \
	/* marks, bookmarks, regions */ \
	ACTION(SET_MARK, "set-mark", "Set mark L at the cursor", ACT_KEY, "") \
	ACTION(JUMP_MARK, "jump-mark", "Jump to mark L (' or `: previous position)", ACT_KEY, "") \
	ACTION(CLEAR_MARK, "clear-mark", "Clear mark L", ACT_KEY, "") \
	ACTION(JUMP_LAST, "jump-last", "Jump to the previous position", 0, "") \
	ACTION(JUMP_BACK, "jump-back", "Back in the location history", ACT_COUNT, "") \
	ACTION(JUMP_FORWARD, "jump-forward", "Forward in the location history", ACT_COUNT, "") \
	ACTION(NEXT_MARK, "next-mark", "Next mark or bookmark", ACT_COUNT, "") \
	ACTION(PREV_MARK, "prev-mark", "Previous mark or bookmark", ACT_COUNT, "") \
	ACTION(TOGGLE_BOOKMARK, "toggle-bookmark", "Toggle an anonymous bookmark on the cursor", 0, "") \
	ACTION(PUSH_MARK, "push-mark", "Set the anonymous mark at the cursor", 0, "") \
	ACTION(POP_MARK, "pop-mark", "Jump to the anonymous mark and pop it", 0, "") \
	ACTION(EXCHANGE_MARK, "exchange-mark", "Swap the cursor and the anonymous mark", 0, "") \
	ACTION(MARK, "mark", "Set a named mark at the cursor", ACT_ARGS, "NAME [NOTE]") \
	ACTION(MARKS, "marks", "List marks and regions", 0, "") \
	ACTION(DELMARK, "delmark", "Delete marks", ACT_ARGS, "MARK...") \
	ACTION(VISUAL, "visual", "Begin or extend a range selection", 0, "") \
	ACTION(REGION, "region", "Name the selection (or FROM TO) as a region", ACT_ARGS, "NAME [TARGET] [TARGET] [NOTE]") \
	ACTION(REGION_ADD, "region-add", "Region from the anonymous mark to the cursor", ACT_ARGS, "NAME [NOTE]") \
	ACTION(REGIONS, "regions", "Summarise a region (against another: its delta)", ACT_ARGS, "[REGION] [MARK]") \
	ACTION(REF, "ref", "Measure time deltas from a mark, bookmark or region (none: stop)", ACT_ARGS, "[MARK]") \
	ACTION(DELREGION, "delregion", "Delete regions", ACT_ARGS, "REGION...") \
	ACTION(EXPORT, "export", "Write a region's raw PT bytes to a file", ACT_ARGS, "REGION FILE") \
	ACTION(EXPORT_MARKS, "export-marks", "Write marks and regions to a file", ACT_ARGS, "FILE") \
	ACTION(IMPORT_MARKS, "import-marks", "Merge marks and regions from a file", ACT_ARGS, "FILE") \
	/* copying and piping */ \
	ACTION(YANK, "yank", "Copy the cursor's row (y), offset (o), IP (i) or symbol (s) to the clipboard", ACT_COUNT | ACT_KEY | ACT_ARGS, "[row|offset|ip|symbol]") \
	ACTION(YANK_ROWS, "yank-rows", "Copy rows to the clipboard: the selection, a region, N, else the cursor's", ACT_COUNT | ACT_ARGS, "[REGION]") \
	ACTION(PIPE, "pipe", "Pipe rows (the selection, a region, N, else the screen's) as text or a raw slice to a shell command", ACT_COUNT | ACT_ARGS, "[text|raw] [region REGION | rows N] [--] CMD...") \
	/* panes and the timeline */ \
	ACTION(FOCUS_NEXT_PANE, "focus-next-pane", "Focus the next pane", 0, "") \
	ACTION(FOCUS_PREV_PANE, "focus-prev-pane", "Focus the previous pane", 0, "") \
	ACTION(TIMELINE_ZOOM, "timeline-zoom", "Zoom the timeline: in, out, all, the selection, a region (here or NAME), around a search hit, FROM TO", ACT_ARGS | ACT_COUNT, "in|out|all|selection|hit|region [REGION]") \
	ACTION(TIMELINE_AXIS, "timeline-axis", "Toggle the timeline axis: time or bytes", 0, "") \
	ACTION(CODE_VIEW, "code-view", "Toggle the code view (each packet's instructions under it), or set it", ACT_ARGS, "[packets|code]") \
	ACTION(STREAMS, "streams", "List streams (CPUs), or switch to one", ACT_ARGS, "[STREAM]") \
	ACTION(LANE, "lane", "Switch to a CPU lane's stream at the cursor's time (or at TSC)", ACT_ARGS, "STREAM|next|prev [TSC]") \
	ACTION(FUNCS, "funcs", "The call tree of the window, selection, a region or FROM TO", ACT_ARGS, "[REGION | FROM TO]") \
	ACTION(STALLS, "stalls", "List the longest gaps, slowest periods, sleeps", ACT_ARGS, "[N]") \
	ACTION(ITERATIONS, "iterations", "Loop iterations between a search's hits: durations, histogram, slowest", ACT_ARGS, "[EXPR]") \
	/* the prompt, configuration and the program */ \
	ACTION(COMMAND_PROMPT, "command-prompt", "Open the command prompt (with TEXT)", ACT_ARGS, "[TEXT]") \
	ACTION(SET, "set", "Set an option, or show them all", ACT_ARGS, "[OPTION] [VALUE]") \
	ACTION(BIND, "bind", "Bind keys to a command", ACT_ARGS, "[-T TABLE] [-N NOTE] KEY... COMMAND [ARG...]") \
	ACTION(UNBIND, "unbind", "Remove key bindings", ACT_ARGS, "[-T TABLE] KEY...") \
	ACTION(SOURCE, "source", "Load a keymap file", ACT_ARGS, "FILE") \
	ACTION(SAVE_SCREEN, "save-screen", "Write the screen as text to a file", ACT_ARGS, "FILE") \
	ACTION(DESCRIBE_KEY, "describe-key", "Show what the next key does", 0, "") \
	ACTION(HELP, "help", "Show keys and commands", ACT_ARGS, "[COMMAND]") \
	ACTION(MESSAGES, "messages", "Show every message of this session", 0, "") \
	ACTION(INFO, "info", "File, offset and index state", 0, "") \
	ACTION(REDRAW, "redraw", "Redraw the screen", 0, "") \
	ACTION(RELOAD, "reload", "Reload the trace (it grew or changed)", 0, "") \
	ACTION(TOGGLE_MOUSE, "toggle-mouse", "Toggle the mouse", 0, "") \
	ACTION(TOGGLE_SYMBOLS, "toggle-symbols", "Show IPs as function+0xoff or as hex", 0, "") \
	ACTION(INTERRUPT, "interrupt", "Interrupt a long operation", 0, "") \
	ACTION(CANCEL, "cancel", "Cancel the prompt, selection or count", 0, "") \
	ACTION(SUSPEND, "suspend", "Suspend ptbrowse (fg resumes)", 0, "") \
	ACTION(QUIT, "quit", "Quit", 0, "") \
	/* count prefixes, consumed by km_feed() */ \
	ACTION(DIGIT_ARGUMENT, "digit-argument", "Part of a count (0-9, M-0..M-9)", ACT_PREFIX, "") \
	ACTION(UNIVERSAL_ARGUMENT, "universal-argument", "Start a count: 4, x4 again, or digits", ACT_PREFIX, "")

/* Short names accepted at the prompt: ALIAS("name", ID). */
#define ACTION_ALIASES(ALIAS) \
	ALIAS("g", GOTO) \
	ALIAS("q", QUIT) \
	ALIAS("h", HELP) \
	ALIAS("zoom", TIMELINE_ZOOM)

/* The actions; ACTION_NONE is "no action". */
enum action {
	ACTION_NONE = -1,
#define ACTION_ENUM(id, name, help, flags, usage) ACTION_##id,
	ACTION_LIST(ACTION_ENUM)
#undef ACTION_ENUM
	ACTION__N
};

/* One row of the table. */
struct action_info {
	const char *name;	/* command name, "cursor-down" */
	const char *help;	/* one line for the help screen */
	unsigned int flags;	/* ACT_* */
	const char *usage;	/* argument words, "" if none */
};

/* The table, indexed by enum action, ACTION__N rows. */
extern const struct action_info action_table[ACTION__N];

/* The action called @name (an alias like "g" counts), or ACTION_NONE. */
enum action action_find(const char *name);

/* The action called by the first @len bytes of @name, or ACTION_NONE. */
enum action action_find_n(const char *name, size_t len);

/* The name of @a, or "none" if @a is not an action. */
const char *action_name(enum action a);

#endif /* ACTION_LIST_H */
