/* action_list -- the action table and lookups by name. */
#include <string.h>

#include "action_list.h"

const struct action_info action_table[ACTION__N] = {
#define ACTION_ROW(id, name, help, flags, usage) \
	[ACTION_##id] = { name, help, flags, usage },
	ACTION_LIST(ACTION_ROW)
#undef ACTION_ROW
};

static const struct {
	const char *name;
	enum action action;
} action_aliases[] = {
#define ALIAS_ROW(name, id) { name, ACTION_##id },
	ACTION_ALIASES(ALIAS_ROW)
#undef ALIAS_ROW
};

enum action action_find_n(const char *name, size_t len)
{
	size_t i;

	if (!name)
		return ACTION_NONE;
	for (i = 0; i < ACTION__N; i++)
		if (strlen(action_table[i].name) == len &&
		    !memcmp(action_table[i].name, name, len))
			return (enum action)i;
	for (i = 0; i < sizeof(action_aliases) / sizeof(action_aliases[0]); i++)
		if (strlen(action_aliases[i].name) == len &&
		    !memcmp(action_aliases[i].name, name, len))
			return action_aliases[i].action;
	return ACTION_NONE;
}

enum action action_find(const char *name)
{
	return name ? action_find_n(name, strlen(name)) : ACTION_NONE;
}

const char *action_name(enum action a)
{
	if (a < 0 || a >= ACTION__N)
		return "none";
	return action_table[a].name;
}
