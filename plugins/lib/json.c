#include "json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TB_JSON_MAX_DEPTH 32

struct parser {
	const char *s;
	size_t len;
	size_t pos;
	char *err;
	size_t errlen;
};

static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!p->err || !p->errlen)
		return -1;
	n = snprintf(p->err, p->errlen, "byte %zu: ", p->pos);
	if (n < 0 || (size_t)n >= p->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static void skip_space(struct parser *p)
{
	while (p->pos < p->len && strchr(" \t\r\n", p->s[p->pos]) &&
	       p->s[p->pos])
		p->pos++;
}

static int parse_value(struct parser *p, struct tb_json *v, int depth);

static int hex4(struct parser *p, unsigned *out)
{
	unsigned u = 0;

	if (p->len - p->pos < 4)
		return fail(p, "short \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = p->s[p->pos++];
		u <<= 4;
		if (c >= '0' && c <= '9')
			u |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			u |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			u |= (unsigned)(c - 'A' + 10);
		else
			return fail(p, "bad \\u escape");
	}
	*out = u;
	return 0;
}

/* Encodes code point u as UTF-8 into buf; returns the byte count. */
static size_t utf8(unsigned u, char *buf)
{
	if (u < 0x80) {
		buf[0] = (char)u;
		return 1;
	}
	if (u < 0x800) {
		buf[0] = (char)(0xc0 | (u >> 6));
		buf[1] = (char)(0x80 | (u & 0x3f));
		return 2;
	}
	buf[0] = (char)(0xe0 | (u >> 12));
	buf[1] = (char)(0x80 | ((u >> 6) & 0x3f));
	buf[2] = (char)(0x80 | (u & 0x3f));
	return 3;
}

static int parse_string(struct parser *p, char **out)
{
	size_t start = ++p->pos, cap = 16, n = 0;
	char *buf = malloc(cap);

	(void)start;
	if (!buf)
		return fail(p, "out of memory");
	while (1) {
		char c;

		if (p->pos >= p->len) {
			free(buf);
			return fail(p, "unterminated string");
		}
		if (cap - n < 4) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return fail(p, "out of memory");
			}
			buf = nb;
			cap *= 2;
		}
		c = p->s[p->pos++];
		if (c == '"')
			break;
		if ((unsigned char)c < 0x20) {
			free(buf);
			return fail(p, "control character in string");
		}
		if (c != '\\') {
			buf[n++] = c;
			continue;
		}
		if (p->pos >= p->len) {
			free(buf);
			return fail(p, "unterminated escape");
		}
		c = p->s[p->pos++];
		switch (c) {
		case '"': case '\\': case '/':
			buf[n++] = c;
			break;
		case 'b': buf[n++] = '\b'; break;
		case 'f': buf[n++] = '\f'; break;
		case 'n': buf[n++] = '\n'; break;
		case 'r': buf[n++] = '\r'; break;
		case 't': buf[n++] = '\t'; break;
		case 'u': {
			unsigned u = 0;
			if (hex4(p, &u)) {
				free(buf);
				return -1;
			}
			if (u == 0) {
				free(buf);
				return fail(p, "NUL in string");
			}
			/* Surrogates are kept as the replacement character:
			 * names in topology files are ASCII. */
			if (u >= 0xd800 && u <= 0xdfff)
				u = 0xfffd;
			n += utf8(u, buf + n);
			break;
		}
		default:
			free(buf);
			return fail(p, "bad escape '\\%c'", c);
		}
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

static int parse_number(struct parser *p, struct tb_json *v)
{
	char tmp[64];
	size_t n = 0;
	char *end;

	while (p->pos < p->len && n < sizeof(tmp) - 1 &&
	       strchr("+-0123456789.eE", p->s[p->pos]) && p->s[p->pos])
		tmp[n++] = p->s[p->pos++];
	tmp[n] = '\0';
	errno = 0;
	v->number = strtod(tmp, &end);
	if (n == 0 || *end || errno)
		return fail(p, "bad number '%s'", tmp);
	v->type = TB_JSON_NUMBER;
	return 0;
}

static int grow(struct parser *p, struct tb_json *v, size_t *cap, int keys)
{
	size_t ncap = *cap ? *cap * 2 : 8;
	struct tb_json *items;

	if (v->count < *cap)
		return 0;
	items = realloc(v->items, ncap * sizeof(*items));
	if (!items)
		return fail(p, "out of memory");
	v->items = items;
	if (keys) {
		char **k = realloc(v->keys, ncap * sizeof(*k));
		if (!k)
			return fail(p, "out of memory");
		v->keys = k;
	}
	*cap = ncap;
	return 0;
}

static int parse_container(struct parser *p, struct tb_json *v, int depth,
			   int object)
{
	size_t cap = 0;
	char close = object ? '}' : ']';

	v->type = object ? TB_JSON_OBJECT : TB_JSON_ARRAY;
	p->pos++;
	skip_space(p);
	if (p->pos < p->len && p->s[p->pos] == close) {
		p->pos++;
		return 0;
	}
	while (1) {
		char *key = NULL;

		if (grow(p, v, &cap, object))
			return -1;
		skip_space(p);
		if (object) {
			if (p->pos >= p->len || p->s[p->pos] != '"')
				return fail(p, "expected a key");
			if (parse_string(p, &key))
				return -1;
			skip_space(p);
			if (p->pos >= p->len || p->s[p->pos] != ':') {
				free(key);
				return fail(p, "expected ':'");
			}
			p->pos++;
			v->keys[v->count] = key;
		}
		memset(&v->items[v->count], 0, sizeof(v->items[0]));
		v->count++;
		if (parse_value(p, &v->items[v->count - 1], depth + 1))
			return -1;
		skip_space(p);
		if (p->pos >= p->len)
			return fail(p, "unterminated %s",
				    object ? "object" : "array");
		if (p->s[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->s[p->pos] == close) {
			p->pos++;
			return 0;
		}
		return fail(p, "expected ',' or '%c'", close);
	}
}

static int literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n))
		return fail(p, "unexpected character");
	p->pos += n;
	return 0;
}

