/* keymap_keys -- key names ("C-a", "M-x", "PgDn") and table names. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "keymap_int.h"
#include "ptdec.h"

static const char *const km_table_names[KM_NTABLES] = {
	[KM_T_GLOBAL] = "global",
	[KM_T_PACKETS] = "packets",
	[KM_T_TIMING] = "timing",
	[KM_T_TIMELINE] = "timeline",
	[KM_T_PROMPT] = "prompt",
	[KM_T_VISUAL] = "visual",
};

/* Named keys; the first name of a code is the one printed. */
static const struct {
	const char *name;
	int key;
} km_key_names[] = {
	{ "Enter", 13 }, { "Return", 13 },
	{ "Escape", 27 }, { "Esc", 27 },
	{ "Tab", 9 },
	{ "BTab", KEY_BTAB }, { "S-Tab", KEY_BTAB },
	{ "Space", 32 }, { "SPC", 32 },
	{ "BSpace", KEY_BACKSPACE },
	{ "Up", KEY_UP }, { "Down", KEY_DOWN },
	{ "Left", KEY_LEFT }, { "Right", KEY_RIGHT },
	{ "Home", KEY_HOME }, { "End", KEY_END },
	{ "PageUp", KEY_PPAGE }, { "PgUp", KEY_PPAGE }, { "PPage", KEY_PPAGE },
	{ "PageDown", KEY_NPAGE }, { "PgDn", KEY_NPAGE }, { "NPage", KEY_NPAGE },
	{ "DC", KEY_DC }, { "Delete", KEY_DC },
	{ "IC", KEY_IC }, { "Insert", KEY_IC },
	{ "S-Up", KEY_SR }, { "S-Down", KEY_SF },
	{ "S-Left", KEY_SLEFT }, { "S-Right", KEY_SRIGHT },
	{ "S-Home", KEY_SHOME }, { "S-End", KEY_SEND },
};

#define KM_NKEYNAMES (sizeof(km_key_names) / sizeof(km_key_names[0]))

/* Fold the codes terminals send for one key into one code. */
int km_normalize(int key)
{
	int meta = key & KM_META;

	key &= ~KM_META;
	if (key == 10 || key == KEY_ENTER)
		key = 13;
	else if (key == 127)
		key = KEY_BACKSPACE;
	return key | meta;
}

int km_is_cancel(int key)
{
	return key == 27 || key == 7;
}

int km_key_parse(const char *name)
{
	size_t i, len;
	int k;

	if (!name || !*name)
		return -1;
	len = strlen(name);
	if (len == 1)
		return km_normalize((unsigned char)name[0]);
	for (i = 0; i < KM_NKEYNAMES; i++)
		if (!strcasecmp(name, km_key_names[i].name))
			return km_key_names[i].key;
	if ((name[0] == 'M' || name[0] == 'm') && name[1] == '-') {
		k = km_key_parse(name + 2);
		if (k < 0 || (k & KM_META))
			return -1;
		return k | KM_META;
	}
	if ((name[0] == 'C' || name[0] == 'c') && name[1] == '-') {
		const char *r = name + 2;

		if ((r[0] == 'M' || r[0] == 'm') && r[1] == '-' && r[2]) {
			char tmp[32];	/* C-M-x is M-C-x */

			if (strlen(r + 2) + 3 > sizeof(tmp))
				return -1;
			snprintf(tmp, sizeof(tmp), "C-%s", r + 2);
			k = km_key_parse(tmp);
			return k < 0 || (k & KM_META) ? -1 : k | KM_META;
		}
		if (!strcasecmp(r, "Space") || !strcasecmp(r, "SPC"))
			return 0;
		if (strlen(r) != 1)
			return -1;
		if ((r[0] >= 'a' && r[0] <= 'z') || (r[0] >= 'A' && r[0] <= 'Z'))
			return km_normalize(r[0] & 0x1f);
		switch (r[0]) {
		case '@': case ' ': return 0;
		case '[': return 27;
		case '\\': return 28;
		case ']': return 29;
		case '^': return 30;
		case '_': return 31;
		case '?': return KEY_BACKSPACE;
		}
		return -1;
	}
	if (name[0] == 'F' || name[0] == 'f') {
		char *end;
		long n;

		if (name[1] < '1' || name[1] > '9')
			return -1;
		n = strtol(name + 1, &end, 10);
		if (*end || n < 1 || n > 24)
			return -1;
		return KEY_F(n);
	}
	return -1;
}

char *km_key_name(int key, char *buf, size_t size)
{
	size_t i;
	int k;

	if (!buf || !size)
		return buf;
	if (key < 0) {
		snprintf(buf, size, "none");
		return buf;
	}
	if (key & KM_META) {
		char sub[32];

		km_key_name(key & ~KM_META, sub, sizeof(sub));
		snprintf(buf, size, "M-%s", sub);
		return buf;
	}
	k = km_normalize(key);
	for (i = 0; i < KM_NKEYNAMES; i++)
		if (km_key_names[i].key == k) {
			snprintf(buf, size, "%s", km_key_names[i].name);
			return buf;
		}
	if (k == 0)
		snprintf(buf, size, "C-Space");
	else if (k < 27)
		snprintf(buf, size, "C-%c", 'a' + k - 1);
	else if (k < 32)
		snprintf(buf, size, "C-%c", "[\\]^_"[k - 27]);
	else if (k < 127)
		snprintf(buf, size, "%c", k);
	else if (k >= KEY_F(1) && k <= KEY_F(24))
		snprintf(buf, size, "F%d", k - KEY_F0);
	else
		snprintf(buf, size, "Key%d", k);
	return buf;
}

char *km_seq_name(const int *keys, size_t n, char *buf, size_t size)
{
	size_t i, len = 0;
	char one[40];

	if (!buf || !size)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < n && keys; i++) {
		km_key_name(keys[i], one, sizeof(one));
		snprintf(buf + len, size - len, "%s%s", i ? " " : "", one);
		len = strlen(buf);
	}
	return buf;
}

enum km_table km_table_find(const char *name)
{
	int t;

	if (!name)
		return KM_T_NONE;
	for (t = 0; t < KM_NTABLES; t++)
		if (!strcmp(name, km_table_names[t]))
			return (enum km_table)t;
	return KM_T_NONE;
}

const char *km_table_name(enum km_table t)
{
	if (t < 0 || t >= KM_NTABLES)
		return "?";
	return km_table_names[t];
}
