/* TreeMatch's tree side: the machine view and the shapes, typed by class. */
#include "treematch_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* --- machine view ------------------------------------------------------- */

void tb_tm_machine_free(struct tm_machine *mc)
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
int tb_tm_machine_build(struct tm_machine *mc, const struct tb_topology *t,
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
		tb_tm_machine_free(mc);
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

void tb_tm_shape_free(struct tm_shape *sh)
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
int tb_tm_shape_build(struct tm_shape *sh, const struct tm_machine *mc,
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
		tb_tm_shape_free(sh);
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
		tb_tm_shape_free(sh);
		return -1;
	}
	return 0;
overflow:
	free(pending);
	tb_tm_shape_free(sh);
	return -1;
}
