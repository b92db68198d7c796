#include "helpers.h"

#include "check.h"

#include <stdio.h>
#include <stdlib.h>

struct tb_scenario *scenario(const char *text)
{
	struct tb_scenario *s;
	char err[256];

	if (tb_scenario_parse(text, strlen(text), "fixture", &s, err,
			      sizeof(err))) {
		fprintf(stderr, "bad fixture: %s\n", err);
		abort();
	}
	return s;
}

void expect_scenario_error(const char *text, const char *expected)
{
	struct tb_scenario *s = (struct tb_scenario *)1;
	char err[256] = "";

	CHECK(tb_scenario_parse(text, strlen(text), "x", &s, err,
				sizeof(err)) == -1);
	CHECK(s == NULL);
	if (s != (struct tb_scenario *)1)
		tb_scenario_free(s);
	if (!strstr(err, expected)) {
		fprintf(stderr, "  error '%s' lacks '%s'\n", err, expected);
		tb_check_failures++;
	}
}

void leaf_counts(const struct tb_topology *t, const int *alloc, int n,
		 char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int k = 0; k < n;) {
		int leaf = t->nodes[alloc[k]].leaf, run = 0;
		while (k < n && t->nodes[alloc[k]].leaf == leaf) {
			run++;
			k++;
		}
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
					 "%s%s:%d", used ? " " : "",
					 t->switches[leaf].name, run);
	}
}
