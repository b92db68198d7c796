/*
 * The twin's schedule of a fixed synthetic input, as a checksum of every
 * job's start, end and nodes: the speed work on tb-sim and the library's
 * tallies (per-leaf counts summed up the tree, the twin's word-mask
 * tallies in occupancy `counts`) must leave every decision as it was.
 * The expected sums were printed by this test at 377af4c, before that
 * work (the code that walked each node's path to the root).
 *
 * The input: 300 jobs from a fixed linear congruential sequence (sizes 1
 * to 24 nodes, a third communication-intensive, runtimes 10-2,000 s,
 * limits 1-3 x the runtime, Poisson-like arrivals at a load above the
 * machine's) on two switches of three 16-node leaves, with one leaf of 8
 * under the root: 104 nodes, the leaves' words shared (bitmaps of 64).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "policy.h"
#include "tests.h"
#include "../../plugins/sim/sim.h"

#define MACHINE \
	"switch S1 parent top\nswitch S2 parent top\n" \
	"leaf L1 16 0 0 parent S1\nleaf L2 16 0 0 parent S1\n" \
	"leaf L3 16 0 0 parent S1\nleaf L4 16 0 0 parent S2\n" \
	"leaf L5 16 0 0 parent S2\nleaf L6 16 0 0 parent S2\n" \
	"leaf L7 8 0 0\njob nodes=1\n"
#define GOLDEN_JOBS 300

static uint32_t lcg(uint32_t *x)
{
	*x = *x * 1103515245u + 12345u;
	return (*x >> 8) & 0xffffff;
}

/* plan.tsv text for the input above (caller frees). */
static char *golden_plan(void)
{
	static const char *patterns[] = { "rd", "rhvd", "ring", "cmc" };
	size_t cap = 128 * (GOLDEN_JOBS + 1), len;
	char *text = malloc(cap);
	uint32_t x = 28;
	long t = 0;

	if (!text)
		return NULL;
	len = (size_t)snprintf(text, cap, "log_id\toffset\truntime\tnodes\t"
			       "comm\tpattern\tcomm_percent\tlimit_min\t"
			       "matrix_density\tta_reduction\tprefill\t"
			       "nodelist\tchain\tranks\n");
	for (int i = 0; i < GOLDEN_JOBS; i++) {
		int nodes = 1 + (int)(lcg(&x) % 24);
		int comm = lcg(&x) % 3 == 0;
		long run = 10 + (long)(lcg(&x) % 1991);
		long limit_min = (run * (1 + (long)(lcg(&x) % 3)) + 59) / 60;

		t += (long)(lcg(&x) % 120);
		len += (size_t)snprintf(text + len, cap - len,
					"%d\t%ld\t%ld\t%d\t%d\t%s\t%d\t%ld"
					"\t0\t0\t0\t\t0\t0\n", i + 1, t, run,
					nodes, comm, patterns[lcg(&x) % 4],
					comm ? 60 : 0, limit_min);
	}
	return text;
}

static uint64_t fnv(uint64_t h, long long v)
{
	for (int b = 0; b < 8; b++) {
		h ^= (uint64_t)(v >> (8 * b)) & 0xff;
		h *= 1099511628211u;
	}
	return h;
}

/* The schedule's checksum under policy p and backfill bf (0 on error). */
static uint64_t golden_sum(enum tb_policy p, enum sim_backfill bf,
			   enum tb_adaptive_tie tie)
{
	struct tb_scenario *sc = scenario(MACHINE);
	struct sim_params prm;
	struct sim_plan plan;
	char err[256], *text = golden_plan();
	uint64_t h = 14695981039346656037u;

	CHECK(text != NULL);
	sim_params_default(&prm);
	prm.policy = p;
	prm.backfill = bf;
	prm.opts.adaptive_tie = tie;
	if (!text || sim_plan_parse(text, "golden", 1, sc->topo, &plan, err,
				    sizeof(err))) {
		free(text);
		tb_scenario_free(sc);
		return 0;
	}
	if (sim_run(sc->topo, &plan, &prm, err, sizeof(err))) {
		fprintf(stderr, "  golden %s: %s\n", tb_policy_name(p), err);
		h = 0;
	} else {
		for (int i = 0; i < plan.n; i++) {
			const struct sim_job *j = &plan.jobs[i];

			h = fnv(h, (long long)(j->start * 1000));
			h = fnv(h, (long long)(j->end * 1000));
			for (int k = 0; k < j->nodes; k++)
				h = fnv(h, j->alloc[k]);
		}
	}
	sim_plan_free(&plan);
	free(text);
	tb_scenario_free(sc);
	return h;
}

void test_sim_golden_schedules(void)
{
	static const struct {
		const char *policy;
		enum sim_backfill bf;
		uint64_t sum;
		enum tb_adaptive_tie tie;
	} want[] = {
		{ "default", SIM_BF_SLURM, 0x84b6a319084c7b7cu, TB_TIE_BALANCED },
		{ "default", SIM_BF_EASY, 0xfd0403400492346cu, TB_TIE_BALANCED },
		{ "greedy", SIM_BF_SLURM, 0xcac31ec5bc767d70u, TB_TIE_BALANCED },
		{ "balanced", SIM_BF_SLURM, 0xf920ec9186a7b27bu, TB_TIE_BALANCED },
		/* The tie rule of 377af4c (ties to greedy): the speed work
		 * left its schedule as it was. */
		{ "adaptive", SIM_BF_SLURM, 0x5113a276c942e316u,
		  TB_TIE_GREEDY },
		/* The authors' rule, the default since 7551bba (ties to
		 * balanced): its own sum, taken when it became the default. */
		{ "adaptive", SIM_BF_SLURM, 0xc211dfb305281e89u,
		  TB_TIE_BALANCED },
		{ "default1905", SIM_BF_SLURM, 0x5041516e79fb0e86u, TB_TIE_BALANCED },
		{ "isolated", SIM_BF_SLURM, 0x46e3b30baed302c1u, TB_TIE_BALANCED },
		{ "firstfit", SIM_BF_SLURM, 0x58c20dc556cd9ef4u, TB_TIE_BALANCED },
		{ "nedd", SIM_BF_SLURM, 0x678b2bfb210eb3d6u, TB_TIE_BALANCED },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		enum tb_policy p;
		uint64_t got;

		CHECK(!tb_policy_parse(want[i].policy, &p));
		got = golden_sum(p, want[i].bf, want[i].tie);
		if (got != want[i].sum)
			fprintf(stderr, "  golden %s bf=%d: 0x%016" PRIx64
				", expected 0x%016" PRIx64 "\n",
				want[i].policy, (int)want[i].bf, got,
				want[i].sum);
		CHECK(got == want[i].sum);
	}
}
