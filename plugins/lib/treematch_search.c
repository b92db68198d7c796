/* TreeMatch's step A: the candidate shapes under the scope, the best kept. */
#include "treematch_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* --- step A: candidate shapes ------------------------------------------- */

struct tm_work {
	const struct tm_machine *mc;
	int *cnt;		/* per machine vertex */
	int *touched, nt;
	int *stack;
	struct deg_idx *bins;
	int *used, *rbins;	/* refinement scratch, per machine vertex */
	int map_only;
};

static void mark(struct tm_work *w, int v, int add)
{
	if (!w->cnt[v])
		w->touched[w->nt++] = v;
	w->cnt[v] += add;
}

static void reset(struct tm_work *w)
{
	for (int k = 0; k < w->nt; k++)
		w->cnt[w->touched[k]] = 0;
	w->nt = 0;
}

/* A child that takes `n` in full: lowest level, then tightest, then
 * leftmost, skipping children already used; -1 if none. */
static int best_fit_child(const struct tm_work *w, int v, int n)
{
	const struct tm_machine *mc = w->mc;
	int best = -1;

	for (int c = mc->first_child[v]; c >= 0; c = mc->next_sibling[c]) {
		if (w->cnt[c] || mc->cap[c] < n)
			continue;
		if (best < 0 || mc->level[c] < mc->level[best] ||
		    (mc->level[c] == mc->level[best] &&
		     mc->cap[c] < mc->cap[best]))
			best = c;
	}
	return best;
}

/*
 * Rule "compact" (Slurm's best fit carried down): a child that holds all
 * goes alone; else the largest children in full, then the tightest child
 * that holds the rest.
 */
static void fill_compact(struct tm_work *w, int v, int n)
{
	const struct tm_machine *mc = w->mc;

	mark(w, v, n);
	if (mc->level[v] == 1)
		return;
	while (n > 0) {
		int c = best_fit_child(w, v, n);

		if (c < 0) {
			for (int x = mc->first_child[v]; x >= 0;
			     x = mc->next_sibling[x])
				if (!w->cnt[x] && mc->cap[x] > 0 &&
				    (c < 0 || mc->cap[x] > mc->cap[c]))
					c = x;
			if (c < 0)
				return;	/* cannot happen: cap[v] >= n */
		}
		int take = mc->cap[c] < n ? mc->cap[c] : n;
		fill_compact(w, c, take);
		n -= take;
	}
}

/*
 * Rule "pack" (what the dummy-padded grouping of Sec. 3.1.3 tends to, the
 * real processes filling whole nodes first): the bins under R with the
 * most free slots in full, the rest in the tightest bin that holds it.
 */
static void fill_pack(struct tm_work *w, int R, int n)
{
	const struct tm_machine *mc = w->mc;
	int sp = 0, nb = 0;

	w->stack[sp++] = R;
	while (sp) {
		int v = w->stack[--sp];
		if (mc->cap[v] <= 0)
			continue;
		if (mc->level[v] == 1) {
			w->bins[nb].d = mc->cap[v];
			w->bins[nb++].i = v;
			continue;
		}
		for (int c = mc->first_child[v]; c >= 0;
		     c = mc->next_sibling[c])
			w->stack[sp++] = c;
	}
	qsort(w->bins, (size_t)nb, sizeof(*w->bins), tb_tm_cmp_deg_desc);
	for (int k = 0; k < nb && n > 0; k++) {
		int pick = k, take;

		if (w->bins[k].d >= n) {
			/* The last bin that holds the rest, first of its size. */
			while (pick + 1 < nb && w->bins[pick + 1].d >= n)
				pick++;
			while (pick > k && w->bins[pick - 1].d == w->bins[pick].d)
				pick--;
		}
		take = (int)w->bins[pick].d < n ? (int)w->bins[pick].d : n;
		for (int a = w->bins[pick].i; a >= 0; a = mc->parent[a]) {
			mark(w, a, take);
			if (a == R)
				break;
		}
		n -= take;
		if (pick != k)
			break;
	}
}

