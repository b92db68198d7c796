/*
 * The NeDD family (../shared/papers/nedd.txt; plugins/lib/policy_nedd.c,
 * nedd.h): issue 24's hand-worked case to the printed digit, a second
 * case of ours kept apart (examples/nedd-window.scenario: the window,
 * ended jobs, the stall model, the classifier), and random's
 * distinctness, seed-determinism and uniformity.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "nedd.h"
#include "policy.h"
#include "tests.h"

/* Issue 24's worked case: R0-R7 of 4 nodes; a congestor (100 per node),
 * a sensitive app (30) and an insensitive one (5), over the whole window;
 * stalls given. */
#define WORKED \
	"router R0 4\nrouter R1 4\nrouter R2 4\nrouter R3 4\n" \
	"router R4 4\nrouter R5 4\nrouter R6 4\nrouter R7 4\n" \
	"running nodes=0,2,3,16,28-31 inj=100 start=880\n" \
	"running nodes=13-15,25,26 inj=30 start=700\n" \
	"running nodes=10,11,20-22,27 inj=5 start=850\n" \
	"stall R0 20\nstall R1 80\nstall R2 70\nstall R3 5\n" \
	"stall R4 50\nstall R5 10\nstall R6 30\nstall R7 60\n" \
	"now 1000 window=120\n"

/* Ours: two chassis (R0-R3 and R4-R5), a job that started inside the
 * window, one that ended inside it, one that ended before it, an
 * application by its profile; the stall model without noise. */
#define WINDOW \
	"router R0 4\nrouter R1 4\nrouter R2 4\nrouter R3 4\n" \
	"router R4 4 chassis=1\nrouter R5 4 chassis=1\n" \
	"running nodes=0,1 inj=60 start=940\n" \
	"running nodes=4-6 inj=20 start=500 end=940\n" \
	"running nodes=8 app=miniMD start=100\n" \
	"running nodes=12-15 inj=1000 start=0 end=800\n" \
	"running nodes=16,17 inj=50\n" \
	"now 1000 window=120\noptions stall_noise=0\n"

/* Runs p on the text's scenario with extra options; "R1:4 R2:2" (routers
 * in the order taken) or "wait"/"error" into buf. */
static void place(const char *text, const char *opts, enum tb_policy p,
		  char *buf, size_t len)
{
	struct tb_scenario *s = scenario(text);
	int *alloc = malloc(sizeof(int) * (size_t)s->topo->n_nodes);
	char err[160];
	enum tb_status rc;

	CHECK(alloc != NULL);
	CHECK_EQ(tb_options_parse(opts, &s->opts, err, sizeof(err)), 0);
	CHECK_EQ(tb_scenario_observe(s), 0);
	rc = tb_allocate_with(p, s->topo, s->occ, &s->job, &s->opts, alloc);
	if (rc == TB_OK)
		leaf_counts(s->topo, alloc, s->job.nodes, buf, len);
	else
		snprintf(buf, len, "%s", rc == TB_ENOSPACE ? "wait" : "error");
	free(alloc);
	tb_scenario_free(s);
}

static void expect(const char *machine, const char *job, const char *opts,
		   enum tb_policy p, const char *want, int line)
{
	char text[2048], got[256];

	snprintf(text, sizeof(text), "%s%s\n", machine, job);
	place(text, opts, p, got, sizeof(got));
	if (strcmp(got, want)) {
		fprintf(stderr, "  test_nedd.c:%d: %s gives '%s', expected '%s'\n",
			line, tb_policy_name(p), got, want);
		tb_check_failures++;
	}
}
#define EXPECT(m, j, o, p, w) expect(m, j, o, p, w, __LINE__)

void test_nedd_worked_case_traffic(void)
{
	static const double want[8] = { 300, 0, 10, 90, 100, 15, 65, 400 };
	struct tb_scenario *s = scenario(WORKED "job nodes=6\n");

	CHECK_EQ(s->topo->n_routers, 8);
	CHECK_EQ(s->occ->n_routers, 8);
	for (int r = 0; r < 8; r++) {
		char name[8];

		snprintf(name, sizeof(name), "R%d", r);
		CHECK(!strcmp(s->topo->routers[r].name, name));
		CHECK_EQ(s->topo->routers[r].n_nodes, 4);
		CHECK_NEAR(s->occ->router_traffic[r], want[r]);
	}
	CHECK_NEAR(s->occ->router_stall[3], 5);
	tb_scenario_free(s);
}

