/*
 * tb_group_by_leaf against the insertion it replaced (each leaf's later
 * nodes moved up behind its first, leaf after leaf): random subsets of
 * random trees' nodes in random order must come out the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "helpers.h"
#include "pick.h"
#include "tests.h"

static unsigned long long rng = 0x2545f4914f6cdd1dULL;

static int rnd(int n)
{
	return (int)tb_bench_rnd(&rng, (unsigned)n);
}

static void ref_group_by_leaf(const struct tb_topology *t, int *alloc, int n)
{
	int done = 0;

	while (done < n) {
		int leaf = t->nodes[alloc[done]].leaf;
		for (int k = done + 1; k < n; k++) {
			if (t->nodes[alloc[k]].leaf != leaf)
				continue;
			int node = alloc[k];
			memmove(&alloc[done + 2], &alloc[done + 1],
				sizeof(int) * (size_t)(k - done - 1));
			alloc[++done] = node;
		}
		done++;
	}
}

void test_group_by_leaf_matches_insertion(void)
{
	char text[4096];

	for (int round = 0; round < 300; round++) {
		int leaves = 1 + rnd(40), used = 0, n_nodes, n;
		struct tb_scenario *s;
		int *got, *want;

		for (int l = 0; l < leaves; l++)
			used += snprintf(text + used,
					 sizeof(text) - (size_t)used,
					 "leaf l%d %d 0 0 parent p%d\n", l,
					 1 + rnd(8), rnd(3));
		snprintf(text + used, sizeof(text) - (size_t)used,
			 "job nodes=1 comm=1 pattern=rd\n");
		s = scenario(text);
		n_nodes = s->topo->n_nodes;
		got = malloc(sizeof(int) * (size_t)n_nodes);
		want = malloc(sizeof(int) * (size_t)n_nodes);
		if (!got || !want) {
			CHECK(!"out of memory");
			free(got);
			free(want);
			tb_scenario_free(s);
			return;
		}
		/* A random permutation; its first n nodes are the input. */
		for (int i = 0; i < n_nodes; i++)
			got[i] = i;
		for (int i = n_nodes - 1; i > 0; i--) {
			int j = rnd(i + 1), x = got[i];
			got[i] = got[j];
			got[j] = x;
		}
		n = rnd(n_nodes + 1);
		memcpy(want, got, sizeof(int) * (size_t)n_nodes);
		ref_group_by_leaf(s->topo, want, n);
		CHECK_EQ(tb_group_by_leaf(s->topo, got, n), 0);
		CHECK(!memcmp(got, want, sizeof(int) * (size_t)n_nodes));
		free(got);
		free(want);
		tb_scenario_free(s);
	}
}