/*
 * Rule "partition" (Sec. 3.1.3's constrained TreeMatch: recursive
 * k-partitioning, dummies on the slots not used): the processes under v
 * are split among its children, largest capacity first, each part grown
 * from the process with most affinity left by adding the one with most
 * affinity to the part; the part's size is the prefix of that growth with
 * the least affinity cut to the rest, within what the child holds and
 * what the other children can still take. This is the one rule that
 * weighs communication when choosing how many processes go where (Figure
 * 1: 2 + 2 over the two switches, not 3 + 1).
 */
struct tm_part {
	const struct tm_graph *g;
	int *lab;		/* vertex whose set a process is in */
	int *seq;		/* growth order */
	double *gain;
	char *inpart;
};

static int cmp_kid(const struct tm_machine *mc, int a, int b)
{
	if (mc->cap[a] != mc->cap[b])
		return mc->cap[a] > mc->cap[b];
	return a < b;
}

static int fill_partition(struct tm_work *w, struct tm_part *pt, int v,
			  const int *procs, int n, int top)
{
	const struct tm_machine *mc = w->mc;
	const struct tm_graph *g = pt->g;
	int nk = 0, remaining = n, rem_cap = 0;
	int *kids, *set;

	mark(w, v, n);
	if (mc->level[v] == 1)
		return 0;
	for (int k = 0; k < n; k++)
		pt->lab[procs[k]] = v;
	set = malloc((size_t)n * sizeof(int));
	kids = malloc(sizeof(int) * (size_t)(mc->cap[v] < n ? n : mc->cap[v]));
	if (!set || !kids) {
		free(set);
		free(kids);
		return -1;
	}
	/* Children by capacity, largest first (insertion: arity is small);
	 * a child with free slots holds at least one, so cap[v] bounds nk. */
	for (int c = mc->first_child[v]; c >= 0; c = mc->next_sibling[c]) {
		int i = nk++;
		if (mc->cap[c] <= 0) {
			nk--;
			continue;
		}
		while (i > 0 && cmp_kid(mc, c, kids[i - 1])) {
			kids[i] = kids[i - 1];
			i--;
		}
		kids[i] = c;
		rem_cap += mc->cap[c];
	}
	memcpy(set, procs, (size_t)n * sizeof(int));
	for (int i = 0; i < nk && remaining > 0; i++) {
		int c = kids[i], lo, hi, len = 0, best_k = 0, seed = -1;
		double cut = 0.0, best_cut = 0.0, bestd = -1.0;

		rem_cap -= mc->cap[c];
		lo = remaining - rem_cap > 1 ? remaining - rem_cap : 1;
		hi = mc->cap[c] < remaining ? mc->cap[c] : remaining;
		/* At the candidate's root all in one child always cuts 0, and
		 * is that child's own candidate: split for real here. */
		if (top && i == 0 && hi == remaining && lo < remaining)
			hi = remaining - 1;
		if (lo > hi)
			continue;
		for (int k = 0; k < n; k++) {
			int u = set[k];
			double d = 0.0;
			if (pt->lab[u] != v)
				continue;
			for (int e = g->rp[u]; e < g->rp[u + 1]; e++)
				if (pt->lab[g->ci[e]] == v)
					d += g->w[e];
			if (d > bestd) {
				bestd = d;
				seed = u;
			}
		}
		for (int u = seed; u >= 0 && len < hi;) {
			int pick = -1;
			double bg = -1.0;

			pt->inpart[u] = 1;
			pt->seq[len++] = u;
			cut -= pt->gain[u];
			for (int e = g->rp[u]; e < g->rp[u + 1]; e++) {
				int x = g->ci[e];
				if (pt->lab[x] != v || pt->inpart[x])
					continue;
				cut += g->w[e];
				pt->gain[x] += g->w[e];
			}
			if (len >= lo && (best_k == 0 || cut < best_cut ||
					  (cut == best_cut && len > best_k))) {
				best_k = len;
				best_cut = cut;
			}
			for (int k = 0; k < n; k++) {
				int x = set[k];
				if (pt->lab[x] == v && !pt->inpart[x] &&
				    pt->gain[x] > bg) {
					bg = pt->gain[x];
					pick = x;
				}
			}
			u = pick;
		}
		for (int k = 0; k < n; k++) {
			pt->gain[set[k]] = 0.0;
			pt->inpart[set[k]] = 0;
		}
		remaining -= best_k;
		if (fill_partition(w, pt, c, pt->seq, best_k, 0)) {
			free(set);
			free(kids);
			return -1;
		}
	}
	free(set);
	free(kids);
	return 0;
}

