/*
 * TOFA's mappers: every injective map (mapper=exact, for tests) and
 * Debian's Scotch (the paper's, Listing 1.1 l. 12-15), deterministic with
 * a fixed seed.
 */
#include "tofa.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scotch/scotch.h>

/* --- exact ----------------------------------------------------------------- */

struct exact {
	const struct tb_tofa_graph *g;
	const double *d;
	int nc;
	int *cur, *best;
	unsigned char *used;
	double best_cost;
	int found;
	/* per process: its edges to lower-numbered processes */
	int **nbr;
	double **nw;
	int *n_nbr;
};

/* Lexicographic order over (map[0], map[1], ...); a map replaces the best
 * only when strictly cheaper, so the first cheapest one stays. */
static void exact_rec(struct exact *x, int p, double cost)
{
	double tol = 1e-9 * (1 + fabs(cost));

	if (x->found && cost > x->best_cost + tol)
		return;		/* costs only grow: prune */
	if (p == x->g->n) {
		if (!x->found || cost < x->best_cost - tol) {
			x->found = 1;
			x->best_cost = cost;
			memcpy(x->best, x->cur, sizeof(int) * (size_t)p);
		}
		return;
	}
	for (int c = 0; c < x->nc; c++) {
		double add = 0;

		if (x->used[c])
			continue;
		for (int k = 0; k < x->n_nbr[p]; k++)
			add += x->nw[p][k] *
			       x->d[(size_t)c * x->nc + x->cur[x->nbr[p][k]]];
		x->used[c] = 1;
		x->cur[p] = c;
		exact_rec(x, p + 1, cost + add);
		x->used[c] = 0;
	}
}

enum tb_status tb_tofa_map_exact(const struct tb_tofa_graph *g,
				 const double *d, int nc, int *map)
{
	struct exact x = { .g = g, .d = d, .nc = nc, .best_cost = 0 };
	long maps = 1;
	enum tb_status rc = TB_ENOMEM;

	if (g->n > TB_TOFA_EXACT_MAX || nc < g->n)
		return TB_EINVAL;
	for (int k = 0; k < g->n; k++)
		maps *= nc - k;
	if (maps > TB_TOFA_EXACT_MAPS)
		return TB_EINVAL;
	x.cur = calloc((size_t)g->n + 1, sizeof(int));
	x.best = calloc((size_t)g->n + 1, sizeof(int));
	x.used = calloc((size_t)nc, 1);
	x.nbr = calloc((size_t)g->n + 1, sizeof(int *));
	x.nw = calloc((size_t)g->n + 1, sizeof(double *));
	x.n_nbr = calloc((size_t)g->n + 1, sizeof(int));
	if (!x.cur || !x.best || !x.used || !x.nbr || !x.nw || !x.n_nbr)
		goto out;
	for (int p = 0; p < g->n; p++) {
		x.nbr[p] = malloc(sizeof(int) * (size_t)(g->n_edges + 1));
		x.nw[p] = malloc(sizeof(double) * (size_t)(g->n_edges + 1));
		if (!x.nbr[p] || !x.nw[p])
			goto out;
	}
	for (int e = 0; e < g->n_edges; e++) {
		int hi = g->b[e], lo = g->a[e];

		x.nbr[hi][x.n_nbr[hi]] = lo;
		x.nw[hi][x.n_nbr[hi]++] = g->w[e];
	}
	exact_rec(&x, 0, 0);
	memcpy(map, x.best, sizeof(int) * (size_t)g->n);
	rc = TB_OK;
out:
	for (int p = 0; x.nbr && x.nw && p < g->n; p++) {
		free(x.nbr[p]);
		free(x.nw[p]);
	}
	free(x.cur);
	free(x.best);
	free(x.used);
	free(x.nbr);
	free(x.nw);
	free(x.n_nbr);
	return rc;
}

/* --- Scotch ---------------------------------------------------------------- */

const char *tb_tofa_scotch_version(void)
{
	static char buf[32];
	int v, r, p;

	SCOTCH_version(&v, &r, &p);
	snprintf(buf, sizeof(buf), "%d.%d.%d", v, r, p);
	return buf;
}

/* Scotch's numbers are 32-bit and its costs sums of weight x distance:
 * the graph's weights are scaled to at most this (at least 1). */
#define SCOTCH_WMAX 100

/* H: the torus' links (L257-262: a vertex per node, no vertex weight),
 * each weighted by Eq. 1 for its one link (c, or 101c / 100c with a
 * risky end). Scotch's distances are the cheapest paths over them: Eq. 1's
 * route cost wherever the dimension-order route is a cheapest path (any
 * route that meets no risky node; docs/readings.md). */
