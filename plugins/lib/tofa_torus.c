/*
 * TOFA's torus: dimension-order routes, Eq. 1, the job's graph, what a
 * placement costs and the clean window (tofa.h has the readings).
 */
#include "tofa.h"

#include <stdlib.h>

int tb_torus_route(const struct tb_topology *t, int u, int v, int *path)
{
	int cur[3], dst[3], n = 0;

	if (!t->torus_node || u < 0 || v < 0 || u >= t->n_nodes ||
	    v >= t->n_nodes)
		return -1;
	for (int d = 0; d < 3; d++) {
		cur[d] = t->nodes[u].coord[d];
		dst[d] = t->nodes[v].coord[d];
	}
	path[n++] = u;
	/* L259: "fixed routing"; our reading is dimension order, x, y, z. */
	for (int d = 0; d < 3; d++) {
		int k = t->torus[d];
		int fwd = ((dst[d] - cur[d]) % k + k) % k;
		/* The shorter way round; a tie (fwd == k/2) goes + . */
		int step = fwd <= k - fwd ? 1 : -1;
		int hops = step > 0 ? fwd : k - fwd;

		for (int h = 0; h < hops; h++) {
			cur[d] = (cur[d] + step + k) % k;
			path[n++] = t->torus_node[cur[0] + t->torus[0] *
						  (cur[1] + t->torus[1] *
						   cur[2])];
		}
	}
	return n;
}

int tb_torus_hops(const struct tb_topology *t, int u, int v)
{
	int hops = 0;

	if (!t->torus_node || u < 0 || v < 0 || u >= t->n_nodes ||
	    v >= t->n_nodes)
		return -1;
	for (int d = 0; d < 3; d++) {
		int k = t->torus[d];
		int fwd = ((t->nodes[v].coord[d] - t->nodes[u].coord[d]) % k +
			   k) % k;

		hops += fwd <= k - fwd ? fwd : k - fwd;
	}
	return hops;
}

int tb_tofa_risky(const double *pf, int n)
{
	return pf && pf[n] > TB_TOFA_RISKY_ABOVE;
}

double tb_tofa_route_cost(const struct tb_topology *t, const double *pf,
			  int u, int v, enum tb_penalty penalty)
{
	int path[TB_TORUS_PATH_MAX];
	int n = tb_torus_route(t, u, v, path);
	double cost = 0;

	/* Eq. 1: c per link, c + 100c (or 100c: the prose) where either end
	 * of the link is risky. */
	for (int k = 0; k + 1 < n; k++) {
		int risky = tb_tofa_risky(pf, path[k]) ||
			    tb_tofa_risky(pf, path[k + 1]);

		if (!risky)
			cost += TB_TOFA_C;
		else if (penalty == TB_PENALTY_100)
			cost += 100 * TB_TOFA_C;
		else
			cost += TB_TOFA_C + 100 * TB_TOFA_C;
	}
	return cost;
}

double tb_tofa_sym_cost(const struct tb_topology *t, const double *pf,
			int u, int v, enum tb_penalty penalty)
{
	return (tb_tofa_route_cost(t, pf, u, v, penalty) +
		tb_tofa_route_cost(t, pf, v, u, penalty)) / 2;
}

void tb_tofa_graph_free(struct tb_tofa_graph *g)
{
	free(g->a);
	free(g->b);
	free(g->w);
	g->a = g->b = NULL;
	g->w = NULL;
	g->n_edges = 0;
}

static int cmp_pair(const void *x, const void *y)
{
	const long *p = x, *q = y;

	return (p[0] > q[0]) - (p[0] < q[0]);
}

int tb_tofa_graph_build(const struct tb_matrix *m, int n,
			struct tb_tofa_graph *g)
{
	size_t cnt = m ? m->n : 0, used = 0;
	long *key = malloc(sizeof(long) * 2 * (cnt ? cnt : 1));
	int ranks = m && m->ranks > 0 ? m->ranks : n;

	g->n = n;
	g->n_edges = 0;
	g->a = g->b = NULL;
	g->w = NULL;
	if (!key)
		return -1;
	/* Pairs (block of from, block of to), lower first, sorted so that
	 * both directions and repeats add up into one edge. */
	for (size_t k = 0; k < cnt; k++) {
		const struct tb_matrix_entry *e = &m->entries[k];
		long i, j;

		if (e->from < 0 || e->to < 0 || e->from >= ranks ||
		    e->to >= ranks || !(e->volume > 0))
			continue;
		i = (long)e->from * n / ranks;
		j = (long)e->to * n / ranks;
		if (i == j)
			continue;
		key[2 * used] = i < j ? i * n + j : j * n + i;
		key[2 * used + 1] = (long)k;
		used++;
	}
	qsort(key, used, 2 * sizeof(long), cmp_pair);
	g->a = malloc(sizeof(int) * (used ? used : 1));
	g->b = malloc(sizeof(int) * (used ? used : 1));
	g->w = malloc(sizeof(double) * (used ? used : 1));
	if (!g->a || !g->b || !g->w) {
		free(key);
		tb_tofa_graph_free(g);
		return -1;
	}
	for (size_t k = 0; k < used; k++) {
		double vol = m->entries[key[2 * k + 1]].volume;

		if (g->n_edges && k && key[2 * k] == key[2 * (k - 1)]) {
			g->w[g->n_edges - 1] += vol;
			continue;
		}
		g->a[g->n_edges] = (int)(key[2 * k] / n);
		g->b[g->n_edges] = (int)(key[2 * k] % n);
		g->w[g->n_edges] = vol;
		g->n_edges++;
	}
	free(key);
	return 0;
}

