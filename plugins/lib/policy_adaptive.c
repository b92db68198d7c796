/*
 * Adaptive: run greedy and balanced on the same snapshot and keep the
 * cheaper allocation (Eq. 6) for a communication-intensive job, the costlier
 * for a compute-intensive one, which leaves the cheap placements to jobs
 * that communicate (P:217). The paper names no tie. adaptive_tie=balanced
 * (the default) is the authors' code: balanced on a tie for either kind of
 * job (gaganmangat/slurm_changes, branch algo2, select_linear.c l. 2449
 * `if (hops >= bal_hops)` for a communication-intensive job, l. 2470
 * `if (hops <= bal_hops)` for a compute one); adaptive_tie=greedy is our
 * earlier reading, greedy on a tie (options.h).
 */
#include "pick.h"
#include "policy_registry.h"

#include <stdlib.h>
#include <string.h>

#include "cost.h"

enum tb_status tb_policy_adaptive(const struct tb_topology *t,
				  const struct tb_occupancy *o,
				  const struct tb_job *job,
				  const struct tb_options *opts, int *alloc)
{
	int *other = malloc(sizeof(int) * (size_t)job->nodes);
	double cost_greedy, cost_balanced;
	enum tb_status rc;

	if (!other)
		return TB_ENOMEM;
	rc = tb_policy_greedy(t, o, job, opts, alloc);
	if (rc != TB_OK)
		goto out;
	rc = tb_policy_balanced(t, o, job, opts, other);
	if (rc != TB_OK)
		goto out;
	/* Costed in the rank order the job will have; under ranks=authors
	 * both in the order picked, as the authors' expected_hops() costs
	 * them (policy.c, tb_authors_ranks). */
	tb_rank_order(opts, TB_RANKS_TAKEN, alloc, job->nodes);
	tb_rank_order(opts, TB_RANKS_TAKEN, other, job->nodes);
	if (tb_allocation_cost_with(t, o, job, opts, alloc, &cost_greedy) ||
	    tb_allocation_cost_with(t, o, job, opts, other, &cost_balanced)) {
		rc = TB_ENOMEM;
		goto out;
	}
	if (cost_balanced == cost_greedy ?
	    opts->adaptive_tie == TB_TIE_BALANCED :
	    job->comm ? cost_balanced < cost_greedy :
			cost_balanced > cost_greedy)
		memcpy(alloc, other, sizeof(int) * (size_t)job->nodes);
out:
	free(other);
	return rc;
}