void test_nedd_worked_case_strategies(void)
{
	const char *sens = "job nodes=6 class=sensitive";

	EXPECT(WORKED, sens, "", TB_POLICY_LTR, "R1:4 R2:2");
	EXPECT(WORKED, sens, "", TB_POLICY_NEDD, "R1:4 R2:2");
	EXPECT(WORKED, sens, "", TB_POLICY_HTR, "R0:1 R4:3 R3:1 R6:1");
	EXPECT(WORKED, sens, "", TB_POLICY_FEWER_ROUTER, "R1:4 R4:2");
	EXPECT(WORKED, sens, "", TB_POLICY_LOW_STALL,
	       "R3:1 R5:1 R0:1 R6:1 R4:2");
	/* The same job insensitive: nedd is htr. */
	EXPECT(WORKED, "job nodes=6 class=insensitive", "", TB_POLICY_NEDD,
	       "R0:1 R4:3 R3:1 R6:1");
	/* 13 nodes are free: a 14-node job waits under every strategy. */
	EXPECT(WORKED, "job nodes=13", "", TB_POLICY_LTR,
	       "R1:4 R2:2 R5:1 R6:1 R3:1 R4:3 R0:1");
	EXPECT(WORKED, "job nodes=14", "", TB_POLICY_LTR, "wait");
	EXPECT(WORKED, "job nodes=14", "", TB_POLICY_RANDOM, "wait");
	EXPECT(WORKED, "job nodes=14", "", TB_POLICY_FEWER_ROUTER, "wait");
}

void test_nedd_window_case(void)
{
	struct tb_scenario *s = scenario(WINDOW "job nodes=5 app=HPCG\n");
	/* T: 2 x 60 x 60/120; 3 x 20 x 60/120 (ended at 940); miniMD's
	 * share; nothing from the job that ended at 800; 2 x 50. */
	static const double T[6] = { 60, 30, 0.689, 0, 100, 0 };
	/* The stall model, g = 0.5: half its own T, half the mean of its
	 * chassis' other routers. */
	static const double S[6] = {
		30 + 0.5 * (30 + 0.689) / 3, 15 + 0.5 * (60 + 0.689) / 3,
		0.3445 + 0.5 * 90.0 / 3, 0.5 * 90.689 / 3, 50, 50,
	};
	double got[6];

	for (int r = 0; r < 6; r++)
		CHECK_NEAR(s->occ->router_traffic[r], T[r]);
	CHECK_EQ(s->topo->routers[4].chassis, 1);
	CHECK_EQ(s->topo->routers[3].chassis, 0);
	CHECK_EQ(tb_nedd_stall_model(s->topo, T, &s->opts.nedd, 0, got), 0);
	for (int r = 0; r < 6; r++)
		CHECK_NEAR(got[r], S[r]);
	/* Ended jobs hold no node. */
	CHECK_EQ(s->occ->state[4], TB_NODE_FREE);
	CHECK_EQ(s->occ->state[12], TB_NODE_FREE);
	CHECK_EQ(s->occ->state[16], TB_NODE_BUSY);
	tb_scenario_free(s);

	EXPECT(WINDOW, "job nodes=5", "", TB_POLICY_LTR, "R3:4 R5:1");
	EXPECT(WINDOW, "job nodes=5", "", TB_POLICY_HTR, "R4:2 R0:2 R1:1");
	EXPECT(WINDOW, "job nodes=5", "", TB_POLICY_FEWER_ROUTER, "R1:4 R3:1");
	/* R5 has no traffic of its own but a busy chassis: last but one. */
	EXPECT(WINDOW, "job nodes=5", "", TB_POLICY_LOW_STALL, "R3:4 R2:1");
	EXPECT(WINDOW, "job nodes=9", "", TB_POLICY_LOW_STALL,
	       "R3:4 R2:3 R1:2");
	/* stall_g=1: the router's own traffic only, ltr's order. */
	EXPECT(WINDOW, "job nodes=5", "stall_g=1", TB_POLICY_LOW_STALL,
	       "R3:4 R5:1");
	/* The classifier: HPCG (11.5 %) insensitive, miniMD sensitive, an
	 * unknown application the unprofiled= strategy. */
	EXPECT(WINDOW, "job nodes=5 app=HPCG", "", TB_POLICY_NEDD,
	       "R4:2 R0:2 R1:1");
	EXPECT(WINDOW, "job nodes=5 app=minimd", "", TB_POLICY_NEDD,
	       "R3:4 R5:1");
	EXPECT(WINDOW, "job nodes=5 app=HPCG", "theta=0.1", TB_POLICY_NEDD,
	       "R3:4 R5:1");
	EXPECT(WINDOW, "job nodes=5 app=vasp", "", TB_POLICY_NEDD,
	       "R1:4 R3:1");
	EXPECT(WINDOW, "job nodes=5 app=vasp", "unprofiled=low-stall",
	       TB_POLICY_NEDD, "R3:4 R2:1");
	EXPECT(WINDOW, "job nodes=5", "", TB_POLICY_NEDD, "R1:4 R3:1");
	/* A window of 60 s: the job that ended at 940 is out of it, the one
	 * that started at 940 counts whole. */
	EXPECT(WINDOW, "job nodes=5", "window=60", TB_POLICY_HTR,
	       "R0:2 R4:2 R2:1");
}

