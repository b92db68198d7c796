/*
 * The SC18 paper's topology-oblivious baseline (TO): Flux's first fit,
 * which takes the first available nodes in its resource order whatever
 * the switches (lines 43, 58-62; "all currently available nodes are
 * considered"). Here: the lowest-indexed free nodes, node indexes being
 * topology order (leaves as the topology lists them, nodes in order
 * within a leaf).
 */
#include "pick.h"
#include "policy_registry.h"

enum tb_status tb_policy_firstfit(const struct tb_topology *t,
				  const struct tb_occupancy *o,
				  const struct tb_job *job,
				  const struct tb_options *opts, int *alloc)
{
	int got = 0;

	(void)opts;		/* first fit has no readings */
	for (int n = 0; n < t->n_nodes && got < job->nodes; n++)
		if (o->state[n] == TB_NODE_FREE)
			alloc[got++] = n;
	if (got < job->nodes)
		return TB_ENOSPACE;
	/* Rank order groups a leaf's nodes (policy_registry.h); a no-op
	 * when node indexes already follow the leaves. */
	return tb_group_by_leaf(t, alloc, got) ? TB_ENOMEM : TB_OK;
}
