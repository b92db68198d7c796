/*
 * The picking machinery the policy files share: a pick in progress (which
 * nodes are taken, in what order), the lowest switch that fits a job, the
 * candidate leaves below it, and the rank order of a finished pick. A
 * policy file includes this and policy_registry.h (its own declaration),
 * never the dispatcher (policy.h).
 */
#ifndef TB_PICK_H
#define TB_PICK_H

#include "occupancy.h"
#include "options.h"
#include "status.h"
#include "topology.h"

struct tb_pick {
	const struct tb_topology *topo;
	const struct tb_occupancy *occ;
	unsigned char *taken;	/* per node */
	int *alloc;
	int n;			/* nodes taken so far */
};

int tb_pick_init(struct tb_pick *pk, const struct tb_topology *t,
		 const struct tb_occupancy *o, int *alloc);
void tb_pick_fini(struct tb_pick *pk);
/* Takes up to want free nodes of a leaf in index order; returns how many. */
int tb_pick_from_leaf(struct tb_pick *pk, int leaf, int want);
/* Regroups alloc so each leaf's nodes are consecutive, leaves in the order
 * they first appear, nodes in their order within a leaf. Returns 0, or -1
 * (alloc unchanged) when out of memory. */
int tb_group_by_leaf(const struct tb_topology *t, int *alloc, int n);
/* How to break ties among the lowest-level switches that fit a job. */
enum tb_fit_order {
	TB_FIT_TIGHTEST,	/* fewest free nodes (best fit) */
	TB_FIT_QUIETEST,	/* lowest communication ratio, then tightest */
	TB_FIT_BUSIEST,		/* highest communication ratio, then tightest */
};
/* The lowest-level switch with at least n free nodes; -1 if none. */
int tb_lowest_fitting_switch(const struct tb_topology *t,
			     const struct tb_switch_counts *c, int n,
			     enum tb_fit_order order);
/* The same, ordering by the communication ratio of the given form (the
 * function above uses the share, TB_RATIO_SHARE). */
int tb_lowest_fitting_switch_by(const struct tb_topology *t,
				const struct tb_switch_counts *c, int n,
				enum tb_fit_order order,
				enum tb_ratio_form form);
double tb_leaf_ratio(const struct tb_topology *t,
		     const struct tb_switch_counts *c, int sw,
		     enum tb_ratio_form form);
int tb_is_below(const struct tb_topology *t, int sw, int ancestor);

/* A leaf with free nodes, as greedy and balanced sort them. */
struct tb_leaf_key {
	int leaf;
	int free_nodes;
	double ratio;		/* communication ratio, before the job */
};
/* The leaves with free nodes under the lowest switch that fits `nodes`,
 * in topology order; *keys is malloc'd for the caller to free. */
enum tb_status tb_candidate_leaves(const struct tb_topology *t,
				   const struct tb_occupancy *o, int nodes,
				   enum tb_fit_order order,
				   struct tb_leaf_key **keys, int *n);
/* The same with the ratio (of the switch choice and of the keys) in the
 * given form; tb_candidate_leaves uses TB_RATIO_SHARE. */
enum tb_status tb_candidate_leaves_by(const struct tb_topology *t,
				      const struct tb_occupancy *o, int nodes,
				      enum tb_fit_order order,
				      enum tb_ratio_form form,
				      struct tb_leaf_key **keys, int *n);

/* Sorts keys[0..n) by cmp and takes the leaves' free nodes in that order
 * (each leaf's in index order) until `nodes` are in alloc: the fill of
 * default1905, greedy and balanced's compute-intensive jobs. TB_OK,
 * TB_ENOSPACE (the leaves hold fewer) or TB_ENOMEM; keys stay the
 * caller's. */
enum tb_status tb_fill_leaves(const struct tb_topology *t,
			      const struct tb_occupancy *o,
			      struct tb_leaf_key *keys, int n,
			      int (*cmp)(const void *, const void *),
			      int nodes, int *alloc);

/* Puts alloc in opts->ranks order (nothing to do for taken); under
 * ranks=authors in `authors`, the order the authors' code costs the
 * policy in (tb_authors_ranks, policy.h); opts may be NULL (taken). */
void tb_rank_order(const struct tb_options *opts, enum tb_rank_order authors,
		   int *alloc, int n);

#endif
