/*
 * Which runtime law a job on a tree runs, in one place for the plugin
 * (plugins/slurm/commtree_eval.c) and the simulator twin (plugins/sim):
 * a matrix policy's communicating job with a matrix follows TreeMatch's
 * law, T' = (1 + R a - a) T with R its hop-bytes over the default's
 * (IJHPCA 2018, Sec. 3.2); every other job Eq. 7 (ICPP-W 2020), its cost
 * over the denominator policy's on the same state, a compute job keeping
 * its runtime. On a torus and for a NeDD application the plugin applies
 * those families' models instead (tofa.h, nedd.h): they need what only
 * it observes (the running map, the routers' traffic).
 */
#ifndef TB_RUNTIME_LAW_H
#define TB_RUNTIME_LAW_H

#include <stdbool.h>

#include "cost.h"
#include "policy_registry.h"

/* A job's costs on the state it was placed in (NaN where missing). */
struct tb_runtime_costs {
	double cost;			/* Eq. 6 of the policy's allocation */
	double cost_denominator;	/* Eq. 6 of the denominator's */
	double hop_bytes;		/* of the policy's, with a matrix */
	double hop_bytes_default;	/* of default's, with a matrix */
};

/* The runtime the job sleeps under `policy`; *why (if not NULL) as
 * tb_scaled_runtime_why's. */
double tb_tree_runtime_why(enum tb_policy policy, const struct tb_job *job,
			   bool has_matrix, double runtime,
			   double comm_fraction,
			   const struct tb_runtime_costs *c,
			   enum tb_runtime_fallback *why);

#endif
