/*
 * TOFA (topology- and fault-aware placement on a 3D torus, the anonymised
 * preprint in shared/papers/tofa.txt; "L<n>" below is its line): routes,
 * Eq. 1's costs, the abort probability, the job's graph and the mappers
 * its policies share (policy_tofa.c: tofa, scotch0, tofa-greedy).
 *
 * Readings (docs/readings.md):
 *  - routes: "fixed routing" (L259-262) read as dimension order, x then y
 *    then z, each ring the shorter way round, a tie (distance k/2) in the
 *    + direction; so u -> v and v -> u may differ (and cost differently);
 *  - Eq. 1 (L307-326, garbled): a route costs the sum over its links of
 *    c, times 101 (c + 100c, the formula) or 100 (the prose, L318;
 *    penalty=100) when either end of the link has pf > 0; c = 1;
 *  - Scotch needs a symmetric weight: the mean of the two directions;
 *  - a node fails the job if it is one of its nodes or on a route, in
 *    either direction, between two processes that communicate (L272-275;
 *    exposure=routes), or (exposure=own, L755-757's reading) if it is
 *    one of its nodes.
 */
#ifndef TB_TOFA_H
#define TB_TOFA_H

#include <stddef.h>

#include "cost.h"
#include "job.h"
#include "matrix.h"
#include "occupancy.h"
#include "options.h"
#include "status.h"
#include "topology.h"

/* A node is risky iff its pf is above this (the threshold, 0). */
#define TB_TOFA_RISKY_ABOVE 0.0
/* Eq. 1's c: the cost of one hop. */
#define TB_TOFA_C 1.0
/* The exact mapper's limits (mapper=exact). */
#define TB_TOFA_EXACT_MAX 8
#define TB_TOFA_EXACT_MAPS 40320L
/* Scotch's seed (deterministic mode). */
#define TB_TOFA_SCOTCH_SEED 1

/* The nodes a route visits, u first and v last (u alone when u == v), into
 * path (room for x/2 + y/2 + z/2 + 1 nodes: TB_TORUS_PATH_MAX covers
 * every torus of up to 4096 per dimension). Returns their count, or -1
 * when t is no torus or a node is out of range. */
#define TB_TORUS_PATH_MAX (3 * 2048 + 1)
int tb_torus_route(const struct tb_topology *t, int u, int v, int *path);
/* Links on the route (the same both ways); -1 as above. */
int tb_torus_hops(const struct tb_topology *t, int u, int v);

/* Whether node n is risky (pf NULL: none is). */
int tb_tofa_risky(const double *pf, int n);
/* Eq. 1 for the route u -> v; pf NULL means every pf is 0. */
double tb_tofa_route_cost(const struct tb_topology *t, const double *pf,
			  int u, int v, enum tb_penalty penalty);
/* The mean of u -> v and v -> u: the weight Scotch maps with. */
double tb_tofa_sym_cost(const struct tb_topology *t, const double *pf,
			int u, int v, enum tb_penalty penalty);

/* A job's graph, one vertex per node (process): the matrix's ranks in
 * blocks over n processes (matrix.h), both directions of a pair summed,
 * self-traffic dropped. */
struct tb_tofa_graph {
	int n;
	int n_edges;
	int *a, *b;		/* a < b */
	double *w;
};
/* m may be NULL: no edge. 0, or -1 (out of memory). */
int tb_tofa_graph_build(const struct tb_matrix *m, int n,
			struct tb_tofa_graph *g);
void tb_tofa_graph_free(struct tb_tofa_graph *g);

/* What a placement costs: Eq. 1 summed over the graph's pairs (symmetric
 * weight), plain hop-bytes, and the probability that one attempt aborts. */
struct tb_tofa_eval {
	double cost;
	double hops;
	double abort;
};
int tb_tofa_evaluate(const struct tb_topology *t, const double *pf,
		     const struct tb_tofa_graph *g, const int *map,
		     enum tb_penalty penalty, enum tb_tofa_exposure exposure,
		     struct tb_tofa_eval *out);

/* The nodes one attempt of the job depends on (L272-275): its own (map)
 * and, under exposure=routes, every node on a route, either direction,
 * between two processes that communicate (an edge of g); under
 * exposure=own its own only (L755-757). exposed: t->n_nodes flags. 0, or
 * -1 when a map entry is no node of t or t is no torus. The abort of
 * tb_tofa_evaluate and tb_tofa_hit both read it: one place. */
