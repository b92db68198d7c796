/*
 * The twin (plugins/sim): hand-worked schedules on small machines, and the
 * policy's choice in the twin against the library's on the same state as
 * `make alloc` builds it (a scenario's running lines).
 *
 * Plans are plan.tsv text at speedup 1 (limit_min x 60 = the limit in
 * seconds); the twin runs slurm.conf's settings (sim_params_default).
 */
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "sim_helpers.h"
#include "isolation.h"
#include "policy.h"
#include "tests.h"

/* A job line: id, offset, runtime, nodes, comm, limit (min). */
#define JOB(id, off, rt, n, comm, lim) \
	id "\t" off "\t" rt "\t" n "\t" comm "\trd\t50\t" lim "\t0\t0\t0\t\t0\t0\n"

/* Two leaves of 4 nodes: L1 0-3, L2 4-7. */
#define TWO_LEAVES "leaf L1 4 0 0\nleaf L2 4 0 0\n"

/* The plan on machine (and one job line for the scenario) under policy;
 * the jobs, or NULL (a failed check). */
static struct sim_job *run(const char *machine, const char *plan_text,
			   enum tb_policy policy, struct sim_plan *plan,
			   struct tb_scenario **sc)
{
	struct sim_params p;
	char text[512];

	snprintf(text, sizeof(text), "%sjob nodes=1\n", machine);
	sim_params_default(&p);
	p.policy = policy;
	return sim_test_run(text, plan_text, &p, plan, sc);
}

/* FIFO: an 8-node job holds the machine; the two 4-node jobs queued behind
 * it both start when it ends, in the log's order, nothing earlier. */
void test_sim_fifo(void)
{
	struct sim_plan plan;
	struct tb_scenario *sc;
	struct sim_job *j = run(TWO_LEAVES,
				PLAN_HEAD JOB("A", "0", "100", "8", "0", "10")
				JOB("B", "10", "50", "4", "0", "10")
				JOB("C", "20", "50", "4", "0", "10"),
				TB_POLICY_DEFAULT, &plan, &sc);

	if (j) {
		CHECK_NEAR(j[0].start, 0);
		CHECK_NEAR(j[0].end, 100);
		CHECK_NEAR(j[1].start, 100);
		CHECK_NEAR(j[1].end, 150);
		CHECK_NEAR(j[2].start, 100);
		CHECK_NEAR(j[2].end, 150);
		CHECK_NEAR(j[1].eligible, 10);
		CHECK_EQ(j[1].by_backfill, 0);
		/* Default (tree's best fit) gives each its own leaf. */
		CHECK(j[1].alloc[0] / 4 != j[2].alloc[0] / 4);
	}
	sim_plan_free(&plan);
	tb_scenario_free(sc);
}

/*
 * Backfill. A (6 nodes, limit 120 s) runs; B (8 nodes) must wait for it
 * and reserves the machine from A's limit, 120. C (2 nodes, limit 60 s)
 * fits in the 2 free nodes before 120: backfill starts it at once (the
 * main pass does not: B blocks it). D (2 nodes, limit 600 s) would hold
 * its nodes past 120: it waits, behind B, and starts when B ends.
 *
 *   A 0-100   B 100-200 (A ended early)   C 2-52 (backfilled)   D 200-250
 */
void test_sim_backfill_and_wait(void)
{
	struct sim_plan plan;
	struct tb_scenario *sc;
	struct sim_job *j = run(TWO_LEAVES,
				PLAN_HEAD JOB("A", "0", "100", "6", "0", "2")
				JOB("B", "1", "100", "8", "0", "10")
				JOB("C", "2", "50", "2", "0", "1")
				JOB("D", "3", "50", "2", "0", "10"),
				TB_POLICY_DEFAULT, &plan, &sc);

	if (j) {
		CHECK_NEAR(j[0].start, 0);
		CHECK_NEAR(j[1].start, 100);
		CHECK_NEAR(j[1].end, 200);
		CHECK_NEAR(j[2].start, 2);
		CHECK_NEAR(j[2].end, 52);
		CHECK_EQ(j[2].by_backfill, 1);
		CHECK_NEAR(j[3].start, 200);
		CHECK_EQ(j[3].by_backfill, 0);
		/* B's reservation: A's start + its limit. */
		CHECK_NEAR(j[1].planned, 120);
		/* D's first plan: after B, whose limit ends at 120 + 600. */
		CHECK_NEAR(j[3].planned, 720);
		/* At 3 the pass reserved for B and for D. */
		CHECK_EQ(plan.max_reserved, 2);
	}
	sim_plan_free(&plan);
	tb_scenario_free(sc);
}

