/*
 * tb_switch_find's name index on a machine far larger than the examples:
 * 20,497 switches written here as the JSON the loader reads, so that the
 * index grows through many sizes while loading and the root switch
 * tb_topology_finish() adds above the spines goes in last. Every name must
 * come back at its index (as the linear scan it replaced found it, names
 * being unique), missing names must not, parents must be the switches
 * named, and a repeated name must still be refused.
 *
 * Most of the switches are in chains above 2,048 leaves rather than leaves
 * themselves: finish() builds a table of n_leaves^2 bytes, and 20,000 leaves
 * (420 MB, 10 s under ASan) would make this the suite's slowest test by far
 * for nothing the index cares about.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tests.h"
#include "topology.h"

#define BIG_LEAVES 2048
#define BIG_CHAIN 9		/* switches above each leaf, its own */
#define BIG_PER_SPINE 128
#define BIG_SPINES (BIG_LEAVES / BIG_PER_SPINE)
#define BIG_SWITCHES (BIG_LEAVES * (1 + BIG_CHAIN) + BIG_SPINES + 1)

struct text {
	char *buf;
	size_t len, cap;
};

/* Appends; on failure frees and leaves buf NULL, which callers check once
 * at the end. */
static void put(struct text *x, const char *fmt, ...)
{
	char piece[160];
	va_list ap;
	int n;

	if (!x->buf)
		return;
	va_start(ap, fmt);
	n = vsnprintf(piece, sizeof(piece), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(piece))
		goto fail;
	if (x->len + (size_t)n + 1 > x->cap) {
		size_t ncap = (x->len + (size_t)n + 1) * 2;
		char *p = realloc(x->buf, ncap);

		if (!p)
			goto fail;
		x->buf = p;
		x->cap = ncap;
	}
	memcpy(x->buf + x->len, piece, (size_t)n + 1);
	x->len += (size_t)n;
	return;
fail:
	free(x->buf);
	x->buf = NULL;
}

/*
 * One node per leaf; leaf i under up<i>.1, up<i>.k under up<i>.<k+1>, the
 * last of the chain under a spine. Children come before their parents. The
 * spines have no parent, so finish() adds "root" above them. With
 * dup_of >= 0, one more leaf (and node) at the end repeats leaf dup_of's
 * name. NULL when out of memory.
 */
static char *big_json(int dup_of, size_t *len)
{
	struct text x = { malloc(64), 0, 64 };
	int leaves = BIG_LEAVES + (dup_of >= 0);

	if (x.buf)
		x.buf[0] = '\0';
	put(&x, "{\"nodes\":[");
	for (int i = 0; i < leaves; i++)
		put(&x, "%s{\"name\":\"nid%05d\",\"cores\":1}",
		    i ? "," : "", i);
	put(&x, "],\"switches\":[");
	for (int i = 0; i < BIG_LEAVES; i++)
		put(&x, "{\"name\":\"leaf%d\",\"level\":0,"
		    "\"parent\":\"up%d.1\",\"nodes\":[%d]},", i, i, i);
	for (int i = 0; i < BIG_LEAVES; i++) {
		for (int k = 1; k < BIG_CHAIN; k++)
			put(&x, "{\"name\":\"up%d.%d\","
			    "\"parent\":\"up%d.%d\"},", i, k, i, k + 1);
		put(&x, "{\"name\":\"up%d.%d\",\"parent\":\"spine%d\"},", i,
		    BIG_CHAIN, i / BIG_PER_SPINE);
	}
	for (int s = 0; s < BIG_SPINES; s++)
		put(&x, "%s{\"name\":\"spine%d\"}", s ? "," : "", s);
	if (dup_of >= 0)
		put(&x, ",{\"name\":\"leaf%d\",\"level\":0,"
		    "\"parent\":\"spine0\",\"nodes\":[%d]}", dup_of,
		    BIG_LEAVES);
	put(&x, "]}");
	*len = x.len;
	return x.buf;
}

/* Indexes the file gives switches up<i>.<k> (k from 1) and spine<s>. */
static int up_index(int i, int k)
{
	return BIG_LEAVES + i * BIG_CHAIN + k - 1;
}

static int spine_index(int s)
{
	return BIG_LEAVES * (1 + BIG_CHAIN) + s;
}

