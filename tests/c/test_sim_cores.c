/*
 * The twin at core level (plugins/sim/sim_cores.c, GRANULARITY=core): a
 * hand-worked schedule of jobs of ranks (sbatch -n) on two 2-node leaves
 * of 4 cores, and the twin's core choice under each TreeMatch policy equal
 * to the library's for `make alloc` on the same state (a scenario's
 * busycores), with TreeMatch's law in the record.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "sim_helpers.h"
#include "place_cores.h"
#include "treematch.h"
#include "tests.h"

/* A job of ranks: id, offset, runtime, comm, limit (min), ranks. */
#define CJOB(id, off, rt, comm, lim, ranks) \
	id "\t" off "\t" rt "\t1\t" comm "\trd\t50\t" lim "\t0\t0\t0\t\t0\t" \
	ranks "\n"

/* Two leaves of two 4-core nodes: L1 nodes 0-1, L2 nodes 2-3. */
#define CORE_LEAVES "cores 4\nleaf L1 2 0 0\nleaf L2 2 0 0\n"

static int parse_run(struct tb_scenario *sc, const char *plan_text,
		     enum tb_policy policy, struct sim_plan *plan,
		     const char *matrix_of_last)
{
	struct sim_params p;
	char err[256];

	sim_params_default(&p);
	p.policy = policy;
	if (sim_plan_parse(plan_text, "plan", 1, sc->topo, plan, err,
			   sizeof(err))) {
		fprintf(stderr, "  plan: %s\n", err);
		return -1;
	}
	if (matrix_of_last) {
		struct sim_job *j = &plan->jobs[plan->n - 1];

		if (tb_matrix_parse(matrix_of_last, strlen(matrix_of_last),
				    "m", &j->matrix, err, sizeof(err))) {
			fprintf(stderr, "  matrix: %s\n", err);
			return -1;
		}
		j->job.matrix = j->matrix;
	}
	if (sim_run(sc->topo, plan, &p, err, sizeof(err))) {
		fprintf(stderr, "  run: %s\n", err);
		return -1;
	}
	return 0;
}

/* The cores job j holds on node v. */
static int cores_on(const struct sim_job *j, int v)
{
	for (int i = 0; i < j->n_on; i++)
		if (j->on[i] == v)
			return j->on_cores[i];
	return 0;
}

/*
 * Default (Slurm's choice as modelled: tb_tree_cores), all limits 10 min
 * but D's 1 min. Worked by hand:
 *
 *   A  6 ranks at 0, 100 s: both leaves fit 6 with 2 nodes, a tie: L1,
 *      node 0's 4 cores and 2 of node 1's. Ends 100.
 *   B  2 ranks at 1: L1 (1 node offered, node 1's 2 free cores) and L2
 *      (2 nodes) both fit; fewer nodes wins: node 1, beside A. The main
 *      pass starts it at 1 (a job in the free cores of a busy node).
 *   C  12 ranks at 2: 8 cores free, it waits. Backfill plans it at 600,
 *      A's start + limit (14 free: B holds node 1's 2 until 601), on all
 *      four nodes (neither leaf fits 12: L1's 6 first, then L2), which its
 *      reservation takes whole from 600 to 1200.
 *   D  4 ranks at 3, limit 60 s: node 2's 4 cores are free to 63, before
 *      C's reservation: backfill starts it at 3 on node 2.
 *   E  6 ranks at 4: node 3's 4 cores only; at 51 (B ended) 6 cores are
 *      free (node 1's 2, node 3's 4), but its 600-s limit would run into
 *      C's reservation of node 1 at 600: it waits, planned at 1200 (C's
 *      reservation's end), and the main pass starts it at 150.
 *   At 100 A ends: C starts on nodes 0, 1, 2 (L1's 8, then node 2's 4),
 *   E does not fit in node 3's 4 and waits for C's end, 150.
 */
/* A to D of that plan; E is each test's own. */
#define SCHEDULE_ABCD \
	CJOB("A", "0", "100", "0", "10", "6") \
	CJOB("B", "1", "50", "0", "10", "2") \
	CJOB("C", "2", "50", "0", "10", "12") \
	CJOB("D", "3", "50", "0", "1", "4")

