/*
 * The study's baseline: Slurm 19.05's select/linear with topology/tree
 * (P:68, P:221, P:231), for whole-node jobs, as the paper describes it and
 * as select/linear's topology path (_job_test_topo) chooses:
 *
 *  - the top switch is the lowest-level switch with enough free nodes; of
 *    several at that level, the one with fewest free nodes (best fit), the
 *    first in topology.conf order on a tie (P:68: "the lowest level switch
 *    that has the requested number of nodes available");
 *  - the leaves below it are then used fewest free nodes first, each giving
 *    its free nodes in index order until the job has enough (P:68: "first
 *    allocates nodes on those leaf switches that have minimum number of
 *    nodes available ... best-fit"); a leaf that could hold the whole
 *    remainder gets no preference, unlike Slurm 24.11's tree (`default`).
 *
 * Slurm 19.05 ranks leaves by idle CPUs; with whole nodes of equal core
 * counts that is the free node count the paper speaks of, which is what
 * is used here. Rank order: leaves in the order taken (policy_registry.h).
 */
#include "pick.h"
#include "policy_registry.h"

#include <stdlib.h>

/* Fewest free nodes first; equal counts keep topology order (a stable
 * tie, as Slurm's strict "<" over its switch table). */
static int by_free_up(const void *a, const void *b)
{
	const struct tb_leaf_key *x = a, *y = b;

	if (x->free_nodes != y->free_nodes)
		return x->free_nodes - y->free_nodes;
	return x->leaf - y->leaf;
}

enum tb_status tb_policy_default1905(const struct tb_topology *t,
				     const struct tb_occupancy *o,
				     const struct tb_job *job,
				     const struct tb_options *opts, int *alloc)
{
	struct tb_leaf_key *keys;
	int n;
	enum tb_status rc = tb_candidate_leaves(t, o, job->nodes,
						TB_FIT_TIGHTEST, &keys, &n);

	(void)opts;		/* Slurm 19.05 has no readings */
	if (rc != TB_OK)
		return rc;
	rc = tb_fill_leaves(t, o, keys, n, by_free_up, job->nodes, alloc);
	free(keys);
	return rc;
}