static int build_target(SCOTCH_Graph *h, const struct tb_topology *t,
			const double *pf, enum tb_penalty penalty,
			SCOTCH_Num **vert, SCOTCH_Num **edge, SCOTCH_Num **edlo)
{
	size_t k = 0;

	*vert = malloc(sizeof(SCOTCH_Num) * (size_t)(t->n_nodes + 1));
	*edge = malloc(sizeof(SCOTCH_Num) * (size_t)t->n_nodes * 6);
	*edlo = malloc(sizeof(SCOTCH_Num) * (size_t)t->n_nodes * 6);
	if (!*vert || !*edge || !*edlo)
		return -1;
	for (int u = 0; u < t->n_nodes; u++) {
		size_t first = k;

		(*vert)[u] = (SCOTCH_Num)k;
		for (int d = 0; d < 3; d++) {
			for (int step = -1; step <= 1; step += 2) {
				int c[3], v, dup = 0;

				for (int e = 0; e < 3; e++)
					c[e] = t->nodes[u].coord[e];
				c[d] = (c[d] + step + t->torus[d]) % t->torus[d];
				v = t->torus_node[c[0] + t->torus[0] *
						  (c[1] + t->torus[1] * c[2])];
				for (size_t j = first; j < k; j++)
					dup |= (*edge)[j] == v;
				if (v == u || dup)
					continue;	/* a ring of 1 or 2 */
				(*edge)[k] = v;
				(*edlo)[k++] = (SCOTCH_Num)lround(
					tb_tofa_route_cost(t, pf, u, v, penalty));
			}
		}
	}
	(*vert)[t->n_nodes] = (SCOTCH_Num)k;
	return SCOTCH_graphBuild(h, 0, t->n_nodes, *vert, NULL, NULL, NULL,
				 (SCOTCH_Num)k, *edge, *edlo);
}

static int build_guest(SCOTCH_Graph *gr, const struct tb_tofa_graph *g,
		       SCOTCH_Num **vert, SCOTCH_Num **edge, SCOTCH_Num **edlo)
{
	size_t arcs = 2 * (size_t)g->n_edges;
	int *deg = calloc((size_t)g->n + 1, sizeof(int));
	double wmax = 0;

	*vert = malloc(sizeof(SCOTCH_Num) * (size_t)(g->n + 1));
	*edge = malloc(sizeof(SCOTCH_Num) * (arcs ? arcs : 1));
	*edlo = malloc(sizeof(SCOTCH_Num) * (arcs ? arcs : 1));
	if (!deg || !*vert || !*edge || !*edlo) {
		free(deg);
		return -1;
	}
	for (int e = 0; e < g->n_edges; e++) {
		deg[g->a[e]]++;
		deg[g->b[e]]++;
		if (g->w[e] > wmax)
			wmax = g->w[e];
	}
	(*vert)[0] = 0;
	for (int p = 0; p < g->n; p++)
		(*vert)[p + 1] = (*vert)[p] + deg[p];
	memset(deg, 0, sizeof(int) * (size_t)g->n);
	for (int e = 0; e < g->n_edges; e++) {
		double s = g->w[e] / wmax * SCOTCH_WMAX;
		SCOTCH_Num w = s < 1 ? 1 : (SCOTCH_Num)lround(s);
		int a = g->a[e], b = g->b[e];

		(*edge)[(*vert)[a] + deg[a]] = b;
		(*edlo)[(*vert)[a] + deg[a]++] = w;
		(*edge)[(*vert)[b] + deg[b]] = a;
		(*edlo)[(*vert)[b] + deg[b]++] = w;
	}
	free(deg);
	return SCOTCH_graphBuild(gr, 0, g->n, *vert, NULL, NULL, NULL,
				 (SCOTCH_Num)arcs, *edge, *edlo);
}

/* Scotch may put two processes on one terminal (its balance is a
 * tolerance; with more nodes than processes some get none): a process on
 * a terminal taken already moves to the nearest free one, the lowest on a
 * tie, processes in order. */
static void make_injective(const struct tb_topology *t, const double *pf,
			   enum tb_penalty penalty, const int *cand, int nc,
			   int *map, int n)
{
	unsigned char *used = calloc((size_t)nc, 1);

	if (!used)
		return;		/* caller checks injectivity */
	for (int p = 0; p < n; p++) {
		int best = -1, at = map[p] >= 0 && map[p] < nc ? map[p] : -1;
		double best_d = 0;

		if (at >= 0 && !used[at]) {
			used[at] = 1;
			continue;
		}
		for (int c = 0; c < nc; c++) {
			double d;

			if (used[c])
				continue;
			d = at < 0 ? 0 : tb_tofa_sym_cost(t, pf, cand[at],
							  cand[c], penalty);
			if (best < 0 || d < best_d) {
				best = c;
				best_d = d;
			}
		}
		map[p] = best;
		used[best] = 1;
	}
	free(used);
}