void test_nedd_classifier(void)
{
	struct tb_options o = tb_options_default();
	struct tb_job job = { .nodes = 1 };
	struct tb_nedd_choice c;
	char err[160];
	/* Table I's MPI Operation column and L146's classes at theta 0.30. */
	static const struct {
		const char *app;
		double f;
		enum tb_nedd_class cls;
	} rows[] = {
		{ "miniMD", 0.689, TB_NEDD_SENSITIVE },
		{ "LAMMPS", 0.515, TB_NEDD_SENSITIVE },
		{ "MILC", 0.482, TB_NEDD_SENSITIVE },
		{ "HACC", 0.497, TB_NEDD_SENSITIVE },
		{ "QMCPACK", 0.193, TB_NEDD_INSENSITIVE },
		{ "HPCG", 0.115, TB_NEDD_INSENSITIVE },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		snprintf(job.app, sizeof(job.app), "%s", rows[i].app);
		tb_nedd_decide(&job, &o, &c);
		CHECK_NEAR(c.f, rows[i].f);
		CHECK_EQ(c.cls, rows[i].cls);
		CHECK_EQ(c.strategy, rows[i].cls == TB_NEDD_SENSITIVE ?
				     TB_POLICY_LTR : TB_POLICY_HTR);
		/* Any theta in [0.193, 0.482) gives the same classes. */
		o.nedd.theta = 0.193;
		tb_nedd_decide(&job, &o, &c);
		CHECK_EQ(c.cls, rows[i].cls);
		o.nedd.theta = 0.4819;
		tb_nedd_decide(&job, &o, &c);
		CHECK_EQ(c.cls, rows[i].cls);
		o.nedd.theta = 0.30;
	}
	/* The congestor and an unknown name: unprofiled, fewer-router. */
	snprintf(job.app, sizeof(job.app), "gpcnet");
	tb_nedd_decide(&job, &o, &c);
	CHECK_EQ(c.cls, TB_NEDD_UNPROFILED);
	CHECK_EQ(c.strategy, TB_POLICY_FEWER_ROUTER);
	/* A class given wins over the application. */
	snprintf(job.app, sizeof(job.app), "HPCG");
	job.net_class = TB_NEDD_SENSITIVE;
	tb_nedd_decide(&job, &o, &c);
	CHECK_EQ(c.cls, TB_NEDD_SENSITIVE);
	CHECK(c.given);
	/* Options: values checked, the text of the record. */
	CHECK_EQ(tb_options_parse("theta=1", &o, err, sizeof(err)), -1);
	CHECK(!strcmp(err, "theta=1: expected theta=<share>, 0 <= share < 1"));
	CHECK_EQ(tb_options_parse("unprofiled=nedd", &o, err, sizeof(err)), -1);
	CHECK_EQ(tb_options_parse("inj_gpcnet=2", &o, err, sizeof(err)), -1);
	CHECK_EQ(tb_options_parse("stall_noise=1", &o, err, sizeof(err)), -1);
	CHECK_EQ(tb_options_parse("seed=-3", &o, err, sizeof(err)), -1);
	CHECK_EQ(tb_options_parse("jitter=1", &o, err, sizeof(err)), -1);
	CHECK(!strcmp(err, "jitter=1: expected jitter=<x>, 0 <= x < 1"));
	CHECK_EQ(tb_options_parse("inj_MILC=0.9 unprofiled=random", &o, err,
				  sizeof(err)), 0);
	{
		char buf[256];

		tb_nedd_options_format(&o.nedd, buf, sizeof(buf));
		CHECK(!strcmp(buf, "theta=0.3 unprofiled=random window=120 "
			      "stall_g=0.5 stall_noise=0.2 jitter=0.02 "
			      "inj_kernel=1 inj_canary=0.1 seed=0 "
			      "inj_MILC=0.9"));
	}
}

