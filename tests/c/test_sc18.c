/*
 * The SC18 paper's interference-free policy (isolated, Algorithm 1), its
 * topology-oblivious baseline (firstfit) and the isolation validator.
 * Line numbers refer to ../shared/papers/interference-free-sc18.txt.
 */
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "isolation.h"
#include "policy.h"
#include "tests.h"

/* Figure 2's fat tree (lines 88-93): radix-6 switches, 3 nodes per leaf,
 * 3 leaves per pod, 2 pods. Node indexes: a0 0-2, a1 3-5, a2 6-8,
 * b0 9-11, b1 12-14, b2 15-17. */
#define FIG2 \
	"switch podA parent core\nswitch podB parent core\n" \
	"leaf a0 3 0 0 parent podA\nleaf a1 3 0 0 parent podA\n" \
	"leaf a2 3 0 0 parent podA\nleaf b0 3 0 0 parent podB\n" \
	"leaf b1 3 0 0 parent podB\nleaf b2 3 0 0 parent podB\n"
/* The same with a third pod: c0 18-20, c1 21-23, c2 24-26. */
#define THREE_PODS FIG2 \
	"switch podC parent core\nleaf c0 3 0 0 parent podC\n" \
	"leaf c1 3 0 0 parent podC\nleaf c2 3 0 0 parent podC\n"

/* Runs policy p on machine + running lines for a job of n nodes; the
 * sorted node list (or the status name) goes to buf. */
static enum tb_status place(const char *machine, const char *running, int n,
			    enum tb_policy p, enum tb_t3_leaf_order order,
			    char *buf, size_t len)
{
	char text[2048];
	struct tb_scenario *s;
	struct tb_isolated_opts opts = { order, NULL, 0 };
	enum tb_status rc;
	int *alloc;

	snprintf(text, sizeof(text), "%s%sjob nodes=%d\n", machine, running, n);
	s = scenario(text);
	alloc = malloc(sizeof(int) * (size_t)s->topo->n_nodes);
	CHECK(alloc != NULL);
	if (p == TB_POLICY_ISOLATED)
		rc = tb_policy_isolated_opts(s->topo, s->occ, &s->job, alloc,
					     &opts);
	else
		rc = tb_allocate(p, s->topo, s->occ, &s->job, alloc);
	if (rc == TB_OK)
		tb_format_index_list(alloc, n, buf, len);
	else
		snprintf(buf, len, "%s", rc == TB_EWAIT ? "wait" :
			 rc == TB_ENOSPACE ? "nospace" : "other");
	free(alloc);
	tb_scenario_free(s);
	return rc;
}

static void expect(const char *machine, const char *running, int n,
		   enum tb_policy p, enum tb_t3_leaf_order order,
		   const char *want, int line)
{
	char got[512];

	place(machine, running, n, p, order, got, sizeof(got));
	if (strcmp(got, want)) {
		fprintf(stderr, "  test_sc18.c:%d: %s, %d nodes: got %s, expected %s\n",
			line, tb_policy_name(p), n, got, want);
		tb_check_failures++;
	}
}

#define ISO(machine, running, n, want) \
	expect(machine, running, n, TB_POLICY_ISOLATED, \
	       TB_T3_LEAVES_MOST_FREE, want, __LINE__)
#define ISO_CODE(machine, running, n, want) \
	expect(machine, running, n, TB_POLICY_ISOLATED, \
	       TB_T3_LEAVES_LEAST_FREE, want, __LINE__)
#define FIRSTFIT(machine, running, n, want) \
	expect(machine, running, n, TB_POLICY_FIRSTFIT, \
	       TB_T3_LEAVES_MOST_FREE, want, __LINE__)

