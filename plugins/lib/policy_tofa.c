/*
 * TOFA's policies (shared/papers/tofa.txt): tofa (Listing 1.1, L337-356),
 * scotch0 (tofa with every pf taken as 0: the paper's "Scotch" of Fig. 3
 * and Table 1) and tofa-greedy (L579-582). On a machine that is no torus
 * they refuse (TB_EINVAL): their costs are the torus' routes.
 */
#include "policy_registry.h"
#include "tofa.h"

#include <limits.h>
#include <stdlib.h>

/* The family's refusals, in the registry's order: too few free nodes
 * (as every policy), then no torus to route on. */
static enum tb_status precheck(const struct tb_topology *t,
			       const struct tb_occupancy *o, int n)
{
	int free_nodes = 0;

	if (n < 1)
		return TB_EINVAL;
	if (n > t->n_nodes)
		return TB_ETOOBIG;
	for (int k = 0; k < t->n_nodes; k++)
		free_nodes += o->state[k] == TB_NODE_FREE;
	if (free_nodes < n)
		return TB_ENOSPACE;
	return t->torus_node ? TB_OK : TB_EINVAL;
}

static enum tb_status map_onto(const struct tb_topology *t, const double *pf,
			       const struct tb_tofa_graph *g,
			       const struct tb_options *opts, const int *cand,
			       int nc, int *alloc)
{
	int *map = malloc(sizeof(int) * (size_t)(g->n + 1));
	enum tb_status rc = TB_ENOMEM;

	if (!map)
		return TB_ENOMEM;
	if (!g->n_edges) {
		/* No graph to map: the processes in order on the first
		 * candidates. */
		for (int p = 0; p < g->n; p++)
			map[p] = p;
		rc = TB_OK;
	} else if (opts->mapper == TB_MAPPER_EXACT) {
		double *d = malloc(sizeof(double) * (size_t)nc * (size_t)nc);

		if (d) {
			for (int i = 0; i < nc; i++)
				for (int j = 0; j < nc; j++)
					d[(size_t)i * nc + j] =
						tb_tofa_sym_cost(t, pf, cand[i],
								 cand[j],
								 opts->penalty);
			rc = tb_tofa_map_exact(g, d, nc, map);
			free(d);
		}
	} else {
		rc = tb_tofa_map_scotch(t, pf, opts->penalty,
					opts->scotch_arch, opts->scotch_strat,
					g, cand, nc, map);
	}
	for (int p = 0; rc == TB_OK && p < g->n; p++)
		alloc[p] = cand[map[p]];
	free(map);
	return rc;
}

enum tb_status tb_tofa_place(const struct tb_topology *t,
			     const struct tb_occupancy *o,
			     const struct tb_job *job,
			     const struct tb_options *opts, int use_pf,
			     int *alloc, struct tb_tofa_trace *trace)
{
	const double *pf = use_pf ? o->failure_prob : NULL;
	struct tb_tofa_graph g;
	int n = job->nodes, nc = 0, *cand;
	enum tb_status rc;

	trace->window = -1;
	trace->fallback = 0;
	if ((rc = precheck(t, o, n)) != TB_OK)
		return rc;
	cand = malloc(sizeof(int) * (size_t)t->n_nodes);
	if (!cand)
		return TB_ENOMEM;
	/* l. 10: n consecutive free nodes, none risky; scotch0=machine
	 * (Sec. 5.1's Scotch, L627-630: the graph and "a representation of
	 * the platform") skips it and maps as l. 12 onto every free node. */
	trace->window = !use_pf && opts->scotch0 == TB_SCOTCH0_MACHINE ? -1 :
			tb_tofa_window(t, o, pf, n);
	if (trace->window >= 0) {
		for (int k = 0; k < n; k++)
			cand[nc++] = trace->window + k;
	} else if (use_pf && opts->fallback == TB_FALLBACK_WINDOW &&
		   (trace->window = tb_tofa_window_fewest_risky(t, o, pf,
								n)) >= 0) {
		/* Ours (fallback=window): the window with the fewest risky
		 * nodes, mapped as l. 14-15 map a clean one; Eq. 1 keeps
		 * the heavy pairs off the risky links. */
		trace->fallback = 2;
		for (int k = 0; k < n; k++)
			cand[nc++] = trace->window + k;
	} else {
		/* l. 12 (fallback=all, the paper's): no such window; Scotch
		 * over all the free nodes. */
		trace->fallback = 1;
		for (int k = 0; k < t->n_nodes; k++)
			if (o->state[k] == TB_NODE_FREE)
				cand[nc++] = k;
	}
	if (nc < n) {
		free(cand);
		return TB_ENOSPACE;
	}
	if (tb_tofa_graph_build(job->matrix, n, &g)) {
		free(cand);
		return TB_ENOMEM;
	}
	rc = map_onto(t, pf, &g, opts, cand, nc, alloc);
	tb_tofa_graph_free(&g);
	free(cand);
	return rc;
}

