/*
 * A small JSON reader for the project's topology files: enough of RFC 8259
 * for machine-written input, with bounded nesting so that hostile input
 * (the fuzzers feed it) cannot exhaust the stack.
 */
#ifndef TB_JSON_H
#define TB_JSON_H

#include <stddef.h>

enum tb_json_type {
	TB_JSON_NULL,
	TB_JSON_BOOL,
	TB_JSON_NUMBER,
	TB_JSON_STRING,
	TB_JSON_ARRAY,
	TB_JSON_OBJECT,
};

struct tb_json {
	enum tb_json_type type;
	double number;		/* NUMBER, and BOOL as 0 or 1 */
	char *string;		/* STRING */
	char **keys;		/* OBJECT: count keys */
	struct tb_json *items;	/* ARRAY and OBJECT: count values */
	size_t count;
};

/* Returns 0, or -1 with a message naming the byte offset in err. */
int tb_json_parse(const char *text, size_t len, struct tb_json *out,
		  char *err, size_t errlen);
void tb_json_free(struct tb_json *v);

/* The member of an object, or NULL. */
const struct tb_json *tb_json_get(const struct tb_json *obj, const char *key);

#endif