void test_nedd_congestor_and_noise(void)
{
	struct tb_scenario *s = scenario(
		"router R0 32\nrouter R1 32\n"
		"running nodes=0-63 app=gpcnet\njob nodes=1\n");
	struct tb_options o = tb_options_default();
	double base[2], S[2];
	unsigned char kernel[64];
	int k = 0;

	/* 80 % kernel (1.0 per node), 20 % canary (0.1): round(51.2). */
	CHECK_EQ(tb_nedd_congestor_roles(&s->runs[0], kernel), 0);
	for (int i = 0; i < 64; i++)
		k += kernel[i];
	CHECK_EQ(k, 51);
	CHECK_NEAR(s->occ->router_traffic[0] + s->occ->router_traffic[1],
		   51 * 1.0 + 13 * 0.1);
	/* The noise stays within stall_noise of the model's value. */
	o.nedd.stall_noise = 0;
	CHECK_EQ(tb_nedd_stall_model(s->topo, s->occ->router_traffic, &o.nedd,
				     7, base), 0);
	o.nedd.stall_noise = 0.2;
	for (uint64_t seed = 0; seed < 200; seed++) {
		CHECK_EQ(tb_nedd_stall_model(s->topo, s->occ->router_traffic,
					     &o.nedd, seed, S), 0);
		for (int r = 0; r < 2; r++)
			CHECK(S[r] >= 0.8 * base[r] - 1e-12 &&
			      S[r] <= 1.2 * base[r] + 1e-12);
	}
	tb_scenario_free(s);
}

/* 10 routers of 4 nodes; 4 nodes busy: 36 free. */
#define RANDOM_MACHINE \
	"router R0 4\nrouter R1 4\nrouter R2 4\nrouter R3 4\nrouter R4 4\n" \
	"router R5 4\nrouter R6 4\nrouter R7 4\nrouter R8 4\nrouter R9 4\n" \
	"running nodes=1,9,22,39 inj=1\n"

