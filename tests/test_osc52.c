/* test_osc52 -- base64 and the OSC 52 clipboard string, plain and for tmux. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "osc52.h"
#include "ptdec.h"

static void test_null(void **state)
{
	char *s = NULL;
	size_t n = 0;

	assert_int_equal(osc52_build(NULL, 1, 0, &s, &n), -pte_invalid);
	assert_int_equal(osc52_build("a", 1, 0, NULL, &n), -pte_invalid);
	assert_int_equal(osc52_build("a", 1, 0, &s, NULL), -pte_invalid);
	assert_null(s);
	/* Nothing is a valid (empty) clipboard. */
	assert_int_equal(osc52_build(NULL, 0, 0, &s, &n), 0);
	assert_string_equal(s, "\033]52;c;\a");
	assert_int_equal(n, strlen(s));
	free(s);
}

/* RFC 4648's test vectors. */
static void test_base64(void **state)
{
	static const char *const v[][2] = {
		{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" },
		{ "foobar", "Zm9vYmFy" },
	};
	char out[16];
	size_t i, n;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		n = osc52_base64(v[i][0], strlen(v[i][0]), out);
		assert_int_equal(n, strlen(v[i][1]));
		assert_int_equal(n, osc52_base64_len(strlen(v[i][0])));
		out[n] = 0;
		assert_string_equal(out, v[i][1]);
	}
	/* Every byte value, the high bit included. */
	{
		unsigned char b[3] = { 0xff, 0x00, 0xfb };

		n = osc52_base64(b, 3, out);
		out[n] = 0;
		assert_string_equal(out, "/wD7");
	}
}

static void test_build(void **state)
{
	char *s;
	size_t n;

	assert_int_equal(osc52_build("0x1f5c", 6, 0, &s, &n), 0);
	assert_string_equal(s, "\033]52;c;MHgxZjVj\a");
	assert_int_equal(n, strlen(s));
	free(s);
	assert_int_equal(osc52_build("hi\n", 3, OSC52_TMUX, &s, &n), 0);
	assert_string_equal(s, "\033Ptmux;\033\033]52;c;aGkK\a\033\\");
	assert_int_equal(n, strlen(s));
	free(s);
	assert_int_equal(osc52_build("x", SIZE_MAX, 0, &s, &n), -pte_nomem);
}

/* GNU screen: pieces of at most 76 bytes of the plain string, each in
 * its own DCS; taken out of them, the plain string again. */
static void test_screen(void **state)
{
	char data[100], *plain, *s, joined[256];
	size_t np, n, i, j = 0, pieces = 0;

	assert_int_equal(osc52_build("hi\n", 3, OSC52_SCREEN, &s, &n), 0);
	assert_string_equal(s, "\033P\033]52;c;aGkK\a\033\\");
	assert_int_equal(n, strlen(s));
	free(s);
	assert_int_equal(osc52_build("x", 1, OSC52_SCREEN | OSC52_TMUX, &s, &n),
			 -pte_invalid);
	memset(data, 'z', sizeof(data));
	assert_int_equal(osc52_build(data, sizeof(data), 0, &plain, &np), 0);
	assert_int_equal(osc52_build(data, sizeof(data), OSC52_SCREEN, &s, &n), 0);
	for (i = 0; i < n; ) {
		size_t k = 0;

		assert_memory_equal(s + i, "\033P", 2);
		i += 2;
		while (i + k + 1 < n && memcmp(s + i + k, "\033\\", 2))
			k++;
		assert_true(k <= 76);
		memcpy(joined + j, s + i, k);
		j += k;
		i += k + 2;
		pieces++;
	}
	assert_int_equal(pieces, (np + 75) / 76);
	assert_int_equal(j, np);
	assert_memory_equal(joined, plain, np);
	free(plain);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_screen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
