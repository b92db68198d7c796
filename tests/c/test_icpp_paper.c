/*
 * ICPP-W 2020 read against the code: for each place where the paper's form
 * and our earlier reading differ, a case worked by hand that tells them
 * apart (P:n is line n of the paper's text).
 */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "cost.h"
#include "helpers.h"
#include "options.h"
#include "policy.h"
#include "tests.h"

/* The leaves `p` takes on the scenario under the options words. */
static void expect(const char *text, const char *words, enum tb_policy p,
		   const char *expected)
{
	struct tb_scenario *s = scenario(text);
	int *alloc = malloc(sizeof(int) * (size_t)s->topo->n_nodes);
	char got[512], err[160];

	if (!alloc)
		abort();
	CHECK_EQ(tb_options_parse(words, &s->opts, err, sizeof(err)), 0);
	CHECK_EQ(tb_allocate_with(p, s->topo, s->occ, &s->job, &s->opts,
				  alloc), TB_OK);
	leaf_counts(s->topo, alloc, s->job.nodes, got, sizeof(got));
	if (strcmp(got, expected)) {
		fprintf(stderr, "  %s [%s]: got '%s', expected '%s'\n",
			tb_policy_name(p), words, got, expected);
		tb_check_failures++;
	}
	free(alloc);
	tb_scenario_free(s);
}

static double eval_cost(const char *text, const char *words)
{
	struct tb_scenario *s = scenario(text);
	char err[160];
	double cost = -1;

	CHECK_EQ(tb_options_parse(words, &s->opts, err, sizeof(err)), 0);
	CHECK_EQ(tb_allocation_cost_with(s->topo, s->occ, &s->job, &s->opts,
					 s->eval_alloc, &cost), 0);
	tb_scenario_free(s);
	return cost;
}

/*
 * Eq. 1 on four leaves of 16 nodes (nodes, busy, busy with comm jobs):
 *   A 16 8 8: 8/8 + 8/16 = 1.5       share 8/16 = 0.5
 *   B 16 4 0: 0/4 + 4/16 = 0.25      share 0
 *   C 16 12 2: 2/12 + 12/16 = 0.9167 share 2/16 = 0.125
 *   D 16 1 0: 0/1 + 1/16 = 0.0625    share 0
 * A compute job of 20 takes the most contended first (Alg. 1 l. 9-10):
 * A (8 free), C (4), then Eq. 1 says B (12 free, 8 taken); the share ties
 * B and D at 0 and more free nodes first gives D.
 */
static const char *eq1_state =
	"leaf A 16 8 8\nleaf B 16 4 0\nleaf C 16 12 2\nleaf D 16 1 0\n";

void test_icpp_eq1_communication_ratio(void)
{
	struct tb_scenario *s;
	struct tb_switch_counts c;
	char text[256];

	snprintf(text, sizeof(text), "%sjob nodes=20 comm=0\n", eq1_state);
	s = scenario(text);
	CHECK_EQ(tb_counts_init(&c, s->topo, s->occ), 0);
	CHECK_NEAR(tb_comm_ratio_eq1(s->topo, &c, tb_switch_find(s->topo, "A")),
		   1.5);
	CHECK_NEAR(tb_comm_ratio_eq1(s->topo, &c, tb_switch_find(s->topo, "B")),
		   0.25);
	CHECK_NEAR(tb_comm_ratio_eq1(s->topo, &c, tb_switch_find(s->topo, "C")),
		   2.0 / 12 + 0.75);
	CHECK_NEAR(tb_comm_ratio_eq1(s->topo, &c, tb_switch_find(s->topo, "D")),
		   1.0 / 16);
	tb_counts_fini(&c);
	tb_scenario_free(s);

	expect(text, "", TB_POLICY_GREEDY, "A:8 C:4 B:8");
	expect(text, "ratio=share", TB_POLICY_GREEDY, "A:8 C:4 D:8");
	/* A communication-intensive job: D (0.0625) then B (0.25) either
	 * way, the share breaking its B/D tie by free nodes. */
	snprintf(text, sizeof(text), "%sjob nodes=20 comm=1\n", eq1_state);
	expect(text, "", TB_POLICY_GREEDY, "D:15 B:5");
	expect(text, "ratio=share", TB_POLICY_GREEDY, "D:15 B:5");
	/* Nothing busy anywhere: Eq. 1 is 0 on every leaf, no division. */
	expect("leaf a 4 0 0\nleaf b 8 0 0\njob nodes=10 comm=1\n", "",
	       TB_POLICY_GREEDY, "b:8 a:2");
}

