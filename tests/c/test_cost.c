/* The cost model against the paper's Figure 5 and hand-computed patterns. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cost.h"
#include "helpers.h"
#include "runtime_law.h"
#include "status.h"
#include "tests.h"
#include "treematch.h"

static const char *figure5 =
	"leaf s0 4 2 2\n"
	"leaf s1 4 0 0\n"
	"job nodes=4 comm=1 pattern=rd\n"
	"eval s0:2 s1:2\n";

void test_figure5_contention_and_hops(void)
{
	struct tb_scenario *s = scenario(figure5);
	struct tb_contention c;
	const int *a = s->eval_alloc;

	CHECK(tb_contention_init(&c, s->topo, s->occ, a, 4) == 0);
	CHECK_NEAR(tb_contention_factor(&c, a[0], a[1]), 1.0);
	CHECK_NEAR(tb_contention_factor(&c, a[0], a[2]), 1.875);
	CHECK_NEAR(tb_hops(&c, a[0], a[1]), 4.0);
	CHECK_NEAR(tb_hops(&c, a[0], a[2]), 11.5);
	/* Leaf s1 holds only the job's own two nodes: r = 0.5. */
	CHECK_NEAR(tb_hops(&c, a[2], a[3]), 3.0);
	CHECK_EQ(tb_pair_distance(s->topo, a[0], a[1]), 2);
	CHECK_EQ(tb_pair_distance(s->topo, a[0], a[3]), 4);
	tb_contention_fini(&c);
	tb_scenario_free(s);
}

void test_figure5_cost_per_pattern(void)
{
	struct tb_scenario *s = scenario(figure5);
	double cost;

	s->job.pattern = TB_PATTERN_RD;
	CHECK(tb_allocation_cost(s->topo, s->occ, &s->job, s->eval_alloc, &cost) == 0);
	CHECK_NEAR(cost, 4 + 11.5);
	s->job.pattern = TB_PATTERN_BINOMIAL;	/* 0->1, then 0->2 and 1->3 */
	tb_allocation_cost(s->topo, s->occ, &s->job, s->eval_alloc, &cost);
	CHECK_NEAR(cost, 4 + 11.5);
	s->job.pattern = TB_PATTERN_RING;	/* 3 steps, worst pair crosses */
	tb_allocation_cost(s->topo, s->occ, &s->job, s->eval_alloc, &cost);
	CHECK_NEAR(cost, 3 * 11.5);
	s->job.pattern = TB_PATTERN_RHVD;	/* far pairs first, message doubles */
	tb_allocation_cost(s->topo, s->occ, &s->job, s->eval_alloc, &cost);
	CHECK_NEAR(cost, 11.5 * 1 + 4 * 2);
	s->job.pattern = TB_PATTERN_CMC;
	tb_allocation_cost(s->topo, s->occ, &s->job, s->eval_alloc, &cost);
	CHECK_NEAR(cost, 0.7 * 15.5 + 0.3 * 15.5);
	tb_scenario_free(s);
}

void test_deeper_tree_contention(void)
{
	/* Three levels: pods under a root. r(pod0) = 4/8, r(root) = 5/16. */
	struct tb_scenario *s = scenario(
		"leaf a 4 2 2 parent pod0\n"
		"leaf b 4 0 0 parent pod0\n"
		"leaf c 4 0 0 parent pod1\n"
		"leaf d 4 0 0 parent pod1\n"
		"job nodes=3 comm=1 pattern=rd\n"
		"eval a:1 b:1 c:1\n");
	struct tb_contention c;
	const int *a = s->eval_alloc;

	tb_contention_init(&c, s->topo, s->occ, a, 3);
	c.eq3 = TB_EQ3_PATH;	/* the depth-general form */
	/* a: 3/4, b: 1/4, pod0: 4/8 at level 1. */
	CHECK_NEAR(tb_contention_factor(&c, a[0], a[1]), 0.75 + 0.25 + 0.5 / 2);
	/* a, pod0, root, pod1, c: root (5/16) at level 2, pod1 (1/8). */
	CHECK_NEAR(tb_contention_factor(&c, a[0], a[2]),
		   0.75 + 0.5 / 2 + (5.0 / 16) / 4 + (1.0 / 8) / 2 + 0.25);
	CHECK_EQ(tb_pair_distance(s->topo, a[0], a[2]), 6);
	tb_contention_fini(&c);
	tb_scenario_free(s);
}

void test_runtime_model(void)
{
	struct tb_job half = { .nodes = 4, .comm = 1, .comm_fraction = 0.5 };
	struct tb_job most = { .nodes = 1, .comm = 1, .comm_fraction = 0.9 };
	struct tb_job none = { .nodes = 4, .comm = 1, .comm_fraction = 0.0 };

	CHECK_NEAR(tb_scaled_runtime(&half, 100, 15.5, 10), 50 + 50 * 1.55);
	CHECK_NEAR(tb_scaled_runtime(&half, 100, 7, 7), 100);
	CHECK_NEAR(tb_scaled_runtime(&most, 100, 0, 0), 100);	/* 1-node job */
	CHECK_NEAR(tb_scaled_runtime(&none, 100, 30, 10), 100);
}

/* A missing cost (NaN) is neither "no change" passed off as a result nor
 * a NaN runtime for the job's sleep: the log's runtime, and the reason. */