void test_nedd_random(void)
{
	struct tb_scenario *s = scenario(RANDOM_MACHINE "job nodes=6\n");
	int a[6], b[6], count[40] = { 0 }, differ = 0;
	const int draws = 6000;
	double chi2 = 0, expected;

	for (uint64_t seed = 0; seed < (uint64_t)draws; seed++) {
		s->job.seed = seed;
		CHECK_EQ(tb_allocate(TB_POLICY_RANDOM, s->topo, s->occ, &s->job,
				     a), TB_OK);
		CHECK_EQ(tb_allocate(TB_POLICY_RANDOM, s->topo, s->occ, &s->job,
				     b), TB_OK);
		/* The same seed, the same nodes. */
		CHECK(!memcmp(a, b, sizeof(a)));
		for (int i = 0; i < 6; i++) {
			CHECK_EQ(s->occ->state[a[i]], TB_NODE_FREE);
			for (int j = 0; j < i; j++)
				CHECK(a[i] != a[j]);
			/* Router by router, nodes ascending. */
			if (i)
				CHECK(s->topo->router_of[a[i - 1]] <
				      s->topo->router_of[a[i]] ||
				      a[i - 1] < a[i]);
			count[a[i]]++;
		}
		if (seed) {
			s->job.seed = seed - 1;
			CHECK_EQ(tb_allocate(TB_POLICY_RANDOM, s->topo, s->occ,
					     &s->job, b), TB_OK);
			differ += !!memcmp(a, b, sizeof(a));
		}
	}
	/* Seeds next to each other draw different sets (almost always). */
	CHECK(differ > draws * 9 / 10);
	/* Uniform over the 36 free nodes: chi-square with 35 degrees of
	 * freedom; 70 is beyond its 0.999 quantile (66.6). The seeds are
	 * fixed, so the statistic is the same at every run. */
	expected = draws * 6.0 / 36;
	for (int n = 0; n < 40; n++) {
		if (s->occ->state[n] != TB_NODE_FREE) {
			CHECK_EQ(count[n], 0);
			continue;
		}
		chi2 += (count[n] - expected) * (count[n] - expected) / expected;
	}
	CHECK(chi2 < 70);
	tb_scenario_free(s);
}

void test_nedd_scenario_errors(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "router R0 4\nleaf L 4 0 0\njob nodes=1\n",
		  "'router' and 'leaf' lines do not mix" },
		{ "router R0 4\nrunning nodes=0 start=10 end=20\nnow 15\n"
		  "job nodes=1\n", "end=20 is after now (15)" },
		{ "router R0 4\nrunning nodes=0 start=20 end=10\njob nodes=1\n",
		  "end before start" },
		{ "router R0 4\nstall R9 3\njob nodes=1\n",
		  "stall: unknown router 'R9'" },
		{ "router R0 4\nstall R0 3\nstall R0 4\njob nodes=1\n",
		  "router R0 given twice" },
		{ "router R0 4\njob nodes=1 class=maybe\n",
		  "class='maybe': expected sensitive or insensitive" },
		{ "router R0 4\njob nodes=1 seed=-1\n", "seed='-1'" },
		{ "router R0 4 chassis=x\njob nodes=1\n", "chassis='x'" },
		{ "router R0 4\nrunning nodes=0 inj=-2\njob nodes=1\n",
		  "inj='-2'" },
		{ "router R0 4\nnow 5 window=0\njob nodes=1\n",
		  "window=0: expected window=<seconds>" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		expect_scenario_error(cases[i].text, cases[i].want);
}

/* The runtime model (nedd_runtime.c) on the worked case: U is the highest
 * foreign T per node on the job's routers, G the traffic per node of its
 * groups (all eight routers in group 0: 980 / 32). */
void test_nedd_runtime_model(void)
{
	struct tb_scenario *s = scenario(WORKED "job nodes=6\n");
	int ltr[6] = { 4, 5, 6, 7, 8, 9 }, htr[6] = { 1, 17, 18, 19, 12, 24 };
	double U, G;

	CHECK_EQ(tb_nedd_pressure(s->topo, s->occ->router_traffic, ltr, 6, &U,
				  &G), 0);
	CHECK_NEAR(U, 10.0 / 4);
	CHECK_NEAR(G, 980.0 / 32);
	CHECK_EQ(tb_nedd_pressure(s->topo, s->occ->router_traffic, htr, 6, &U,
				  &G), 0);
	CHECK_NEAR(U, 300.0 / 4);
	/* Calibrated on miniMD: 1 + 18.2 (0.867 G + 0.133 U). */
	CHECK_NEAR(tb_nedd_runtime_factor("miniMD", 0.7, 0.146),
		   1 + 18.2 * (0.867 * 0.146 + 0.133 * 0.7));
	CHECK(fabs(tb_nedd_runtime_factor("miniMD", 0, 0.146) - 3.3) < 0.01);
	CHECK(fabs(tb_nedd_runtime_factor("miniMD", 0.7, 0.146) - 5.0) < 0.01);
	CHECK_NEAR(tb_nedd_runtime_factor("unknown-app", 5, 5), 1);
	CHECK(tb_nedd_sigma("HPCG") < tb_nedd_sigma("QMCPACK"));
	CHECK(tb_nedd_sigma("QMCPACK") < tb_nedd_sigma("HACC"));
	tb_scenario_free(s);
}

