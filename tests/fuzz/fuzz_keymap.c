/* fuzz_keymap -- the keymap parser (km_parse) on any text, then the keys
 * after the text's first NUL fed through the result (km_feed), with every
 * binding listed and described as the help screen would.  "source" lines
 * are defused first: the parser must not wander the file system. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keymap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum km_table panes[] = {
		KM_T_PACKETS, KM_T_TIMING, KM_T_TIMELINE, KM_T_NONE
	};
	struct km *km;
	struct km_state st;
	struct km_result res;
	struct km_binding_view v;
	char *text, *p, buf[512];
	const uint8_t *keys;
	size_t tlen, nkeys, i, k;
	int t;

	keys = memchr(data, 0, size);
	tlen = keys ? (size_t)(keys - data) : size;
	nkeys = keys ? size - tlen - 1 : 0;
	if (keys)
		keys++;
	text = malloc(tlen + 1);
	if (!text)
		return 0;
	memcpy(text, data, tlen);
	text[tlen] = 0;
	for (p = text; (p = strstr(p, "source")); p++)
		*p = 'S';
	km = km_new();
	if (!km)
		goto out;
	if (km_parse(km, "fuzz.keys", text) < 0)
		abort();
	for (i = 0; i < km_nerrors(km); i++)
		if (!km_error(km, i))
			abort();
	for (t = KM_T_GLOBAL; t <= KM_T_VISUAL; t++) {
		for (i = 0; i < km_count(km, t); i++) {
			if (km_get(km, t, i, &v) || !v.keys || !v.args || !v.note ||
			    v.nkeys == 0 || v.nkeys > KM_SEQ_MAX)
				abort();
			km_seq_name(v.keys, v.nkeys, buf, sizeof(buf));
			for (k = 0; k < v.nkeys; k++)
				km_key_name(v.keys[k], buf, sizeof(buf));
			km_keys_for(km, t, v.action, buf, sizeof(buf));
		}
	}
	km_state_reset(&st);
	for (i = 0; i + 1 < nkeys; i += 2) {
		int key = keys[i] | (keys[i + 1] & 1) << 8;
		enum km_table mode = (keys[i + 1] & 2) ? KM_T_PROMPT :
				     (keys[i + 1] & 4) ? KM_T_VISUAL : KM_T_NONE;

		if ((keys[i + 1] & 0x18) == 0x18)
			km_state_describe(&st);
		km_feed(km, &st, mode, panes[(keys[i + 1] >> 5) & 3], key, &res);
		km_state_describe_pending(&st, buf, sizeof(buf));
		km_describe(&res, buf, sizeof(buf));
	}
	km_free(km);
out:
	free(text);
	return 0;
}
