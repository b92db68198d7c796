/* TreeMatch's step B on one level: typed groups, by exact search or greedy. */
#include "treematch_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- grouping one level ------------------------------------------------- */

void tb_tm_groups_free(struct tm_groups *gr)
{
	free(gr->gcls);
	free(gr->mstart);
	free(gr->members);
	free(gr->group_of);
	memset(gr, 0, sizeof(*gr));
}

struct tm_level {
	const struct tm_graph *g;
	const int *ucls;	/* unit classes */
	const struct tm_shape *sh;
	int n_pc;		/* parent classes at this level */
	int *pc;		/* their class ids */
	int *inst;		/* vertices of each */
	int size_max;
};

static int need_of(const struct tm_shape *sh, int pcls, int ucls)
{
	for (int k = sh->need_start[pcls]; k < sh->need_start[pcls + 1]; k++)
		if (sh->need_cls[k] == ucls)
			return sh->need_cnt[k];
	return 0;
}

static int group_size(const struct tm_shape *sh, int pcls)
{
	int s = 0;

	for (int k = sh->need_start[pcls]; k < sh->need_start[pcls + 1]; k++)
		s += sh->need_cnt[k];
	return s;
}

/* Exact search: every split of the units into typed groups, seeding each
 * group with the lowest unit left (each split is met once), bounded by the
 * affinity not yet lost between closed groups and the rest. */
struct tm_exact {
	const struct tm_level *lv;
	int U;
	int *grp, *best_grp;
	int *gpc, *best_gpc;	/* parent class index per group */
	int *mem, *gstart;	/* members stack */
	int *rem;		/* instances left per parent class index */
	int *need;		/* per group: counts per unit class slot */
	int nslots;
	int *slot_of_cls;	/* unit class -> slot in need rows */
	int max_cls;
	int n_open;
	double W, lost, best;
};

static void exact_search(struct tm_exact *x);

static void exact_fill(struct tm_exact *x, int g, int from, int left)
{
	const struct tm_graph *gr = x->lv->g;
	int *need = &x->need[(size_t)g * (size_t)x->nslots];

	if (left == 0) {
		double add = 0.0;
		int top = x->gstart[g + 1];
		/* Closing g: the affinity to units still free is lost. */
		for (int k = x->gstart[g]; k < top; k++) {
			int m = x->mem[k];
			for (int e = gr->rp[m]; e < gr->rp[m + 1]; e++)
				if (x->grp[gr->ci[e]] < 0)
					add += gr->w[e];
		}
		if (x->W - (x->lost + add) <= x->best)
			return;
		x->lost += add;
		x->n_open = g + 1;
		exact_search(x);
		x->lost -= add;
		return;
	}
	for (int v = from; v < x->U; v++) {
		int s = x->slot_of_cls[x->lv->ucls[v]];

		if (x->grp[v] >= 0 || s < 0 || need[s] == 0)
			continue;
		need[s]--;
		x->grp[v] = g;
		x->mem[x->gstart[g + 1]++] = v;
		exact_fill(x, g, v + 1, left - 1);
		x->gstart[g + 1]--;
		x->grp[v] = -1;
		need[s]++;
	}
}

