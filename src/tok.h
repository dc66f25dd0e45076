/* tok -- split a line into words, with quotes and escapes.
 *
 * The one tokenizer for everything a person types or a file holds a line
 * at a time: marks files, keymap files and the prompt.  The rules:
 *
 *   - blanks (space, tab, CR, LF) separate words;
 *   - "..." quotes: blanks and # are part of the word, and \" and \\
 *     escape; with TOK_CESC also \n \t \r and \xHH (two hex digits, not
 *     00), and any other escape is an error; without it a backslash
 *     before anything else is kept as is;
 *   - with TOK_SINGLE, '...' quotes without escapes;
 *   - with TOK_BSLASH, a backslash outside quotes takes the next
 *     character as is (\# \' \" \\ and \ followed by a blank);
 *   - with TOK_COMMENT, a # at the start of a word ends the line;
 *   - quotes may start in the middle of a word: key="a b" is one word,
 *     key=a b.
 *
 * TOK_MARKS is a marks file's dialect (doc/ptbrowse.1, MARKS AND
 * REGIONS: notes with the escapes \" \\ \n \t \r \xHH, # starts a comment
 * outside quotes); TOK_KEYMAP a keymap line's (KEYMAPS: # starts a
 * comment, quote ' " # \ keys).
 */
#ifndef TOK_H
#define TOK_H

#include <stddef.h>

#define TOK_CESC	0x1u	/* C escapes in "..." */
#define TOK_SINGLE	0x2u	/* '...' quotes */
#define TOK_BSLASH	0x4u	/* \ outside quotes quotes the next character */
#define TOK_COMMENT	0x8u	/* # at the start of a word ends the line */
#define TOK_QUOTES	0x10u	/* @quoted tells how each part was read (TOK_Q_*) */

#define TOK_MARKS	(TOK_CESC | TOK_COMMENT)
#define TOK_KEYMAP	(TOK_SINGLE | TOK_BSLASH | TOK_COMMENT | TOK_QUOTES)

/* @quoted[i]: the quote argv[i] began with, ' or " (0: none); with
 * TOK_QUOTES also how its characters were read, so a word can be quoted
 * again for a reader with other rules (a keymap's pipe gives its words to
 * sh: x'$HOME' and \$HOME are literal there too).  A letter, a digit, a
 * byte above 0x7f or one of _ - . , / : + = @ % reads the same in any
 * quoting, in sh too: such a character outside quotes sets no bit. */
#define TOK_Q_OPEN	0xff	/* the quote the word began with, or 0 */
#define TOK_Q_BARE	0x100	/* another character outside quotes */
#define TOK_Q_SINGLE	0x200	/* a character in '...' */
#define TOK_Q_DOUBLE	0x400	/* a character in "..." */
#define TOK_Q_ESCAPED	0x800	/* a character after \ outside quotes */

/* What went wrong, for callers that word it their own way. */
enum tok_fail {
	TOK_OK,
	TOK_UNTERMINATED,	/* a quote is not closed */
	TOK_BAD_ESCAPE,		/* TOK_CESC: \ before an unknown character */
	TOK_BAD_HEX,		/* TOK_CESC: \x without two hex digits, or \x00 */
	TOK_TOO_MANY,		/* more than @max words */
	TOK_TOO_LONG,		/* the words do not fit in @size bytes */
};

struct tok_err {
	enum tok_fail code;
	size_t off;		/* byte offset in the line where it went wrong */
	char quote;		/* TOK_UNTERMINATED: the quote not closed */
	char msg[64];		/* a one-line message, without file or offset */
};

/* Split @line into words by the rules above (@flags picks the dialect).
 * @argv gets up to @max pointers to the words, unquoted and unescaped,
 * each NUL-terminated in @buf (@size bytes).  @buf may be @line itself
 * (cast): a word never outgrows the text it was read from, so the line
 * is overwritten only behind the reading.  @quoted, when not NULL, gets
 * per word the quote it began with (TOK_Q_OPEN: a note in a marks file,
 * as against a keyword), with TOK_QUOTES also the TOK_Q_* bits; @err,
 * when not NULL, gets what failed.
 * Returns the number of words (0 for a blank line or a comment).
 * Returns -pte_invalid with @err set for an unterminated quote, a bad
 * escape, more than @max words or words longer than @size, or for a
 * NULL @line, @buf or @argv, a zero @size or a @max below 1
 * (@err->code TOK_TOO_LONG, the message says "internal"). */
int tok_split(const char *line, unsigned flags, char *buf, size_t size,
	      char **argv, int *quoted, int max, struct tok_err *err);

/* Where the comment of @line starts as tok_split() with @flags and
 * TOK_COMMENT would see it: a # at the start of a word, outside quotes.
 * For a line taken as typed (a goto target in a config file) that is
 * to be cut the same way a split one is.
 * Returns the comment's offset in @line, or strlen(@line) if it has none
 * (or a quote is not closed). */
size_t tok_comment(const char *line, unsigned flags);

/* Append @s to @out (@size bytes, *@len used, NUL-terminated), after a
 * space when *@len is not 0, quoted with "..." when tok_split() with
 * @flags would otherwise not give it back as one word.  Without TOK_CESC
 * only " and \ are escaped (a newline stays as is), so the dialect must
 * be the one that will split the line.
 * Returns 0 and advances *@len.
 * Returns -pte_invalid if it does not fit (@out is then unchanged). */
int tok_quote(char *out, size_t size, size_t *len, const char *s,
	      unsigned flags);

#endif /* TOK_H */