/* Alg. 1 l. 2-5: a switch below the root fits; the paper takes the one
 * Slurm would (best fit), fit=quiet the least contended. */
void test_icpp_greedy_fitting_leaf(void)
{
	const char *text = "leaf quiet 8 0 0\nleaf busy 8 4 4\nleaf some 8 2 2\n"
			   "job nodes=4 comm=1\n";

	expect(text, "", TB_POLICY_GREEDY, "busy:4");
	expect(text, "fit=quiet", TB_POLICY_GREEDY, "quiet:4");
	expect(text, "fit=quiet ratio=share", TB_POLICY_GREEDY, "quiet:4");
	/* Two pods fit 6: best fit takes pod1 (7 free), quiet pod0 (no
	 * communication), then each orders its leaves by Eq. 1. */
	text = "leaf a 4 0 0 parent pod0\nleaf b 4 0 0 parent pod0\n"
	       "leaf c 4 1 1 parent pod1\nleaf d 4 0 0 parent pod1\n"
	       "job nodes=6 comm=1\n";
	expect(text, "", TB_POLICY_GREEDY, "d:4 c:2");
	expect(text, "fit=quiet", TB_POLICY_GREEDY, "a:4 b:2");
}

/*
 * Eq. 3 pools only the two leaves in its third term. Figure 5 with a
 * third, full leaf s2 under the same root: the pair form keeps Figure 5's
 * C(n0, n4) = 4/4 + 2/4 + 1/2 x 6/8 = 1.875 (Hops 11.5, RD cost 15.5);
 * the path form charges the root its whole subtree, 10/12:
 * C = 1.5 + 1/2 x 10/12, Hops = 4 x (1 + C) = 11.6667, cost 15.6667.
 */
void test_icpp_eq3_pair_and_path(void)
{
	const char *figure5 = "leaf s0 4 2 2\nleaf s1 4 0 0\n"
			      "job nodes=4 comm=1 pattern=rd\neval s0:2 s1:2\n";
	const char *three = "leaf s0 4 2 2\nleaf s1 4 0 0\nleaf s2 4 4 4\n"
			    "job nodes=4 comm=1 pattern=rd\neval s0:2 s1:2\n";
	const char *deep = "leaf a 4 2 2 parent pod0\nleaf b 4 0 0 parent pod0\n"
			   "leaf c 4 0 0 parent pod1\nleaf d 4 0 0 parent pod1\n"
			   "job nodes=3 comm=1 pattern=rd\neval a:1 b:1 c:1\n";
	struct tb_scenario *s;
	struct tb_contention c;

	CHECK_NEAR(eval_cost(figure5, ""), 15.5);
	CHECK_NEAR(eval_cost(figure5, "eq3=path"), 15.5);
	CHECK_NEAR(eval_cost(three, ""), 15.5);
	CHECK_NEAR(eval_cost(three, "eq3=path"),
		   4 + 4 * (1 + 1.5 + 0.5 * 10 / 12));
	/* Three levels: the pair form still has three terms, 3/4 + 1/4 +
	 * 1/2 x 4/8, and d = 6; the path form adds pod0, root and pod1. */
	s = scenario(deep);
	CHECK_EQ(tb_contention_init(&c, s->topo, s->occ, s->eval_alloc, 3), 0);
	CHECK_NEAR(tb_contention_factor(&c, s->eval_alloc[0],
					s->eval_alloc[2]), 1.25);
	CHECK_NEAR(tb_hops(&c, s->eval_alloc[0], s->eval_alloc[2]), 6 * 2.25);
	tb_contention_fini(&c);
	tb_scenario_free(s);
}