int tb_tofa_exposed(const struct tb_topology *t,
		    const struct tb_tofa_graph *g, const int *map,
		    enum tb_tofa_exposure exposure, unsigned char *exposed);
/* Whether an attempt whose failed nodes are failed[0..n_failed-1] aborts:
 * hit->node the first of them the job depends on (one of its own nodes
 * first, on_route 0; else one on a route only, on_route 1), or -1 when
 * none is. 0, or -1 (out of memory, a node out of range). */
struct tb_tofa_hit {
	int node;
	int on_route;
};
int tb_tofa_hit(const struct tb_topology *t, const struct tb_tofa_graph *g,
		const int *map, enum tb_tofa_exposure exposure,
		const int *failed, int n_failed, struct tb_tofa_hit *hit);

/* Listing 1.1 l. 10: the lowest first id of n consecutive node ids, all
 * free and (pf not NULL) none risky; -1 when there is none. */
int tb_tofa_window(const struct tb_topology *t, const struct tb_occupancy *o,
		   const double *pf, int n);

/* fallback=window (options.h): the lowest first id of n consecutive free
 * node ids with the fewest risky nodes; -1 when no n consecutive ids are
 * free. */
int tb_tofa_window_fewest_risky(const struct tb_topology *t,
				const struct tb_occupancy *o, const double *pf,
				int n);

/* Maps the graph's n processes injectively onto the nodes cand[0..nc-1]
 * (nc >= n), minimising sum w x d over the pairs, d[i * nc + j] the cost
 * between cand[i] and cand[j]. map[p] receives an index into cand. */
enum tb_status tb_tofa_map_exact(const struct tb_tofa_graph *g,
				 const double *d, int nc, int *map);
/* The same with Debian's Scotch (ScotchExtract + ScotchMap, L349-356):
 * the target is the machine's graph H (the torus' links, each weighted by
 * Eq. 1), extracted to cand (arch_kind, strat_kind: options.h's
 * scotch_arch, scotch_strat); Scotch's distances are H's cheapest paths. */
enum tb_status tb_tofa_map_scotch(const struct tb_topology *t,
				  const double *pf, enum tb_penalty penalty,
				  enum tb_scotch_arch arch_kind,
				  enum tb_scotch_strat strat_kind,
				  const struct tb_tofa_graph *g,
				  const int *cand, int nc, int *map);
/* "7.0.7": the Scotch the library runs (SCOTCH_version). */
const char *tb_tofa_scotch_version(void);

/* The controller's outage file (tofa_outage.c): "<node name> <pf>" lines.
 * 0 and *out (t->n_nodes values, malloc'd), or -1 with "<name>:<line>:
 * <reason>" in err. */
int tb_outage_parse(const char *text, size_t len, const char *name,
		    const struct tb_topology *t, double **out, char *err,
		    size_t errlen);

/* The runtime model (tofa_runtime.c, ours): C0, the plain hop-bytes of
 * Slurm's default (the library's model of it) on the empty torus, ranks in
 * node order: 0, or -1 (no torus, too big, out of memory) with *c0 NaN. */
int tb_tofa_c0(const struct tb_topology *t, const struct tb_tofa_graph *g,
	       const struct tb_options *opts, double *c0);
/* T = T0 ((1 - f) + f C / C0); C or C0 NaN: T0, *why saying which. */
double tb_tofa_runtime_why(double t0, double f, double c, double c0,
			   enum tb_runtime_fallback *why);

/* How tofa placed the job. */
struct tb_tofa_trace {
	int window;		/* first id of the window mapped onto, or -1 */
	/* 0: a clean window; 1: none, mapped onto every free node (l. 12,
	 * fallback=all); 2: none, onto the window with the fewest risky
	 * nodes (fallback=window). */
	int fallback;
};
/* tofa (use_pf 1) and scotch0 (use_pf 0): alloc[p] = node of process p. */
enum tb_status tb_tofa_place(const struct tb_topology *t,
			     const struct tb_occupancy *o,
			     const struct tb_job *job,
			     const struct tb_options *opts, int use_pf,
			     int *alloc, struct tb_tofa_trace *trace);

#endif