struct cand {
	int v;
	int level, cap;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->level != y->level)
		return x->level - y->level;
	if (x->cap != y->cap)
		return x->cap - y->cap;
	return x->v - y->v;
}

/* Runs TreeMatch on the shape in w->cnt; keeps it in res when better. */
static enum tb_status evaluate(struct tm_work *w, const struct tm_graph *g,
			       int R, const struct tb_tm_opts *opts,
			       int block, uint64_t *seen, int *n_seen,
			       int *bin, int *slot, struct tm_result *res)
{
	struct tm_shape sh;
	double hb;

	if (tb_tm_shape_build(&sh, w->mc, w->cnt, R, w->nt))
		return TB_ENOMEM;
	for (int k = 0; k < *n_seen; k++)
		if (seen[k] == sh.hash[0]) {
			tb_tm_shape_free(&sh);
			return TB_OK;
		}
	seen[(*n_seen)++] = sh.hash[0];
	hb = tb_tm_run(g, &sh, opts, block, bin, slot);
	if (hb < 0) {
		tb_tm_shape_free(&sh);
		return TB_ENOMEM;
	}
	for (int p = 0; p < g->n; p++)
		bin[p] = sh.mv[bin[p]];
	if (g->n <= opts->refine_max) {
		struct tm_result r = { hb, bin, slot };
		/* Moves stay inside the candidate: its neighbours are
		 * candidates of their own, and a scope of the whole machine
		 * costs 5,040 bins a rank on Curie. */
		tb_tm_refine(w->mc, g, R, w->map_only, &r, w->used, w->rbins,
			     8);
		hb = r.hb;
	}
	if (res->hb < 0 || hb < res->hb) {
		res->hb = hb;
		for (int p = 0; p < g->n; p++) {
			res->bin[p] = bin[p];
			res->slot[p] = slot[p];
		}
	}
	tb_tm_shape_free(&sh);
	return TB_OK;
}

/*
 * The search. map_only: the allocation is given (every free slot used),
 * one shape. Else the candidates under the scope S: every vertex with
 * enough free slots, tightest first per level, at most max_candidates a
 * level, each under both rules; shapes met before are skipped.
 */
