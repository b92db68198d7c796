/* Pods, job classes and the isolation validator (SC18 paper, Section III). */
#include "isolation.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tb_class_name(enum tb_job_class c)
{
	switch (c) {
	case TB_CLASS_T1: return "T1";
	case TB_CLASS_T2: return "T2";
	case TB_CLASS_T3: return "T3";
	}
	return "?";
}

void tb_pods_fini(struct tb_pods *pd)
{
	free(pd->pod_of_leaf);
	free(pd->pod_switch);
	free(pd->pod_start);
	free(pd->pod_leaves);
	memset(pd, 0, sizeof(*pd));
}

int tb_pods_init(struct tb_pods *pd, const struct tb_topology *t)
{
	size_t nl = (size_t)(t->n_leaves > 0 ? t->n_leaves : 1);
	int *pod_of_switch = malloc(sizeof(int) * (size_t)t->n_switches);
	int *size = NULL, *fill = NULL;

	memset(pd, 0, sizeof(*pd));
	pd->pod_of_leaf = malloc(sizeof(int) * nl);
	pd->pod_switch = malloc(sizeof(int) * nl);
	pd->pod_start = calloc(nl + 1, sizeof(int));
	pd->pod_leaves = malloc(sizeof(int) * nl);
	size = calloc(nl, sizeof(int));
	fill = calloc(nl, sizeof(int));
	if (!pod_of_switch || !pd->pod_of_leaf || !pd->pod_switch ||
	    !pd->pod_start || !pd->pod_leaves || !size || !fill) {
		free(pod_of_switch);
		free(size);
		free(fill);
		tb_pods_fini(pd);
		return -1;
	}
	for (int s = 0; s < t->n_switches; s++)
		pod_of_switch[s] = -1;
	for (int i = 0; i < t->n_leaves; i++) {
		int leaf = t->leaves[i], n = t->switches[leaf].n_nodes;
		int sw = t->switches[leaf].parent;

		/* The leaf's parent (a pod of lines 88-90), or the leaf
		 * itself in a one-leaf machine; see isolation.h. */
		if (sw == TB_NO_PARENT)
			sw = leaf;
		if (pod_of_switch[sw] < 0) {
			pod_of_switch[sw] = pd->n_pods;
			pd->pod_switch[pd->n_pods++] = sw;
		}
		pd->pod_of_leaf[i] = pod_of_switch[sw];
		size[pod_of_switch[sw]] += n;
		pd->pod_start[pod_of_switch[sw] + 1]++;
		if (n > pd->leaf_nodes)
			pd->leaf_nodes = n;
	}
	for (int p = 0; p < pd->n_pods; p++) {
		if (size[p] > pd->pod_nodes)
			pd->pod_nodes = size[p];
		pd->pod_start[p + 1] += pd->pod_start[p];
	}
	for (int i = 0; i < t->n_leaves; i++) {
		int p = pd->pod_of_leaf[i];
		pd->pod_leaves[pd->pod_start[p] + fill[p]++] = i;
	}
	free(pod_of_switch);
	free(size);
	free(fill);
	return 0;
}

/* Algorithm 1, lines 2-7. */
enum tb_job_class tb_class_of_size(const struct tb_pods *pd, int nodes)
{
	if (nodes <= pd->leaf_nodes)
		return TB_CLASS_T1;
	if (nodes <= pd->pod_nodes)
		return TB_CLASS_T2;
	return TB_CLASS_T3;
}

enum tb_job_class tb_class_of_nodes(const struct tb_topology *t,
				    const struct tb_pods *pd,
				    const int *nodes, int n)
{
	enum tb_job_class c = tb_class_of_size(pd, n);
	int leaf = -1, pod = -1, span = TB_CLASS_T1;

	for (int k = 0; k < n; k++) {
		int l = t->leaf_rank[t->nodes[nodes[k]].leaf];
		int p = pd->pod_of_leaf[l];

		if (leaf < 0) {
			leaf = l;
			pod = p;
		} else if (p != pod) {
			span = TB_CLASS_T3;
			break;
		} else if (l != leaf) {
			span = TB_CLASS_T2;
		}
	}
	return span > (int)c ? (enum tb_job_class)span : c;
}

/* ---- validator ---- */

