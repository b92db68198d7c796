/* Node allocation policies over a topology and an occupancy snapshot. */
#ifndef TB_POLICY_H
#define TB_POLICY_H

#include "job.h"
#include "occupancy.h"
#include "options.h"
#include "topology.h"

enum tb_policy {
	TB_POLICY_DEFAULT,	/* Slurm 24.11 topology/tree, modelled */
	TB_POLICY_GREEDY,	/* ICPP-W 2020, Algorithm 1 */
	TB_POLICY_BALANCED,	/* ICPP-W 2020, Algorithm 2 */
	TB_POLICY_ADAPTIVE,	/* ICPP-W 2020, cheaper (or costlier) of both */
	TB_POLICY_DEFAULT1905,	/* Slurm 19.05 select/linear + topology/tree */
	TB_POLICY_ISOLATED,	/* SC18, Algorithm 1 (topology-aware, TA) */
	TB_POLICY_FIRSTFIT,	/* SC18's baseline (topology-oblivious, TO) */
	TB_POLICY_TM_A,		/* IJHPCA 2018 TreeMatch after default */
	TB_POLICY_TM_I,		/* TreeMatch over the whole machine */
	TB_POLICY_TM_SUB,	/* TreeMatch in the first subtree that fits */
	TB_POLICY_TM_SUB3,	/* ... 3 levels above it (Sec. 4.3) */
	TB_POLICY_COUNT
};

enum tb_status {
	TB_OK = 0,
	TB_ENOSPACE,		/* not enough free nodes in this snapshot */
	TB_ETOOBIG,		/* more nodes than the machine has */
	TB_EINVAL,		/* a request that makes no sense */
	TB_ENOMEM,
	TB_EWAIT,		/* enough free nodes, but placing the job now
				 * would break isolation (isolated policy) */
};

const char *tb_policy_name(enum tb_policy p);
int tb_policy_parse(const char *name, enum tb_policy *out);
const char *tb_status_str(enum tb_status s);

/*
 * Chooses job->nodes free nodes. alloc receives node indexes in rank order:
 * leaves in the order the policy took them, nodes by index within a leaf.
 */
enum tb_status tb_allocate(enum tb_policy p, const struct tb_topology *t,
			   const struct tb_occupancy *o,
			   const struct tb_job *job, int *alloc);
/* The same under named readings of the paper (options.h); tb_allocate is
 * this with the paper's form. opts may be NULL for the paper's form. */
enum tb_status tb_allocate_with(enum tb_policy p, const struct tb_topology *t,
				const struct tb_occupancy *o,
				const struct tb_job *job,
				const struct tb_options *opts, int *alloc);
/* Puts alloc in opts->ranks order (nothing to do for taken). */
void tb_rank_order(const struct tb_options *opts, int *alloc, int n);
/* The policy whose cost is Eq. 7's Cost_Default under opts (NULL: the
 * paper's, default1905). */
enum tb_policy tb_denominator_policy(const struct tb_options *opts);
/* The same; on a refusal writes a one-line reason into why (if not NULL),
 * more precise than tb_status_str() where the policy knows more. */
enum tb_status tb_allocate_why(enum tb_policy p, const struct tb_topology *t,
			       const struct tb_occupancy *o,
			       const struct tb_job *job,
			       const struct tb_options *opts, int *alloc,
			       char *why, size_t whylen);

/* Shared by the policy files. */
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

enum tb_status tb_policy_default(const struct tb_topology *t,
				 const struct tb_occupancy *o,
				 const struct tb_job *job, int *alloc);
enum tb_status tb_policy_greedy(const struct tb_topology *t,
				const struct tb_occupancy *o,
				const struct tb_job *job,
				const struct tb_options *opts, int *alloc);
enum tb_status tb_policy_balanced(const struct tb_topology *t,
				  const struct tb_occupancy *o,
				  const struct tb_job *job,
				  const struct tb_options *opts, int *alloc);
enum tb_status tb_policy_adaptive(const struct tb_topology *t,
				  const struct tb_occupancy *o,
				  const struct tb_job *job,
				  const struct tb_options *opts, int *alloc);
enum tb_status tb_policy_default1905(const struct tb_topology *t,
				     const struct tb_occupancy *o,
				     const struct tb_job *job, int *alloc);
/* policy_isolated.c; its options and helpers are in isolation.h. */
enum tb_status tb_policy_isolated(const struct tb_topology *t,
				  const struct tb_occupancy *o,
				  const struct tb_job *job, int *alloc);
enum tb_status tb_policy_firstfit(const struct tb_topology *t,
				  const struct tb_occupancy *o,
				  const struct tb_job *job, int *alloc);

#endif
