/*
 * TreeMatch (see treematch.h). Three steps per decision:
 *
 *  A. Which free slots (cores, or nodes at node level): a candidate is a
 *     subtree with enough free slots and a rule saying how many processes
 *     go under each of its vertices ("the shape"). Under the paper's
 *     constraint extension (Sec. 3.1.3) every unused or unavailable core
 *     holds a dummy process that never communicates; dummies add nothing
 *     to any objective, so we leave them out and keep only the counts
 *     they leave for real processes. Three count rules: compact (Slurm's
 *     best fit), pack (fullest nodes first) and partition (the paper's
 *     recursive k-partitioning, the only one that reads the matrix).
 *     tm-i evaluates candidates over the whole machine, tm-sub only under
 *     the subtree of Sec. 3.2. Ours, optional (refine_max): on small jobs
 *     single-rank moves and swaps inside the candidate after step C.
 *  B. Grouping, bottom-up (Jeannot & Mercier's GroupProcesses and
 *     AggregateComMatrix): at level 1 processes are split into one group
 *     per used node of the sizes the shape asks, maximising the affinity
 *     inside groups; the groups become the units of level 2 with the
 *     aggregated affinity, and so on to the subtree's root. The original
 *     assumes one arity per level and pads with dummies where the arity
 *     does not divide; with free cores the counts differ from node to
 *     node, so a group is typed by the isomorphism class of the subtree it
 *     is made for (a node with 16 free cores is not one with 8) and a
 *     group of level l takes exactly the classes its vertex's children
 *     have. With one class per level this is the original algorithm.
 *     Exact search when the level is small (opts->exact_budget), else the
 *     greedy of group_greedy().
 *  C. Mapping, top-down: the root group on the subtree's root, each
 *     group's members on its vertex's children of the same class.
 *
 * The candidate with the least hop-bytes wins; ties go to the lower, then
 * tighter, then leftmost subtree, so an idle machine is used the way
 * Slurm's best fit would.
 */
#include "treematch.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "job.h"

void tb_tm_opts_default(struct tb_tm_opts *o)
{
	o->strategy = TB_TM_I;
	o->levels_above = 0;
	o->exact_budget = 20000.0;
	o->core_level_max = 16384;
	o->max_candidates = 4;
	o->partition_max = 2048;
	o->refine_max = 64;
}

double tb_treematch_runtime(double runtime, double comm_ratio,
			    double hop_bytes, double hop_bytes_default)
{
	/* T' = R a T + (1 - a) T = (1 + R a - a) T, Sec. 3.2: the law of
	 * ICPP-W's Eq. 7, for a communicating job. */
	struct tb_job job = { .nodes = 1, .comm = 1,
			      .comm_fraction = comm_ratio };

	return tb_scaled_runtime(&job, runtime, hop_bytes, hop_bytes_default);
}

/* --- process graph: symmetric CSR, w(i,j) both directions summed ------- */

struct tm_graph {
	int n;
	int *rp;		/* n + 1 row starts */
	int *ci;
	double *w;
};

static void graph_free(struct tm_graph *g)
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
	graph_free(g);
	return -1;
}

/* The job's affinity over processes: proc_of(rank) = rank * procs / ranks
 * (identity when procs == ranks; the block of a node otherwise). */