void test_sim_cores_schedule(void)
{
	struct tb_scenario *sc = scenario(CORE_LEAVES "job nodes=1\n");
	struct sim_plan plan;
	struct sim_job *j;

	if (parse_run(sc, PLAN_HEAD SCHEDULE_ABCD
		      CJOB("E", "4", "50", "0", "10", "6"),
		      TB_POLICY_DEFAULT, &plan, NULL)) {
		CHECK(0);
		goto out;
	}
	j = plan.jobs;
	CHECK_NEAR(j[0].start, 0);
	CHECK_NEAR(j[0].end, 100);
	CHECK_EQ(j[0].n_on, 2);
	CHECK_EQ(cores_on(&j[0], 0), 4);
	CHECK_EQ(cores_on(&j[0], 1), 2);
	/* Ranks in blocks over the nodes in index order. */
	CHECK_EQ(j[0].alloc[0], 0);
	CHECK_EQ(j[0].alloc[3], 0);
	CHECK_EQ(j[0].alloc[4], 1);
	CHECK_EQ(j[0].alloc[5], 1);

	CHECK_NEAR(j[1].start, 1);
	CHECK_NEAR(j[1].end, 51);
	CHECK_EQ(j[1].by_backfill, 0);
	CHECK_EQ(j[1].n_on, 1);
	CHECK_EQ(cores_on(&j[1], 1), 2);

	CHECK_NEAR(j[2].planned, 600);
	CHECK_NEAR(j[2].start, 100);
	CHECK_NEAR(j[2].end, 150);
	CHECK_EQ(j[2].by_backfill, 0);
	CHECK_EQ(j[2].n_on, 3);
	CHECK_EQ(cores_on(&j[2], 0), 4);
	CHECK_EQ(cores_on(&j[2], 1), 4);
	CHECK_EQ(cores_on(&j[2], 2), 4);

	CHECK_NEAR(j[3].start, 3);
	CHECK_NEAR(j[3].end, 53);
	CHECK_EQ(j[3].by_backfill, 1);
	CHECK_EQ(j[3].n_on, 1);
	CHECK_EQ(cores_on(&j[3], 2), 4);

	CHECK_NEAR(j[4].planned, 1200);
	CHECK_NEAR(j[4].start, 150);
	CHECK_NEAR(j[4].end, 200);
	CHECK_EQ(j[4].by_backfill, 0);
	/* No record of costs at core level; a compute job's runtime. */
	CHECK(isnan(j[4].cost));
	CHECK_NEAR(j[4].runtime_scaled, 50);
out:
	sim_plan_free(&plan);
	tb_scenario_free(sc);
}

/* test_sim_cores_schedule's E with a 1-min limit: at 51 node 1's 2 and
 * node 3's 4 free cores hold it to 111, before C's reservation at 600:
 * backfill starts it then, over both leaves' nodes. */
void test_sim_cores_backfill_over_nodes(void)
{
	struct tb_scenario *sc = scenario(CORE_LEAVES "job nodes=1\n");
	struct sim_plan plan;
	struct sim_job *j;

	if (parse_run(sc, PLAN_HEAD SCHEDULE_ABCD
		      CJOB("E", "4", "50", "0", "1", "6"),
		      TB_POLICY_DEFAULT, &plan, NULL)) {
		CHECK(0);
		goto out;
	}
	j = plan.jobs;
	CHECK_NEAR(j[4].start, 51);
	CHECK_EQ(j[4].by_backfill, 1);
	CHECK_EQ(cores_on(&j[4], 1), 2);
	CHECK_EQ(cores_on(&j[4], 3), 4);
	/* C still starts when A ends: E ends at 101, so C waits for it. */
	CHECK_NEAR(j[2].start, 101);
out:
	sim_plan_free(&plan);
	tb_scenario_free(sc);
}

/*
 * The twin's choice against make alloc's: test_place_cores.c's hand-worked
 * machine (two leaves of two 2-core nodes, node 0 with one busy core)
 * made by a running 1-rank job X (Slurm's choice for 1 rank: L1, the tie,
 * node 0), then Y, 4 ranks with that scenario's pairs, under each
 * TreeMatch policy and default: Y's node of each rank equals
 * tb_place_ranks' on the scenario, and its record is TreeMatch's law on
 * the two hop-bytes (the policy's 404 over default's 802 at a = 0.5).
 */
#define CROSS_MACHINE "cores 2\nleaf a 2 0 0\nleaf b 2 0 0\n"
#define CROSS_PAIRS "pair 0 2 100\npair 1 3 100\npair 0 1 1\n"
#define CROSS_MATRIX "ranks 4\n0 2 100\n1 3 100\n0 1 1\n"

