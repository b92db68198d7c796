/*
 * Greedy (Algorithm 1): under the lowest switch with enough free nodes
 * (Alg. 1 l. 2), take leaves by their communication ratio (Eq. 1, l. 7-10):
 * least contended first for a communication-intensive job, most contended
 * first for a compute-intensive one, so that quiet leaves stay free for
 * jobs that need them; each leaf gives what it has (l. 13-17).
 * Ties (the paper gives none): more free nodes first (fewer leaves), then
 * topology order.
 *
 * opts->ratio: Eq. 1 as printed (eq1), or the communicating share of the
 * leaf (share, our earlier reading). opts->fit: which switch of that lowest
 * level when several fit (often several leaves fit a small job):
 * best fit as in Slurm (bestfit, the paper's l. 2, P:92), or the same ratio
 * order (quiet, our extension: best fit ignores contention exactly where a
 * job sits on one leaf).
 */
#include "pick.h"
#include "policy_registry.h"

#include <stdlib.h>

static int by_ratio_up(const void *a, const void *b)
{
	const struct tb_leaf_key *x = a, *y = b;

	if (x->ratio != y->ratio)
		return x->ratio < y->ratio ? -1 : 1;
	if (x->free_nodes != y->free_nodes)
		return y->free_nodes - x->free_nodes;
	return x->leaf - y->leaf;
}

static int by_ratio_down(const void *a, const void *b)
{
	const struct tb_leaf_key *x = a, *y = b;

	if (x->ratio != y->ratio)
		return x->ratio > y->ratio ? -1 : 1;
	if (x->free_nodes != y->free_nodes)
		return y->free_nodes - x->free_nodes;
	return x->leaf - y->leaf;
}

enum tb_status tb_policy_greedy(const struct tb_topology *t,
				const struct tb_occupancy *o,
				const struct tb_job *job,
				const struct tb_options *opts, int *alloc)
{
	struct tb_leaf_key *keys;
	int n;
	enum tb_fit_order order = job->comm ? TB_FIT_QUIETEST : TB_FIT_BUSIEST;
	enum tb_status rc;

	if (opts->fit == TB_FITRULE_BESTFIT)
		order = TB_FIT_TIGHTEST;
	rc = tb_candidate_leaves_by(t, o, job->nodes, order, opts->ratio,
				    &keys, &n);

	if (rc != TB_OK)
		return rc;
	rc = tb_fill_leaves(t, o, keys, n,
			    job->comm ? by_ratio_up : by_ratio_down,
			    job->nodes, alloc);
	free(keys);
	return rc;
}