/*
 * bf_window (BF_WINDOW): test_sim_backfill_and_wait's plan with a window of
 * 60 s. B's planned start, A's limit end at 120, always lies beyond now +
 * 60 before B starts, so B gets no reservation (backfill.c:3390-3404) and
 * protects nothing: at 3, D (2 nodes, limit 600 s) reserves C's two nodes
 * from C's limit end, 62; at 52, C ends and backfill starts D there and
 * then, its limit running to 652, past B's plan. B starts when D has ended,
 * at 102, not at 100; D at 52, not at 200. One reservation at most (D's).
 */
void test_sim_bf_window(void)
{
	struct sim_plan plan;
	struct tb_scenario *sc;
	struct sim_params p;
	char err[256];

	sc = scenario(TWO_LEAVES "job nodes=1\n");
	sim_params_default(&p);
	CHECK_NEAR(p.bf_window, 1440 * 60);	/* Slurm's default */
	p.bf_window = 60;
	CHECK(!sim_plan_parse(PLAN_HEAD JOB("A", "0", "100", "6", "0", "2")
			      JOB("B", "1", "100", "8", "0", "10")
			      JOB("C", "2", "50", "2", "0", "1")
			      JOB("D", "3", "50", "2", "0", "10"),
			      "plan", 1, sc->topo, &plan, err, sizeof(err)));
	CHECK(!sim_run(sc->topo, &plan, &p, err, sizeof(err)));
	CHECK(plan.jobs[1].planned < 0);
	CHECK_NEAR(plan.jobs[1].start, 102);
	CHECK_EQ(plan.jobs[1].by_backfill, 0);
	CHECK_NEAR(plan.jobs[2].start, 2);
	CHECK_NEAR(plan.jobs[3].planned, 62);
	CHECK_NEAR(plan.jobs[3].start, 52);
	CHECK_EQ(plan.jobs[3].by_backfill, 1);
	CHECK_EQ(plan.max_reserved, 1);
	sim_plan_free(&plan);
	tb_scenario_free(sc);
}

/* test_sim_backfill_and_wait's plan with C given no limit (LIMITS=none,
 * limit_min 0): Slurm's backfill plans it as a year (YEAR_MINUTES), which
 * ends after B's reservation at 120, so C is not backfilled into A's two
 * free nodes as it was with a limit of 1 min: B takes all 8 nodes from
 * 100 to 200, and C starts at 200 and runs its 50 s, no TIMEOUT. */
void test_sim_no_limit_is_a_year(void)
{
	struct sim_plan plan;
	struct tb_scenario *sc;
	struct sim_job *j = run(TWO_LEAVES,
				PLAN_HEAD JOB("A", "0", "100", "6", "0", "2")
				JOB("B", "1", "100", "8", "0", "10")
				JOB("C", "2", "50", "2", "0", "0"),
				TB_POLICY_DEFAULT, &plan, &sc);

	if (j) {
		CHECK_NEAR(j[2].limit, 365.0 * 24 * 3600);
		CHECK_EQ(j[2].by_backfill, 0);
		CHECK_NEAR(j[2].start, 200);
		CHECK_NEAR(j[2].end, 250);
		CHECK_EQ(j[2].how, SIM_COMPLETED);
	}
	sim_plan_free(&plan);
	tb_scenario_free(sc);
}

/* No backfill (BACKFILL=none): C waits behind B too. */
void test_sim_no_backfill(void)
{
	struct sim_plan plan;
	struct tb_scenario *sc;
	struct sim_params p;
	struct sim_job *j;

	sim_params_default(&p);
	p.backfill = SIM_BF_NONE;
	j = sim_test_run(TWO_LEAVES "job nodes=1\n",
			 PLAN_HEAD JOB("A", "0", "100", "6", "0", "2")
			 JOB("B", "1", "100", "8", "0", "10")
			 JOB("C", "2", "50", "2", "0", "1"),
			 &p, &plan, &sc);
	if (j)
		CHECK_NEAR(j[2].start, 200);
	sim_plan_free(&plan);
	tb_scenario_free(sc);
}

