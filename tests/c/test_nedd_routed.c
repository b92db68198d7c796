/*
 * NeDD's stall=routed model (plugins/lib/nedd.h, nedd_traffic.c; ours,
 * after ../shared/papers/nedd.txt L94, L166-174: Ntile stalls carry the
 * router's own traffic to and from other routers and other routers'
 * transit): hand-worked dragonfly cases, the same noise as stall=chassis,
 * the choice of low-stall under both models, and the option's text.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "nedd.h"
#include "policy.h"
#include "tests.h"

/*
 * One group of two chassis of two routers of 4 nodes: rows by chassis,
 * columns by slot (a router's rank by id in its chassis):
 *
 *             slot 0          slot 1
 *   chassis 0  A (nodes 0-3)   B (nodes 4-7)
 *   chassis 1  C (nodes 8-11)  D (nodes 12-15)
 *
 * X, inj 1 per node, nodes 0 (A), 12, 13 (D): n = 3, each node sends 1/2
 *   to each of the two others. W(A) = 1, n(A) = 1; W(D) = 2, n(D) = 2.
 *   A -> D: W(A) n(D) / (n - 1) = 1 x 2 / 2 = 1, row then column:
 *           A -> B (A's chassis, D's slot) -> D: A +1, B +1, D +1.
 *   D -> A: 2 x 1 / 2 = 1, D -> C (D's chassis, A's slot) -> A:
 *           D +1, C +1, A +1.
 *   12 <-> 13 stays in D's Ptiles: nothing.
 * Y, inj 0.25, nodes 1 (A), 4 (B): n = 2. A -> B 0.25 and B -> A 0.25,
 *   one chassis: direct; A +0.5, B +0.5.
 * Z, inj 0.375, nodes 8, 9 (C): within one router: nothing.
 *
 *   L: A = 1 + 1 + 0.5 = 2.5, B = 1 + 0.5 = 1.5, C = 1, D = 2.
 *   T: A = 1 + 0.25 = 1.25, B = 0.25, C = 0.75, D = 2.
 *   stall=chassis, g = 0.5 (the chassis' other router's T):
 *      A = 0.625 + 0.125 = 0.75, B = 0.125 + 0.625 = 0.75,
 *      C = 0.375 + 1 = 1.375, D = 1 + 0.375 = 1.375.
 *
 * Free: A 2, 3; B 5-7; C 10, 11; D 14, 15. A job of 3 nodes:
 *   ltr (T)                B 0.25 first:            B:3
 *   low-stall, chassis     A 0.75 (by id), then B:  A:2 B:1
 *   low-stall, routed      C 1 (all transit of X), then B 1.5: C:2 B:1
 */
#define GRID \
	"router A 4 chassis=0 group=0\nrouter B 4 chassis=0 group=0\n" \
	"router C 4 chassis=1 group=0\nrouter D 4 chassis=1 group=0\n" \
	"running nodes=0,12,13 inj=1\n" \
	"running nodes=1,4 inj=0.25\n" \
	"running nodes=8,9 inj=0.375\n" \
	"now 1000 window=120\njob nodes=3\n"

/* The routers p takes, "C:2 B:1", under the options. */
static void taken(const char *text, const char *opts, enum tb_policy p,
		  const char *want, int line)
{
	struct tb_scenario *s = scenario(text);
	int *alloc = malloc(sizeof(int) * (size_t)s->topo->n_nodes);
	char err[160], got[256] = "error";

	CHECK(alloc != NULL);
	CHECK_EQ(tb_options_parse(opts, &s->opts, err, sizeof(err)), 0);
	CHECK_EQ(tb_scenario_observe(s), 0);
	if (alloc && tb_allocate_with(p, s->topo, s->occ, &s->job, &s->opts,
				      alloc) == TB_OK)
		leaf_counts(s->topo, alloc, s->job.nodes, got, sizeof(got));
	if (strcmp(got, want)) {
		fprintf(stderr, "  test_nedd_routed.c:%d: %s gives '%s', "
			"expected '%s'\n", line, tb_policy_name(p), got, want);
		tb_check_failures++;
	}
	free(alloc);
	tb_scenario_free(s);
}
#define TAKEN(t, o, p, w) taken(t, o, p, w, __LINE__)