static void exact_search(struct tm_exact *x)
{
	const struct tm_level *lv = x->lv;
	int u = 0, g = x->n_open;

	while (u < x->U && x->grp[u] >= 0)
		u++;
	if (u == x->U) {
		double val = x->W - x->lost;
		if (val > x->best || x->best < 0) {
			x->best = val;
			memcpy(x->best_grp, x->grp, (size_t)x->U * sizeof(int));
			memcpy(x->best_gpc, x->gpc, (size_t)g * sizeof(int));
		}
		return;
	}
	for (int p = 0; p < lv->n_pc; p++) {
		int *need = &x->need[(size_t)g * (size_t)x->nslots];
		int pc = lv->pc[p], s = x->slot_of_cls[lv->ucls[u]];

		if (!x->rem[p] || s < 0 || !need_of(lv->sh, pc, lv->ucls[u]))
			continue;
		for (int k = 0; k < x->nslots; k++)
			need[k] = 0;
		for (int k = lv->sh->need_start[pc];
		     k < lv->sh->need_start[pc + 1]; k++) {
			int c = lv->sh->need_cls[k];
			if (c <= x->max_cls && x->slot_of_cls[c] >= 0)
				need[x->slot_of_cls[c]] = lv->sh->need_cnt[k];
		}
		x->rem[p]--;
		x->gpc[g] = p;
		need[s]--;
		x->grp[u] = g;
		x->gstart[g + 1] = x->gstart[g];
		x->mem[x->gstart[g + 1]++] = u;
		exact_fill(x, g, u + 1, group_size(lv->sh, pc) - 1);
		x->grp[u] = -1;
		x->rem[p]++;
	}
}

/* Writes grp (group per unit) and gpc (parent class index per group). */
static int group_exact(const struct tm_level *lv, int n_groups, int *grp,
		       int *gpc)
{
	struct tm_exact x = { 0 };
	int U = lv->g->n, rc = -1, max_cls = 0;

	x.lv = lv;
	x.U = U;
	x.best = -1.0;
	for (int u = 0; u < U; u++)
		if (lv->ucls[u] > max_cls)
			max_cls = lv->ucls[u];
	x.max_cls = max_cls;
	x.slot_of_cls = malloc(((size_t)max_cls + 1) * sizeof(int));
	x.grp = malloc((size_t)U * sizeof(int));
	x.mem = malloc((size_t)U * sizeof(int));
	x.gstart = calloc((size_t)n_groups + 1, sizeof(int));
	x.gpc = calloc((size_t)n_groups, sizeof(int));
	x.rem = malloc((size_t)lv->n_pc * sizeof(int));
	if (!x.slot_of_cls || !x.grp || !x.mem || !x.gstart || !x.gpc ||
	    !x.rem)
		goto out;
	for (int c = 0; c <= max_cls; c++)
		x.slot_of_cls[c] = -1;
	for (int u = 0; u < U; u++) {
		int *s = &x.slot_of_cls[lv->ucls[u]];
		if (*s < 0)
			*s = x.nslots++;
	}
	x.need = malloc((size_t)n_groups * (size_t)x.nslots * sizeof(int));
	if (!x.need)
		goto out;
	for (int u = 0; u < U; u++)
		x.grp[u] = -1;
	for (int p = 0; p < lv->n_pc; p++)
		x.rem[p] = lv->inst[p];
	for (int i = 0; i < U; i++)
		for (int e = lv->g->rp[i]; e < lv->g->rp[i + 1]; e++)
			if (lv->g->ci[e] > i)
				x.W += lv->g->w[e];
	x.best_grp = grp;
	x.best_gpc = gpc;
	exact_search(&x);
	rc = x.best >= 0 ? 0 : -1;
out:
	free(x.slot_of_cls);
	free(x.grp);
	free(x.mem);
	free(x.gstart);
	free(x.gpc);
	free(x.rem);
	free(x.need);
	return rc;
}

