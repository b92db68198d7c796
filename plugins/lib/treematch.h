/*
 * TreeMatch job mapping (Georgiou, Jeannot, Mercier, Villiermet, "Topology-
 * Aware Job Mapping", IJHPCA 32(1), 2018; the algorithm itself from
 * Jeannot & Mercier, Euro-Par 2010 and IEEE TPDS 2014, refs [13, 14]).
 *
 * The machine is a tree whose leaves are cores: cores under nodes under the
 * switch levels of topology.h. The affinity matrix w(i,j) is a job's
 * tb_matrix, both directions of a pair added. TreeMatch groups processes
 * bottom-up, one tree level at a time, maximising the communication kept
 * inside each group, then aggregates the matrix over the groups for the
 * level above (Sec. 3.1.3); the groups are then laid on the tree top-down.
 * It minimises the hop-bytes of Sec. 3.1.3, Hop-Byte = sum over i < j of
 * w(i,j) x d(core(i), core(j)), d in tree hops (tb_hop_bytes_cores()).
 *
 * Strategies (Sec. 4.2 and 4.3):
 *   tm-a     TreeMatch maps ranks onto the cores another policy chose
 *   tm-i     TreeMatch chooses the cores and the map over all free cores
 *   tm-sub   the same inside the first subtree, leaves up and left to
 *            right, with enough free cores (Sec. 3.2, Figure 3)
 *   tm-sub3  that subtree's ancestor 3 levels up (Sec. 4.3, "TM-Isub+3")
 *
 * Two granularities. The core API below maps ranks to cores. The policy
 * registry (policy_registry.def) works in whole nodes with ranks in
 * blocks over the allocation (matrix.h); there the same engine runs with
 * nodes as the leaves and the blocks as processes, which is also the
 * paper's "mapping at the node level" for large jobs (end of Sec. 3.2).
 */
#ifndef TB_TREEMATCH_H
#define TB_TREEMATCH_H

#include "cost.h"
#include "matrix.h"
#include "occupancy.h"
#include "status.h"
#include "topology.h"

enum tb_tm_strategy {
	TB_TM_I,		/* whole machine */
	TB_TM_SUB,		/* first subtree that fits, levels_above up */
};

struct tb_tm_opts {
	enum tb_tm_strategy strategy;
	/* tm-sub: climb this many levels above the first fitting subtree;
	 * 0 is the emulation's TM-Sub, 3 the simulator's TM-Isub+3. */
	int levels_above;
	/* A level's grouping is searched exactly when the number of ways to
	 * split its units into the groups is at most this; else greedy. */
	double exact_budget;
	/* Above this many ranks the first level groups ranks in rank order
	 * (whole nodes get consecutive ranks) and TreeMatch works from the
	 * nodes up: the paper's node-level mapping for large jobs. */
	int core_level_max;
	/* Candidate subtrees whose core choice is evaluated, per level (the
	 * tightest first); each distinct candidate costs one TreeMatch run. */
	int max_candidates;
	/* The communication-aware count rule ("partition", Sec. 3.1.3's
	 * k-partitioning) is quadratic in the job: only up to this many. */
	int partition_max;
	/* Ours, not the paper's: up to this many ranks, moves and swaps of
	 * single ranks after TreeMatch while hop-bytes drop; 0 = pure. */
	int refine_max;
};

/* exact_budget 20000, core_level_max 16384, max_candidates 4,
 * partition_max 2048, refine_max 64, tm-i. */
void tb_tm_opts_default(struct tb_tm_opts *o);

/*
 * tm-i / tm-sub at core granularity: chooses m->ranks free cores
 * (tb_free_cores()) and maps the ranks onto them.
 *   cores[k]   node of the k-th chosen core, m->ranks of them, grouped by
 *              node in node order; a node listed c times gives c of its
 *              free cores (which ones is the caller's choice: all cores
 *              of a node are one hop from the node in this model);
 *   map[r]     index into cores of rank r's core;
 *   hop_bytes  of that map (tb_hop_bytes_cores()), or NULL.
 */
enum tb_status tb_treematch_allocate(const struct tb_topology *t,
				     const struct tb_occupancy *o,
				     const struct tb_matrix *m,
				     const struct tb_tm_opts *opts,
				     int *cores, int *map, double *hop_bytes);

/* tm-a at core granularity: cores[0..m->ranks) as above (any order, a node
 * repeated once per core) were chosen by someone else; map[r] receives the
 * index in cores of rank r's core. */
enum tb_status tb_treematch_map(const struct tb_topology *t,
				const struct tb_matrix *m, const int *cores,
				const struct tb_tm_opts *opts, int *map,
				double *hop_bytes);

/* Sec. 3.2: T' = (1 + R a - a) T with R = hop-bytes(strategy) /
 * hop-bytes(default) on the same state (1 when the default's is 0) and a
 * the communication ratio. The same law as cost.h's Eq. 7. */
double tb_treematch_runtime(double runtime, double comm_ratio,
			    double hop_bytes, double hop_bytes_default);
/* The same; a missing hop-bytes (NaN) gives the log's runtime and *why
 * says which (cost.h's tb_scaled_runtime_why). */
double tb_treematch_runtime_why(double runtime, double comm_ratio,
				double hop_bytes, double hop_bytes_default,
				enum tb_runtime_fallback *why);

/* The node-level policies tm-a, tm-i, tm-sub and tm-sub3 are in the
 * registry (policy_registry.def, policy_treematch.c): job->matrix's ranks
 * in blocks over job->nodes nodes (rank r in block r * nodes / ranks).
 * Without a matrix they are the default policy, as the paper's jobs
 * without a pattern (end of Sec. 4.3). */

#endif