void test_nedd_routed_grid(void)
{
	static const double L[4] = { 2.5, 1.5, 1, 2 };
	static const double T[4] = { 1.25, 0.25, 0.75, 2 };
	static const double S_chassis[4] = { 0.75, 0.75, 1.375, 1.375 };
	struct tb_scenario *s = scenario(GRID "options stall=routed\n");
	double got[4];

	CHECK_EQ(s->topo->n_routers, 4);
	CHECK_EQ(s->opts.nedd.stall, TB_NEDD_STALL_ROUTED);
	CHECK(s->occ->router_routed != NULL);
	for (int r = 0; s->occ->router_routed && r < 4; r++) {
		CHECK_NEAR(s->occ->router_routed[r], L[r]);
		CHECK_NEAR(s->occ->router_traffic[r], T[r]);
	}
	CHECK_EQ(tb_nedd_routed_load(s->topo, s->runs, s->n_runs, s->now,
				     &s->opts.nedd, got), 0);
	for (int r = 0; r < 4; r++)
		CHECK_NEAR(got[r], L[r]);
	s->opts.nedd.stall_noise = 0;
	CHECK_EQ(tb_nedd_stall_model(s->topo, T, &s->opts.nedd, 0, got), 0);
	for (int r = 0; r < 4; r++)
		CHECK_NEAR(got[r], S_chassis[r]);
	tb_nedd_stall_routed(s->topo, L, &s->opts.nedd, 0, got);
	for (int r = 0; r < 4; r++)
		CHECK_NEAR(got[r], L[r]);
	tb_scenario_free(s);

	/* The default stays stall=chassis, with no routed load computed. */
	s = scenario(GRID);
	CHECK_EQ(s->opts.nedd.stall, TB_NEDD_STALL_CHASSIS);
	CHECK(s->occ->router_routed == NULL);
	tb_scenario_free(s);

	TAKEN(GRID, "", TB_POLICY_LTR, "B:3");
	TAKEN(GRID, "stall_noise=0", TB_POLICY_LOW_STALL, "A:2 B:1");
	TAKEN(GRID, "stall_noise=0 stall=routed", TB_POLICY_LOW_STALL,
	      "C:2 B:1");
	/* stall_g does not enter the routed model. */
	TAKEN(GRID, "stall_noise=0 stall=routed stall_g=1",
	      TB_POLICY_LOW_STALL, "C:2 B:1");
	/* A scenario's stall lines still override S: C's made the highest. */
	TAKEN(GRID "stall C 9\n", "stall_noise=0 stall=routed",
	      TB_POLICY_LOW_STALL, "B:3");
}

/*
 * Between groups a flow counts at its two ends only; within a group a
 * flow between other chassis and other slots crosses the middle router.
 * Group 0: chassis 0 = P (slot 0, nodes 0-3), P2 (slot 1, 4-7); chassis
 * 1 = Q (slot 0, 8-11), Q2 (slot 1, 12-15). Group 1: chassis 2 = R
 * (16-19). One job, inj 1, nodes 0 (P), 12 (Q2), 16 (R), started at 940:
 * window share 60 / 120 = 0.5, so each node sends 0.5 x 1/2 = 0.25 to
 * each other node.
 *   P -> Q2 0.25 via (chassis 0, slot 1) = P2; Q2 -> P 0.25 via
 *   (chassis 1, slot 0) = Q; P <-> R and Q2 <-> R 0.25 each way, ends
 *   only.
 *   L: P = 0.25 x 4 = 1, Q2 = 1, R = 1, P2 = 0.25, Q = 0.25.
 */
#define GROUPS \
	"router P 4 chassis=0 group=0\nrouter P2 4 chassis=0 group=0\n" \
	"router Q 4 chassis=1 group=0\nrouter Q2 4 chassis=1 group=0\n" \
	"router R 4 chassis=2 group=1\n" \
	"running nodes=0,12,16 inj=1 start=940\n" \
	"now 1000 window=120\noptions stall=routed\njob nodes=1\n"

void test_nedd_routed_groups_and_noise(void)
{
	static const double L[5] = { 1, 0.25, 0.25, 1, 1 };
	struct tb_scenario *s = scenario(GROUPS);
	struct tb_nedd_options quiet;
	double base[5], S[5], Sr[5];
	int moved = 0;

	for (int r = 0; r < 5; r++)
		CHECK_NEAR(s->occ->router_routed[r], L[r]);
	/* The same seeded noise as stall=chassis: S / base alike, router by
	 * router, seed by seed; within [1 - x, 1 + x]. */
	quiet = s->opts.nedd;
	quiet.stall_noise = 0;
	CHECK_EQ(tb_nedd_stall_model(s->topo, L, &quiet, 0, base), 0);
	for (uint64_t seed = 0; seed < 100; seed++) {
		CHECK_EQ(tb_nedd_stall_model(s->topo, L, &s->opts.nedd, seed,
					     S), 0);
		tb_nedd_stall_routed(s->topo, L, &s->opts.nedd, seed, Sr);
		for (int r = 0; r < 5; r++) {
			CHECK_NEAR(Sr[r] / L[r], S[r] / base[r]);
			CHECK(Sr[r] >= 0.8 * L[r] - 1e-12 &&
			      Sr[r] <= 1.2 * L[r] + 1e-12);
			moved += Sr[r] != L[r];
		}
	}
	CHECK(moved > 400);
	tb_scenario_free(s);
}