int tb_tm_cmp_deg_desc(const void *a, const void *b)
{
	const struct deg_idx *x = a, *y = b;

	if (x->d != y->d)
		return x->d > y->d ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/*
 * Greedy grouping (ours; TreeMatch's own greedy sorts all a-tuples, which
 * does not scale to 80,640 processes). Units are taken as seeds by
 * decreasing total affinity; a seed opens a group for the parent class
 * that needs its class and has the largest groups left (heavy talkers
 * get room), and the group grows by the free unit of a needed class with
 * the most affinity to the members, or, when none has any, by the next
 * unit in seed order. Each unit and edge is touched a bounded number of
 * times per group, so a level costs O(edges x group size + units log
 * units). The class counts always add up, so a group can always be
 * filled.
 */
static int group_greedy(const struct tm_level *lv, int n_groups, int *grp,
			int *gpc)
{
	const struct tm_graph *g = lv->g;
	const struct tm_shape *sh = lv->sh;
	int U = g->n, rc = -1, ng = 0, *touched = NULL, nt, *rem = NULL;
	int *gmem = NULL;
	struct deg_idx *order = malloc((size_t)U * sizeof(*order));
	double *gain = calloc((size_t)U, sizeof(double));
	char *in_t = calloc((size_t)U, 1);
	int *needc = NULL, *needn = NULL, cursor = 0;

	touched = malloc((size_t)U * sizeof(int));
	rem = malloc((size_t)lv->n_pc * sizeof(int));
	gmem = malloc(((size_t)lv->size_max + 1) * sizeof(int));
	needc = malloc(((size_t)lv->size_max + 1) * sizeof(int));
	needn = malloc(((size_t)lv->size_max + 1) * sizeof(int));
	if (!order || !gain || !in_t || !touched || !rem || !gmem || !needc ||
	    !needn)
		goto out;
	for (int u = 0; u < U; u++) {
		order[u].i = u;
		order[u].d = 0.0;
		for (int e = g->rp[u]; e < g->rp[u + 1]; e++)
			order[u].d += g->w[e];
		grp[u] = -1;
	}
	qsort(order, (size_t)U, sizeof(*order), tb_tm_cmp_deg_desc);
	for (int p = 0; p < lv->n_pc; p++)
		rem[p] = lv->inst[p];
	while (ng < n_groups) {
		int seed = -1, best_p = -1, nn = 0, left = 0, nm = 0;

		while (cursor < U && grp[order[cursor].i] >= 0)
			cursor++;
		if (cursor == U)
			goto out;	/* cannot happen: counts add up */
		seed = order[cursor].i;
		for (int p = 0; p < lv->n_pc; p++) {
			if (!rem[p] || !need_of(sh, lv->pc[p], lv->ucls[seed]))
				continue;
			if (best_p < 0 || group_size(sh, lv->pc[p]) >
			    group_size(sh, lv->pc[best_p]))
				best_p = p;
		}
		if (best_p < 0)
			goto out;
		rem[best_p]--;
		gpc[ng] = best_p;
		for (int k = sh->need_start[lv->pc[best_p]];
		     k < sh->need_start[lv->pc[best_p] + 1]; k++) {
			needc[nn] = sh->need_cls[k];
			needn[nn++] = sh->need_cnt[k];
			left += sh->need_cnt[k];
		}
		nt = 0;
		for (int u = seed; u >= 0;) {
			int pick = -1;
			double bestg = 0.0;

			grp[u] = ng;
			gmem[nm++] = u;
			for (int k = 0; k < nn; k++)
				if (needc[k] == lv->ucls[u]) {
					needn[k]--;
					break;
				}
			if (--left == 0)
				break;
			for (int e = g->rp[u]; e < g->rp[u + 1]; e++) {
				int x = g->ci[e];
				if (grp[x] >= 0)
					continue;
				if (!in_t[x]) {
					in_t[x] = 1;
					touched[nt++] = x;
				}
				gain[x] += g->w[e];
			}
			for (int k = 0; k < nt; k++) {
				int x = touched[k], ok = 0;
				if (grp[x] >= 0 || gain[x] <= bestg)
					continue;
				for (int j = 0; j < nn; j++)
					if (needc[j] == lv->ucls[x] && needn[j])
						ok = 1;
				if (ok) {
					pick = x;
					bestg = gain[x];
				}
			}
			for (int k = cursor; pick < 0 && k < U; k++) {
				int x = order[k].i;
				if (grp[x] >= 0)
					continue;
				for (int j = 0; j < nn; j++)
					if (needc[j] == lv->ucls[x] && needn[j])
						pick = x;
			}
			u = pick;
			if (u < 0)
				goto out;
		}
		for (int k = 0; k < nt; k++) {
			gain[touched[k]] = 0.0;
			in_t[touched[k]] = 0;
		}
		ng++;
	}
	rc = 0;
out:
	free(order);
	free(gain);
	free(in_t);
	free(touched);
	free(rem);
	free(gmem);
	free(needc);
	free(needn);
	return rc;
}

/* log of the number of splits of U units into the level's groups, classes
 * ignored (an upper bound). */
static double log_splits(const struct tm_level *lv, int U)
{
	double l = 0.0;

	for (int k = 2; k <= U; k++)
		l += log((double)k);
	for (int p = 0; p < lv->n_pc; p++) {
		int s = group_size(lv->sh, lv->pc[p]);
		for (int i = 0; i < lv->inst[p]; i++)
			for (int k = 2; k <= s; k++)
				l -= log((double)k);
		for (int k = 2; k <= lv->inst[p]; k++)
			l -= log((double)k);
	}
	return l;
}

/* Groups the units of level l - 1 into one group per shape vertex of level
 * l. block: level 1 in rank order (node-level mapping of large jobs). */
int tb_tm_group_level(const struct tm_graph *g, const int *ucls,
		      const struct tm_shape *sh, int level,
		      const struct tb_tm_opts *opts, int block,
		      struct tm_groups *out)
{
	struct tm_level lv = { g, ucls, sh, 0, NULL, NULL, 0 };
	int *cnt_cls = calloc((size_t)sh->n_cls, sizeof(int));
	int *gpc = NULL, n_groups = 0, rc = -1;

	memset(out, 0, sizeof(*out));
	lv.pc = malloc((size_t)sh->n_cls * sizeof(int));
	lv.inst = malloc((size_t)sh->n_cls * sizeof(int));
	if (!cnt_cls || !lv.pc || !lv.inst)
		goto out;
	for (int v = 0; v < sh->n; v++)
		if (sh->level[v] == level) {
			cnt_cls[sh->cls[v]]++;
			n_groups++;
		}
	for (int c = 0; c < sh->n_cls; c++)
		if (cnt_cls[c]) {
			int s = group_size(sh, c);
			lv.pc[lv.n_pc] = c;
			lv.inst[lv.n_pc++] = cnt_cls[c];
			if (s > lv.size_max)
				lv.size_max = s;
		}
	out->n = n_groups;
	out->gcls = malloc((size_t)n_groups * sizeof(int));
	out->mstart = calloc((size_t)n_groups + 1, sizeof(int));
	out->members = malloc(((size_t)g->n ? (size_t)g->n : 1) * sizeof(int));
	out->group_of = malloc(((size_t)g->n ? (size_t)g->n : 1) * sizeof(int));
	gpc = malloc((size_t)n_groups * sizeof(int));
	if (!out->gcls || !out->mstart || !out->members || !out->group_of ||
	    !gpc)
		goto out;
	if (block) {
		int r = 0, k = 0;
		for (int v = 0; v < sh->n; v++) {
			if (sh->level[v] != level)
				continue;
			out->gcls[k] = sh->cls[v];
			for (int i = 0; i < sh->count[v]; i++)
				out->group_of[r++] = k;
			k++;
		}
	} else {
		if (log_splits(&lv, g->n) <= log(opts->exact_budget)) {
			if (group_exact(&lv, n_groups, out->group_of, gpc))
				goto out;
		} else if (group_greedy(&lv, n_groups, out->group_of, gpc)) {
			goto out;
		}
		for (int k = 0; k < n_groups; k++)
			out->gcls[k] = lv.pc[gpc[k]];
	}
	for (int u = 0; u < g->n; u++)
		out->mstart[out->group_of[u] + 1]++;
	for (int k = 0; k < n_groups; k++)
		out->mstart[k + 1] += out->mstart[k];
	for (int k = 0; k < n_groups; k++)
		gpc[k] = out->mstart[k];
	for (int u = 0; u < g->n; u++)
		out->members[gpc[out->group_of[u]]++] = u;
	rc = 0;
out:
	free(cnt_cls);
	free(lv.pc);
	free(lv.inst);
	free(gpc);
	if (rc)
		tb_tm_groups_free(out);
	return rc;
}