/* Table 1: L_comm counts nodes running communication-intensive jobs, so a
 * compute job's own nodes do not raise it. Figure 5's state with a compute
 * job on n0, n1, n4, n5: C(n0, n1) = 2/4, C(n0, n4) = 2/4 + 0 + 1/2 x 2/8;
 * RD: max(2 x 1.5, 2 x 1) + 4 x 1.625 = 9.5. */
void test_icpp_compute_job_contention(void)
{
	CHECK_NEAR(eval_cost("leaf s0 4 2 2\nleaf s1 4 0 0\n"
			     "job nodes=4 comm=0 pattern=rd\neval s0:2 s1:2\n",
			     ""), 3 + 6.5);
}

/* Eq. 7 and P:275: only a communication-intensive job is rescaled. */
void test_icpp_eq7_compute_job_unchanged(void)
{
	struct tb_job comm = { .nodes = 4, .comm = 1, .comm_fraction = 0.5 };
	struct tb_job compute = { .nodes = 4, .comm = 0, .comm_fraction = 0.5 };

	CHECK_NEAR(tb_scaled_runtime(&comm, 100, 30, 10), 50 + 50 * 3);
	CHECK_NEAR(tb_scaled_runtime(&compute, 100, 30, 10), 100);
	CHECK_NEAR(tb_scaled_runtime(&compute, 100, 5, 10), 100);
}

/*
 * The baseline (P:68): the lowest switch with enough free nodes (best fit
 * among equals), then its leaves fewest free nodes first. Slurm 24.11's
 * tree (`default`) instead takes the largest leaf when none fits and then
 * the smallest that fits the rest.
 */
void test_icpp_default1905(void)
{
	const char *table2 =
		"leaf L1 160 0 0\nleaf L2 150 0 0\nleaf L3 100 0 0\n"
		"leaf L4 80 0 0\nleaf L5 70 0 0\nleaf L6 50 0 0\n"
		"leaf L7 40 0 0\njob nodes=512 comm=1 pattern=rhvd\n";
	const char *three = "leaf a 4 0 0\nleaf b 6 0 0\nleaf c 5 0 0\n"
			    "job nodes=10\n";
	const char *pods =
		"leaf a 2 0 0 parent pod0\nleaf b 8 0 0 parent pod0\n"
		"leaf c 3 0 0 parent pod1\nleaf d 8 0 0 parent pod1\n";
	char text[256];
	struct tb_options o = tb_options_default();
	char err[160];

	expect(table2, "", TB_POLICY_DEFAULT1905,
	       "L7:40 L6:50 L5:70 L4:80 L3:100 L2:150 L1:22");
	expect(three, "", TB_POLICY_DEFAULT1905, "a:4 c:5 b:1");
	expect(three, "", TB_POLICY_DEFAULT, "b:6 a:4");
	/* The same nodes in the order Slurm lays out tasks (ranks=index). */
	expect(three, "ranks=index", TB_POLICY_DEFAULT1905, "a:4 b:1 c:5");
	expect(three, "ranks=index", TB_POLICY_DEFAULT, "a:4 b:6");
	/* ranks=authors: the authors' code costs default in index order. */
	expect(three, "ranks=authors", TB_POLICY_DEFAULT1905, "a:4 b:1 c:5");
	expect(three, "ranks=authors", TB_POLICY_DEFAULT, "a:4 b:6");
	/* A leaf fits: the one with fewest free nodes. */
	expect("leaf a 4 0 0\nleaf b 4 1 0\nleaf c 4 0 0\njob nodes=3\n", "",
	       TB_POLICY_DEFAULT1905, "b:3");
	/* Both pods fit 9 and 10: the tighter pod0 (10 free), small leaf
	 * first; Slurm 24.11 would start at the root. */
	snprintf(text, sizeof(text), "%sjob nodes=9\n", pods);
	expect(text, "", TB_POLICY_DEFAULT1905, "a:2 b:7");
	/* 11 fits pod1 only. */
	snprintf(text, sizeof(text), "%sjob nodes=11\n", pods);
	expect(text, "", TB_POLICY_DEFAULT1905, "c:3 d:8");
	/* Its cost divides in Eq. 7 unless denominator=default. */
	CHECK_EQ(tb_denominator_policy(NULL), TB_POLICY_DEFAULT1905);
	CHECK_EQ(tb_denominator_policy(&o), TB_POLICY_DEFAULT1905);
	CHECK_EQ(tb_options_parse("denominator=default", &o, err, sizeof(err)),
		 0);
	CHECK_EQ(tb_denominator_policy(&o), TB_POLICY_DEFAULT);
	CHECK(!strcmp(tb_policy_name(TB_POLICY_DEFAULT1905), "default1905"));
}

