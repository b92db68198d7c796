#include "runtime_law.h"
#include "treematch.h"

double tb_tree_runtime_why(enum tb_policy policy, const struct tb_job *job,
			   bool has_matrix, double runtime,
			   double comm_fraction,
			   const struct tb_runtime_costs *c,
			   enum tb_runtime_fallback *why)
{
	if (tb_policy_has(policy, TB_TRAIT_MATRIX) && has_matrix && job->comm)
		return tb_treematch_runtime_why(runtime, comm_fraction,
						c->hop_bytes,
						c->hop_bytes_default, why);
	return tb_scaled_runtime_why(job, runtime, c->cost,
				     c->cost_denominator, why);
}