enum tb_status tb_tm_search(const struct tm_machine *mc,
			    const struct tm_graph *g,
			    const struct tb_tm_opts *opts, int S,
			    int map_only, struct tm_result *res)
{
	struct tm_work w = { 0 };
	w.mc = mc;
	struct cand *cands = NULL;
	struct tm_part pt = { g, NULL, NULL, NULL, NULL };
	int *all = NULL;
	int n = g->n, nc = 0, sp = 0, n_seen = 0, *bin = NULL, *slot = NULL;
	int block = n > opts->core_level_max && !mc->node_mode;
	uint64_t *seen = NULL;
	enum tb_status rc = TB_ENOMEM;

	res->hb = -1.0;
	w.cnt = calloc((size_t)mc->n_vert, sizeof(int));
	w.touched = malloc((size_t)mc->n_vert * sizeof(int));
	w.stack = malloc((size_t)mc->n_vert * sizeof(int));
	w.bins = malloc((size_t)mc->n_vert * sizeof(*w.bins));
	w.used = calloc((size_t)mc->n_vert, sizeof(int));
	w.rbins = malloc((size_t)mc->n_vert * sizeof(int));
	w.map_only = map_only;
	cands = malloc((size_t)mc->n_vert * sizeof(*cands));
	seen = malloc(((size_t)mc->n_vert * 3 + 1) * sizeof(uint64_t));
	bin = malloc(((size_t)n ? (size_t)n : 1) * sizeof(int));
	slot = malloc(((size_t)n ? (size_t)n : 1) * sizeof(int));
	pt.lab = malloc(((size_t)n ? (size_t)n : 1) * sizeof(int));
	pt.seq = malloc(((size_t)n ? (size_t)n : 1) * sizeof(int));
	pt.gain = calloc(((size_t)n ? (size_t)n : 1), sizeof(double));
	pt.inpart = calloc(((size_t)n ? (size_t)n : 1), 1);
	all = malloc(((size_t)n ? (size_t)n : 1) * sizeof(int));
	if (!w.cnt || !w.touched || !w.stack || !w.bins || !cands || !seen ||
	    !w.used || !w.rbins ||
	    !bin || !slot || !pt.lab || !pt.seq || !pt.gain || !pt.inpart ||
	    !all)
		goto out;
	for (int p = 0; p < n; p++)
		all[p] = p;
	if (map_only) {
		for (int v = 0; v < mc->n_vert; v++)
			if (mc->cap[v] > 0)
				mark(&w, v, mc->cap[v]);
		rc = evaluate(&w, g, mc->root, opts, block, seen, &n_seen,
			      bin, slot, res);
		goto out;
	}
	w.stack[sp++] = S;
	while (sp) {
		int v = w.stack[--sp];
		if (mc->cap[v] < n)
			continue;
		cands[nc].v = v;
		cands[nc].level = mc->level[v];
		cands[nc++].cap = mc->cap[v];
		for (int c = mc->first_child[v]; c >= 0;
		     c = mc->next_sibling[c])
			w.stack[sp++] = c;
	}
	qsort(cands, (size_t)nc, sizeof(*cands), cmp_cand);
	for (int k = 0, per = 0; k < nc; k++) {
		int v = cands[k].v;

		per = k && cands[k].level == cands[k - 1].level ? per + 1 : 0;
		if (per >= opts->max_candidates)
			continue;
		w.nt = 0;
		/* compact on a vertex with a child that fits is that child's
		 * candidate, met on its own level. */
		if (mc->level[v] == 1 || best_fit_child(&w, v, n) < 0) {
			fill_compact(&w, v, n);
			rc = evaluate(&w, g, v, opts, block, seen, &n_seen,
				      bin, slot, res);
			reset(&w);
			if (rc != TB_OK)
				goto out;
		}
		if (mc->level[v] > 1) {
			fill_pack(&w, v, n);
			rc = evaluate(&w, g, v, opts, block, seen, &n_seen,
				      bin, slot, res);
			reset(&w);
			if (rc != TB_OK)
				goto out;
		}
		if (mc->level[v] > 1 && n <= opts->partition_max) {
			for (int p = 0; p < n; p++)
				pt.lab[p] = -1;
			rc = fill_partition(&w, &pt, v, all, n, 1) ? TB_ENOMEM :
				evaluate(&w, g, v, opts, block, seen, &n_seen,
					 bin, slot, res);
			reset(&w);
			if (rc != TB_OK)
				goto out;
		}
	}
	rc = res->hb < 0 ? TB_ENOSPACE : TB_OK;
out:
	free(w.cnt);
	free(w.touched);
	free(w.stack);
	free(w.bins);
	free(w.used);
	free(w.rbins);
	free(cands);
	free(seen);
	free(bin);
	free(slot);
	free(pt.lab);
	free(pt.seq);
	free(pt.gain);
	free(pt.inpart);
	free(all);
	return rc;
}

/* Sec. 3.2: "from the leaves up to the root and from left to right", the
 * first vertex with enough free slots, then levels_above further up. */
static int first_fitting_subtree(const struct tm_machine *mc, int n,
				 int levels_above)
{
	int found = -1;

	for (int l = 1; found < 0 && l <= mc->level[mc->root]; l++)
		for (int v = 0; v < mc->n_vert; v++)
			if (mc->level[v] == l && mc->cap[v] >= n) {
				found = v;
				break;
			}
	for (int k = 0; found >= 0 && k < levels_above &&
	     mc->parent[found] >= 0; k++)
		found = mc->parent[found];
	return found;
}

int tb_tm_scope_of(const struct tm_machine *mc, int n,
		   const struct tb_tm_opts *opts)
{
	if (opts->strategy == TB_TM_SUB)
		return first_fitting_subtree(mc, n, opts->levels_above);
	return mc->cap[mc->root] >= n ? mc->root : -1;
}