static int parse_value(struct parser *p, struct tb_json *v, int depth)
{
	if (depth > TB_JSON_MAX_DEPTH)
		return fail(p, "nested deeper than %d", TB_JSON_MAX_DEPTH);
	skip_space(p);
	if (p->pos >= p->len)
		return fail(p, "unexpected end");
	switch (p->s[p->pos]) {
	case '{':
		return parse_container(p, v, depth, 1);
	case '[':
		return parse_container(p, v, depth, 0);
	case '"':
		v->type = TB_JSON_STRING;
		return parse_string(p, &v->string);
	case 't':
		v->type = TB_JSON_BOOL;
		v->number = 1;
		return literal(p, "true");
	case 'f':
		v->type = TB_JSON_BOOL;
		return literal(p, "false");
	case 'n':
		v->type = TB_JSON_NULL;
		return literal(p, "null");
	default:
		return parse_number(p, v);
	}
}

int tb_json_parse(const char *text, size_t len, struct tb_json *out,
		  char *err, size_t errlen)
{
	struct parser p = { text, len, 0, err, errlen };

	memset(out, 0, sizeof(*out));
	if (parse_value(&p, out, 0))
		goto bad;
	skip_space(&p);
	if (p.pos != len) {
		fail(&p, "trailing characters");
		goto bad;
	}
	return 0;
bad:
	tb_json_free(out);
	return -1;
}

void tb_json_free(struct tb_json *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->count; i++) {
		if (v->keys)
			free(v->keys[i]);
		tb_json_free(&v->items[i]);
	}
	free(v->keys);
	free(v->items);
	free(v->string);
	memset(v, 0, sizeof(*v));
}

const struct tb_json *tb_json_get(const struct tb_json *obj, const char *key)
{
	if (!obj || obj->type != TB_JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->count; i++)
		if (!strcmp(obj->keys[i], key))
			return &obj->items[i];
	return NULL;
}
