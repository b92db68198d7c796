/*
 * The topology-aware (TA) interference-free policy of the SC18 paper,
 * Algorithm 1 (lines 143-199) with the rules of Section III-B (lines
 * 111-131) and the heuristics of lines 201-215. Pods and classes are
 * defined in isolation.h.
 *
 * Our reading of the printed pseudo-code, which is mis-indented:
 *  - line 17 "return S" belongs inside the if of line 14: a T1 job takes
 *    the first leaf, in the sorted order, with N available nodes;
 *  - lines 28-29: "return S" belongs inside the if of line 26 and "S = {}"
 *    closes the pod loop body: a T2 job that does not fit in one pod's
 *    eligible leaves drops what it took there and tries the next pod (the
 *    authors' code, t2_job_select, does the same);
 *  - line 40: "return S" inside the if of line 38; S is not reset between
 *    pods (a T3 job spans pods), and line 41 returns NULL when the eligible
 *    leaves of all eligible pods hold fewer than N nodes.
 * A job that cannot be placed this way waits (TB_EWAIT), even if N nodes
 * are free: it is never placed as a wider class (the authors' code says
 * "a job will never be upgraded").
 *
 * Ties (the paper is silent): pods and leaves with equal available nodes
 * keep topology order. The authors' code breaks ties by switch name,
 * ascending for the least-to-most sorts and descending for the
 * most-to-least ones (a side effect of sorting "<count><name>" strings);
 * we keep one order for all sorts, which only changes which of equally
 * good leaves is taken.
 *
 * "Available nodes" of a pod or leaf (lines 10, 12, 21, 23, 33, 35) are
 * its free nodes, all of them, whatever jobs hold the others; the
 * authors' code counts the same way (get_pods, get_switches).
 */
#include "isolation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pick.h"
#include "policy_registry.h"

#define HAS_T2 1
#define HAS_T3 2

struct iso {
	const struct tb_topology *t;
	const struct tb_occupancy *o;
	struct tb_pods pd;
	int *leaf_free;			/* per leaf rank */
	int *pod_free;			/* per pod */
	unsigned char *leaf_jobs;	/* per leaf rank: HAS_T2 | HAS_T3 */
	unsigned char *pod_t3;		/* per pod: holds a T3 job */
	int total_free;
};

struct key {
	int value;
	int index;
};

static int cmp_key(const void *x, const void *y)
{
	const struct key *a = x, *b = y;

	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	return (a->index > b->index) - (a->index < b->index);
}

static void iso_fini(struct iso *s)
{
	tb_pods_fini(&s->pd);
	free(s->leaf_free);
	free(s->pod_free);
	free(s->leaf_jobs);
	free(s->pod_t3);
}

/*
 * The state Algorithm 1 "maintains" (line 147): free nodes per leaf and
 * pod, and which leaves hold T2/T3 jobs and which pods T3 jobs. We derive
 * it from the snapshot at every decision instead of keeping it between
 * calls, so the caller need only say which job holds which node.
 */
static enum tb_status iso_init(struct iso *s, const struct tb_topology *t,
			       const struct tb_occupancy *o)
{
	size_t nl = (size_t)(t->n_leaves ? t->n_leaves : 1);
	int nj = o->job ? o->n_jobs : 0;
	int *cnt = NULL, *first_leaf = NULL, *first_pod = NULL;
	enum tb_status rc = TB_ENOMEM;

	memset(s, 0, sizeof(*s));
	s->t = t;
	s->o = o;
	if (tb_pods_init(&s->pd, t))
		return TB_ENOMEM;
	s->leaf_free = calloc(nl, sizeof(int));
	s->pod_free = calloc(nl, sizeof(int));
	s->leaf_jobs = calloc(nl, 1);
	s->pod_t3 = calloc(nl, 1);
	if (nj > 0) {
		cnt = calloc((size_t)nj, sizeof(int));
		first_leaf = malloc(sizeof(int) * (size_t)nj);
		first_pod = malloc(sizeof(int) * (size_t)nj);
	}
	if (!s->leaf_free || !s->pod_free || !s->leaf_jobs || !s->pod_t3 ||
	    (nj > 0 && (!cnt || !first_leaf || !first_pod)))
		goto out;
	for (int j = 0; j < nj; j++)
		first_leaf[j] = first_pod[j] = -1;
	rc = TB_EINVAL;
	for (int n = 0; n < t->n_nodes; n++) {
		int l = t->leaf_rank[t->nodes[n].leaf];
		int p = s->pd.pod_of_leaf[l], j;

		if (o->state[n] == TB_NODE_FREE) {
			s->leaf_free[l]++;
			s->pod_free[p]++;
			s->total_free++;
			continue;
		}
		if (!nj || (j = o->job[n]) < 0)
			continue;
		if (j >= nj)
			goto out;
		/* A job's span: its first leaf and pod, -2 once it has
		 * more than one. */
		cnt[j]++;
		if (first_leaf[j] == -1)
			first_leaf[j] = l;
		else if (first_leaf[j] != l)
			first_leaf[j] = -2;
		if (first_pod[j] == -1)
			first_pod[j] = p;
		else if (first_pod[j] != p)
			first_pod[j] = -2;
	}
	for (int n = 0; nj && n < t->n_nodes; n++) {
		int l = t->leaf_rank[t->nodes[n].leaf], j = o->job[n];
		enum tb_job_class c;

		if (o->state[n] == TB_NODE_FREE || j < 0)
			continue;
		/* The class of a running job comes from the job itself, the
		 * wider of its size's and its span's (isolation.h). */
		c = tb_class_of_size(&s->pd, cnt[j]);
		if (first_pod[j] == -2)
			c = TB_CLASS_T3;
		else if (first_leaf[j] == -2 && c == TB_CLASS_T1)
			c = TB_CLASS_T2;
		if (c == TB_CLASS_T2)
			s->leaf_jobs[l] |= HAS_T2;
		if (c == TB_CLASS_T3) {
			s->leaf_jobs[l] |= HAS_T3;
			s->pod_t3[s->pd.pod_of_leaf[l]] = 1;
		}
	}
	rc = TB_OK;
out:
	free(cnt);
	free(first_leaf);
	free(first_pod);
	if (rc != TB_OK)
		iso_fini(s);
	return rc;
}