/*
 * Alg. 2 for a size that is not a power of two: S starts at N = 20 and is
 * halved to 10 on leaves of 16 (l. 8, 14-15): 10 + 10. split=pow2 starts
 * each leaf at the largest power of two not above what is left: 16 + 4.
 * A compute job of 12 takes whole leaves, fewest free first, no chunks
 * (l. 30-37): b (5 free), c (6), 1 of a; chunks would give b:4 c:4 a:4.
 */
void test_icpp_balanced_split_and_compute(void)
{
	const char *twenty = "leaf a 16 0 0\nleaf b 16 0 0\nleaf c 16 0 0\n"
			     "job nodes=20 comm=1\n";
	const char *table2 =
		"leaf L1 160 0 0\nleaf L2 150 0 0\nleaf L3 100 0 0\n"
		"leaf L4 80 0 0\nleaf L5 70 0 0\nleaf L6 50 0 0\n"
		"leaf L7 40 0 0\njob nodes=512 comm=1 pattern=rhvd\n";

	expect(twenty, "", TB_POLICY_BALANCED, "a:10 b:10");
	expect(twenty, "split=pow2", TB_POLICY_BALANCED, "a:16 b:4");
	/* Table 2 is a power of two: both forms print the paper's row. */
	expect(table2, "", TB_POLICY_BALANCED,
	       "L1:128 L2:128 L3:64 L4:64 L5:64 L6:32 L7:32");
	expect(table2, "split=pow2", TB_POLICY_BALANCED,
	       "L1:128 L2:128 L3:64 L4:64 L5:64 L6:32 L7:32");
	expect("leaf a 8 0 0\nleaf b 8 3 0\nleaf c 8 2 0\njob nodes=12 comm=0\n",
	       "", TB_POLICY_BALANCED, "b:5 c:6 a:1");
}

/*
 * ranks=authors (options.h): balanced and adaptive keep the order they
 * picked (the authors' algo2 branch costs switch_idx's order), default,
 * default1905 and greedy are costed in node index order (their master
 * branch walks the node bitmap). Leaf b has more free nodes, so balanced
 * and greedy both start there.
 */
void test_icpp_ranks_authors(void)
{
	const char *two = "leaf a 8 4 0\nleaf b 8 0 0\njob nodes=12 comm=1\n";

	expect(two, "", TB_POLICY_BALANCED, "b:8 a:4");
	expect(two, "ranks=index", TB_POLICY_BALANCED, "a:4 b:8");
	expect(two, "ranks=authors", TB_POLICY_BALANCED, "b:8 a:4");
	expect(two, "ranks=authors", TB_POLICY_ADAPTIVE, "b:8 a:4");
	expect(two, "", TB_POLICY_GREEDY, "b:8 a:4");
	expect(two, "ranks=authors", TB_POLICY_GREEDY, "a:4 b:8");
	expect(two, "ranks=authors", TB_POLICY_DEFAULT1905, "a:4 b:8");
	CHECK_EQ(tb_authors_ranks(TB_POLICY_GREEDY), TB_RANKS_INDEX);
	CHECK_EQ(tb_authors_ranks(TB_POLICY_ADAPTIVE), TB_RANKS_TAKEN);
}