void test_topology_index_big(void)
{
	static const char *const missing[] = {
		"leaf2048", "spine16", "up0.0", "up0.10", "up2048.1", "leaf",
		"spine", "up", "", "Leaf0", "leaf0 ", "leaf00", "nid00000",
		"roo", "rootx",
	};
	struct tb_topology *t;
	char err[256], name[32];
	size_t len;
	char *json = big_json(-1, &len);
	int wrong = 0;

	CHECK(json != NULL);
	if (!json)
		return;
	CHECK(tb_topology_from_json_text(json, len, &t, err,
					 sizeof(err)) == 0);
	free(json);
	if (!t) {
		fprintf(stderr, "  %s\n", err);
		return;
	}
	CHECK_EQ(t->n_switches, BIG_SWITCHES);
	CHECK_EQ(t->n_leaves, BIG_LEAVES);
	CHECK_EQ(t->n_levels, BIG_CHAIN + 3);
	/* Every name, the added root included, at its own index. */
	for (int i = 0; i < t->n_switches; i++) {
		int got = tb_switch_find(t, t->switches[i].name);

		if (got != i && wrong++ == 0)
			fprintf(stderr,
				"  tb_switch_find(%s) == %d, expected %d\n",
				t->switches[i].name, got, i);
	}
	CHECK_EQ(wrong, 0);
	/* Names as the file spells them, at the file's positions, and each
	 * switch under the one it names. */
	wrong = 0;
	for (int i = 0; i < BIG_LEAVES; i++) {
		snprintf(name, sizeof(name), "leaf%d", i);
		wrong += tb_switch_find(t, name) != i;
		wrong += t->switches[i].parent != up_index(i, 1);
		for (int k = 1; k <= BIG_CHAIN; k++) {
			int up = up_index(i, k);

			snprintf(name, sizeof(name), "up%d.%d", i, k);
			wrong += tb_switch_find(t, name) != up;
			wrong += t->switches[up].parent !=
				(k < BIG_CHAIN ? up + 1 :
				 spine_index(i / BIG_PER_SPINE));
		}
	}
	for (int s = 0; s < BIG_SPINES; s++) {
		snprintf(name, sizeof(name), "spine%d", s);
		wrong += tb_switch_find(t, name) != spine_index(s);
	}
	CHECK_EQ(wrong, 0);
	CHECK_EQ(tb_switch_find(t, "root"), t->n_switches - 1);
	CHECK_EQ(t->switches[t->n_switches - 2].parent, t->n_switches - 1);
	for (size_t k = 0; k < sizeof(missing) / sizeof(*missing); k++)
		CHECK_EQ(tb_switch_find(t, missing[k]), -1);
	tb_topology_free(t);
}

void test_topology_index_duplicate(void)
{
	struct tb_topology *t = (struct tb_topology *)1;
	char err[256] = "";
	size_t len;
	char *json = big_json(1234, &len);

	CHECK(json != NULL);
	if (!json)
		return;
	CHECK(tb_topology_from_json_text(json, len, &t, err,
					 sizeof(err)) == -1);
	CHECK(t == NULL);
	CHECK(strstr(err, "duplicate switch 'leaf1234'") != NULL);
	free(json);

	/* The builder refuses it too, and the index is unchanged by that. */
	t = tb_topology_new();
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_EQ(tb_switch_find(t, "a"), -1);
	CHECK(tb_topology_add_switch(t, "a", NULL) == 0);
	CHECK(tb_topology_add_switch(t, "b", "a") == 0);
	CHECK(tb_topology_add_switch(t, "a", NULL) == -1);
	CHECK_EQ(t->n_switches, 2);
	CHECK_EQ(tb_switch_find(t, "a"), 0);
	CHECK_EQ(tb_switch_find(t, "b"), 1);
	CHECK_EQ(tb_switch_find(t, "c"), -1);
	tb_topology_free(t);
}

/*
 * Switch by switch through the builder: after each one, every name at its
 * index and a missing one not found, across every growth of the index up
 * to 1,024 slots. The index must stay at most half full, or a lookup of a
 * missing name would never meet an empty slot; checked first, so that such
 * a bug fails here rather than hangs.
 */
void test_topology_index_growth(void)
{
	struct tb_topology *t = tb_topology_new();
	char name[32];
	int wrong = 0;

	CHECK(t != NULL);
	if (!t)
		return;
	for (int n = 1; n <= 500; n++) {
		snprintf(name, sizeof(name), "s%d", n - 1);
		if (tb_topology_add_switch(t, name, n > 1 ? "s0" : NULL)) {
			CHECK(!"tb_topology_add_switch failed");
			break;
		}
		if (t->n_switch_slots < 2 * t->n_switches) {
			CHECK(t->n_switch_slots >= 2 * t->n_switches);
			break;
		}
		for (int i = 0; i < n; i++)
			wrong += tb_switch_find(t, t->switches[i].name) != i;
		snprintf(name, sizeof(name), "s%d", n);
		wrong += tb_switch_find(t, name) != -1;
	}
	CHECK_EQ(wrong, 0);
	tb_topology_free(t);
}