void test_sc18_classes_and_pods(void)
{
	struct tb_scenario *s = scenario(FIG2 "job nodes=1\n");
	struct tb_pods pd;

	CHECK_EQ(tb_pods_init(&pd, s->topo), 0);
	CHECK_EQ(pd.n_pods, 2);
	CHECK_EQ(pd.leaf_nodes, 3);
	CHECK_EQ(pd.pod_nodes, 9);
	/* Line 117: 1-3 nodes T1, 4-9 T2, 10-18 T3. */
	for (int n = 1; n <= 18; n++)
		CHECK_EQ(tb_class_of_size(&pd, n),
			 n <= 3 ? TB_CLASS_T1 : n <= 9 ? TB_CLASS_T2 : TB_CLASS_T3);
	/* A running job's class is also its span's (isolation.h). */
	CHECK_EQ(tb_class_of_nodes(s->topo, &pd, (int[]){ 0, 1 }, 2), TB_CLASS_T1);
	CHECK_EQ(tb_class_of_nodes(s->topo, &pd, (int[]){ 1, 4 }, 2), TB_CLASS_T2);
	CHECK_EQ(tb_class_of_nodes(s->topo, &pd, (int[]){ 7, 13 }, 2), TB_CLASS_T3);
	CHECK_EQ(tb_class_of_nodes(s->topo, &pd, (int[]){ 0, 1, 2, 3 }, 4),
		 TB_CLASS_T2);
	tb_pods_fini(&pd);
	tb_scenario_free(s);

	/* Two levels (leaves under one root): the machine is one pod. */
	s = scenario("leaf x 4 0 0\nleaf y 4 0 0\njob nodes=1\n");
	CHECK_EQ(tb_pods_init(&pd, s->topo), 0);
	CHECK_EQ(pd.n_pods, 1);
	CHECK_EQ(pd.pod_nodes, 8);
	CHECK_EQ(tb_class_of_size(&pd, 8), TB_CLASS_T2);
	tb_pods_fini(&pd);
	tb_scenario_free(s);

	/* One leaf: its own pod. */
	s = scenario("leaf x 4 0 0\njob nodes=1\n");
	CHECK_EQ(tb_pods_init(&pd, s->topo), 0);
	CHECK_EQ(pd.n_pods, 1);
	CHECK_EQ(tb_class_of_size(&pd, 4), TB_CLASS_T1);
	tb_pods_fini(&pd);
	tb_scenario_free(s);
}

struct seen {
	int n;
	struct tb_violation v[16];
};

static int collect(const struct tb_violation *v, void *arg)
{
	struct seen *s = arg;

	if (s->n < 16)
		s->v[s->n] = *v;
	s->n++;
	return 0;
}

static int has(const struct seen *s, enum tb_violation_kind k, int a, int b)
{
	for (int i = 0; i < s->n && i < 16; i++)
		if (s->v[i].kind == k && s->v[i].a == a && s->v[i].b == b)
			return 1;
	return 0;
}

/*
 * Figure 2 (lines 93, 97): red on nodes 1 and 4, blue on 2, 3, 5, 10, 11,
 * yellow on 7, 13, 14. Red and blue can share the a0-L2 link; blue and
 * yellow the pod-core links. The validator says so, and what breaks the
 * classes: red and yellow are T1 jobs on two leaves, blue a T2 job in two
 * pods.
 */
void test_sc18_figure2_validator(void)
{
	struct tb_scenario *s = scenario(FIG2 "job nodes=1\n");
	int red[] = { 1, 4 }, blue[] = { 2, 3, 5, 10, 11 }, yellow[] = { 7, 13, 14 };
	struct tb_placed_job jobs[] = {
		{ 0, 10, 2, red }, { 0, 10, 5, blue }, { 0, 10, 3, yellow },
	};
	struct seen seen = { 0 };

	CHECK_EQ(tb_isolation_check(s->topo, jobs, 3, collect, &seen), 5);
	CHECK(has(&seen, TB_V_T1_LEAVES, 0, -1));
	CHECK(has(&seen, TB_V_T2_PODS, 1, -1));
	CHECK(has(&seen, TB_V_T1_LEAVES, 2, -1));
	CHECK(has(&seen, TB_V_LEAF_SHARED, 0, 1));
	CHECK(has(&seen, TB_V_POD_SHARED, 1, 2));
	/* Not at the same time: only the per-job violations remain. */
	jobs[1].start = 10;
	jobs[1].end = 20;
	seen.n = 0;
	CHECK_EQ(tb_isolation_check(s->topo, jobs, 3, collect, &seen), 3);
	/* An isolated Figure 2: red on a0, blue on a1+a2 (T2 in pod A),
	 * yellow T1 on a1 beside blue, a T3 on pod B plus c... here b0-b2. */
	{
		int r2[] = { 0, 1 }, b2[] = { 3, 4, 6, 7, 8 }, y2[] = { 5 };
		int big[] = { 9, 10, 11, 12, 13, 14, 15, 16, 17, 2 };
		struct tb_placed_job ok[] = {
			{ 0, 10, 2, r2 }, { 0, 10, 5, b2 }, { 0, 10, 1, y2 },
			{ 0, 10, 10, big },
		};
		seen.n = 0;
		CHECK_EQ(tb_isolation_check(s->topo, ok, 4, collect, &seen), 0);
		/* The T3 job on a1 instead of a0 shares a leaf with T2 blue. */
		big[9] = 5;
		y2[0] = 2;
		CHECK_EQ(tb_isolation_check(s->topo, ok, 4, NULL, NULL), 1);
	}
	tb_scenario_free(s);
}