void test_icpp_options_text(void)
{
	struct tb_options o = tb_options_default();
	struct tb_scenario *s;
	const char *text;
	char buf[256], err[160];

	tb_options_format(&o, buf, sizeof(buf));
	CHECK(!strcmp(buf, "eq3=pair ratio=eq1 fit=bestfit split=halve "
			   "denominator=default1905 ranks=taken "
			   "adaptive_tie=balanced mapper=scotch penalty=101 "
			   "fallback=all scotch0=window "
			   "scotch_arch=build0 scotch_strat=quality "
			   "exposure=routes"));
	CHECK_EQ(tb_options_parse(" eq3=path,fit=quiet\tratio=share ", &o, err,
				  sizeof(err)), 0);
	CHECK_EQ(o.eq3, TB_EQ3_PATH);
	CHECK_EQ(o.fit, TB_FITRULE_QUIET);
	CHECK_EQ(o.ratio, TB_RATIO_SHARE);
	CHECK_EQ(o.split, TB_SPLIT_HALVE);
	/* A bad word leaves every option as it was. */
	CHECK_EQ(tb_options_parse("split=pow2 eq3=tree", &o, err, sizeof(err)),
		 -1);
	CHECK(!strcmp(err, "eq3: expected pair or path, got 'tree'"));
	CHECK_EQ(tb_options_parse("ranks=mine", &o, err, sizeof(err)), -1);
	CHECK(!strcmp(err, "ranks: expected taken, index or authors, got 'mine'"));
	CHECK_EQ(tb_options_parse("ranks=authors", &o, err, sizeof(err)), 0);
	CHECK_EQ(o.ranks, TB_RANKS_AUTHORS);
	CHECK_EQ(tb_options_parse("adaptive_tie=eq", &o, err, sizeof(err)), -1);
	CHECK(!strcmp(err, "adaptive_tie: expected balanced or greedy, got 'eq'"));
	tb_options_format(&o, buf, sizeof(buf));
	CHECK(strstr(buf, " ranks=authors ") != NULL);
	o.ranks = TB_RANKS_TAKEN;
	CHECK_EQ(o.split, TB_SPLIT_HALVE);
	CHECK_EQ(tb_options_parse("colour=red", &o, err, sizeof(err)), -1);
	CHECK(!strncmp(err, "unknown option 'colour=red'", 27));
	/* The words tb-alloc's usage prints, from the same table: every
	 * key, its values in enum order (the default first). */
	{
		char words[1024], msg[512];
		const char *last = "scotch_strat=quality|default "
				   "exposure=routes|own";
		size_t wn;

		CHECK_EQ(tb_options_words_format(NULL, 0),
			 tb_options_words_format(words, sizeof(words)));
		wn = strlen(words);
		CHECK(!strncmp(words, "eq3=pair|path ratio=eq1|share ", 30));
		CHECK(strstr(words, " ranks=taken|index|authors ") != NULL);
		CHECK(strstr(words, " scotch_arch=build0|build2 ") != NULL);
		CHECK(wn > strlen(last) &&
		      !strcmp(words + wn - strlen(last), last));
		/* Cut short, it still ends in a NUL and says what it needed. */
		CHECK_EQ(tb_options_words_format(words, 10), (int)wn);
		CHECK(!strcmp(words, "eq3=pair|"));
		/* The unknown-key message names the table's keys and NeDD's. */
		CHECK_EQ(tb_options_parse("colour=red", &o, msg, sizeof(msg)), -1);
		CHECK(strstr(msg, "(eq3, ratio, fit, ") != NULL);
		CHECK(strstr(msg, "scotch_strat, exposure, NeDD's theta") != NULL);
		CHECK(strstr(msg, " seed, inj_*; key=value)") != NULL);
	}
	CHECK_EQ(tb_options_parse("eq3", &o, err, sizeof(err)), -1);
	CHECK_EQ(tb_options_parse("", &o, err, sizeof(err)), 0);

	s = scenario("leaf a 4 0 0\noptions eq3=path split=pow2\njob nodes=2\n");
	CHECK_EQ(s->opts.eq3, TB_EQ3_PATH);
	CHECK_EQ(s->opts.split, TB_SPLIT_POW2);
	CHECK_EQ(s->opts.ratio, TB_RATIO_EQ1);
	tb_scenario_free(s);
	text = "leaf a 4 0 0\noptions fit=loose\njob nodes=2\n";
	CHECK_EQ(tb_scenario_parse(text, strlen(text), "x", &s, err,
				   sizeof(err)), -1);
	CHECK(!strcmp(err, "x:2: options: fit: expected bestfit or quiet, "
			   "got 'loose'"));
	text = "leaf a 4 0 0\noptions\noptions\njob nodes=2\n";
	CHECK_EQ(tb_scenario_parse(text, strlen(text), "x", &s, err,
				   sizeof(err)), -1);
	CHECK(!strcmp(err, "x:3: a second 'options' line"));
}

