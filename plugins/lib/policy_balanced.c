/*
 * Balanced (Algorithm 2): under the lowest switch with enough free nodes,
 * give each leaf a power of two: leaves by decreasing free nodes (increasing
 * for a compute-intensive job); the chunk starts at the largest power of two
 * not above what is left and is halved while it exceeds the leaf's free
 * nodes. Powers of two per leaf keep the steps of recursive doubling and
 * halving inside leaves. What the powers of two leave over is taken by a
 * second pass over the same leaves in reverse order. Ties: lower
 * communication ratio first, then topology order.
 */
#include "policy.h"

#include <stdlib.h>

static int by_free_down(const void *a, const void *b)
{
	const struct tb_leaf_key *x = a, *y = b;

	if (x->free_nodes != y->free_nodes)
		return y->free_nodes - x->free_nodes;
	if (x->ratio != y->ratio)
		return x->ratio < y->ratio ? -1 : 1;
	return x->leaf - y->leaf;
}

static int by_free_up(const void *a, const void *b)
{
	const struct tb_leaf_key *x = a, *y = b;

	if (x->free_nodes != y->free_nodes)
		return x->free_nodes - y->free_nodes;
	if (x->ratio != y->ratio)
		return x->ratio < y->ratio ? -1 : 1;
	return x->leaf - y->leaf;
}

static int pow2_floor(int n)
{
	int p = 1;

	while (p <= n / 2)
		p *= 2;
	return p;
}

enum tb_status tb_policy_balanced(const struct tb_topology *t,
				  const struct tb_occupancy *o,
				  const struct tb_job *job, int *alloc)
{
	struct tb_leaf_key *keys;
	struct tb_pick pk;
	int n, rem = job->nodes;
	enum tb_status rc = tb_candidate_leaves(t, o, job->nodes, TB_FIT_TIGHTEST,
						&keys, &n);

	if (rc != TB_OK)
		return rc;
	if (tb_pick_init(&pk, t, o, alloc)) {
		free(keys);
		return TB_ENOMEM;
	}
	qsort(keys, (size_t)n, sizeof(*keys),
	      job->comm ? by_free_down : by_free_up);
	for (int i = 0; i < n && rem > 0; i++) {
		int chunk = pow2_floor(rem);
		while (chunk > keys[i].free_nodes)
			chunk /= 2;
		rem -= tb_pick_from_leaf(&pk, keys[i].leaf, chunk);
	}
	for (int i = n - 1; i >= 0 && rem > 0; i--)
		rem -= tb_pick_from_leaf(&pk, keys[i].leaf, rem);
	tb_group_by_leaf(t, alloc, pk.n);
	tb_pick_fini(&pk);
	free(keys);
	return rem > 0 ? TB_ENOSPACE : TB_OK;
}
