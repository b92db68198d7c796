/* What TreeMatch's files share (treematch.c names them); not library API. */
#ifndef TB_TREEMATCH_INTERNAL_H
#define TB_TREEMATCH_INTERNAL_H

#include <stdint.h>

#include "treematch.h"

/* --- process graph: symmetric CSR (treematch_graph.c) ------------------- */

struct tm_graph {
	int n;
	int *rp;		/* n + 1 row starts */
	int *ci;
	double *w;
};

void tb_tm_graph_free(struct tm_graph *g);
int tb_tm_graph_from_matrix(struct tm_graph *g, const struct tb_matrix *m,
			    int procs);
int tb_tm_graph_aggregate(struct tm_graph *out, const struct tm_graph *g,
			  const int *group_of, int n_groups);

/* --- machine view and shapes (treematch_tree.c) ------------------------- */

/*
 * Level 1 holds the bins whose slots are the leaves: nodes (slots = cores)
 * at core level, leaf switches (slots = nodes) at node level. A switch of
 * topology level s is at s + 2, resp. s + 1. Hops between two slots are
 * 2 x the level of their lowest common vertex, 2 inside a bin.
 */
struct tm_machine {
	int n_vert, root, n_nodes, node_mode;
	int *parent, *level, *cap, *first_child, *next_sibling;
};

struct tm_shape {
	int n;
	int *mv;		/* machine vertex, -1 for a chain vertex */
	int *level, *count, *parent, *cstart, *cnum, *cls;
	uint64_t *hash;
	int n_cls;
	/* per class: the children it needs, (class, count) runs */
	int *need_start, *need_cls, *need_cnt;
};

void tb_tm_machine_free(struct tm_machine *mc);
int tb_tm_machine_build(struct tm_machine *mc, const struct tb_topology *t,
			int node_mode, const int *bin_cap);
void tb_tm_shape_free(struct tm_shape *sh);
int tb_tm_shape_build(struct tm_shape *sh, const struct tm_machine *mc,
		      const int *cnt, int R, int n_used);

/* --- grouping one level (treematch_group.c) ----------------------------- */

struct tm_groups {
	int n;			/* groups */
	int *gcls;		/* class of the vertex each is made for */
	int *mstart;		/* n + 1 */
	int *members;		/* the units, grouped */
	int *group_of;		/* per unit */
};

/* Also step A's bins by free slots (fill_pack). */
struct deg_idx {
	double d;
	int i;
};

void tb_tm_groups_free(struct tm_groups *gr);
int tb_tm_cmp_deg_desc(const void *a, const void *b);
int tb_tm_group_level(const struct tm_graph *g, const int *ucls,
		      const struct tm_shape *sh, int level,
		      const struct tb_tm_opts *opts, int block,
		      struct tm_groups *out);

/* --- one run on a shape, refinement (treematch_run.c) ------------------- */

struct tm_result {
	double hb;
	int *bin;		/* machine bin per process */
	int *slot;		/* slot within the bin */
};

double tb_tm_run(const struct tm_graph *g0, const struct tm_shape *sh,
		 const struct tb_tm_opts *opts, int block, int *bin, int *slot);
void tb_tm_refine(const struct tm_machine *mc, const struct tm_graph *g,
		  int S, int map_only, struct tm_result *res, int *used,
		  int *bins, int passes);

/* --- step A: the search and its scope (treematch_search.c) -------------- */

enum tb_status tb_tm_search(const struct tm_machine *mc,
			    const struct tm_graph *g,
			    const struct tb_tm_opts *opts, int S,
			    int map_only, struct tm_result *res);
int tb_tm_scope_of(const struct tm_machine *mc, int n,
		   const struct tb_tm_opts *opts);

#endif