/* SC18's Figure 2 tree (test_sc18.c): two pods of three 3-node leaves. */
#define FIG2_TREE \
	"switch podA parent core\nswitch podB parent core\n" \
	"leaf a0 3 0 0 parent podA\nleaf a1 3 0 0 parent podA\n" \
	"leaf a2 3 0 0 parent podA\nleaf b0 3 0 0 parent podB\n" \
	"leaf b1 3 0 0 parent podB\nleaf b2 3 0 0 parent podB\n"

/*
 * isolated makes a job wait with enough nodes free: P takes 0-3, Q 9-12
 * (tb-alloc on the same states: examples/sc18-wait.scenario), and at 10 the
 * 4-node R finds 10 nodes free but no pod without a T2 job: it waits until
 * Q ends at 500. firstfit starts it at once.
 */
void test_sim_isolated_waits(void)
{
	const char *jobs = PLAN_HEAD JOB("P", "0", "1000", "4", "0", "20")
		JOB("Q", "0", "500", "4", "0", "10")
		JOB("R", "10", "100", "4", "0", "5");
	struct sim_plan plan;
	struct tb_scenario *sc;
	struct sim_job *j = run(FIG2_TREE, jobs, TB_POLICY_ISOLATED, &plan,
				&sc);

	if (j) {
		CHECK_EQ(j[0].alloc[0], 0);
		CHECK_EQ(j[1].alloc[0], 9);
		CHECK_NEAR(j[2].start, 500);
		CHECK_EQ(j[2].used, TB_POLICY_ISOLATED);
	}
	sim_plan_free(&plan);
	tb_scenario_free(sc);
	j = run(FIG2_TREE, jobs, TB_POLICY_FIRSTFIT, &plan, &sc);
	if (j)
		CHECK_NEAR(j[2].start, 10);
	sim_plan_free(&plan);
	tb_scenario_free(sc);
}

/*
 * Who answers backfill's trials of a job isolated makes wait (issue 28,
 * docs/results/2026-11-27-sc18-twin-gap.md). As test_sim_isolated_waits
 * plus Z, one node, limit 2 min (its end at 120 in backfill's plan). At
 * 10, R (4 nodes) is refused now; backfill's slices are then 120 (Z's
 * limit), 600 (Q's), 1200 (P's). Worked by hand:
 *  - wait_trials 0 (the policy decides every trial, Algorithm 1): at 120
 *    pods A and B still hold a T2 job (P, Q): refused; at 600 Q's nodes
 *    are free, pod B holds none: R is planned at 600;
 *  - wait_trials 1 (the emulated plugin before its fix): the offer at
 *    120 holds Z's node, busy now, so the plugin's _test_only is true,
 *    isolated's refusal falls back to tree, whose 4 nodes are there:
 *    planned at 120.
 * Either way R starts at 500, when Q ends and isolated places it.
 */
void test_sim_isolated_wait_trials(void)
{
	const char *jobs = PLAN_HEAD JOB("P", "0", "1000", "4", "0", "20")
		JOB("Q", "0", "500", "4", "0", "10")
		JOB("Z", "0", "50", "1", "0", "2")
		JOB("R", "10", "100", "4", "0", "5");
	char text[512];

	snprintf(text, sizeof(text), "%sjob nodes=1\n", FIG2_TREE);
	for (int mode = 0; mode <= 1; mode++) {
		struct sim_params p;
		struct sim_plan plan;
		struct tb_scenario *sc;
		struct sim_job *j;

		sim_params_default(&p);
		p.policy = TB_POLICY_ISOLATED;
		p.wait_trials = mode;
		j = sim_test_run(text, jobs, &p, &plan, &sc);
		if (j) {
			CHECK_NEAR(j[3].planned, mode ? 120 : 600);
			CHECK_NEAR(j[3].start, 500);
			CHECK_EQ(j[3].used, TB_POLICY_ISOLATED);
		}
		sim_plan_free(&plan);
		tb_scenario_free(sc);
	}
}

/*
 * The twin's choice is the library's on the same state: the jobs running
 * when C starts, as a scenario's running lines (what `make alloc` reads),
 * give tb_allocate_with the same nodes in the same rank order, and the
 * twin's recorded cost is that allocation's Eq. 6 cost.
 */