static void say(const struct tb_isolated_opts *opts, const char *fmt, int a,
		int b)
{
	if (opts && opts->why && opts->whylen)
		snprintf(opts->why, opts->whylen, fmt, a, b);
}

/* Lines 8-18: pods least to most available, then the leaves of a pod least
 * to most available; the first leaf with N available nodes gives its first
 * N. Equivalent to the least (pod free, pod, leaf free, leaf) among leaves
 * with N free, which needs no sort. */
static enum tb_status allocate_small(struct iso *s, int n, struct tb_pick *pk,
				     const struct tb_isolated_opts *opts)
{
	int best = -1;

	for (int l = 0; l < s->t->n_leaves; l++) {
		int p = s->pd.pod_of_leaf[l], bp;

		if (s->leaf_free[l] < n)
			continue;
		if (best < 0) {
			best = l;
			continue;
		}
		bp = s->pd.pod_of_leaf[best];
		if (s->pod_free[p] != s->pod_free[bp] ?
		    s->pod_free[p] < s->pod_free[bp] :
		    p != bp ? p < bp : s->leaf_free[l] < s->leaf_free[best])
			best = l;
	}
	if (best < 0) {
		say(opts, "T1 job of %d nodes: no leaf has %d free nodes",
		    n, n);
		return TB_EWAIT;
	}
	tb_pick_from_leaf(pk, s->t->leaves[best], n);
	return TB_OK;
}

/* The leaves of pod p with free nodes and none of the jobs in `avoid`,
 * sorted by free nodes (descending if desc), ties in topology order. */
static int eligible_leaves(const struct iso *s, int p, unsigned char avoid,
			   int desc, struct key *keys)
{
	int m = 0;

	for (int i = s->pd.pod_start[p]; i < s->pd.pod_start[p + 1]; i++) {
		int l = s->pd.pod_leaves[i];

		if (!s->leaf_free[l] || (s->leaf_jobs[l] & avoid))
			continue;
		keys[m].value = desc ? -s->leaf_free[l] : s->leaf_free[l];
		keys[m++].index = l;
	}
	qsort(keys, (size_t)m, sizeof(*keys), cmp_key);
	return m;
}

/* Lines 19-30: the least available pod whose leaves without a T2 or T3
 * job hold N free nodes; in it, those leaves most to least available,
 * each giving its first N - |S| available nodes. */
static enum tb_status allocate_medium(struct iso *s, int n, struct tb_pick *pk,
				      struct key *keys,
				      const struct tb_isolated_opts *opts)
{
	int best = -1, m;

	for (int p = 0; p < s->pd.n_pods; p++) {
		int eligible = 0;

		if (best >= 0 && s->pod_free[p] >= s->pod_free[best])
			continue;
		for (int i = s->pd.pod_start[p]; i < s->pd.pod_start[p + 1];
		     i++) {
			int l = s->pd.pod_leaves[i];
			if (!s->leaf_jobs[l])
				eligible += s->leaf_free[l];
		}
		if (eligible >= n)
			best = p;
	}
	if (best < 0) {
		say(opts, "T2 job of %d nodes: no pod has %d free nodes on "
		    "leaves without a T2 or T3 job", n, n);
		return TB_EWAIT;
	}
	m = eligible_leaves(s, best, HAS_T2 | HAS_T3, 1, keys);
	for (int i = 0; i < m && pk->n < n; i++)
		tb_pick_from_leaf(pk, s->t->leaves[keys[i].index], n - pk->n);
	return TB_OK;
}

