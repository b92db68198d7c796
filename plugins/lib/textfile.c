#include "textfile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *tb_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n;
	int saved;

	*len = 0;
	if (!f)
		return NULL;
	do {
		if (cap - *len < 4096) {
			size_t ncap = cap ? cap * 2 : 65536;
			char *nb = realloc(buf, ncap + 1);
			if (!nb)
				goto fail;
			buf = nb;
			cap = ncap;
		}
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
	} while (n > 0);
	/* A read error (a directory: EISDIR; EIO) also ends the loop: it is
	 * a failure, not a short file. */
	if (ferror(f))
		goto fail;
	fclose(f);
	buf[*len] = '\0';
	return buf;
fail:
	saved = errno ? errno : EIO;
	free(buf);
	fclose(f);
	*len = 0;
	errno = saved;
	return NULL;
}

int tb_next_line(const char *text, size_t len, size_t *pos, char *buf,
		 size_t bufsize)
{
	size_t start = *pos, end, n;
	char *hash;

	if (start >= len)
		return 0;
	end = start;
	while (end < len && text[end] != '\n')
		end++;
	*pos = end < len ? end + 1 : end;
	n = end - start;
	if (n >= bufsize)
		return -1;
	memcpy(buf, text + start, n);
	buf[n] = '\0';
	/* A NUL inside the line ends it, as it would in a C string. */
	hash = strchr(buf, '#');
	if (hash)
		*hash = '\0';
	n = strlen(buf);
	while (n && strchr(" \t\r", buf[n - 1]))
		buf[--n] = '\0';
	if (buf[0] == ' ' || buf[0] == '\t') {
		size_t k = strspn(buf, " \t");
		memmove(buf, buf + k, n - k + 1);
	}
	return 1;
}

char *tb_read_text(const char *path, size_t *len, char *err, size_t errlen)
{
	char *text = tb_read_file(path, len);

	if (!text)
		tb_fail_at(err, errlen, path, 0, "cannot read the file: %s",
			   strerror(errno));
	return text;
}

int tb_fail_at(char *err, size_t errlen, const char *name, int line,
	       const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !errlen)
		return -1;
	/* Line 0: about the whole file (it cannot be read, it is empty). */
	n = line > 0 ? snprintf(err, errlen, "%s:%d: ", name, line)
		     : snprintf(err, errlen, "%s: ", name);
	if (n < 0 || (size_t)n >= errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

int tb_parse_int(const char *s, long lo, long hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}
