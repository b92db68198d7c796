/*
 * The cost model of the communication-aware allocation study (ICPP-W 2020).
 *
 *   r(s)    = L_comm / L_nodes of switch s: nodes below s busy with
 *             communication-intensive jobs, the job's own nodes included
 *             when it is communication-intensive (Table 1; Figure 5 counts
 *             Job1's own nodes), over all nodes below s
 *   Eq. 2  C(i,j)  = r(leaf) when i and j share a leaf
 *   Eq. 3  C(i,j)  = r(L_i) + r(L_j) + 1/2 (L_i,comm + L_j,comm) /
 *                    (L_i,nodes + L_j,nodes)      (eq3=pair, as printed)
 *                  = sum over the switches on the path i -> j of
 *                    r(s) / 2^level(s), leaf level 0, each switch once
 *                                                 (eq3=path, any depth)
 *   Eq. 4  d(i,j)  = 2 x level of the lowest common switch (leaves = 1)
 *   Eq. 5  Hops    = d(i,j) x (1 + C(i,j))
 *   Eq. 6  Cost    = sum over the collective's steps of the largest Hops of
 *                    the pairs that communicate in that step
 *   Eq. 7  T'      = T_compute + T_comm x Cost / Cost_Default for a
 *                    communication-intensive job; T for a compute one
 *
 * The two forms of Eq. 3 agree on a two-leaf tree such as Figure 5 (C = 1
 * on a full leaf, 1.875 across leaves); pair pools only the two leaves in
 * its third term, path the root's whole subtree, and path adds a term per
 * level on deeper trees, where pair still has three terms and only d(i,j)
 * grows.
 */
#ifndef TB_COST_H
#define TB_COST_H

#include "job.h"
#include "occupancy.h"
#include "options.h"
#include "topology.h"

/* Contention state for one candidate allocation. */
struct tb_contention {
	const struct tb_topology *topo;
	enum tb_eq3_form eq3;	/* pair after init; set path to change */
	int *comm;		/* L_comm per switch, with the job's nodes */
	double *ratio;		/* r(s) = L_comm / L_nodes per switch */
};

/* Counts alloc's n nodes as communicating (pass n = 0 for a compute-
 * intensive job). */
int tb_contention_init(struct tb_contention *c, const struct tb_topology *t,
		       const struct tb_occupancy *o, const int *alloc, int n);
void tb_contention_fini(struct tb_contention *c);

double tb_contention_factor(const struct tb_contention *c, int a, int b);
double tb_hops(const struct tb_contention *c, int a, int b);

/* Eq. 6 for the job's pattern over alloc (rank order). 0 on success. */
int tb_allocation_cost(const struct tb_topology *t,
		       const struct tb_occupancy *o, const struct tb_job *job,
		       const int *alloc, double *cost);
/* The same with opts->eq3 (NULL: the paper's form). */
int tb_allocation_cost_with(const struct tb_topology *t,
			    const struct tb_occupancy *o,
			    const struct tb_job *job,
			    const struct tb_options *opts, const int *alloc,
			    double *cost);

/* Why Eq. 7 could not be applied to a communicating job. */
enum tb_runtime_fallback {
	TB_RUNTIME_MODELLED = 0,	/* Eq. 7 applied, or a compute job */
	TB_RUNTIME_NO_COST,		/* the policy's cost is missing (NaN) */
	TB_RUNTIME_NO_DENOMINATOR,	/* the denominator's cost is missing */
};

/* The record's name of a fallback ("no_cost", "no_denominator"); NULL for
 * TB_RUNTIME_MODELLED. */
const char *tb_runtime_fallback_name(enum tb_runtime_fallback f);

/* Eq. 7: runtime on this allocation given the cost of the denominator
 * policy's allocation (tb_denominator_policy) on the same state. A
 * compute-intensive job keeps its runtime (P:275). A cost of 0 for the
 * denominator gives a ratio of 1 (a one-node job: both are 0). Where a
 * cost is missing (NaN: a policy that could not place the job on this
 * state, or a cost that could not be computed) the model has nothing to
 * scale by: the result is the log's runtime, never NaN, and *why (if not
 * NULL) says which cost was missing, for the job's record. */
double tb_scaled_runtime_why(const struct tb_job *job, double runtime,
			     double cost, double cost_default,
			     enum tb_runtime_fallback *why);
/* The same without the reason. */
double tb_scaled_runtime(const struct tb_job *job, double runtime,
			 double cost, double cost_default);

#endif