/* T1 (lines 8-18, 203): a leaf of the least available pod, the least
 * available leaf there that has N free nodes, its first N free nodes. */
void test_sc18_isolated_t1(void)
{
	/* Pod A has 8 free, pod B 7: pod B; b0 has 1 free. */
	ISO(FIG2, "running nodes=0\nrunning nodes=9-10\n", 1, "11");
	/* Two nodes: b1 and b2 tie at 3 free, topology order. */
	ISO(FIG2, "running nodes=0\nrunning nodes=9-10\n", 2, "12-13");
	/* Pod B less available but no leaf there fits 3: pod A, a1. */
	ISO(FIG2, "running nodes=0\nrunning nodes=9\nrunning nodes=12\n"
	    "running nodes=15\n", 3, "3-5");
	/* A T1 job shares a leaf with a T2 job (line 119). */
	ISO(FIG2, "running nodes=0-3\n", 2, "4-5");
	/* Figure 2's state: pod A is least available, a2 holds 6 and 8. */
	ISO(FIG2, "running nodes=1,4\nrunning nodes=2-3,5,10-11\n"
	    "running nodes=7,13-14\n", 2, "6,8");
	/* 6 nodes free, one per leaf: a 2-node job waits (never spread). */
	ISO(FIG2, "running nodes=0-1\nrunning nodes=3-4\nrunning nodes=6-7\n"
	    "running nodes=9-10\nrunning nodes=12-13\nrunning nodes=15-16\n",
	    2, "wait");
	FIRSTFIT(FIG2, "running nodes=0-1\nrunning nodes=3-4\nrunning nodes=6-7\n"
		 "running nodes=9-10\nrunning nodes=12-13\nrunning nodes=15-16\n",
		 2, "2,5");
	/* Too few free nodes at all is not a wait. */
	ISO(FIG2, "running nodes=0-16\n", 2, "nospace");
}

/* T2 (lines 19-30, 205-213): the least available pod where leaves with no
 * T2 or T3 job hold N free nodes; those leaves most to least available. */
void test_sc18_isolated_t2(void)
{
	/* Empty: pods tie, pod A; leaves tie, a0 then a1. */
	ISO(FIG2, "", 5, "0-4");
	/* A T1 job on a0 makes pod A least available; a0 is still
	 * eligible (line 121) but is taken last, having fewest free. */
	ISO(FIG2, "running nodes=0\n", 5, "3-7");
	ISO(FIG2, "running nodes=0\n", 8, "1-8");
	/* A T2 job on a0+a1: pod A has a2 only (3 < 4): pod B. */
	ISO(FIG2, "running nodes=0-3\n", 4, "9-12");
	/* A T3 job's leaves are closed to a T2 job too, not the other
	 * leaves of its pods: b1 and b2 take a T2 job beside it. */
	ISO(THREE_PODS, "running nodes=0-9\n", 4, "12-15");
	ISO(THREE_PODS, "running nodes=0-9,12\n", 4, "18-21");
	ISO(FIG2, "running nodes=0-9\n", 6, "12-17");
	ISO(FIG2, "running nodes=0-9\n", 7, "wait");
	/* examples/sc18-wait.scenario: 10 free, a 4-node T2 job waits, as
	 * a2 + b2 would need two pods; firstfit takes 4-7. */
	ISO(FIG2, "running nodes=0-3\nrunning nodes=9-12\n", 4, "wait");
	FIRSTFIT(FIG2, "running nodes=0-3\nrunning nodes=9-12\n", 4, "4-7");
	/* A 3-node T1 job spread over a0 and a1 by another policy counts
	 * as T2 there (its span), so a new T2 job avoids both leaves. */
	ISO(FIG2, "running nodes=0-1,3\n", 4, "9-12");
	/* Busy nodes of a leaf line belong to no job: they only occupy. */
	ISO("switch podA parent core\nswitch podB parent core\n"
	    "leaf a0 3 2 0 parent podA\nleaf a1 3 0 0 parent podA\n"
	    "leaf b0 3 0 0 parent podB\nleaf b1 3 0 0 parent podB\n",
	    "", 4, "2-5");
}