enum tb_status tb_tofa_map_scotch(const struct tb_topology *t,
				  const double *pf, enum tb_penalty penalty,
				  enum tb_scotch_arch arch_kind,
				  enum tb_scotch_strat strat_kind,
				  const struct tb_tofa_graph *g,
				  const int *cand, int nc, int *map)
{
	SCOTCH_Context ctx;
	SCOTCH_Graph h, hc, gr, gc;
	SCOTCH_Arch arch;
	SCOTCH_Strat strat, astrat;
	SCOTCH_Num *hv = NULL, *he = NULL, *hl = NULL, *gv = NULL,
		   *ge = NULL, *gl = NULL, *part = NULL, *list = NULL;
	enum tb_status rc = TB_ENOMEM;
	int ok = 0;

	if (nc < g->n)
		return TB_ENOSPACE;
	part = malloc(sizeof(SCOTCH_Num) * (size_t)(g->n + 1));
	list = malloc(sizeof(SCOTCH_Num) * (size_t)nc);
	if (!part || !list)
		goto free_arrays;
	for (int c = 0; c < nc; c++)
		list[c] = cand[c];
	/* Deterministic, one fixed seed: the same snapshot gives the same
	 * map in the plugin, in tb-alloc and in the tests. */
	if (SCOTCH_contextInit(&ctx))
		goto free_arrays;
	SCOTCH_contextOptionSetNum(&ctx, SCOTCH_OPTIONNUMDETERMINISTIC, 1);
	SCOTCH_contextOptionSetNum(&ctx, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1);
	SCOTCH_contextRandomSeed(&ctx, TB_TOFA_SCOTCH_SEED);
	SCOTCH_graphInit(&h);
	SCOTCH_graphInit(&hc);
	SCOTCH_graphInit(&gr);
	SCOTCH_graphInit(&gc);
	SCOTCH_archInit(&arch);
	SCOTCH_stratInit(&strat);
	SCOTCH_stratInit(&astrat);
	rc = TB_EINVAL;
	if (build_target(&h, t, pf, penalty, &hv, &he, &hl) ||
	    build_guest(&gr, g, &gv, &ge, &gl) ||
	    SCOTCH_contextBindGraph(&ctx, &h, &hc) ||
	    SCOTCH_contextBindGraph(&ctx, &gr, &gc))
		goto out;
	/* ScotchExtract(H, S), l. 14: the target architecture of the listed
	 * nodes of H, their distances H's (options.h, scotch_arch=).
	 * build0, the default: recursive bipartitioning with Scotch's
	 * default strategy, the SCOTCH_archBuild of Scotch 6, the only
	 * Scotch of the paper's time (Scotch 7.0, 2022, added archBuild2);
	 * chosen on that history, not on results. build2: Scotch 7's
	 * multilevel decomposition. On the experiments' graphs build0's
	 * maps have 14 to 36 % fewer hop-bytes, but not everywhere
	 * (docs/results/2026-11-27-tofa-directions.md). */
	if (arch_kind == TB_SCOTCH_ARCH_BUILD2) {
		if (SCOTCH_archBuild2(&arch, &hc, nc, list))
			goto out;
	} else if (SCOTCH_archBuild0(&arch, &hc, nc, list, &astrat)) {
		goto out;
	}
	/* ScotchMap(G, H_S), l. 15: one process per node, strict balance
	 * (scotch_strat=quality), or Scotch's default strategy (an empty
	 * one, scotch_strat=default). */
	if (strat_kind == TB_SCOTCH_STRAT_QUALITY &&
	    SCOTCH_stratGraphMapBuild(&strat, SCOTCH_STRATQUALITY |
				      SCOTCH_STRATBALANCE, nc, 0.0))
		goto out;
	if (SCOTCH_graphMap(&gc, &arch, &strat, part))
		goto out;
	for (int p = 0; p < g->n; p++)
		map[p] = (int)part[p];
	make_injective(t, pf, penalty, cand, nc, map, g->n);
	ok = 1;
	for (int p = 0; p < g->n && ok; p++)
		ok = map[p] >= 0 && map[p] < nc;
	rc = ok ? TB_OK : TB_ENOMEM;
out:
	SCOTCH_stratExit(&astrat);
	SCOTCH_stratExit(&strat);
	SCOTCH_archExit(&arch);
	SCOTCH_graphExit(&gc);
	SCOTCH_graphExit(&gr);
	SCOTCH_graphExit(&hc);
	SCOTCH_graphExit(&h);
	SCOTCH_contextExit(&ctx);
free_arrays:
	free(hv);
	free(he);
	free(hl);
	free(gv);
	free(ge);
	free(gl);
	free(part);
	free(list);
	return rc;
}
