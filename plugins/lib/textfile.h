/* Whole-file reads and line splitting shared by the text parsers. */
#ifndef TB_TEXTFILE_H
#define TB_TEXTFILE_H

#include <stddef.h>

/* Reads a file into a NUL-terminated buffer; NULL on failure (it cannot be
 * opened or read, a directory, out of memory), errno saying why. */
char *tb_read_file(const char *path, size_t *len);

/* tb_read_file for a loader: NULL after writing "<path>: cannot read the
 * file: <reason>" into err. */
char *tb_read_text(const char *path, size_t *len, char *err, size_t errlen);

/* Next line of text[*pos..len) into buf (comments after '#' removed,
 * trimmed); returns 0 at the end, -1 if a line is longer than bufsize. */
int tb_next_line(const char *text, size_t len, size_t *pos, char *buf,
		 size_t bufsize);

/* Writes "<name>:<line>: <message>" (line 0: "<name>: <message>") into
 * err; always returns -1. */
int tb_fail_at(char *err, size_t errlen, const char *name, int line,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* A base-10 integer in [lo, hi] filling the whole string: 0, else -1. */
int tb_parse_int(const char *s, long lo, long hi, int *out);

#endif