/* The emulated job's runtime: T0 x the factor x a seeded jitter in
 * [1 - j, 1 + j]; the same seed gives the same runtime, and over many
 * seeds the jitter fills its band and averages out. */
void test_nedd_runtime_applied(void)
{
	double f = tb_nedd_runtime_factor("miniMD", 0.7, 0.146), lo = 1e9,
	       hi = 0, sum = 0;

	CHECK_NEAR(tb_nedd_runtime(100, "miniMD", 0.7, 0.146, 0, 42), 100 * f);
	CHECK_NEAR(tb_nedd_runtime(100, "HPCG", 0, 0, 0, 42), 100);
	CHECK_NEAR(tb_nedd_runtime(100, "miniMD", 0.7, 0.146, 0.02, 7),
		   tb_nedd_runtime(100, "miniMD", 0.7, 0.146, 0.02, 7));
	for (uint64_t seed = 0; seed < 2000; seed++) {
		double t = tb_nedd_runtime(100, "HPCG", 0, 0, 0.02, seed);

		lo = t < lo ? t : lo;
		hi = t > hi ? t : hi;
		sum += t;
	}
	CHECK(lo >= 98 && lo < 98.1);
	CHECK(hi <= 102 && hi > 101.9);
	CHECK(fabs(sum / 2000 - 100) < 0.1);
	CHECK(tb_nedd_runtime(100, "HPCG", 0, 0, 0.02, 1) !=
	      tb_nedd_runtime(100, "HPCG", 0, 0, 0.02, 2));
}

/* inj_unnamed= (ours, issue 24's loaded-machine layout): a job naming no
 * application injects inj_unnamed x its profile's share; by default none,
 * and the default's option text is unchanged. */
void test_nedd_unnamed_injection(void)
{
	struct tb_options o = tb_options_default();
	char err[160], buf[256];

	CHECK_NEAR(o.nedd.inj_unnamed, 0);
	CHECK_NEAR(tb_nedd_unnamed_injection(&o.nedd, "0:2:30:100"), 0);
	tb_nedd_options_format(&o.nedd, buf, sizeof(buf));
	CHECK(!strstr(buf, "inj_unnamed"));
	CHECK_EQ(tb_options_parse("inj_unnamed=-1", &o, err, sizeof(err)), -1);
	CHECK(!strcmp(err, "inj_unnamed=-1: expected inj_unnamed=<factor>, "
		      ">= 0"));
	CHECK_EQ(tb_options_parse("inj_unnamed=1", &o, err, sizeof(err)), 0);
	/* The background's compute job (share 0), a 30 % and a 90 % one. */
	CHECK_NEAR(tb_nedd_unnamed_injection(&o.nedd, "0:2:0:100"), 0);
	CHECK_NEAR(tb_nedd_unnamed_injection(&o.nedd, "0:2:30:100"), 0.3);
	CHECK_NEAR(tb_nedd_unnamed_injection(&o.nedd, "1:rd:90"), 0.9);
	/* No share in the text, no text, not a profile: silent. */
	CHECK_NEAR(tb_nedd_unnamed_injection(&o.nedd, "1"), 0);
	CHECK_NEAR(tb_nedd_unnamed_injection(&o.nedd, NULL), 0);
	CHECK_NEAR(tb_nedd_unnamed_injection(&o.nedd, "a:b:c"), 0);
	CHECK_EQ(tb_options_parse("inj_unnamed=0.5", &o, err, sizeof(err)), 0);
	CHECK_NEAR(tb_nedd_unnamed_injection(&o.nedd, "0:2:30:100"), 0.15);
	tb_nedd_options_format(&o.nedd, buf, sizeof(buf));
	CHECK(strstr(buf, " inj_unnamed=0.5"));
}
