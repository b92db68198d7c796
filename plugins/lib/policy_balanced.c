/*
 * Balanced (Algorithm 2): under the lowest switch with enough free nodes
 * (Alg. 2 l. 2), a communication-intensive job takes leaves by decreasing
 * free nodes (l. 9-12); each leaf gets min(S, R) nodes, the chunk S being
 * halved while it exceeds the leaf's free nodes (l. 13-19). Powers of two
 * per leaf keep the steps of recursive doubling and halving inside leaves
 * (P:150). What the chunks leave over is taken by a second pass over the
 * same leaves in reverse order (l. 23-28).
 *
 * opts->split: S starts at N and is only ever halved, by integer division,
 * as printed (halve, l. 8 and 15); or S restarts at each leaf from the
 * largest power of two not above what is left (pow2, our earlier form).
 * For N a power of two they give the same chunks; for N = 20 on leaves of
 * 16 free, halve gives 10 + 10 and pow2 16 + 4.
 *
 * A compute-intensive job takes leaves by increasing free nodes, all of
 * each leaf's free nodes, no chunks (l. 30-37): it keeps the roomy leaves
 * for communication-intensive jobs and needs no power of two itself.
 *
 * Ties (the paper gives none): lower communication ratio first (the form
 * of opts->ratio), then topology order. A leaf's nodes are made adjacent
 * in rank order after the second pass.
 */
#include "pick.h"
#include "policy_registry.h"

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
				  const struct tb_job *job,
				  const struct tb_options *opts, int *alloc)
{
	struct tb_leaf_key *keys;
	struct tb_pick pk;
	int n, rem = job->nodes, chunk = job->nodes;
	enum tb_status rc = tb_candidate_leaves_by(t, o, job->nodes,
						   TB_FIT_TIGHTEST, opts->ratio,
						   &keys, &n);

	if (rc != TB_OK)
		return rc;
	if (!job->comm) {
		/* l. 30-37: whole leaves, each once, so already grouped */
		rc = tb_fill_leaves(t, o, keys, n, by_free_up, job->nodes,
				    alloc);
		free(keys);
		return rc;
	}
	if (tb_pick_init(&pk, t, o, alloc)) {
		free(keys);
		return TB_ENOMEM;
	}
	qsort(keys, (size_t)n, sizeof(*keys), by_free_down);
	for (int i = 0; i < n && rem > 0; i++) {
		if (opts->split == TB_SPLIT_POW2)
			chunk = pow2_floor(rem);
		while (chunk > keys[i].free_nodes)
			chunk /= 2;
		rem -= tb_pick_from_leaf(&pk, keys[i].leaf,
					 chunk < rem ? chunk : rem);
	}
	for (int i = n - 1; i >= 0 && rem > 0; i--)
		rem -= tb_pick_from_leaf(&pk, keys[i].leaf, rem);
	rc = rem > 0 ? TB_ENOSPACE : TB_OK;
	if (tb_group_by_leaf(t, alloc, pk.n))
		rc = TB_ENOMEM;
	tb_pick_fini(&pk);
	free(keys);
	return rc;
}
