/* One TreeMatch run on a shape (steps B and C) and the refinement after it. */
#include "treematch_internal.h"

#include <stdlib.h>

/* --- one TreeMatch run on a shape --------------------------------------- */

/* Writes bin (shape vertex of level 1) and slot per process; returns the
 * hop-bytes, or -1 when out of memory. */
double tb_tm_run(const struct tm_graph *g0, const struct tm_shape *sh,
		 const struct tb_tm_opts *opts, int block, int *bin, int *slot)
{
	int D = sh->level[0], *asg = NULL, *used = NULL, *ucls0 = NULL;
	struct tm_groups *gr = calloc((size_t)D + 1, sizeof(*gr));
	struct tm_graph cur = { 0 }, next;
	const struct tm_graph *gp = g0;
	double hb = -1.0;

	ucls0 = malloc(((size_t)g0->n ? (size_t)g0->n : 1) * sizeof(int));
	asg = malloc((size_t)sh->n * sizeof(int));
	if (!gr || !ucls0 || !asg)
		goto out;
	for (int i = 0; i < g0->n; i++)
		ucls0[i] = sh->n_cls;
	for (int l = 1; l <= D; l++) {
		const int *uc = l == 1 ? ucls0 : gr[l - 1].gcls;

		if (tb_tm_group_level(gp, uc, sh, l, opts, block && l == 1,
				      &gr[l]))
			goto out;
		if (l == D)
			break;
		if (tb_tm_graph_aggregate(&next, gp, gr[l].group_of, gr[l].n))
			goto out;
		tb_tm_graph_free(&cur);
		cur = next;
		gp = &cur;
	}
	if (gr[D].n != 1)
		goto out;
	used = calloc(((size_t)g0->n ? (size_t)g0->n : 1), sizeof(int));
	if (!used)
		goto out;
	/* Top-down: breadth-first order puts parents before children. */
	asg[0] = 0;
	for (int v = 0; v < sh->n; v++) {
		int l = sh->level[v], gid = asg[v];
		int a = gr[l].mstart[gid], b = gr[l].mstart[gid + 1];

		if (l == 1) {
			for (int k = a; k < b; k++) {
				bin[gr[1].members[k]] = v;
				slot[gr[1].members[k]] = k - a;
			}
			continue;
		}
		for (int c = sh->cstart[v]; c < sh->cstart[v] + sh->cnum[v];
		     c++) {
			for (int k = a; k < b; k++) {
				int m = gr[l].members[k];
				if (used[k] || gr[l - 1].gcls[m] != sh->cls[c])
					continue;
				used[k] = 1;
				asg[c] = m;
				break;
			}
		}
		for (int k = a; k < b; k++)
			used[k] = 0;
	}
	hb = 0.0;
	for (int i = 0; i < g0->n; i++)
		for (int e = g0->rp[i]; e < g0->rp[i + 1]; e++) {
			int j = g0->ci[e], x = bin[i], y = bin[j];
			if (j <= i)
				continue;
			while (x != y) {
				x = sh->parent[x];
				y = sh->parent[y];
			}
			hb += g0->w[e] * 2.0 * sh->level[x];
		}
out:
	if (gr)
		for (int l = 0; l <= D; l++)
			tb_tm_groups_free(&gr[l]);
	free(gr);
	tb_tm_graph_free(&cur);
	free(ucls0);
	free(asg);
	free(used);
	return hb;
}

/* --- refinement (ours, not the paper's) --------------------------------- */

/* Hops between two bins of the machine (2 inside one bin). */
static int bin_distance(const struct tm_machine *mc, int a, int b)
{
	if (a == b)
		return 2;
	while (a != b) {
		if (mc->level[a] <= mc->level[b])
			a = mc->parent[a];
		else
			b = mc->parent[b];
		if (a < 0 || b < 0)
			return 2 * (mc->level[mc->root] + 1);
	}
	return 2 * mc->level[a];
}

/* Change in hop-bytes when p goes to bin b, q (if >= 0) not counted. */
static double move_delta(const struct tm_machine *mc, const struct tm_graph *g,
			 const int *bin, int p, int b, int q)
{
	double d = 0.0;

	for (int e = g->rp[p]; e < g->rp[p + 1]; e++) {
		int x = g->ci[e];
		if (x == q)
			continue;
		d += g->w[e] * (bin_distance(mc, b, bin[x]) -
				bin_distance(mc, bin[p], bin[x]));
	}
	return d;
}

/*
 * TreeMatch decides level by level and never revisits a level (the price
 * of its speed); on small jobs a few exact-delta moves of one rank to a
 * free slot of the scope, or swaps of two ranks, recover most of what that
 * costs (measured in test_tm_brute_force_small). Off with refine_max = 0.
 */
void tb_tm_refine(const struct tm_machine *mc, const struct tm_graph *g,
		  int S, int map_only, struct tm_result *res, int *used,
		  int *bins, int passes)
{
	int nb = 0, sp = 0, n = g->n, improved = 1;

	/* Bins of the scope, by a walk with bins[] as the stack's tail. */
	bins[mc->n_vert - 1 - sp++] = map_only ? mc->root : S;
	while (sp) {
		int v = bins[mc->n_vert - sp--];
		if (mc->cap[v] <= 0)
			continue;
		if (mc->level[v] == 1) {
			bins[nb++] = v;
			continue;
		}
		for (int c = mc->first_child[v]; c >= 0;
		     c = mc->next_sibling[c])
			bins[mc->n_vert - 1 - sp++] = c;
	}
	for (int p = 0; p < n; p++)
		used[res->bin[p]]++;
	while (improved && passes-- > 0) {
		improved = 0;
		for (int p = 0; p < n; p++) {
			for (int k = 0; k < nb; k++) {
				int b = bins[k];
				double d;
				if (b == res->bin[p] || used[b] >= mc->cap[b])
					continue;
				d = move_delta(mc, g, res->bin, p, b, -1);
				if (d < -1e-9 * (1.0 + res->hb)) {
					used[res->bin[p]]--;
					used[b]++;
					res->bin[p] = b;
					res->hb += d;
					improved = 1;
				}
			}
			for (int q = p + 1; q < n; q++) {
				int bp = res->bin[p], bq = res->bin[q];
				double d;
				if (bp == bq)
					continue;
				d = move_delta(mc, g, res->bin, p, bq, q) +
				    move_delta(mc, g, res->bin, q, bp, p);
				if (d < -1e-9 * (1.0 + res->hb)) {
					res->bin[p] = bq;
					res->bin[q] = bp;
					res->hb += d;
					improved = 1;
				}
			}
		}
	}
	/* Slots again 0.. in each bin. */
	for (int p = 0; p < n; p++)
		used[res->bin[p]] = 0;
	for (int p = 0; p < n; p++)
		res->slot[p] = used[res->bin[p]]++;
	for (int p = 0; p < n; p++)
		used[res->bin[p]] = 0;
}