struct placed {
	enum tb_job_class size_class, class;
	int n_leaves, n_pods;
	int *leaves;		/* distinct leaf ranks (T2/T3 only) */
	int *pods;		/* distinct pods (T3 only) */
};

struct checker {
	const struct tb_topology *t;
	const struct tb_pods *pd;
	const struct tb_placed_job *jobs;
	struct placed *pl;
	tb_violation_fn fn;
	void *arg;
	long found;
	int stop;
};

static void report(struct checker *c, enum tb_violation_kind kind, int a,
		   int b, int sw, int count)
{
	struct tb_violation v = { kind, a, b, sw, count };

	c->found++;
	if (c->fn && !c->stop && c->fn(&v, c->arg))
		c->stop = 1;
}

/* Distinct leaves and pods of job j, with stamp arrays to avoid sorting. */
static int describe(struct checker *c, int j, int *leaf_stamp, int *pod_stamp)
{
	const struct tb_placed_job *job = &c->jobs[j];
	struct placed *p = &c->pl[j];
	int stamp = j + 1;
	size_t cap = (size_t)(job->n_nodes ? job->n_nodes : 1);

	p->size_class = tb_class_of_size(c->pd, job->n_nodes);
	p->leaves = malloc(sizeof(int) * cap);
	p->pods = malloc(sizeof(int) * cap);
	if (!p->leaves || !p->pods)
		return -1;
	for (int k = 0; k < job->n_nodes; k++) {
		int node = job->nodes[k], l, q;

		if (node < 0 || node >= c->t->n_nodes)
			return -1;
		l = c->t->leaf_rank[c->t->nodes[node].leaf];
		q = c->pd->pod_of_leaf[l];
		if (leaf_stamp[l] != stamp) {
			leaf_stamp[l] = stamp;
			p->leaves[p->n_leaves++] = l;
		}
		if (pod_stamp[q] != stamp) {
			pod_stamp[q] = stamp;
			p->pods[p->n_pods++] = q;
		}
	}
	p->class = p->size_class;
	if (p->n_pods > 1)
		p->class = TB_CLASS_T3;
	else if (p->n_leaves > 1 && p->class < TB_CLASS_T2)
		p->class = TB_CLASS_T2;
	if (p->size_class == TB_CLASS_T1 && p->n_leaves > 1)
		report(c, TB_V_T1_LEAVES, j, -1, -1, p->n_leaves);
	if (p->size_class == TB_CLASS_T2 && p->n_pods > 1)
		report(c, TB_V_T2_PODS, j, -1, -1, p->n_pods);
	return 0;
}

/* qsort has no context argument in C11: sort (start, index) pairs. */
struct start_key {
	long long start;
	int job;
};

static int cmp_start(const void *x, const void *y)
{
	const struct start_key *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->job > b->job) - (a->job < b->job);
}