enum tb_status tb_policy_tofa(const struct tb_topology *t,
			      const struct tb_occupancy *o,
			      const struct tb_job *job,
			      const struct tb_options *opts, int *alloc)
{
	struct tb_tofa_trace trace;

	return tb_tofa_place(t, o, job, opts, 1, alloc, &trace);
}

enum tb_status tb_policy_scotch0(const struct tb_topology *t,
				 const struct tb_occupancy *o,
				 const struct tb_job *job,
				 const struct tb_options *opts, int *alloc)
{
	struct tb_tofa_trace trace;

	return tb_tofa_place(t, o, job, opts, 0, alloc, &trace);
}

/* --- tofa-greedy ----------------------------------------------------------- */

struct edge_order {
	const struct tb_tofa_graph *g;
	int e;
};

static int cmp_heaviest(const void *x, const void *y)
{
	const struct edge_order *p = x, *q = y;
	const struct tb_tofa_graph *g = p->g;

	if (g->w[p->e] != g->w[q->e])
		return g->w[p->e] < g->w[q->e] ? 1 : -1;
	return (p->e > q->e) - (p->e < q->e);	/* edges are sorted (a, b) */
}

/* The free unused node nearest to node `from` (hops), the lowest on a
 * tie; from < 0: the lowest free unused node. */
static int nearest(const struct tb_topology *t, const struct tb_occupancy *o,
		   const unsigned char *used, int from)
{
	int best = -1, best_d = INT_MAX;

	for (int k = 0; k < t->n_nodes; k++) {
		int d;

		if (o->state[k] != TB_NODE_FREE || used[k])
			continue;
		d = from < 0 ? 0 : tb_torus_hops(t, from, k);
		if (d < best_d) {
			best = k;
			best_d = d;
		}
	}
	return best;
}

/* Takes the nearest (as nearest()) into *node: 0, or -1 if none is left. */
static int take(const struct tb_topology *t, const struct tb_occupancy *o,
		unsigned char *used, int from, int *node)
{
	int k = nearest(t, o, used, from);

	if (k < 0)
		return -1;
	used[k] = 1;
	*node = k;
	return 0;
}

/*
 * L579-582: process pairs by traffic, heaviest first; each unplaced
 * process as close as possible to its partner, "starting from a distance
 * of one hop" (the nearest free node, in hops). Readings: a pair with
 * neither placed starts at the lowest free node; processes that talk to
 * nobody take the lowest free nodes left, in order; pf is not read (the
 * paper compares greedy with faults disregarded, L560-563).
 */
enum tb_status tb_policy_tofa_greedy(const struct tb_topology *t,
				     const struct tb_occupancy *o,
				     const struct tb_job *job,
				     const struct tb_options *opts,
				     int *alloc)
{
	struct tb_tofa_graph g;
	struct edge_order *ord = NULL;
	unsigned char *used = NULL;
	int n = job->nodes;
	enum tb_status rc;

	(void)opts;
	if ((rc = precheck(t, o, n)) != TB_OK)
		return rc;
	rc = TB_ENOMEM;
	if (tb_tofa_graph_build(job->matrix, n, &g))
		return TB_ENOMEM;
	ord = malloc(sizeof(*ord) * (size_t)(g.n_edges + 1));
	used = calloc((size_t)t->n_nodes, 1);
	if (!ord || !used)
		goto out;
	for (int e = 0; e < g.n_edges; e++)
		ord[e] = (struct edge_order){ &g, e };
	qsort(ord, (size_t)g.n_edges, sizeof(*ord), cmp_heaviest);
	for (int p = 0; p < n; p++)
		alloc[p] = -1;
	rc = TB_ENOSPACE;
	for (int k = 0; k < g.n_edges; k++) {
		int a = g.a[ord[k].e], b = g.b[ord[k].e];

		if (alloc[a] >= 0 && alloc[b] >= 0)
			continue;
		if (alloc[a] < 0 && alloc[b] < 0 && take(t, o, used, -1, &alloc[a]))
			goto out;
		if (alloc[a] < 0 ? take(t, o, used, alloc[b], &alloc[a]) :
		    take(t, o, used, alloc[a], &alloc[b]))
			goto out;
	}
	for (int p = 0; p < n; p++)
		if (alloc[p] < 0 && take(t, o, used, -1, &alloc[p]))
			goto out;
	rc = TB_OK;
out:
	free(ord);
	free(used);
	tb_tofa_graph_free(&g);
	return rc;
}