void test_nedd_routed_option(void)
{
	struct tb_options o = tb_options_default();
	char err[160], buf[256];

	CHECK_EQ(o.nedd.stall, TB_NEDD_STALL_CHASSIS);
	CHECK_EQ(tb_options_parse("stall=transit", &o, err, sizeof(err)), -1);
	CHECK(!strcmp(err, "stall=transit: expected stall=chassis or routed"));
	CHECK_EQ(tb_options_parse("stall=routed", &o, err, sizeof(err)), 0);
	CHECK_EQ(o.nedd.stall, TB_NEDD_STALL_ROUTED);
	tb_nedd_options_format(&o.nedd, buf, sizeof(buf));
	CHECK(!strcmp(buf, "theta=0.3 unprofiled=fewer-router window=120 "
		      "stall_g=0.5 stall_noise=0.2 jitter=0.02 inj_kernel=1 "
		      "inj_canary=0.1 seed=0 stall=routed"));
	CHECK_EQ(tb_options_parse("stall=chassis", &o, err, sizeof(err)), 0);
	CHECK_EQ(o.nedd.stall, TB_NEDD_STALL_CHASSIS);
	/* A job of one node sends to no other node: L and S are 0. */
	{
		struct tb_scenario *s = scenario(
			"router A 4\nrouter B 4\noptions stall=routed\n"
			"running nodes=0 inj=5\njob nodes=2\n");
		int alloc[2];

		CHECK_NEAR(s->occ->router_routed[0], 0);
		CHECK_EQ(tb_allocate_with(TB_POLICY_LOW_STALL, s->topo, s->occ,
					  &s->job, &s->opts, alloc), TB_OK);
		/* S 0 and 0: router A first (by id), nodes 1 and 2. */
		CHECK_EQ(alloc[0], 1);
		CHECK_EQ(alloc[1], 2);
		tb_scenario_free(s);
	}
}

/*
 * Row then column, not column then row: the two differ only where a flow
 * and its reverse differ, e.g. the congestor's kernel (inj_kernel=1) and
 * canary (0.1) nodes. GRID's routers; gpcnet on 0 (A), 12, 13 (D): n = 3,
 * round(2.4) = 2 kernel nodes drawn by the seeded hash. W(A) = x0, W(D) =
 * x12 + x13; A -> D = W(A) x 2 / 2 via B, D -> A = W(D) x 1 / 2 via C:
 * L(B) = W(A), L(C) = W(D) / 2 (column first would swap them); L(A) =
 * L(D) = W(A) + W(D) / 2, each flow at both its ends. A router
 * missing from a chassis (its slot) carries nothing: with a third chassis
 * of one router E (slot 0) and a job on E and D (slot 1), E -> D goes via
 * (E's chassis, slot 1), which has no router: L of A, B, C unchanged.
 */
void test_nedd_routed_row_then_column(void)
{
	struct tb_scenario *s = scenario(
		"router A 4 chassis=0 group=0\nrouter B 4 chassis=0 group=0\n"
		"router C 4 chassis=1 group=0\nrouter D 4 chassis=1 group=0\n"
		"router E 4 chassis=2 group=0\n"
		"running nodes=0,12,13 app=gpcnet\n"
		"running nodes=16,14 inj=1\n"
		"now 1000\noptions stall=routed\njob nodes=1\n");
	unsigned char kernel[3];
	double x[3], wa, wd;

	CHECK_EQ(tb_nedd_congestor_roles(&s->runs[0], kernel), 0);
	CHECK_EQ(kernel[0] + kernel[1] + kernel[2], 2);
	for (int k = 0; k < 3; k++)
		x[k] = kernel[k] ? 1 : 0.1;
	wa = x[0];
	wd = x[1] + x[2];
	CHECK(fabs(wa - wd / 2) > 0.1);	/* the case tells the orders apart */
	/* The second job: E -> D 1 via nothing, D -> E 1 via (D's chassis,
	 * E's slot 0) = C. */
	/* A and D: each flow at both ends. */
	CHECK_NEAR(s->occ->router_routed[0], wa + wd / 2);	/* A */
	CHECK_NEAR(s->occ->router_routed[1], wa);		/* B */
	CHECK_NEAR(s->occ->router_routed[2], wd / 2 + 1);	/* C */
	CHECK_NEAR(s->occ->router_routed[3], wa + wd / 2 + 2);	/* D */
	CHECK_NEAR(s->occ->router_routed[4], 2);		/* E */
	tb_scenario_free(s);
}