void test_sim_cores_choice_is_make_allocs(void)
{
	static const enum tb_policy pol[] = {
		TB_POLICY_DEFAULT, TB_POLICY_TM_A, TB_POLICY_TM_I,
		TB_POLICY_TM_SUB, TB_POLICY_TM_SUB3,
	};
	struct tb_scenario *sc = scenario(CROSS_MACHINE "job nodes=1\n");
	struct tb_scenario *alloc = scenario(CROSS_MACHINE "busycores 0:1\n"
					     CROSS_PAIRS "job ranks=4\n");

	for (size_t k = 0; k < sizeof(pol) / sizeof(pol[0]); k++) {
		struct sim_plan plan;
		struct sim_job *x, *y;
		int want[4];
		double hb, hbd = 802;

		if (parse_run(sc, PLAN_HEAD
			      CJOB("X", "0", "1000", "0", "60", "1")
			      CJOB("Y", "1", "100", "1", "60", "4"),
			      pol[k], &plan, CROSS_MATRIX)) {
			CHECK(0);
			sim_plan_free(&plan);
			continue;
		}
		x = &plan.jobs[0];
		y = &plan.jobs[1];
		CHECK_EQ(x->alloc[0], 0);
		CHECK_NEAR(y->start, 1);
		CHECK_EQ(tb_place_ranks(pol[k], alloc->topo, alloc->occ,
					&alloc->job, &alloc->opts, want, NULL,
					0), TB_OK);
		for (int r = 0; r < 4; r++)
			CHECK_EQ(y->alloc[r], want[r]);
		CHECK_EQ((int)y->used, (int)pol[k]);
		hb = tb_hop_bytes_cores(alloc->topo, alloc->matrix, want);
		CHECK_NEAR(y->hop_bytes, hb);
		CHECK_NEAR(y->hop_bytes_default, hbd);
		CHECK_NEAR(hb, pol[k] == TB_POLICY_DEFAULT ? 802 : 404);
		/* T' = (1 + R a - a) T, R = 404 / 802, a = 0.5, T = 100. */
		CHECK_NEAR(y->runtime_scaled,
			   (1 + 0.5 * hb / hbd - 0.5) * 100);
		CHECK_NEAR(y->end, 1 + y->runtime_scaled);
		sim_plan_free(&plan);
	}
	tb_scenario_free(sc);
	tb_scenario_free(alloc);
}

/* A node-level policy at core level: Slurm's cores (the plugin's
 * shared_nodes fallback; a communicating job without a matrix keeps its
 * runtime), and a whole-node job (PREFILL's) waits for a node without
 * core jobs: the partition main is exclusive. */
void test_sim_cores_other_policies_and_whole_nodes(void)
{
	struct tb_scenario *sc = scenario(CORE_LEAVES "job nodes=1\n");
	struct sim_plan plan;
	struct sim_job *j;

	if (parse_run(sc, PLAN_HEAD CJOB("A", "0", "100", "1", "10", "1")
		      "W\t1\t50\t4\t0\trd\t50\t10\t0\t0\t0\t\t0\t0\n",
		      TB_POLICY_GREEDY, &plan, NULL)) {
		CHECK(0);
		goto out;
	}
	j = plan.jobs;
	CHECK_EQ((int)j[0].used, (int)TB_POLICY_DEFAULT);
	CHECK(j[0].fallback && !strcmp(j[0].fallback, "shared_nodes"));
	/* Communicating, but no matrix: its log runtime, modelled as such. */
	CHECK_NEAR(j[0].runtime_scaled, 100);
	CHECK_EQ((int)j[0].runtime_why, (int)TB_RUNTIME_MODELLED);
	/* W, 4 whole nodes: node 0 has A's core until 100. */
	CHECK_NEAR(j[1].start, 100);
	CHECK_EQ(j[1].ranks, 0);
out:
	sim_plan_free(&plan);
	tb_scenario_free(sc);
}

void test_sim_cores_plan_errors(void)
{
	struct tb_scenario *sc = scenario(CORE_LEAVES "job nodes=1\n");
	struct sim_plan plan;
	char err[256] = "";

	CHECK(sim_plan_parse(PLAN_HEAD CJOB("A", "0", "100", "0", "10", "17"),
			     "plan", 1, sc->topo, &plan, err,
			     sizeof(err)) == -1);
	CHECK(strstr(err, "plan:2: ranks '17': expected a whole number from "
		      "0 (whole nodes) to the cluster's 16 cores") != NULL);
	if (!strstr(err, "cluster's 16 cores"))
		fprintf(stderr, "  got: %s\n", err);

	/* SIM_BF_COST's timed cycle plans node bitmaps: refused for cores. */
	struct sim_params p;

	sim_params_default(&p);
	p.bf_cost = 3;
	err[0] = '\0';
	CHECK(sim_plan_parse(PLAN_HEAD CJOB("A", "0", "100", "0", "10", "2"),
			     "plan", 1, sc->topo, &plan, err,
			     sizeof(err)) == 0);
	CHECK(sim_run(sc->topo, &plan, &p, err, sizeof(err)) == -1);
	CHECK(strstr(err, "--bf-cost 3: a timed backfill cycle is modelled "
		      "at node level only") != NULL);
	sim_plan_free(&plan);
	tb_scenario_free(sc);
}
