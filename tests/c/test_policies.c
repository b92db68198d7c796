/* Policies: the paper's Table 2, hand-traced Slurm tree decisions, and
 * properties over random cluster states. */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "cost.h"
#include "helpers.h"
#include "policy.h"
#include "tests.h"

static void check_choice(const char *text, enum tb_policy p,
			 const char *expected)
{
	struct tb_scenario *s = scenario(text);
	int *alloc = malloc(sizeof(int) * (size_t)s->job.nodes);
	char got[512];

	CHECK_EQ(tb_allocate(p, s->topo, s->occ, &s->job, alloc), TB_OK);
	leaf_counts(s->topo, alloc, s->job.nodes, got, sizeof(got));
	if (strcmp(got, expected)) {
		fprintf(stderr, "  %s: got '%s', expected '%s'\n",
			tb_policy_name(p), got, expected);
		tb_check_failures++;
	}
	free(alloc);
	tb_scenario_free(s);
}

static const char *table2 =
	"leaf L1 160 0 0\nleaf L2 150 0 0\nleaf L3 100 0 0\nleaf L4 80 0 0\n"
	"leaf L5 70 0 0\nleaf L6 50 0 0\nleaf L7 40 0 0\n"
	"job nodes=512 comm=1 pattern=rhvd\n";

void test_table2_balanced(void)
{
	check_choice(table2, TB_POLICY_BALANCED,
		     "L1:128 L2:128 L3:64 L4:64 L5:64 L6:32 L7:32");
}

void test_balanced_reverse_pass_and_compute_order(void)
{
	/* 5 + 3 free, 8 wanted: 4 + 2 by powers of two, then 1 + 1 back. */
	check_choice("leaf a 5 0 0\nleaf b 3 0 0\njob nodes=8 comm=1\n",
		     TB_POLICY_BALANCED, "a:5 b:3");
	/* A compute job starts with the leaf that has fewest free nodes. */
	check_choice("leaf a 8 0 0\nleaf b 8 4 0\njob nodes=4 comm=0\n",
		     TB_POLICY_BALANCED, "b:4");
}

void test_default_best_fit(void)
{
	/* The smallest leaf that fits wins. */
	check_choice("leaf a 4 0 0\nleaf b 4 1 0\nleaf c 4 0 0\njob nodes=3\n",
		     TB_POLICY_DEFAULT, "b:3");
	/* None fits: largest first, then the smallest that fits the rest. */
	check_choice("leaf a 4 0 0\nleaf b 6 0 0\nleaf c 5 0 0\njob nodes=10\n",
		     TB_POLICY_DEFAULT, "b:6 a:4");
}

void test_default_compares_parents_and_distance(void)
{
	/* Neither leaf fits 10: pods compare (pod0 has 10 free, pod1 11:
	 * the tighter pod wins), then the leaf closest to b (a, in pod0)
	 * beats the farther ones. */
	check_choice("leaf a 2 0 0 parent pod0\nleaf b 8 0 0 parent pod0\n"
		     "leaf c 3 0 0 parent pod1\nleaf d 8 0 0 parent pod1\n"
		     "job nodes=10\n",
		     TB_POLICY_DEFAULT, "b:8 a:2");
	/* The top switch is the highest with enough nodes: the root, so a
	 * 3-node job still goes to the best-fitting leaf in either pod. */
	check_choice("leaf a 8 0 0 parent pod0\nleaf b 8 0 0 parent pod0\n"
		     "leaf c 8 5 0 parent pod1\nleaf d 8 0 0 parent pod1\n"
		     "job nodes=3\n",
		     TB_POLICY_DEFAULT, "c:3");
	/* Distances count links, as tree's switches_dist: a and b hang under
	 * the root, c under pod p0. After a, b is 2 links away and c 3 (not
	 * 4 and 4, twice their common switch's level), so the closer b comes
	 * next although c alone fits the 3 left. */
	check_choice("leaf a 2 0 0\nleaf b 1 0 0\nleaf c 4 1 0 parent p0\n"
		     "job nodes=5\n",
		     TB_POLICY_DEFAULT, "a:2 b:1 c:2");
}