/* T3 (lines 31-41, 215): pods without a T3 job most to least available;
 * in each, leaves without a T2 job most (paper) or least (authors' code)
 * available. */
void test_sc18_isolated_t3(void)
{
	/* Empty: pod A whole, then b0's first node. */
	ISO(FIG2, "", 10, "0-9");
	/* A T2 job on a0+a1: pod B first (9 free), then pod A's a2. */
	ISO(FIG2, "running nodes=0-3\n", 10, "6,9-17");
	/* T1 jobs on b0 (1 node) and b1 (2): pod A first, then the paper
	 * takes b2 (3 free), the authors' code b1 (1 free). */
	ISO(FIG2, "running nodes=9\nrunning nodes=12-13\n", 10, "0-8,15");
	ISO_CODE(FIG2, "running nodes=9\nrunning nodes=12-13\n", 10, "0-8,14");
	/* A T3 job on pods A and B: 17 free, only pod C's 9 usable. */
	ISO(THREE_PODS, "running nodes=0-9\n", 10, "wait");
	/* A T2 job on a0+a1: pods B, C and a2 give 21 of 23 free. */
	ISO(THREE_PODS, "running nodes=0-3\n", 21, "6-26");
	ISO(THREE_PODS, "running nodes=0-3\n", 22, "wait");
	FIRSTFIT(THREE_PODS, "running nodes=0-3\n", 22, "4-25");
}

void test_sc18_scenario_running(void)
{
	static const char *const bad[] = {
		"leaf a 3 0 0\nrunning nodes=3\njob nodes=1\n",
		"leaf a 3 1 0\nrunning nodes=0\njob nodes=1\n",
		"leaf a 3 0 0\nrunning nodes=0-1\nrunning nodes=1\njob nodes=1\n",
		"leaf a 3 0 0\nrunning nodes=2-1\njob nodes=1\n",
		"leaf a 3 0 0\nrunning nodes=1,\njob nodes=1\n",
		"leaf a 3 0 0\nrunning comm=1\njob nodes=1\n",
		"leaf a 3 0 0\nrunning nodes=0 x=1\njob nodes=1\n",
	};
	struct tb_scenario *s;
	char err[256], buf[64];
	int *v, n;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(tb_scenario_parse(bad[i], strlen(bad[i]), "t", &s, err,
					sizeof(err)) == -1);
		CHECK(s == NULL);
	}
	s = scenario("leaf a 3 0 0\nleaf b 3 0 0\nrunning nodes=1,3-4 comm=1\n"
		     "running nodes=5\njob nodes=1\n");
	CHECK(s->occ->job != NULL);
	CHECK_EQ(s->occ->n_jobs, 2);
	CHECK_EQ(s->occ->job[0], -1);
	CHECK_EQ(s->occ->job[4], 0);
	CHECK_EQ(s->occ->job[5], 1);
	CHECK_EQ(s->occ->state[3], TB_NODE_BUSY_COMM);
	CHECK_EQ(s->occ->state[5], TB_NODE_BUSY);
	tb_scenario_free(s);

	CHECK_EQ(tb_parse_index_list("9,0-3", 10, &v, &n), 0);
	CHECK_EQ(n, 5);
	tb_format_index_list(v, n, buf, sizeof(buf));
	CHECK(!strcmp(buf, "0-3,9"));
	free(v);
	CHECK_EQ(tb_parse_index_list("10", 10, &v, &n), -1);
	CHECK_EQ(tb_parse_index_list("", 10, &v, &n), -1);
	CHECK_EQ(tb_parse_index_list("-1", 10, &v, &n), -1);
}


#define MAX_RUNNING 64

/*
 * 200 random machines, each driven through 30 arrivals and departures
 * with isolated placing every arrival: after each step the running jobs
 * keep the invariants, placements use free nodes only, and a refusal is
 * a wait only when enough nodes are free.
 */
