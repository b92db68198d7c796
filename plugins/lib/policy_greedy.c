/*
 * Greedy (Algorithm 1): under the lowest switch with enough free nodes,
 * take leaves by their communication ratio (Eq. 1): least contended first
 * for a communication-intensive job, most contended first for a compute-
 * intensive one, so that quiet leaves stay free for jobs that need them.
 * Ties: more free nodes first (fewer leaves), then topology order.
 *
 * When several switches of that lowest level fit (often: several leaves
 * fit a small job), the same ratio order chooses among them; plain best
 * fit would ignore contention exactly where a job sits on one leaf.
 */
#include "policy.h"

#include <stdlib.h>

struct leaf_key {
	int leaf;
	double ratio;
	int free_nodes;
};

static int by_ratio_up(const void *a, const void *b)
{
	const struct leaf_key *x = a, *y = b;

	if (x->ratio != y->ratio)
		return x->ratio < y->ratio ? -1 : 1;
	if (x->free_nodes != y->free_nodes)
		return y->free_nodes - x->free_nodes;
	return x->leaf - y->leaf;
}

static int by_ratio_down(const void *a, const void *b)
{
	const struct leaf_key *x = a, *y = b;

	if (x->ratio != y->ratio)
		return x->ratio > y->ratio ? -1 : 1;
	if (x->free_nodes != y->free_nodes)
		return y->free_nodes - x->free_nodes;
	return x->leaf - y->leaf;
}

enum tb_status tb_policy_greedy(const struct tb_topology *t,
				const struct tb_occupancy *o,
				const struct tb_job *job, int *alloc)
{
	struct tb_switch_counts c;
	struct leaf_key *keys;
	struct tb_pick pk;
	int top, n = 0, rem = job->nodes;

	if (tb_counts_init(&c, t, o))
		return TB_ENOMEM;
	top = tb_lowest_fitting_switch(t, &c, job->nodes,
				       job->comm ? TB_FIT_QUIETEST : TB_FIT_BUSIEST);
	if (top < 0) {
		tb_counts_fini(&c);
		return TB_ENOSPACE;
	}
	keys = malloc(sizeof(*keys) * (size_t)t->n_leaves);
	if (!keys || tb_pick_init(&pk, t, o, alloc)) {
		free(keys);
		tb_counts_fini(&c);
		return TB_ENOMEM;
	}
	for (int i = 0; i < t->n_leaves; i++) {
		int leaf = t->leaves[i];
		if (!c.free_nodes[leaf] || !tb_is_below(t, leaf, top))
			continue;
		keys[n].leaf = leaf;
		keys[n].ratio = tb_comm_ratio(t, &c, leaf);
		keys[n].free_nodes = c.free_nodes[leaf];
		n++;
	}
	qsort(keys, (size_t)n, sizeof(*keys),
	      job->comm ? by_ratio_up : by_ratio_down);
	for (int i = 0; i < n && rem > 0; i++)
		rem -= tb_pick_from_leaf(&pk, keys[i].leaf, rem);
	tb_pick_fini(&pk);
	free(keys);
	tb_counts_fini(&c);
	return rem > 0 ? TB_ENOSPACE : TB_OK;
}