int tb_tofa_exposed(const struct tb_topology *t,
		    const struct tb_tofa_graph *g, const int *map,
		    enum tb_tofa_exposure exposure, unsigned char *exposed)
{
	int path[TB_TORUS_PATH_MAX];

	for (int k = 0; k < t->n_nodes; k++)
		exposed[k] = 0;
	for (int p = 0; p < g->n; p++) {
		if (map[p] < 0 || map[p] >= t->n_nodes)
			return -1;
		exposed[map[p]] = 1;
	}
	/* exposure=own (L755-757): a clean window of its own nodes is a
	 * clean attempt, whatever its routes pass. Still a torus only. */
	if (exposure == TB_EXPOSURE_OWN)
		return t->torus_node ? 0 : -1;
	for (int e = 0; e < g->n_edges; e++) {
		int u = map[g->a[e]], v = map[g->b[e]];

		/* A failed node forwards nothing (L272-275): every node on
		 * either direction's route fails the pair. */
		for (int dir = 0; dir < 2; dir++) {
			int len = tb_torus_route(t, dir ? v : u, dir ? u : v,
						 path);

			if (len < 0)
				return -1;
			for (int k = 0; k < len; k++)
				exposed[path[k]] = 1;
		}
	}
	return 0;
}

int tb_tofa_evaluate(const struct tb_topology *t, const double *pf,
		     const struct tb_tofa_graph *g, const int *map,
		     enum tb_penalty penalty, enum tb_tofa_exposure exposure,
		     struct tb_tofa_eval *out)
{
	unsigned char *exposed = calloc((size_t)t->n_nodes, 1);
	double survive = 1;

	if (!exposed)
		return -1;
	out->cost = out->hops = 0;
	if (tb_tofa_exposed(t, g, map, exposure, exposed)) {
		free(exposed);
		return -1;
	}
	for (int e = 0; e < g->n_edges; e++) {
		int u = map[g->a[e]], v = map[g->b[e]];

		out->cost += g->w[e] * tb_tofa_sym_cost(t, pf, u, v, penalty);
		out->hops += g->w[e] * tb_torus_hops(t, u, v);
	}
	/* One attempt survives iff no exposed node fails (independent
	 * failures, L267). */
	for (int k = 0; pf && k < t->n_nodes; k++)
		if (exposed[k] && pf[k] > 0)
			survive *= 1 - pf[k];
	out->abort = 1 - survive;
	free(exposed);
	return 0;
}

int tb_tofa_hit(const struct tb_topology *t, const struct tb_tofa_graph *g,
		const int *map, enum tb_tofa_exposure exposure,
		const int *failed, int n_failed, struct tb_tofa_hit *hit)
{
	unsigned char *exposed = calloc((size_t)t->n_nodes, 1);

	hit->node = -1;
	hit->on_route = 0;
	if (!exposed)
		return -1;
	if (tb_tofa_exposed(t, g, map, exposure, exposed)) {
		free(exposed);
		return -1;
	}
	/* The first failed node (in the order given) the job depends on;
	 * a node of its own before one on a route only. */
	for (int pass = 0; pass < 2 && hit->node < 0; pass++)
		for (int k = 0; k < n_failed && hit->node < 0; k++) {
			int f = failed[k], own = 0;

			if (f < 0 || f >= t->n_nodes) {
				free(exposed);
				return -1;
			}
			for (int p = 0; p < g->n && !own; p++)
				own = map[p] == f;
			if (exposed[f] && (pass == 0 ? own : 1)) {
				hit->node = f;
				hit->on_route = !own;
			}
		}
	free(exposed);
	return 0;
}

int tb_tofa_window(const struct tb_topology *t, const struct tb_occupancy *o,
		   const double *pf, int n)
{
	int run = 0;

	/* Listing 1.1 l. 10's "pf_n = 0, for all n in V_H" read as for all
	 * n in S: a machine with no risky node at all would make TOFA
	 * plain Scotch. */
	for (int k = 0; k < t->n_nodes; k++) {
		if (o->state[k] != TB_NODE_FREE || tb_tofa_risky(pf, k))
			run = 0;
		else if (++run == n)
			return k - n + 1;
	}
	return -1;
}

int tb_tofa_window_fewest_risky(const struct tb_topology *t,
				const struct tb_occupancy *o, const double *pf,
				int n)
{
	int run = 0, risky = 0, best = -1, best_risky = 0;

	/* A sliding window over the ids: run free ids end at k, risky of
	 * them in the last n. */
	for (int k = 0; k < t->n_nodes; k++) {
		if (o->state[k] != TB_NODE_FREE) {
			run = risky = 0;
			continue;
		}
		run++;
		risky += tb_tofa_risky(pf, k);
		if (run > n)
			risky -= tb_tofa_risky(pf, k - n);
		if (run >= n && (best < 0 || risky < best_risky)) {
			best = k - n + 1;
			best_risky = risky;
		}
	}
	return best;
}