void test_runtime_model_missing_cost(void)
{
	struct tb_job half = { .nodes = 4, .comm = 1, .comm_fraction = 0.5 };
	struct tb_job compute = { .nodes = 4, .comm = 0,
				  .comm_fraction = 0.5 };
	enum tb_runtime_fallback why = TB_RUNTIME_MODELLED;
	double t;

	t = tb_scaled_runtime_why(&half, 100, NAN, 10, &why);
	CHECK(!isnan(t));
	CHECK_NEAR(t, 100);
	CHECK_EQ(why, TB_RUNTIME_NO_COST);
	CHECK(tb_runtime_fallback_name(why) &&
	      !strcmp(tb_runtime_fallback_name(why), "no_cost"));
	CHECK_NEAR(tb_scaled_runtime(&half, 100, NAN, 10), 100);

	t = tb_scaled_runtime_why(&half, 100, 15.5, NAN, &why);
	CHECK_NEAR(t, 100);
	CHECK_EQ(why, TB_RUNTIME_NO_DENOMINATOR);
	CHECK(tb_runtime_fallback_name(why) &&
	      !strcmp(tb_runtime_fallback_name(why), "no_denominator"));

	/* Both missing: the policy's own cost is named first. */
	tb_scaled_runtime_why(&half, 100, NAN, NAN, &why);
	CHECK_EQ(why, TB_RUNTIME_NO_COST);

	/* A compute job keeps its runtime by the paper (P:275): no cost is
	 * needed, so nothing is missing. */
	t = tb_scaled_runtime_why(&compute, 100, NAN, NAN, &why);
	CHECK_NEAR(t, 100);
	CHECK_EQ(why, TB_RUNTIME_MODELLED);
	CHECK(tb_runtime_fallback_name(why) == NULL);

	/* The model applied resets a reason left from before. */
	why = TB_RUNTIME_NO_COST;
	CHECK_NEAR(tb_scaled_runtime_why(&half, 100, 15.5, 10, &why),
		   50 + 50 * 1.55);
	CHECK_EQ(why, TB_RUNTIME_MODELLED);

	/* TreeMatch's law (Sec. 3.2) goes through the same check. */
	CHECK_NEAR(tb_treematch_runtime_why(100, 0.4, NAN, 660, &why), 100);
	CHECK_EQ(why, TB_RUNTIME_NO_COST);
	CHECK_NEAR(tb_treematch_runtime_why(100, 0.4, 330, NAN, &why), 100);
	CHECK_EQ(why, TB_RUNTIME_NO_DENOMINATOR);
	CHECK_NEAR(tb_treematch_runtime(100, 0.4, NAN, 660), 100);
}

/*
 * The law a job's runtime follows (runtime_law.h), shared by the plugin and
 * the simulator: TreeMatch's for a matrix policy's communicating job with a
 * matrix (hop-bytes ratio), Eq. 7 otherwise (cost ratio), none for a
 * compute job. T = 100, share 0.5: hop-bytes 30 over 60 gives 75; cost 12
 * over 8 gives 125.
 */
void test_runtime_law_choice(void)
{
	struct tb_job comm = { .nodes = 4, .comm = 1, .comm_fraction = 0.5 };
	struct tb_job compute = { .nodes = 4, .comm = 0,
				  .comm_fraction = 0.5 };
	struct tb_runtime_costs c = { 12, 8, 30, 60 };
	enum tb_runtime_fallback why = TB_RUNTIME_NO_COST;

	CHECK_NEAR(tb_tree_runtime_why(TB_POLICY_TM_A, &comm, true, 100, 0.5,
				       &c, &why), 75);
	CHECK_EQ(why, TB_RUNTIME_MODELLED);
	/* No matrix: a TreeMatch policy's job has no hop-bytes, Eq. 7. */
	CHECK_NEAR(tb_tree_runtime_why(TB_POLICY_TM_A, &comm, false, 100, 0.5,
				       &c, NULL), 125);
	/* An ICPP policy with a matrix still follows Eq. 7. */
	CHECK_NEAR(tb_tree_runtime_why(TB_POLICY_GREEDY, &comm, true, 100,
				       0.5, &c, NULL), 125);
	CHECK_NEAR(tb_tree_runtime_why(TB_POLICY_TM_A, &compute, true, 100,
				       0.5, &c, NULL), 100);
	/* A missing hop-bytes figure is named, as Eq. 7's missing cost. */
	c.hop_bytes = NAN;
	CHECK_NEAR(tb_tree_runtime_why(TB_POLICY_TM_A, &comm, true, 100, 0.5,
				       &c, &why), 100);
	CHECK_EQ(why, TB_RUNTIME_NO_COST);
}

/* The record's word for a refusal Slurm's own choice stood in for: the
 * plugin and the simulator write the same one. */
void test_status_fallback_words(void)
{
	CHECK(!strcmp(tb_status_fallback(TB_ENOSPACE), "policy_no_space"));
	CHECK(!strcmp(tb_status_fallback(TB_ETOOBIG), "policy_too_big"));
	CHECK(!strcmp(tb_status_fallback(TB_ENOMEM), "policy_no_memory"));
	CHECK(!strcmp(tb_status_fallback(TB_EWAIT), "policy_wait"));
	CHECK(!strcmp(tb_status_fallback(TB_EINVAL), "policy_refused"));
}
