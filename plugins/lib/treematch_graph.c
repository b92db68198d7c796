/* TreeMatch's affinity graph: from a job's matrix, and aggregated by group. */
#include "treematch_internal.h"

#include <stdlib.h>
#include <string.h>

/* --- process graph: symmetric CSR, w(i,j) both directions summed ------- */

void tb_tm_graph_free(struct tm_graph *g)
{
	free(g->rp);
	free(g->ci);
	free(g->w);
	memset(g, 0, sizeof(*g));
}

struct tm_edges {
	size_t n, cap;
	int *a, *b;
	double *w;
};

static void edges_free(struct tm_edges *e)
{
	free(e->a);
	free(e->b);
	free(e->w);
	memset(e, 0, sizeof(*e));
}

static int edges_add(struct tm_edges *e, int a, int b, double w)
{
	if (e->n == e->cap) {
		size_t nc = e->cap ? e->cap * 2 : 64;
		int *na = realloc(e->a, nc * sizeof(int));
		if (!na)
			return -1;
		e->a = na;
		int *nb = realloc(e->b, nc * sizeof(int));
		if (!nb)
			return -1;
		e->b = nb;
		double *nw = realloc(e->w, nc * sizeof(double));
		if (!nw)
			return -1;
		e->w = nw;
		e->cap = nc;
	}
	e->a[e->n] = a;
	e->b[e->n] = b;
	e->w[e->n] = w;
	e->n++;
	return 0;
}

/* Both directions of each edge, duplicates merged. */
static int graph_build(struct tm_graph *g, int n, const struct tm_edges *e)
{
	int *pos = NULL;
	size_t nnz = 2 * e->n, out = 0;

	memset(g, 0, sizeof(*g));
	g->n = n;
	g->rp = calloc((size_t)n + 1, sizeof(int));
	g->ci = malloc((nnz ? nnz : 1) * sizeof(int));
	g->w = malloc((nnz ? nnz : 1) * sizeof(double));
	pos = malloc(((size_t)n ? (size_t)n : 1) * sizeof(int));
	if (!g->rp || !g->ci || !g->w || !pos)
		goto fail;
	for (size_t k = 0; k < e->n; k++) {
		g->rp[e->a[k] + 1]++;
		g->rp[e->b[k] + 1]++;
	}
	for (int i = 0; i < n; i++)
		g->rp[i + 1] += g->rp[i];
	/* pos doubles as the fill cursor, then as the merge marker. */
	for (int i = 0; i < n; i++)
		pos[i] = g->rp[i];
	for (size_t k = 0; k < e->n; k++) {
		int a = e->a[k], b = e->b[k];
		g->ci[pos[a]] = b;
		g->w[pos[a]++] = e->w[k];
		g->ci[pos[b]] = a;
		g->w[pos[b]++] = e->w[k];
	}
	for (int i = 0; i < n; i++)
		pos[i] = -1;
	for (int i = 0; i < n; i++) {
		int start = g->rp[i], end = g->rp[i + 1];
		size_t row = out;

		g->rp[i] = (int)out;
		for (int k = start; k < end; k++) {
			int x = g->ci[k];
			if (pos[x] >= 0) {
				g->w[pos[x]] += g->w[k];
				continue;
			}
			pos[x] = (int)out;
			g->ci[out] = x;
			g->w[out++] = g->w[k];
		}
		for (size_t k = row; k < out; k++)
			pos[g->ci[k]] = -1;
	}
	g->rp[n] = (int)out;
	free(pos);
	return 0;
fail:
	free(pos);
	tb_tm_graph_free(g);
	return -1;
}

/* The job's affinity over processes: proc_of(rank) = rank * procs / ranks
 * (identity when procs == ranks; the block of a node otherwise). */
int tb_tm_graph_from_matrix(struct tm_graph *g, const struct tb_matrix *m,
			    int procs)
{
	struct tm_edges e = { 0 };
	int rc;

	for (size_t k = 0; k < m->n; k++) {
		const struct tb_matrix_entry *x = &m->entries[k];
		int a = (int)((long long)x->from * procs / m->ranks);
		int b = (int)((long long)x->to * procs / m->ranks);

		if (a == b || x->volume <= 0.0)
			continue;
		if (edges_add(&e, a, b, x->volume)) {
			edges_free(&e);
			return -1;
		}
	}
	rc = graph_build(g, procs, &e);
	edges_free(&e);
	return rc;
}

/* AggregateComMatrix: the affinity between groups. */
int tb_tm_graph_aggregate(struct tm_graph *out, const struct tm_graph *g,
			  const int *group_of, int n_groups)
{
	struct tm_edges e = { 0 };
	int rc;

	for (int i = 0; i < g->n; i++)
		for (int k = g->rp[i]; k < g->rp[i + 1]; k++) {
			int j = g->ci[k];
			if (j <= i || group_of[i] == group_of[j])
				continue;
			if (edges_add(&e, group_of[i], group_of[j], g->w[k])) {
				edges_free(&e);
				return -1;
			}
		}
	rc = graph_build(out, n_groups, &e);
	edges_free(&e);
	return rc;
}