static int graph_from_matrix(struct tm_graph *g, const struct tb_matrix *m,
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
static int graph_aggregate(struct tm_graph *out, const struct tm_graph *g,
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

/* --- machine view ------------------------------------------------------- */

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

static void machine_free(struct tm_machine *mc)
{
	free(mc->parent);
	free(mc->level);
	free(mc->cap);
	free(mc->first_child);
	free(mc->next_sibling);
	memset(mc, 0, sizeof(*mc));
}

/* bin_cap: free slots per node (core level) or per switch (node level,
 * leaves only). */
static int machine_build(struct tm_machine *mc, const struct tb_topology *t,
			 int node_mode, const int *bin_cap)
{
	int nb = node_mode ? 0 : t->n_nodes;
	size_t nv = (size_t)nb + (size_t)t->n_switches;

	memset(mc, 0, sizeof(*mc));
	mc->n_vert = (int)nv;
	mc->n_nodes = t->n_nodes;
	mc->node_mode = node_mode;
	mc->root = -1;
	mc->parent = malloc(nv * sizeof(int));
	mc->level = malloc(nv * sizeof(int));
	mc->cap = calloc(nv, sizeof(int));
	mc->first_child = malloc(nv * sizeof(int));
	mc->next_sibling = malloc(nv * sizeof(int));
	if (!mc->parent || !mc->level || !mc->cap || !mc->first_child ||
	    !mc->next_sibling) {
		machine_free(mc);
		return -1;
	}
	for (int v = 0; v < nb; v++) {
		mc->parent[v] = nb + t->nodes[v].leaf;
		mc->level[v] = 1;
		mc->cap[v] = bin_cap[v];
	}
	for (int s = 0; s < t->n_switches; s++) {
		int v = nb + s, p = t->switches[s].parent;

		mc->parent[v] = p == TB_NO_PARENT ? -1 : nb + p;
		mc->level[v] = t->switches[s].level + (node_mode ? 1 : 2);
		if (node_mode && t->switches[s].level == 0)
			mc->cap[v] = bin_cap[s];
		if (p == TB_NO_PARENT && (mc->root < 0 ||
					  mc->level[v] > mc->level[mc->root]))
			mc->root = v;
	}
	for (int v = 0; v < mc->n_vert; v++) {
		mc->first_child[v] = -1;
		mc->next_sibling[v] = -1;
		if (mc->level[v] == 1)
			for (int a = mc->parent[v]; a >= 0; a = mc->parent[a])
				mc->cap[a] += mc->cap[v];
	}
	/* Children in topology order: push front, last vertex first. */
	for (int v = mc->n_vert - 1; v >= 0; v--) {
		int p = mc->parent[v];
		if (p < 0)
			continue;
		mc->next_sibling[v] = mc->first_child[p];
		mc->first_child[p] = v;
	}
	return mc->root >= 0 ? 0 : -1;
}

/* --- shapes: how many processes under each vertex of a subtree ---------- */

struct tm_shape {
	int n;
	int *mv;		/* machine vertex, -1 for a chain vertex */
	int *level, *count, *parent, *cstart, *cnum, *cls;
	uint64_t *hash;
	int n_cls;
	/* per class: the children it needs, (class, count) runs */
	int *need_start, *need_cls, *need_cnt;
};

static void shape_free(struct tm_shape *sh)
{
	free(sh->mv);
	free(sh->level);
	free(sh->count);
	free(sh->parent);
	free(sh->cstart);
	free(sh->cnum);
	free(sh->cls);
	free(sh->hash);
	free(sh->need_start);
	free(sh->need_cls);
	free(sh->need_cnt);
	memset(sh, 0, sizeof(*sh));
}

static uint64_t mix64(uint64_t h, uint64_t x)
{
	/* splitmix64's finaliser over the running hash. */
	uint64_t z = h ^ (x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

struct hash_idx {
	uint64_t h;
	int i;
};

static int cmp_hash_idx(const void *a, const void *b)
{
	const struct hash_idx *x = a, *y = b;

	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * Classes: two vertices are of one class when their subtrees are
 * isomorphic with the same counts, by a 64-bit hash of the sorted child
 * hashes (a collision would only merge two classes' groupings; at 2^-64
 * per pair we accept it). Also the per-class need lists.
 */
static int shape_classes(struct tm_shape *sh)
{
	uint64_t *tmp = malloc((size_t)sh->n * sizeof(uint64_t));
	struct hash_idx *hi = malloc((size_t)sh->n * sizeof(*hi));
	int *rep = NULL, *kids = NULL, total = 0, rc = -1;

	if (!tmp || !hi)
		goto out;
	for (int v = sh->n - 1; v >= 0; v--) {
		uint64_t h = mix64((uint64_t)sh->level[v], (uint64_t)sh->count[v]);

		for (int c = 0; c < sh->cnum[v]; c++)
			tmp[c] = sh->hash[sh->cstart[v] + c];
		qsort(tmp, (size_t)sh->cnum[v], sizeof(uint64_t), cmp_u64);
		for (int c = 0; c < sh->cnum[v]; c++)
			h = mix64(h, tmp[c]);
		sh->hash[v] = h;
	}
	for (int v = 0; v < sh->n; v++) {
		hi[v].h = sh->hash[v];
		hi[v].i = v;
	}
	qsort(hi, (size_t)sh->n, sizeof(*hi), cmp_hash_idx);
	sh->n_cls = 0;
	for (int k = 0; k < sh->n; k++) {
		if (k && hi[k].h != hi[k - 1].h)
			sh->n_cls++;
		sh->cls[hi[k].i] = sh->n_cls;
	}
	sh->n_cls++;
	rep = malloc((size_t)sh->n_cls * sizeof(int));
	sh->need_start = malloc(((size_t)sh->n_cls + 1) * sizeof(int));
	if (!rep || !sh->need_start)
		goto out;
	for (int v = sh->n - 1; v >= 0; v--)
		rep[sh->cls[v]] = v;
	for (int c = 0; c < sh->n_cls; c++)
		total += sh->cnum[rep[c]] ? sh->cnum[rep[c]] : 1;
	sh->need_cls = malloc((size_t)total * sizeof(int));
	sh->need_cnt = malloc((size_t)total * sizeof(int));
	kids = malloc((size_t)total * sizeof(int));
	if (!sh->need_cls || !sh->need_cnt || !kids)
		goto out;
	total = 0;
	for (int c = 0; c < sh->n_cls; c++) {
		int v = rep[c], nk = sh->cnum[v];

		sh->need_start[c] = total;
		if (sh->level[v] == 1) {
			/* A bin's children are its processes: class n_cls. */
			sh->need_cls[total] = sh->n_cls;
			sh->need_cnt[total++] = sh->count[v];
			continue;
		}
		for (int k = 0; k < nk; k++)
			kids[k] = sh->cls[sh->cstart[v] + k];
		qsort(kids, (size_t)nk, sizeof(int), cmp_int);
		for (int k = 0; k < nk; k++) {
			if (k && kids[k] == kids[k - 1]) {
				sh->need_cnt[total - 1]++;
				continue;
			}
			sh->need_cls[total] = kids[k];
			sh->need_cnt[total++] = 1;
		}
	}
	sh->need_start[sh->n_cls] = total;
	rc = 0;
out:
	free(tmp);
	free(hi);
	free(rep);
	free(kids);
	return rc;
}

/* The used part of R's subtree (cnt > 0) in breadth-first order, so a
 * vertex's children are consecutive; chain vertices fill skipped levels so
 * a vertex of level l has children of level l - 1. */
static int shape_build(struct tm_shape *sh, const struct tm_machine *mc,
		       const int *cnt, int R, int n_used)
{
	size_t cap = (size_t)n_used * (size_t)mc->level[R] + 1;
	int *pending = malloc(cap * sizeof(int));

	memset(sh, 0, sizeof(*sh));
	sh->mv = malloc(cap * sizeof(int));
	sh->level = malloc(cap * sizeof(int));
	sh->count = malloc(cap * sizeof(int));
	sh->parent = malloc(cap * sizeof(int));
	sh->cstart = malloc(cap * sizeof(int));
	sh->cnum = malloc(cap * sizeof(int));
	sh->cls = malloc(cap * sizeof(int));
	sh->hash = malloc(cap * sizeof(uint64_t));
	if (!pending || !sh->mv || !sh->level || !sh->count || !sh->parent ||
	    !sh->cstart || !sh->cnum || !sh->cls || !sh->hash) {
		free(pending);
		shape_free(sh);
		return -1;
	}
	sh->mv[0] = R;
	sh->level[0] = mc->level[R];
	sh->count[0] = cnt[R];
	sh->parent[0] = -1;
	sh->n = 1;
	for (int i = 0; i < sh->n; i++) {
		sh->cstart[i] = sh->n;
		sh->cnum[i] = 0;
		if (sh->level[i] == 1)
			continue;
		for (int c = sh->mv[i] >= 0 ? mc->first_child[sh->mv[i]] :
			     pending[i];
		     c >= 0; c = sh->mv[i] >= 0 ? mc->next_sibling[c] : -1) {
			int k = sh->n;

			if (cnt[c] <= 0)
				continue;
			if ((size_t)k >= cap)
				goto overflow;
			sh->parent[k] = i;
			sh->level[k] = sh->level[i] - 1;
			sh->count[k] = cnt[c];
			sh->mv[k] = mc->level[c] == sh->level[k] ? c : -1;
			pending[k] = c;
			sh->n++;
			sh->cnum[i]++;
		}
	}
	free(pending);
	if (shape_classes(sh)) {
		shape_free(sh);
		return -1;
	}
	return 0;
overflow:
	free(pending);
	shape_free(sh);
	return -1;
}

/* --- grouping one level ------------------------------------------------- */

struct tm_groups {
	int n;			/* groups */
	int *gcls;		/* class of the vertex each is made for */
	int *mstart;		/* n + 1 */
	int *members;		/* the units, grouped */
	int *group_of;		/* per unit */
};

static void groups_free(struct tm_groups *gr)
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

struct deg_idx {
	double d;
	int i;
};

static int cmp_deg_desc(const void *a, const void *b)
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
	qsort(order, (size_t)U, sizeof(*order), cmp_deg_desc);
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
static int group_level(const struct tm_graph *g, const int *ucls,
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
		groups_free(out);
	return rc;
}

/* --- one TreeMatch run on a shape --------------------------------------- */

/* Writes bin (shape vertex of level 1) and slot per process; returns the
 * hop-bytes, or -1 when out of memory. */
static double treematch_run(const struct tm_graph *g0,
			    const struct tm_shape *sh,
			    const struct tb_tm_opts *opts, int block,
			    int *bin, int *slot)
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

		if (group_level(gp, uc, sh, l, opts, block && l == 1, &gr[l]))
			goto out;
		if (l == D)
			break;
		if (graph_aggregate(&next, gp, gr[l].group_of, gr[l].n))
			goto out;
		graph_free(&cur);
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
			groups_free(&gr[l]);
	free(gr);
	graph_free(&cur);
	free(ucls0);
	free(asg);
	free(used);
	return hb;
}

struct tm_result {
	double hb;
	int *bin;		/* machine bin per process */
	int *slot;		/* slot within the bin */
};

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
static void refine(const struct tm_machine *mc, const struct tm_graph *g,
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
	qsort(w->bins, (size_t)nb, sizeof(*w->bins), cmp_deg_desc);
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

	if (shape_build(&sh, w->mc, w->cnt, R, w->nt))
		return TB_ENOMEM;
	for (int k = 0; k < *n_seen; k++)
		if (seen[k] == sh.hash[0]) {
			shape_free(&sh);
			return TB_OK;
		}
	seen[(*n_seen)++] = sh.hash[0];
	hb = treematch_run(g, &sh, opts, block, bin, slot);
	if (hb < 0) {
		shape_free(&sh);
		return TB_ENOMEM;
	}
	for (int p = 0; p < g->n; p++)
		bin[p] = sh.mv[bin[p]];
	if (g->n <= opts->refine_max) {
		struct tm_result r = { hb, bin, slot };
		/* Moves stay inside the candidate: its neighbours are
		 * candidates of their own, and a scope of the whole machine
		 * costs 5,040 bins a rank on Curie. */
		refine(w->mc, g, R, w->map_only, &r, w->used, w->rbins, 8);
		hb = r.hb;
	}
	if (res->hb < 0 || hb < res->hb) {
		res->hb = hb;
		for (int p = 0; p < g->n; p++) {
			res->bin[p] = bin[p];
			res->slot[p] = slot[p];
		}
	}
	shape_free(&sh);
	return TB_OK;
}

/*
 * The search. map_only: the allocation is given (every free slot used),
 * one shape. Else the candidates under the scope S: every vertex with
 * enough free slots, tightest first per level, at most max_candidates a
 * level, each under both rules; shapes met before are skipped.
 */
static enum tb_status tm_search(const struct tm_machine *mc,
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

static int scope_of(const struct tm_machine *mc, int n,
		    const struct tb_tm_opts *opts)
{
	if (opts->strategy == TB_TM_SUB)
		return first_fitting_subtree(mc, n, opts->levels_above);
	return mc->cap[mc->root] >= n ? mc->root : -1;
}

/* --- core-level API ----------------------------------------------------- */

struct proc_key {
	int node, slot, proc;
};

static int cmp_proc_key(const void *a, const void *b)
{
	const struct proc_key *x = a, *y = b;

	if (x->node != y->node)
		return x->node - y->node;
	return x->slot - y->slot;
}

enum tb_status tb_treematch_allocate(const struct tb_topology *t,
				     const struct tb_occupancy *o,
				     const struct tb_matrix *m,
				     const struct tb_tm_opts *opts,
				     int *cores, int *map, double *hop_bytes)
{
	struct tm_machine mc = { 0 };
	struct tm_graph g = { 0 };
	struct tm_result res = { -1.0, NULL, NULL };
	struct proc_key *keys = NULL;
	int *cap = NULL, n = m->ranks, S;
	long total = 0;
	enum tb_status rc = TB_ENOMEM;

	if (n < 1 || o->n_nodes != t->n_nodes)
		return TB_EINVAL;
	cap = malloc((size_t)t->n_nodes * sizeof(int));
	if (!cap)
		return TB_ENOMEM;
	for (int v = 0; v < t->n_nodes; v++) {
		cap[v] = tb_free_cores(t, o, v);
		total += t->nodes[v].cores;
	}
	if (n > total) {
		free(cap);
		return TB_ETOOBIG;
	}
	res.bin = malloc((size_t)n * sizeof(int));
	res.slot = malloc((size_t)n * sizeof(int));
	keys = malloc((size_t)n * sizeof(*keys));
	if (!res.bin || !res.slot || !keys || machine_build(&mc, t, 0, cap) ||
	    graph_from_matrix(&g, m, n))
		goto out;
	S = scope_of(&mc, n, opts);
	if (S < 0) {
		rc = TB_ENOSPACE;
		goto out;
	}
	rc = tm_search(&mc, &g, opts, S, 0, &res);
	if (rc != TB_OK)
		goto out;
	for (int p = 0; p < n; p++) {
		keys[p].node = res.bin[p];
		keys[p].slot = res.slot[p];
		keys[p].proc = p;
	}
	qsort(keys, (size_t)n, sizeof(*keys), cmp_proc_key);
	for (int k = 0; k < n; k++) {
		cores[k] = keys[k].node;
		map[keys[k].proc] = k;
	}
	if (hop_bytes)
		*hop_bytes = res.hb;
out:
	free(cap);
	free(keys);
	free(res.bin);
	free(res.slot);
	graph_free(&g);
	machine_free(&mc);
	return rc;
}

enum tb_status tb_treematch_map(const struct tb_topology *t,
				const struct tb_matrix *m, const int *cores,
				const struct tb_tm_opts *opts, int *map,
				double *hop_bytes)
{
	struct tm_machine mc = { 0 };
	struct tm_graph g = { 0 };
	struct tm_result res = { -1.0, NULL, NULL };
	int *cap = calloc((size_t)t->n_nodes, sizeof(int));
	int *first = NULL, *at = NULL, n = m->ranks;
	enum tb_status rc = TB_ENOMEM;

	if (!cap)
		return TB_ENOMEM;
	for (int k = 0; k < n; k++) {
		if (cores[k] < 0 || cores[k] >= t->n_nodes ||
		    ++cap[cores[k]] > t->nodes[cores[k]].cores) {
			free(cap);
			return TB_EINVAL;
		}
	}
	res.bin = malloc((size_t)n * sizeof(int));
	res.slot = malloc((size_t)n * sizeof(int));
	first = malloc((size_t)t->n_nodes * sizeof(int));
	at = malloc((size_t)n * sizeof(int));
	if (!res.bin || !res.slot || !first || !at ||
	    machine_build(&mc, t, 0, cap) || graph_from_matrix(&g, m, n))
		goto out;
	rc = tm_search(&mc, &g, opts, mc.root, 1, &res);
	if (rc != TB_OK)
		goto out;
	/* Slot j of a node is the j-th of its cores in the given list. */
	for (int v = 0, sum = 0; v < t->n_nodes; v++) {
		first[v] = sum;
		sum += cap[v];
		cap[v] = first[v];
	}
	for (int k = 0; k < n; k++)
		at[cap[cores[k]]++] = k;
	for (int p = 0; p < n; p++)
		map[p] = at[first[res.bin[p]] + res.slot[p]];
	if (hop_bytes)
		*hop_bytes = res.hb;
out:
	free(cap);
	free(first);
	free(at);
	free(res.bin);
	free(res.slot);
	graph_free(&g);
	machine_free(&mc);
	return rc;
}

/* --- node-level policies (the registry) --------------------------------- */

/*
 * Nodes are the slots and leaf switches the bins; a process is the block
 * of ranks a node runs (matrix.h's block placement). alloc[k] receives the
 * node of block k. given: NULL to choose among the free nodes, else the
 * nodes to map onto (tm-a).
 */
static enum tb_status node_level(const struct tb_topology *t,
				 const struct tb_occupancy *o,
				 const struct tb_job *job,
				 const struct tb_tm_opts *opts,
				 const int *given, int *alloc)
{
	struct tm_machine mc = { 0 };
	struct tm_graph g = { 0 };
	struct tm_result res = { -1.0, NULL, NULL };
	int n = job->nodes, *cap = calloc((size_t)t->n_switches, sizeof(int));
	int *pos = NULL, *slot_node = NULL, S;
	unsigned char *cand = calloc((size_t)t->n_nodes, 1);
	enum tb_status rc = TB_ENOMEM;

	if (!cap || !cand)
		goto out;
	for (int k = 0; given && k < n; k++)
		cand[given[k]] = 1;
	for (int v = 0; !given && v < t->n_nodes; v++)
		cand[v] = o->state[v] == TB_NODE_FREE;
	for (int v = 0; v < t->n_nodes; v++)
		cap[t->nodes[v].leaf] += cand[v];
	res.bin = malloc((size_t)n * sizeof(int));
	res.slot = malloc((size_t)n * sizeof(int));
	pos = calloc((size_t)t->n_switches + 1, sizeof(int));
	slot_node = malloc((size_t)t->n_nodes * sizeof(int));
	if (!res.bin || !res.slot || !pos || !slot_node ||
	    machine_build(&mc, t, 1, cap) ||
	    graph_from_matrix(&g, job->matrix, n))
		goto out;
	S = given ? mc.root : scope_of(&mc, n, opts);
	if (S < 0) {
		rc = TB_ENOSPACE;
		goto out;
	}
	rc = tm_search(&mc, &g, opts, S, given != NULL, &res);
	if (rc != TB_OK)
		goto out;
	/* Slot j of a leaf: its j-th candidate node in index order. */
	for (int s = 0; s < t->n_switches; s++)
		pos[s + 1] = pos[s] + cap[s];
	for (int s = 0; s < t->n_switches; s++)
		cap[s] = pos[s];
	for (int v = 0; v < t->n_nodes; v++)
		if (cand[v])
			slot_node[cap[t->nodes[v].leaf]++] = v;
	for (int p = 0; p < n; p++)
		alloc[p] = slot_node[pos[res.bin[p]] + res.slot[p]];
out:
	free(cap);
	free(cand);
	free(pos);
	free(slot_node);
	free(res.bin);
	free(res.slot);
	graph_free(&g);
	machine_free(&mc);
	return rc;
}

static int has_matrix(const struct tb_job *job)
{
	return job->matrix && job->matrix->ranks >= 1;
}

enum tb_status tb_policy_tm_a(const struct tb_topology *t,
			      const struct tb_occupancy *o,
			      const struct tb_job *job, int *alloc)
{
	struct tb_tm_opts opts;
	enum tb_status rc = tb_policy_default(t, o, job, alloc);
	int *given;

	if (rc != TB_OK || !has_matrix(job))
		return rc;
	given = malloc((size_t)job->nodes * sizeof(int));
	if (!given)
		return TB_ENOMEM;
	memcpy(given, alloc, (size_t)job->nodes * sizeof(int));
	tb_tm_opts_default(&opts);
	rc = node_level(t, o, job, &opts, given, alloc);
	free(given);
	return rc;
}

static enum tb_status tm_policy(const struct tb_topology *t,
				const struct tb_occupancy *o,
				const struct tb_job *job, int *alloc,
				enum tb_tm_strategy s, int above)
{
	struct tb_tm_opts opts;

	if (!has_matrix(job))
		return tb_policy_default(t, o, job, alloc);
	tb_tm_opts_default(&opts);
	opts.strategy = s;
	opts.levels_above = above;
	return node_level(t, o, job, &opts, NULL, alloc);
}

enum tb_status tb_policy_tm_i(const struct tb_topology *t,
			      const struct tb_occupancy *o,
			      const struct tb_job *job, int *alloc)
{
	return tm_policy(t, o, job, alloc, TB_TM_I, 0);
}

enum tb_status tb_policy_tm_sub(const struct tb_topology *t,
				const struct tb_occupancy *o,
				const struct tb_job *job, int *alloc)
{
	return tm_policy(t, o, job, alloc, TB_TM_SUB, 0);
}

enum tb_status tb_policy_tm_sub3(const struct tb_topology *t,
				 const struct tb_occupancy *o,
				 const struct tb_job *job, int *alloc)
{
	return tm_policy(t, o, job, alloc, TB_TM_SUB, 3);
}