void test_greedy_orders_by_contention(void)
{
	const char *state =
		"leaf quiet 8 0 0\nleaf busy 8 4 4\nleaf some 8 2 2\n";
	char text[256];

	/* Every leaf fits: best fit, as Alg. 1 l. 2-5 (fit=quiet would take
	 * quiet:4, see test_icpp_paper.c). */
	snprintf(text, sizeof(text), "%sjob nodes=4 comm=1\n", state);
	check_choice(text, TB_POLICY_GREEDY, "busy:4");
	/* A compute-intensive job keeps the least contended leaves free. */
	snprintf(text, sizeof(text), "%sjob nodes=4 comm=0\n", state);
	check_choice(text, TB_POLICY_GREEDY, "busy:4");
	snprintf(text, sizeof(text), "%sjob nodes=10 comm=0\n", state);
	check_choice(text, TB_POLICY_GREEDY, "busy:4 some:6");
}

/* The Eq. 6 cost of policy p's choice for s's job (alloc: scratch). */
static double cost_of(enum tb_policy p, const struct tb_scenario *s,
		      int *alloc)
{
	double c = NAN;

	CHECK_EQ(tb_allocate(p, s->topo, s->occ, &s->job, alloc), TB_OK);
	CHECK_EQ(tb_allocation_cost(s->topo, s->occ, &s->job, alloc, &c), 0);
	return c;
}

/*
 * Adaptive's choice where greedy's and balanced's costs differ, so that
 * it shows: Table 2's compute-intensive job is a tie (1532 each, which
 * test_icpp_adaptive_tie covers), and there balanced is the cheaper for
 * the communication-intensive one. These add a communication-intensive
 * job on which greedy is the cheaper (23.5 against balanced's 38) and
 * compute-intensive ones on which greedy is the cheaper (15.5 against
 * 19.5: adaptive takes balanced's) and the costlier (21 against 19.5:
 * adaptive keeps greedy's). Costs as tb-alloc prints them.
 */
static const char *const adaptive_differs[] = {
	"leaf L0 8 3 1\nleaf L1 8 0 0\njob nodes=11 comm=1 pattern=rd\n",
	"leaf L0 8 7 0\nleaf L1 8 2 2\nleaf L2 8 6 2\n"
	"job nodes=8 comm=0 pattern=rd\n",
	"leaf L0 4 0 0\nleaf L1 8 4 1\nleaf L2 4 3 2\n"
	"job nodes=8 comm=0 pattern=rd\n",
};

void test_adaptive_picks_cheaper_or_costlier(void)
{
	struct tb_scenario *s = scenario(table2);
	int *alloc = malloc(sizeof(int) * 512);

	CHECK(alloc != NULL);
	if (!alloc) {
		tb_scenario_free(s);
		return;
	}
	/* Communication-intensive: the cheaper of greedy and balanced. */
	CHECK_NEAR(cost_of(TB_POLICY_ADAPTIVE, s, alloc),
		   fmin(cost_of(TB_POLICY_GREEDY, s, alloc),
			cost_of(TB_POLICY_BALANCED, s, alloc)));
	/* Compute-intensive: the costlier. */
	s->job.comm = 0;
	CHECK_NEAR(cost_of(TB_POLICY_ADAPTIVE, s, alloc),
		   fmax(cost_of(TB_POLICY_GREEDY, s, alloc),
			cost_of(TB_POLICY_BALANCED, s, alloc)));
	tb_scenario_free(s);
	for (size_t i = 0; i < sizeof(adaptive_differs) /
			       sizeof(*adaptive_differs); i++) {
		double g, b;

		s = scenario(adaptive_differs[i]);
		g = cost_of(TB_POLICY_GREEDY, s, alloc);
		b = cost_of(TB_POLICY_BALANCED, s, alloc);
		CHECK(fabs(g - b) > 1);
		CHECK_NEAR(cost_of(TB_POLICY_ADAPTIVE, s, alloc),
			   s->job.comm ? fmin(g, b) : fmax(g, b));
		tb_scenario_free(s);
	}
	free(alloc);
}