void test_sc18_isolated_random_states(void)
{
	unsigned long long r = 0x9e3779b97f4a7c15ULL;

	for (int round = 0; round < 200; round++) {
		char text[4096];
		size_t used = 0;
		int pods = 1 + (int)tb_bench_rnd(&r, 4);
		int leaves = 1 + (int)tb_bench_rnd(&r, 4);
		int two_level = tb_bench_rnd(&r, 5) == 0;
		struct tb_scenario *s;
		struct tb_occupancy *o;
		struct tb_placed_job placed[MAX_RUNNING];
		int *alloc, *nodes[MAX_RUNNING] = { 0 }, size[MAX_RUNNING] = { 0 };
		enum tb_t3_leaf_order order = (enum tb_t3_leaf_order)tb_bench_rnd(&r, 2);

		for (int p = 0; p < pods; p++) {
			if (!two_level)
				used += (size_t)snprintf(text + used, sizeof(text) - used,
							 "switch p%d parent core\n", p);
			for (int l = 0; l < leaves; l++) {
				int k = 1 + (int)tb_bench_rnd(&r, 5);
				if (two_level)
					used += (size_t)snprintf(text + used,
						sizeof(text) - used,
						"leaf l%d_%d %d 0 0\n", p, l, k);
				else
					used += (size_t)snprintf(text + used,
						sizeof(text) - used,
						"leaf l%d_%d %d 0 0 parent p%d\n",
						p, l, k, p);
			}
		}
		snprintf(text + used, sizeof(text) - used, "job nodes=1\n");
		s = scenario(text);
		o = s->occ;
		o->job = malloc(sizeof(int) * (size_t)o->n_nodes);
		alloc = malloc(sizeof(int) * (size_t)o->n_nodes);
		CHECK(o->job && alloc);
		if (!o->job || !alloc)
			return;
		for (int k = 0; k < o->n_nodes; k++)
			o->job[k] = -1;
		o->n_jobs = MAX_RUNNING;
		for (int step = 0; step < 30; step++) {
			int slot = (int)tb_bench_rnd(&r, MAX_RUNNING), n_placed = 0;
			int free_nodes = 0, want;
			struct tb_isolated_opts opts = { order, NULL, 0 };
			enum tb_status rc;

			if (nodes[slot] && tb_bench_rnd(&r, 2) == 0) {
				for (int k = 0; k < size[slot]; k++) {
					o->state[nodes[slot][k]] = TB_NODE_FREE;
					o->job[nodes[slot][k]] = -1;
				}
				free(nodes[slot]);
				nodes[slot] = NULL;
				continue;
			}
			if (nodes[slot])
				continue;
			for (int k = 0; k < o->n_nodes; k++)
				free_nodes += o->state[k] == TB_NODE_FREE;
			want = 1 + (int)tb_bench_rnd(&r, (unsigned)o->n_nodes);
			if (tb_bench_rnd(&r, 3))
				want = 1 + want / 4;
			s->job.nodes = want;
			rc = tb_policy_isolated_opts(s->topo, o, &s->job, alloc,
						     &opts);
			if (rc == TB_ENOSPACE) {
				CHECK(free_nodes < want);
				continue;
			}
			if (rc == TB_EWAIT) {
				CHECK(free_nodes >= want);
				continue;
			}
			CHECK_EQ(rc, TB_OK);
			if (rc != TB_OK)
				continue;
			nodes[slot] = malloc(sizeof(int) * (size_t)want);
			CHECK(nodes[slot] != NULL);
			if (!nodes[slot])
				break;
			size[slot] = want;
			for (int k = 0; k < want; k++) {
				CHECK_EQ(o->state[alloc[k]], TB_NODE_FREE);
				o->state[alloc[k]] = TB_NODE_BUSY;
				o->job[alloc[k]] = slot;
				nodes[slot][k] = alloc[k];
			}
			for (int j = 0; j < MAX_RUNNING; j++) {
				if (!nodes[j])
					continue;
				placed[n_placed++] = (struct tb_placed_job){
					0, 1, size[j], nodes[j]
				};
			}
			CHECK_EQ(tb_isolation_check(s->topo, placed, n_placed,
						    NULL, NULL), 0);
		}
		for (int j = 0; j < MAX_RUNNING; j++)
			free(nodes[j]);
		free(alloc);
		tb_scenario_free(s);
	}
}
