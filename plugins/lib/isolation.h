/*
 * Interference-free allocation on fat trees, after Pollard, Jain, Herbein
 * and Bhatele, "Evaluation of an Interference-free Node Allocation Policy
 * on Fat-tree Clusters", SC18 (the "SC18 paper" below; line numbers refer
 * to ../shared/papers/interference-free-sc18.txt).
 *
 * Pods: the paper describes a three-level fat tree whose leaf (L1) and
 * second-level (L2) switches form pods under core switches (lines 88-90).
 * In the switch tree of topology.conf a pod is therefore a leaf's parent
 * switch. We use that definition for every depth:
 *  - 3 levels (leaf, pod, core): the pods are the level-1 switches;
 *  - 2 levels (leaf, root): the root is the only pod, so no job is T3;
 *  - 1 level (a single leaf, no parent): that leaf is its own pod;
 *  - 4 or more levels: the pod is still the leaf's parent. The paper's
 *    rules then keep T1/T2 jobs isolated, but two T3 jobs in disjoint
 *    pods may share links above the pods; the paper only treats three
 *    levels (line 88) and we do not extend it.
 * A pod's members are the leaves whose parent it is (a partition of the
 * leaves even in unbalanced trees), its size the sum of their nodes.
 *
 * Job classes (lines 111-117, Algorithm 1 lines 2-7): with k the nodes of
 * a leaf and p the nodes of a pod, a request of N nodes is T1 if N <= k,
 * T2 if N <= p, T3 otherwise. Where leaves (pods) differ in size we take k
 * (p) as the largest, so no request is put in a wider class than the
 * machine forces; the paper assumes equal sizes ((r/2) and (r/2)^2).
 */
#ifndef TB_ISOLATION_H
#define TB_ISOLATION_H

#include "job.h"
#include "occupancy.h"
#include "status.h"
#include "topology.h"

enum tb_job_class {
	TB_CLASS_T1 = 1,	/* fits on one leaf */
	TB_CLASS_T2 = 2,	/* fits in one pod */
	TB_CLASS_T3 = 3,	/* spans pods */
};

const char *tb_class_name(enum tb_job_class c);	/* "T1", "T2", "T3" */

struct tb_pods {
	int n_pods;
	int leaf_nodes;		/* k: nodes of the largest leaf */
	int pod_nodes;		/* p: nodes of the largest pod */
	int *pod_of_leaf;	/* per leaf rank: pod number */
	int *pod_switch;	/* per pod: the switch index */
	int *pod_start;		/* n_pods + 1 offsets into pod_leaves */
	int *pod_leaves;	/* leaf ranks grouped by pod, in rank order */
};

/* Pods are numbered in the order their first leaf appears. 0 or -1. */
int tb_pods_init(struct tb_pods *pd, const struct tb_topology *t);
void tb_pods_fini(struct tb_pods *pd);

enum tb_job_class tb_class_of_size(const struct tb_pods *pd, int nodes);

/*
 * The class of a running job, from the job itself: the wider of the class
 * its size gives and the class its span gives (one leaf: T1, one pod: T2,
 * several pods: T3). A job placed by another policy across two leaves uses
 * L1-L2 links like a T2 job (line 107), so it must count as one.
 */
enum tb_job_class tb_class_of_nodes(const struct tb_topology *t,
				    const struct tb_pods *pd,
				    const int *nodes, int n);

/* The isolated (topology-aware, TA) policy's options. */
enum tb_t3_leaf_order {
	/* Algorithm 1 line 35 and line 215: a T3 job's leaves within a pod
	 * most to least available. The paper's reading; the default. */
	TB_T3_LEAVES_MOST_FREE = 0,
	/* The authors' code (sampollard/flux-sched, branch topo,
	 * sched/sched_topo.c, t3_job_select) sorts them least to most. */
	TB_T3_LEAVES_LEAST_FREE,
};

struct tb_isolated_opts {
	enum tb_t3_leaf_order t3_leaves;
	char *why;		/* on TB_EWAIT/TB_ENOSPACE, why; may be NULL */
	size_t whylen;
};

/*
 * Algorithm 1 with options. Uses o->job (see occupancy.h) to know which
 * running job holds each busy node; busy nodes without a job are taken as
 * held by nothing that uses switch links (down or drained nodes, or the
 * anonymous busy nodes of a scenario's leaf lines).
 */
enum tb_status tb_policy_isolated_opts(const struct tb_topology *t,
				       const struct tb_occupancy *o,
				       const struct tb_job *job, int *alloc,
				       const struct tb_isolated_opts *opts);

/*
 * The validator: jobs with a run interval [start, end) and their nodes;
 * checks the paper's invariants on every set of jobs running at once:
 *  - a T1 job (by size) sits on one leaf (T1 allocation, line 119);
 *  - a T2 job (by size) sits in one pod (T2 allocation, line 121);
 *  - no leaf holds two T2-or-T3 jobs at once (lines 121, 123);
 *  - no pod holds two T3 jobs at once (line 123).
 * For the last two a job's class is tb_class_of_nodes(), so a small job
 * spread over leaves counts with the class of its span.
 */
struct tb_placed_job {
	long long start, end;
	int n_nodes;
	const int *nodes;	/* node indexes, each < t->n_nodes */
};

enum tb_violation_kind {
	TB_V_T1_LEAVES,		/* a: T1 job on several leaves */
	TB_V_T2_PODS,		/* a: T2 job in several pods */
	TB_V_LEAF_SHARED,	/* a, b: two T2/T3 jobs on leaf sw */
	TB_V_POD_SHARED,	/* a, b: two T3 jobs in pod sw */
};

struct tb_violation {
	enum tb_violation_kind kind;
	int a, b;		/* job indexes (b = -1 for one-job kinds) */
	int sw;			/* a leaf or pod switch index; -1 if none */
	int count;		/* leaves or pods spanned (one-job kinds) */
};

/* Called per violation; a nonzero return stops the check. */
typedef int (*tb_violation_fn)(const struct tb_violation *v, void *arg);

/* Returns the number of violations found (0: isolated), or -1 when out of
 * memory or given a node index out of range. fn may be NULL. */
long tb_isolation_check(const struct tb_topology *t,
			const struct tb_placed_job *jobs, int n_jobs,
			tb_violation_fn fn, void *arg);

/* "0-3,9" -> {0,1,2,3,9}: indexes in [0, max); *out is malloc'd. Returns
 * 0, or -1 (bad syntax, out of range, or out of memory: *out NULL). */
int tb_parse_index_list(const char *s, int max, int **out, int *n);

/* Sorted indexes as ranges, "0-3,9", truncated with "..." if too long. */
void tb_format_index_list(const int *idx, int n, char *buf, size_t len);

#endif