long tb_isolation_check(const struct tb_topology *t,
			const struct tb_placed_job *jobs, int n_jobs,
			tb_violation_fn fn, void *arg)
{
	struct tb_pods pd;
	struct checker c = { t, &pd, jobs, NULL, fn, arg, 0, 0 };
	struct start_key *order = NULL;
	int *leaf_stamp = NULL, *pod_stamp = NULL, *active = NULL;
	int n_active = 0;
	long rc = -1;

	if (n_jobs < 0 || tb_pods_init(&pd, t))
		return -1;
	c.pl = calloc((size_t)(n_jobs ? n_jobs : 1), sizeof(*c.pl));
	order = malloc(sizeof(*order) * (size_t)(n_jobs ? n_jobs : 1));
	active = malloc(sizeof(int) * (size_t)(n_jobs ? n_jobs : 1));
	leaf_stamp = calloc((size_t)(t->n_leaves ? t->n_leaves : 1),
			    sizeof(int));
	pod_stamp = calloc((size_t)(pd.n_pods ? pd.n_pods : 1), sizeof(int));
	if (!c.pl || !order || !active || !leaf_stamp || !pod_stamp)
		goto out;
	for (int j = 0; j < n_jobs; j++) {
		if (describe(&c, j, leaf_stamp, pod_stamp))
			goto out;
		order[j].start = jobs[j].start;
		order[j].job = j;
	}
	qsort(order, (size_t)n_jobs, sizeof(*order), cmp_start);
	/* Sweep by start time: the jobs still running when job j starts are
	 * exactly those it runs with (intervals are [start, end)). Only
	 * T2/T3 jobs take part in the pairwise rules. Stamps now mark the
	 * leaves and pods of j, shifted past describe()'s stamps. */
	for (int i = 0; i < n_jobs && !c.stop; i++) {
		int j = order[i].job, stamp = n_jobs + 1 + i, keep = 0;
		const struct placed *pj = &c.pl[j];

		if (jobs[j].end <= jobs[j].start || pj->class == TB_CLASS_T1)
			continue;
		for (int a = 0; a < n_active; a++)
			if (jobs[active[a]].end > jobs[j].start)
				active[keep++] = active[a];
		n_active = keep;
		for (int k = 0; k < pj->n_leaves; k++)
			leaf_stamp[pj->leaves[k]] = stamp;
		for (int k = 0; k < pj->n_pods; k++)
			pod_stamp[pj->pods[k]] = stamp;
		for (int a = 0; a < n_active && !c.stop; a++) {
			const struct placed *pa = &c.pl[active[a]];

			for (int k = 0; k < pa->n_leaves; k++) {
				if (leaf_stamp[pa->leaves[k]] != stamp)
					continue;
				report(&c, TB_V_LEAF_SHARED, active[a], j,
				       t->leaves[pa->leaves[k]], 0);
				break;
			}
			if (pa->class != TB_CLASS_T3 ||
			    pj->class != TB_CLASS_T3)
				continue;
			for (int k = 0; k < pa->n_pods; k++) {
				if (pod_stamp[pa->pods[k]] != stamp)
					continue;
				report(&c, TB_V_POD_SHARED, active[a], j,
				       pd.pod_switch[pa->pods[k]], 0);
				break;
			}
		}
		active[n_active++] = j;
	}
	rc = c.found;
out:
	for (int j = 0; c.pl && j < n_jobs; j++) {
		free(c.pl[j].leaves);
		free(c.pl[j].pods);
	}
	free(c.pl);
	free(order);
	free(active);
	free(leaf_stamp);
	free(pod_stamp);
	tb_pods_fini(&pd);
	return rc;
}

/* ---- index lists ---- */

static int cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

int tb_parse_index_list(const char *s, int max, int **out, int *n)
{
	int cap = 16, *v = malloc(sizeof(int) * 16);
	const char *p = s;

	*out = NULL;
	*n = 0;
	if (!v)
		return -1;
	while (*p) {
		long lo, hi;
		char *end;

		if (*p < '0' || *p > '9')
			goto bad;
		errno = 0;
		lo = strtol(p, &end, 10);
		hi = lo;
		if (*end == '-') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				goto bad;
			hi = strtol(p, &end, 10);
		}
		if (errno || lo < 0 || hi < lo || hi >= max)
			goto bad;
		for (long k = lo; k <= hi; k++) {
			if (*n == cap) {
				int *nv;
				if (cap > INT_MAX / 2)
					goto bad;
				nv = realloc(v, sizeof(int) * (size_t)cap * 2);
				if (!nv)
					goto bad;
				v = nv;
				cap *= 2;
			}
			v[(*n)++] = (int)k;
		}
		p = end;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			goto bad;
	}
	if (!*n)
		goto bad;
	*out = v;
	return 0;
bad:
	free(v);
	*n = 0;
	return -1;
}

void tb_format_index_list(const int *idx, int n, char *buf, size_t len)
{
	int *v = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
	size_t used = 0;

	if (!len)
		return;
	buf[0] = '\0';
	if (!v) {
		snprintf(buf, len, "?");
		return;
	}
	memcpy(v, idx, sizeof(int) * (size_t)(n > 0 ? n : 0));
	qsort(v, (size_t)(n > 0 ? n : 0), sizeof(int), cmp_int);
	for (int k = 0; k < n;) {
		int j = k, w;

		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		if (j > k)
			w = snprintf(buf + used, len - used, "%s%d-%d",
				     k ? "," : "", v[k], v[j]);
		else
			w = snprintf(buf + used, len - used, "%s%d",
				     k ? "," : "", v[k]);
		if (w < 0 || (size_t)w >= len - used) {
			/* Too long: end with "..." where it fits. */
			size_t at = len > used + 3 ? used : len - 4;
			if (len >= 4)
				snprintf(buf + at, 4, "...");
			break;
		}
		used += (size_t)w;
		k = j + 1;
	}
	free(v);
}
