/*
 * The cost model of the communication-aware allocation study (ICPP-W 2020).
 *
 *   Eq. 1  r(s)    = communicating nodes below switch s / nodes below s,
 *                    counting the job's own nodes as communicating
 *   Eq. 2  C(i,j)  = r(leaf) when i and j share a leaf
 *   Eq. 3  C(i,j)  = sum over the switches on the path i -> j of
 *                    r(s) / 2^level(s)   (leaf level 0; each switch once)
 *   Eq. 4  d(i,j)  = 2 x level of the lowest common switch (leaves = 1)
 *   Eq. 5  Hops    = d(i,j) x (1 + C(i,j))
 *   Eq. 6  Cost    = sum over the collective's steps of the largest Hops of
 *                    the pairs that communicate in that step
 *
 * Eq. 3 is written here for any depth; on two levels it gives the paper's
 * Figure 5 numbers (C = 1 on a full leaf, 1.875 across leaves at r = 1 and
 * 0.5 under a root at r = 0.75).
 */
#ifndef TB_COST_H
#define TB_COST_H

#include "job.h"
#include "occupancy.h"
#include "topology.h"

/* Contention state for one candidate allocation. */
struct tb_contention {
	const struct tb_topology *topo;
	double *ratio;		/* Eq. 1 per switch, with the job's nodes */
};

int tb_contention_init(struct tb_contention *c, const struct tb_topology *t,
		       const struct tb_occupancy *o, const int *alloc, int n);
void tb_contention_fini(struct tb_contention *c);

double tb_contention_factor(const struct tb_contention *c, int a, int b);
double tb_hops(const struct tb_contention *c, int a, int b);

/* Eq. 6 for the job's pattern over alloc (rank order). 0 on success. */
int tb_allocation_cost(const struct tb_topology *t,
		       const struct tb_occupancy *o, const struct tb_job *job,
		       const int *alloc, double *cost);

/* Eq. 7: runtime on this allocation given the default allocation's cost. */
double tb_scaled_runtime(double runtime, double comm_fraction,
			 double cost, double cost_default);

#endif