#define FOUR_LEAVES \
	"switch S1 parent top\nswitch S2 parent top\n" \
	"leaf L1 4 0 0 parent S1\nleaf L2 4 0 0 parent S1\n" \
	"leaf L3 4 0 0 parent S2\nleaf L4 4 0 0 parent S2\n"
/* A, B and X run when C starts at 10. */
#define ABXC_PLAN PLAN_HEAD JOB("A", "0", "1000", "3", "1", "20") \
	JOB("B", "0", "1000", "2", "0", "20") \
	JOB("X", "0", "1000", "3", "1", "20") \
	JOB("C", "10", "100", "5", "1", "5")

/* The scenario of C's start (ABXC_PLAN's jobs j): A, B and X running on
 * the twin's nodes, C the job. */
static struct tb_scenario *c_start_state(const struct sim_job *j)
{
	char text[1024], list[3][128];

	for (int k = 0; k < 3; k++)
		tb_format_index_list(j[k].alloc, j[k].nodes, list[k],
				     sizeof(list[k]));
	snprintf(text, sizeof(text), FOUR_LEAVES
		 "running nodes=%s comm=1\nrunning nodes=%s comm=0\n"
		 "running nodes=%s comm=1\njob nodes=5 comm=1 pattern=rd\n",
		 list[0], list[1], list[2]);
	return scenario(text);
}

static void same_choice(enum tb_policy policy)
{
	struct sim_plan plan;
	struct tb_scenario *sc, *alloc_sc;
	struct sim_job *j = run(FOUR_LEAVES, ABXC_PLAN, policy, &plan, &sc);
	int *alloc;
	double cost;

	if (!j) {
		sim_plan_free(&plan);
		tb_scenario_free(sc);
		return;
	}
	alloc_sc = c_start_state(j);
	alloc = calloc(5, sizeof(int));
	CHECK(alloc != NULL);
	CHECK_EQ(tb_allocate_with(policy, alloc_sc->topo, alloc_sc->occ,
				  &alloc_sc->job, &alloc_sc->opts, alloc),
		 TB_OK);
	CHECK_NEAR(j[3].start, 10);
	CHECK_EQ(j[3].used, policy);
	for (int k = 0; k < 5; k++)
		CHECK_EQ(j[3].alloc[k], alloc[k]);
	CHECK(!tb_allocation_cost(alloc_sc->topo, alloc_sc->occ,
				  &alloc_sc->job, alloc, &cost));
	CHECK_NEAR(j[3].cost, cost);
	free(alloc);
	tb_scenario_free(alloc_sc);
	sim_plan_free(&plan);
	tb_scenario_free(sc);
}

void test_sim_choice_is_make_allocs(void)
{
	same_choice(TB_POLICY_GREEDY);
	same_choice(TB_POLICY_BALANCED);
	same_choice(TB_POLICY_ADAPTIVE);
	same_choice(TB_POLICY_DEFAULT1905);
}

/* Eq. 7 at the start: the record's runtime is the library's, from the
 * policy's and default1905's costs on the same state; a compute job keeps
 * its runtime. */
void test_sim_runtime_is_eq7(void)
{
	struct sim_plan plan;
	struct tb_scenario *sc;
	struct sim_job *j = run(FOUR_LEAVES,
				PLAN_HEAD JOB("A", "0", "1000", "3", "1", "20")
				JOB("B", "0", "1000", "6", "1", "20")
				JOB("C", "10", "100", "5", "1", "5")
				JOB("D", "10", "100", "1", "0", "5"),
				TB_POLICY_GREEDY, &plan, &sc);

	if (j) {
		CHECK_NEAR(j[2].runtime_scaled,
			   tb_scaled_runtime(&j[2].job, 100, j[2].cost,
					     j[2].cost_denominator));
		CHECK_NEAR(j[2].end - j[2].start, j[2].runtime_scaled);
		CHECK_NEAR(j[3].runtime_scaled, 100);
	}
	sim_plan_free(&plan);
	tb_scenario_free(sc);
}

/*
 * --costs (sim_params.costed): each named policy's own choice's cost on the
 * state the job started in, as the plugin's cost_<policy>; here under the
 * baseline default1905, each against the library's on the state `make
 * alloc` builds from the jobs running when C starts; the baseline's own is
 * the record's cost; the result's last column names them.
 */