void test_refusals(void)
{
	struct tb_scenario *s = scenario("leaf a 4 2 0\nleaf b 4 0 0\njob nodes=7\n");
	int alloc[16];

	for (int p = 0; p < TB_POLICY_COUNT; p++)
		CHECK_EQ(tb_allocate((enum tb_policy)p, s->topo, s->occ, &s->job,
				     alloc), TB_ENOSPACE);
	s->job.nodes = 9;
	CHECK_EQ(tb_allocate(TB_POLICY_GREEDY, s->topo, s->occ, &s->job, alloc),
		 TB_ETOOBIG);
	s->job.nodes = 0;
	CHECK_EQ(tb_allocate(TB_POLICY_GREEDY, s->topo, s->occ, &s->job, alloc),
		 TB_EINVAL);
	tb_scenario_free(s);
}

/* --- properties over random states --------------------------------------- */

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;

static int rnd(int n)
{
	return (int)tb_bench_rnd(&rng_state, (unsigned)n);
}

static int is_pow2(int n)
{
	return n > 0 && !(n & (n - 1));
}

/* A random two- or three-level state as scenario text. */
static void random_state(char *buf, size_t len, int pow2_free, int *free_out)
{
	int pods = 1 + rnd(3), used = 0, total_free = 0;

	for (int p = 0; p < pods; p++) {
		int leaves = 1 + rnd(6);
		for (int l = 0; l < leaves; l++) {
			int nodes = 1 + rnd(24), busy, comm;
			if (pow2_free) {
				int f = 1 << rnd(5);
				nodes = f + rnd(4);
				busy = nodes - f;
			} else {
				busy = rnd(nodes + 1);
			}
			comm = rnd(busy + 1);
			total_free += nodes - busy;
			used += snprintf(buf + used, len - (size_t)used,
					 "leaf p%dl%d %d %d %d parent pod%d\n",
					 p, l, nodes, busy, comm, p);
		}
	}
	*free_out = total_free;
}

void test_properties_random_states(void)
{
	char text[8192], job[64];

	for (int round = 0; round < 400; round++) {
		int total_free, n;
		struct tb_scenario *s;
		int *alloc;
		unsigned char *seen;

		random_state(text, sizeof(text) - 64, 0, &total_free);
		n = 1 + rnd(total_free + 3);
		snprintf(job, sizeof(job), "job nodes=%d comm=%d pattern=%s\n",
			 n, rnd(2), tb_pattern_name((enum tb_pattern)rnd(5)));
		strcat(text, job);
		s = scenario(text);
		alloc = malloc(sizeof(int) * (size_t)s->topo->n_nodes + 64);
		seen = calloc((size_t)s->topo->n_nodes, 1);
		for (int p = 0; p < TB_POLICY_COUNT; p++) {
			enum tb_status rc = tb_allocate((enum tb_policy)p, s->topo,
							s->occ, &s->job, alloc);
			if (n > s->topo->n_nodes) {
				CHECK_EQ(rc, TB_ETOOBIG);
				continue;
			}
			if (n > total_free) {
				CHECK_EQ(rc, TB_ENOSPACE);
				continue;
			}
			/* TOFA's need a torus (test_tofa.c). */
			if (tb_policy_has((enum tb_policy)p, TB_TRAIT_TORUS)) {
				CHECK_EQ(rc, TB_EINVAL);
				continue;
			}
			/* Only isolated may wait with enough free nodes
			 * (SC18); test_sc18.c checks when. */
			if (p == TB_POLICY_ISOLATED && rc == TB_EWAIT)
				continue;
			CHECK_EQ(rc, TB_OK);
			memset(seen, 0, (size_t)s->topo->n_nodes);
			for (int k = 0; k < n; k++) {
				/* Exactly n nodes, each free, none twice. */
				CHECK(alloc[k] >= 0 && alloc[k] < s->topo->n_nodes);
				CHECK_EQ(s->occ->state[alloc[k]], TB_NODE_FREE);
				CHECK(!seen[alloc[k]]);
				seen[alloc[k]] = 1;
			}
		}
		free(seen);
		free(alloc);
		tb_scenario_free(s);
	}
}