/*
 * Adaptive on a tie of its candidates' Eq. 6 costs (P:217 names none; the
 * authors' code gives balanced the choice: options.h, adaptive_tie).
 *
 * Communication-intensive, 7 nodes, rd, two leaves of 8 under one root:
 * a has 2 busy, both comm; b has 3 busy, none comm. Greedy takes b:5 a:2
 * (ranks 0-4 on b), balanced a:3 b:4 (ranks 0-2 on a). Either way one leaf
 * counts 5 comm nodes (ratio 5/8) and the other 4 (4/8), so the pair
 * across leaves has C = 5/8 + 4/8 + (5 + 4) / (2 * 16) = 1.40625 (Eq. 3),
 * Hops = 4 * 2.40625 = 9.625 (Eq. 5), and each of the three steps (rank
 * distance 1, 2, 4) has such a pair: greedy (4,5), (4,6), (1,5); balanced
 * (2,3), (1,3), (0,4). Both cost 3 * 9.625 = 28.875 (Eq. 6).
 *
 * Compute-intensive, 6 nodes, rd: a 4 free, b 8 with 4 busy, nothing
 * communicating, so C = 0 and Hops is the distance: 2 within a leaf, 4
 * across. Greedy b:4 a:2, balanced a:4 b:2: steps 1 and 2 stay in a
 * leaf, step 4 crosses: both 2 + 2 + 4 = 8.
 */
void test_icpp_adaptive_tie(void)
{
	const char *comm = "leaf a 8 2 2\nleaf b 8 3 0\n"
			   "job nodes=7 comm=1 pattern=rd\n";
	const char *compute = "leaf a 4 0 0\nleaf b 8 4 0\n"
			      "job nodes=6 comm=0 pattern=rd\n";
	char text[256];

	snprintf(text, sizeof(text), "%seval b:5 a:2\n", comm);
	CHECK_NEAR(eval_cost(text, ""), 28.875);
	snprintf(text, sizeof(text), "%seval a:3 b:4\n", comm);
	CHECK_NEAR(eval_cost(text, ""), 28.875);
	expect(comm, "", TB_POLICY_GREEDY, "b:5 a:2");
	expect(comm, "", TB_POLICY_BALANCED, "a:3 b:4");
	expect(comm, "", TB_POLICY_ADAPTIVE, "a:3 b:4");
	expect(comm, "adaptive_tie=balanced", TB_POLICY_ADAPTIVE, "a:3 b:4");
	expect(comm, "adaptive_tie=greedy", TB_POLICY_ADAPTIVE, "b:5 a:2");

	snprintf(text, sizeof(text), "%seval b:4 a:2\n", compute);
	CHECK_NEAR(eval_cost(text, ""), 8);
	snprintf(text, sizeof(text), "%seval a:4 b:2\n", compute);
	CHECK_NEAR(eval_cost(text, ""), 8);
	expect(compute, "", TB_POLICY_GREEDY, "b:4 a:2");
	expect(compute, "", TB_POLICY_BALANCED, "a:4 b:2");
	expect(compute, "", TB_POLICY_ADAPTIVE, "a:4 b:2");
	expect(compute, "adaptive_tie=greedy", TB_POLICY_ADAPTIVE, "b:4 a:2");
}
