/*
 * A job of ranks placed on cores or nodes, for `make alloc` (tb-alloc on a
 * scenario with `job ranks=`; scenario.h): every policy gives the node of
 * each rank, and the job's hop-bytes at core and node level.
 *
 * Core by core (`job ranks=R`, sbatch -n R: the TreeMatch emulation's jobs,
 * IJHPCA 2018 Sec. 4, which allocated cores):
 *   default   Slurm's own choice (select/cons_tres + topology/tree) as we
 *             model it, tb_tree_cores below (tree_cores.c): best-fit leaf
 *             by offered nodes among those with the cores, nodes in index
 *             order, all free cores of each; ranks in blocks over them.
 *             Ours, from reading Slurm 24.11's code: not checked against a
 *             running Slurm in cores (in whole nodes the node-level model
 *             is, tests/policies_vs_slurm.bats).
 *   tm-a      TreeMatch maps the ranks onto default's cores
 *             (tb_treematch_map), as topology/commtree does.
 *   tm-i, tm-sub, tm-sub3
 *             TreeMatch chooses the cores and the map among all free
 *             cores (tb_treematch_allocate).
 *   others    place whole nodes (their papers' granularity): as many free
 *             nodes as the ranks fill, ceil(R / cores of a node), ranks in
 *             blocks over them.
 * In nodes (`job ranks=R nodes=N`, sbatch -n R -N N): every policy takes
 * N whole free nodes as in the registry (TreeMatch's node-level policies
 * with the matrix's ranks in blocks), ranks in blocks: rank r on node
 * alloc[r * N / R] (matrix.h).
 */
#ifndef TB_PLACE_CORES_H
#define TB_PLACE_CORES_H

#include "job.h"
#include "matrix.h"
#include "occupancy.h"
#include "options.h"
#include "policy.h"
#include "status.h"
#include "topology.h"

/*
 * Places job->matrix's ranks (job->nodes 0: core by core; else in that
 * many whole nodes) under policy p. node_of_rank[r] receives rank r's
 * node (job->matrix->ranks entries). Returns TB_OK, TB_EWAIT (why says
 * why, as tb_allocate_why), TB_ENOSPACE when too few free cores or nodes,
 * TB_EINVAL when a node would get more ranks than it has cores.
 */
enum tb_status tb_place_ranks(enum tb_policy p, const struct tb_topology *t,
			      const struct tb_occupancy *o,
			      const struct tb_job *job,
			      const struct tb_options *opts, int *node_of_rank,
			      char *why, size_t whylen);

/*
 * Slurm 24.11's choice of `ranks` one-CPU tasks' cores (sbatch -n R in a
 * partition that shares nodes; tree_cores.c says what is modelled and where
 * it may differ): slot_node[k] receives the node of the k-th core, ranks of
 * them, grouped by node in index order. The free cores are
 * tb_free_cores(). TB_ENOSPACE when fewer than ranks are free.
 */
enum tb_status tb_tree_cores(const struct tb_topology *t,
			     const struct tb_occupancy *o, int ranks,
			     int *slot_node);

/* Hop-bytes at node level for any rank-to-node map: the sum of volume x
 * tb_pair_distance over the entries, 0 within a node (tb_hop_bytes for a
 * map that need not be in blocks). */
double tb_hop_bytes_nodes(const struct tb_topology *t,
			  const struct tb_matrix *m, const int *node_of_rank);

#endif