void test_sim_costed_same_state(void)
{
	static const enum tb_policy q[] = {
		TB_POLICY_GREEDY, TB_POLICY_BALANCED, TB_POLICY_ADAPTIVE,
		TB_POLICY_DEFAULT1905, TB_POLICY_DEFAULT
	};
	const int nq = (int)(sizeof(q) / sizeof(q[0]));
	struct sim_params p;
	struct sim_plan plan;
	struct sim_job *j;
	struct tb_scenario *sc;
	struct tb_scenario *alloc_sc;
	char text[1024], *out = NULL;
	size_t out_len = 0;
	FILE *f;
	int alloc[5], greedy_differs = 0;
	double cost;

	sim_params_default(&p);
	p.policy = TB_POLICY_DEFAULT1905;
	for (int k = 0; k < nq; k++)
		p.costed[p.n_costed++] = q[k];
	j = sim_test_run(FOUR_LEAVES "job nodes=1\n", ABXC_PLAN, &p, &plan,
			 &sc);
	CHECK(!j || j[3].costed != NULL);
	if (!j || !j[3].costed) {
		sim_plan_free(&plan);
		tb_scenario_free(sc);
		return;
	}
	alloc_sc = c_start_state(plan.jobs);
	for (int k = 0; k < nq; k++) {
		CHECK_EQ(tb_allocate_with(q[k], alloc_sc->topo, alloc_sc->occ,
					  &alloc_sc->job, &alloc_sc->opts,
					  alloc), TB_OK);
		CHECK(!tb_allocation_cost(alloc_sc->topo, alloc_sc->occ,
					  &alloc_sc->job, alloc, &cost));
		CHECK_NEAR(plan.jobs[3].costed[k], cost);
	}
	CHECK_NEAR(plan.jobs[3].costed[3], plan.jobs[3].cost);
	CHECK_NEAR(plan.jobs[3].costed[4], plan.jobs[3].cost_default);
	/* Not a copy of the baseline's: on this state greedy's costs more or
	 * less (else the test could not tell the two apart). */
	greedy_differs = plan.jobs[3].costed[0] != plan.jobs[3].cost;
	CHECK(greedy_differs);
	f = open_memstream(&out, &out_len);
	CHECK(f != NULL);
	if (f) {
		CHECK(!sim_write(f, sc->topo, &plan, &p));
		fclose(f);
		CHECK(strstr(out, "\trecorded\tranks\tcosts\n") != NULL);
		snprintf(text, sizeof(text), "\tgreedy=%.6g,balanced=",
			 plan.jobs[3].costed[0]);
		CHECK(strstr(out, text) != NULL);
		free(out);
	}
	tb_scenario_free(alloc_sc);
	sim_plan_free(&plan);
	tb_scenario_free(sc);
}

/* A bad plan is one line naming the file, the line and the value. */
void test_sim_plan_errors(void)
{
	struct sim_plan plan;
	struct tb_scenario *sc = scenario(TWO_LEAVES "job nodes=1\n");
	char err[256];

	CHECK(sim_plan_parse(PLAN_HEAD JOB("A", "0", "100", "9", "0", "10"),
			     "plan.tsv", 1, sc->topo, &plan, err,
			     sizeof(err)));
	CHECK(strstr(err, "plan.tsv:2: nodes '9'") != NULL);
	CHECK(sim_plan_parse(PLAN_HEAD JOB("A", "0", "100", "2", "0", "-1"),
			     "plan.tsv", 1, sc->topo, &plan, err,
			     sizeof(err)));
	CHECK(strstr(err, "limit_min '-1': expected minutes >= 0") != NULL);
	/* 0 is no limit (LIMITS=none): a year, beyond any window. */
	CHECK(!sim_plan_parse(PLAN_HEAD JOB("A", "0", "100", "2", "0", "0"),
			      "plan.tsv", 1, sc->topo, &plan, err,
			      sizeof(err)));
	CHECK_NEAR(plan.jobs[0].limit, 365.0 * 86400);
	sim_plan_free(&plan);
	CHECK(sim_plan_parse("log_id\toffset\n", "plan.tsv", 1, sc->topo,
			     &plan, err, sizeof(err)));
	CHECK(strstr(err, "no column 'runtime'") != NULL);
	tb_scenario_free(sc);
}
