/*
 * What is running where: per node free, busy with a compute-intensive job,
 * busy with a communication-intensive job, or down. Optional per-router
 * traffic and per-node failure probability serve the NeDD and TOFA
 * policies.
 */
#ifndef TB_OCCUPANCY_H
#define TB_OCCUPANCY_H

#include "topology.h"

enum tb_node_state {
	TB_NODE_FREE = 0,
	TB_NODE_BUSY = 1,
	TB_NODE_BUSY_COMM = 2,
	TB_NODE_DOWN = 3,
};

struct tb_switch_counts;

struct tb_occupancy {
	int n_nodes;
	unsigned char *state;		/* enum tb_node_state per node */
	double *failure_prob;		/* per node, or NULL */
	int n_routers;
	double *router_traffic;		/* per router, or NULL */
	/* NeDD (nedd.h): router_traffic is T per router index of the
	 * topology (t->routers; n_routers equal to t->n_routers), NULL for
	 * none observed (0 everywhere); router_stall the observed stall
	 * count S per router, NaN (or the array NULL) where the stall model
	 * stands in. */
	double *router_stall;
	/* NeDD's stall=routed: the load L routed through each router
	 * (nedd.h), NULL when not computed (0 everywhere). */
	double *router_routed;
	/* Optional, for the isolated policy (SC18 paper): per node, the
	 * index (0..n_jobs-1) of the running job holding it, -1 for none;
	 * NULL when unknown. Other policies ignore it. */
	int *job;
	int n_jobs;
	/* Free cores per node for core-granularity mappers (TreeMatch), or
	 * NULL: a FREE node has all its cores free, any other none. The
	 * node-level policies read state only; a caller that fills this
	 * marks a node with any busy core as busy in state. */
	int *free_cores;
	/* Optional: the tallies tb_counts_init makes of state, kept by a
	 * caller that counts them faster than a walk over the nodes (the
	 * twin, plugins/sim, by word masks per leaf, ~10 snapshots a job),
	 * or NULL. The caller keeps them equal to state's; a copy of state
	 * that is changed must not carry them. */
	const struct tb_switch_counts *counts;
};

struct tb_occupancy *tb_occupancy_new(int n_nodes);	/* all free */
void tb_occupancy_free(struct tb_occupancy *o);
/* Free cores of a node: 0 when down, free_cores[] when given (clamped to
 * the node's cores), else all or none by state. */
int tb_free_cores(const struct tb_topology *t, const struct tb_occupancy *o,
		  int node);

/* Per-switch tallies of one snapshot, the policies' working state. */
struct tb_switch_counts {
	int n_switches;
	int *free_nodes;	/* free nodes below each switch */
	int *comm_nodes;	/* nodes below busy with a comm-intensive job */
	int *busy_nodes;	/* nodes below busy with any job (L_busy) */
};

int tb_counts_init(struct tb_switch_counts *c, const struct tb_topology *t,
		   const struct tb_occupancy *o);
void tb_counts_fini(struct tb_switch_counts *c);
/* v[s] for every switch from the leaves' own: each switch's value added
 * into its parent's, lower levels first (the other switches' values are
 * their own part: 0 for a count of nodes). */
void tb_counts_propagate(const struct tb_topology *t, int *v);

/* Share of a switch's nodes busy with communication-intensive jobs,
 * L_comm / L_nodes: our earlier reading of Eq. 1 (r(s) of Eq. 2-3 is the
 * same before the job's own nodes). */
double tb_comm_ratio(const struct tb_topology *t,
		     const struct tb_switch_counts *c, int sw);

/* Eq. 1 as printed: L_comm / L_busy + L_busy / L_nodes. The first term is
 * 0 on a switch with nothing busy (no contention where nothing runs). */
double tb_comm_ratio_eq1(const struct tb_topology *t,
			 const struct tb_switch_counts *c, int sw);

#endif