void test_properties_balanced_powers_of_two(void)
{
	char text[8192], job[64], got[4096];

	for (int round = 0; round < 300; round++) {
		int total_free, n;
		struct tb_scenario *s;
		int *alloc;

		random_state(text, sizeof(text) - 64, 1, &total_free);
		n = 1;
		while (n * 2 <= total_free)
			n *= 2;
		n >>= rnd(3);
		if (n < 1)
			n = 1;
		snprintf(job, sizeof(job), "job nodes=%d comm=1\n", n);
		strcat(text, job);
		s = scenario(text);
		alloc = malloc(sizeof(int) * (size_t)n);
		CHECK_EQ(tb_allocate(TB_POLICY_BALANCED, s->topo, s->occ, &s->job,
				     alloc), TB_OK);
		/* Every leaf's share is a power of two. */
		leaf_counts(s->topo, alloc, n, got, sizeof(got));
		for (char *c = strchr(got, ':'); c; c = strchr(c + 1, ':')) {
			if (!is_pow2(atoi(c + 1))) {
				fprintf(stderr, "  not a power of two: %s\n", got);
				tb_check_failures++;
				break;
			}
		}
		free(alloc);
		tb_scenario_free(s);
	}
}

/*
 * Where greedy (Alg. 1) and balanced (Alg. 2) cannot part, and where they
 * do (docs/results/2026-11-27-icpp-policies-theta.md: on the Theta window
 * every start is of the first kind). Leaves of 4 under one root. Whole
 * free leaves have Eq. 1 ratio 0 and the most free nodes, first in both
 * orders, ties by topology order; balanced's chunk 8 halves to a whole
 * leaf. A compute-intensive job takes the partly free leaf first in both
 * (ratio 1.0 the highest; 2 free the fewest). Only partly free leaves
 * competing part them: greedy by ratio (f 0.25, d 1.0, g 1.25), balanced
 * by free nodes (f and g 3, then d 2) in powers of two.
 */
void test_greedy_balanced_whole_leaf_tie(void)
{
	const char *tie =
		"leaf a 4 0 0\nleaf b 4 4 4\nleaf c 4 0 0\nleaf d 4 2 1\n"
		"leaf e 4 0 0\n";
	const char *open =
		"leaf a 4 0 0\nleaf b 4 4 4\nleaf d 4 2 1\nleaf f 4 1 0\n"
		"leaf g 4 1 1\n";
	char text[256];

	snprintf(text, sizeof(text), "%sjob nodes=8 comm=1\n", tie);
	check_choice(text, TB_POLICY_GREEDY, "a:4 c:4");
	check_choice(text, TB_POLICY_BALANCED, "a:4 c:4");
	snprintf(text, sizeof(text), "%sjob nodes=8 comm=0\n", tie);
	check_choice(text, TB_POLICY_GREEDY, "d:2 a:4 c:2");
	check_choice(text, TB_POLICY_BALANCED, "d:2 a:4 c:2");
	snprintf(text, sizeof(text), "%sjob nodes=8 comm=1\n", open);
	check_choice(text, TB_POLICY_GREEDY, "a:4 f:3 d:1");
	check_choice(text, TB_POLICY_BALANCED, "a:4 f:2 g:2");
}