/* Lines 31-41: pods without a T3 job most to least available; in each,
 * the leaves without a T2 job most to least available (or least to most,
 * the authors' code); each gives its first N - |S| available nodes. */
static enum tb_status allocate_large(struct iso *s, int n, struct tb_pick *pk,
				     struct key *keys,
				     const struct tb_isolated_opts *opts)
{
	struct key *pods = malloc(sizeof(*pods) * (size_t)s->pd.n_pods);
	int np = 0, eligible = 0;
	int desc = !opts || opts->t3_leaves == TB_T3_LEAVES_MOST_FREE;

	if (!pods)
		return TB_ENOMEM;
	for (int p = 0; p < s->pd.n_pods; p++) {
		if (s->pod_t3[p] || !s->pod_free[p])
			continue;
		for (int i = s->pd.pod_start[p]; i < s->pd.pod_start[p + 1];
		     i++) {
			int l = s->pd.pod_leaves[i];
			/* No leaf of a pod without T3 holds a T3 job. */
			if (!(s->leaf_jobs[l] & HAS_T2))
				eligible += s->leaf_free[l];
		}
		pods[np].value = -s->pod_free[p];
		pods[np++].index = p;
	}
	if (eligible < n) {
		free(pods);
		say(opts, "T3 job of %d nodes: %d free nodes on leaves without "
		    "a T2 job in pods without a T3 job", n, eligible);
		return TB_EWAIT;
	}
	qsort(pods, (size_t)np, sizeof(*pods), cmp_key);
	for (int i = 0; i < np && pk->n < n; i++) {
		int m = eligible_leaves(s, pods[i].index, HAS_T2 | HAS_T3,
					desc, keys);
		for (int k = 0; k < m && pk->n < n; k++)
			tb_pick_from_leaf(pk, s->t->leaves[keys[k].index],
					  n - pk->n);
	}
	free(pods);
	return TB_OK;
}

enum tb_status tb_policy_isolated_opts(const struct tb_topology *t,
				       const struct tb_occupancy *o,
				       const struct tb_job *job, int *alloc,
				       const struct tb_isolated_opts *opts)
{
	struct iso s;
	struct tb_pick pk;
	struct key *keys;
	enum tb_status rc;
	int n = job->nodes;

	if (opts && opts->why && opts->whylen)
		opts->why[0] = '\0';
	if (n < 1 || o->n_nodes != t->n_nodes)
		return TB_EINVAL;
	if (n > t->n_nodes)
		return TB_ETOOBIG;
	rc = iso_init(&s, t, o);
	if (rc != TB_OK)
		return rc;
	if (s.total_free < n) {
		iso_fini(&s);
		say(opts, "%d free nodes for a %d-node job", s.total_free, n);
		return TB_ENOSPACE;
	}
	keys = malloc(sizeof(*keys) * (size_t)t->n_leaves);
	if (!keys || tb_pick_init(&pk, t, o, alloc)) {
		free(keys);
		iso_fini(&s);
		return TB_ENOMEM;
	}
	switch (tb_class_of_size(&s.pd, n)) {
	case TB_CLASS_T1:
		rc = allocate_small(&s, n, &pk, opts);
		break;
	case TB_CLASS_T2:
		rc = allocate_medium(&s, n, &pk, keys, opts);
		break;
	default:
		rc = allocate_large(&s, n, &pk, keys, opts);
		break;
	}
	if (rc == TB_OK && pk.n != n)
		rc = TB_EINVAL;	/* cannot happen: the counts said it fits */
	tb_pick_fini(&pk);
	free(keys);
	iso_fini(&s);
	return rc;
}

enum tb_status tb_policy_isolated(const struct tb_topology *t,
				  const struct tb_occupancy *o,
				  const struct tb_job *job,
				  const struct tb_options *opts, int *alloc)
{
	(void)opts;		/* its own options: tb_policy_isolated_opts */
	return tb_policy_isolated_opts(t, o, job, alloc, NULL);
}

enum tb_status tb_policy_isolated_why(const struct tb_topology *t,
				      const struct tb_occupancy *o,
				      const struct tb_job *job,
				      const struct tb_options *opts,
				      int *alloc, char *why, size_t whylen)
{
	struct tb_isolated_opts iso = { TB_T3_LEAVES_MOST_FREE, why, whylen };

	(void)opts;
	return tb_policy_isolated_opts(t, o, job, alloc, &iso);
}
