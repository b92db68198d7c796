/*
 * Decision time per job for each policy on a real machine's tree about half
 * busy. The busy half is made by placing random jobs with `default` (as a
 * running machine would be), so leaves are fragmented the way they are in
 * practice; 90% of placed jobs are communication-intensive.
 *
 *   bench-alloc <topology.json> [requests] [busy-fraction] [large-nodes]
 *
 * Prints median, 95th percentile and maximum in microseconds per policy,
 * and how many requests the policy left waiting (isolated, SC18: enough
 * nodes free but none it may take). The busy half is recorded as running
 * jobs (occupancy's `job`) so isolated sees their classes.
 *
 * Then issue 17's case, one large job (8,000 nodes, or two thirds of a
 * smaller machine; large-nodes overrides), per policy: median and maximum
 * in milliseconds of LARGE_PICKS picks on the idle machine and on one
 * loaded by the same random jobs as far as still leaves the job room (it
 * then takes about every free node).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lib/policy.h"
#include "bench_rng.h"

/* Job sizes spread over 1..max on a log scale, as in real logs. */
static int job_size(unsigned long long *rng, int max)
{
	int bits = 0;

	while ((1 << (bits + 1)) <= max)
		bits++;
	int lo = 1 << tb_bench_rnd(rng, (unsigned)bits + 1);
	int size = lo + (int)tb_bench_rnd(rng, (unsigned)lo);
	return size > max ? max : size;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#define LARGE_PICKS 5

/*
 * Places random jobs with `default` on o until at least busy_target nodes
 * are busy, none making more than max_busy busy; returns the busy count.
 */
static int fill(unsigned long long *rng, const struct tb_topology *t,
		struct tb_occupancy *o, int *alloc, double busy_target,
		int max_busy)
{
	int busy = 0;

	while (busy < busy_target) {
		struct tb_job job = {
			.nodes = job_size(rng, t->n_nodes / 16),
			.comm = tb_bench_rnd(rng, 10) < 9,
			.pattern = TB_PATTERN_RD, .comm_fraction = 0.5 };
		if (job.nodes > max_busy - busy)
			job.nodes = max_busy - busy;
		if (job.nodes < 1 ||
		    tb_allocate(TB_POLICY_DEFAULT, t, o, &job, alloc) != TB_OK)
			break;
		for (int k = 0; k < job.nodes; k++) {
			o->state[alloc[k]] = job.comm ? TB_NODE_BUSY_COMM : TB_NODE_BUSY;
			o->job[alloc[k]] = o->n_jobs;
		}
		o->n_jobs++;
		busy += job.nodes;
	}
	return busy;
}

/* Median and maximum in ms of LARGE_PICKS picks of one job; -1 on failure. */
static int time_large(enum tb_policy p, const struct tb_topology *t,
		      const struct tb_occupancy *o, int nodes, int *alloc,
		      double *median_ms, double *max_ms)
{
	double ms[LARGE_PICKS];

	for (int r = 0; r < LARGE_PICKS; r++) {
		struct tb_job job = { .nodes = nodes, .comm = 1,
				      .pattern = TB_PATTERN_RD,
				      .comm_fraction = 0.5 };
		double t0 = now_us();
		enum tb_status rc = tb_allocate(p, t, o, &job, alloc);

		ms[r] = (now_us() - t0) / 1e3;
		if (rc != TB_OK && rc != TB_EWAIT) {
			fprintf(stderr, "bench-alloc: large job: %s: %s\n",
				tb_policy_name(p), tb_status_str(rc));
			return -1;
		}
	}
	qsort(ms, LARGE_PICKS, sizeof(double), cmp_double);
	*median_ms = ms[LARGE_PICKS / 2];
	*max_ms = ms[LARGE_PICKS - 1];
	return 0;
}

/* Issue 17's figure: one large job on an idle and on a loaded machine. */
static int bench_large(unsigned long long *rng, const struct tb_topology *t,
		       int nodes, int *alloc)
{
	struct tb_occupancy *idle = tb_occupancy_new(t->n_nodes);
	struct tb_occupancy *loaded = tb_occupancy_new(t->n_nodes);
	int busy, rc = -1;

	if (!idle || !loaded ||
	    !(loaded->job = malloc(sizeof(int) * (size_t)t->n_nodes))) {
		fprintf(stderr, "bench-alloc: out of memory\n");
		goto out;
	}
	for (int k = 0; k < t->n_nodes; k++)
		loaded->job[k] = -1;
	busy = fill(rng, t, loaded, alloc, t->n_nodes - nodes,
		    t->n_nodes - nodes);
	printf("# large job: %d nodes; idle, and loaded with %d busy (%.0f%%); "
	       "median and max of %d picks\n", nodes, busy,
	       100.0 * busy / t->n_nodes, LARGE_PICKS);
	printf("%-10s %10s %10s %10s %10s\n", "large", "idle_ms", "idle_max",
	       "loaded_ms", "loaded_max");
	for (int p = 0; p < TB_POLICY_COUNT; p++) {
		double im, ix, lm, lx;

		if (time_large((enum tb_policy)p, t, idle, nodes, alloc, &im, &ix) ||
		    time_large((enum tb_policy)p, t, loaded, nodes, alloc, &lm, &lx))
			goto out;
		printf("%-10s %10.2f %10.2f %10.2f %10.2f\n",
		       tb_policy_name((enum tb_policy)p), im, ix, lm, lx);
	}
	rc = 0;
out:
	tb_occupancy_free(idle);
	tb_occupancy_free(loaded);
	return rc;
}

int main(int argc, char **argv)
{
	struct tb_topology *t;
	struct tb_occupancy *o;
	char err[512];
	int requests = argc > 2 ? atoi(argv[2]) : 2000;
	double busy_target = argc > 3 ? atof(argv[3]) : 0.5;
	int large = argc > 4 ? atoi(argv[4]) : 0;
	int *alloc, busy = 0, *sizes, *comm;
	double *times;
	unsigned long long rng = TB_BENCH_RNG_SEED;

	if (argc < 2 || requests < 1 || large < 0) {
		fprintf(stderr, "usage: bench-alloc <topology.json> [requests] [busy-fraction] [large-nodes]\n");
		return 2;
	}
	if (tb_topology_load(argv[1], &t, err, sizeof(err))) {
		fprintf(stderr, "bench-alloc: %s\n", err);
		return 1;
	}
	if (!large)
		large = t->n_nodes * 2 / 3 < 8000 ? t->n_nodes * 2 / 3 : 8000;
	if (large > t->n_nodes) {
		fprintf(stderr, "bench-alloc: a large job of %d nodes on %d\n",
			large, t->n_nodes);
		return 2;
	}
	o = tb_occupancy_new(t->n_nodes);
	if (o && !(o->job = malloc(sizeof(int) * (size_t)t->n_nodes))) {
		tb_occupancy_free(o);
		o = NULL;
	}
	for (int k = 0; o && k < t->n_nodes; k++)
		o->job[k] = -1;
	alloc = malloc(sizeof(int) * (size_t)t->n_nodes);
	sizes = malloc(sizeof(int) * (size_t)requests);
	comm = malloc(sizeof(int) * (size_t)requests);
	times = malloc(sizeof(double) * (size_t)requests);
	if (!o || !alloc || !sizes || !comm || !times) {
		fprintf(stderr, "bench-alloc: out of memory\n");
		return 1;
	}
	busy = fill(&rng, t, o, alloc, busy_target * t->n_nodes, t->n_nodes);
	for (int r = 0; r < requests; r++) {
		sizes[r] = job_size(&rng, (t->n_nodes - busy) / 2);
		comm[r] = tb_bench_rnd(&rng, 10) < 9;
	}
	printf("# %s: %d nodes, %d leaves, %d levels; %d busy (%.0f%%); %d requests of 1-%d nodes\n",
	       argv[1], t->n_nodes, t->n_leaves, t->n_levels, busy,
	       100.0 * busy / t->n_nodes, requests, (t->n_nodes - busy) / 2);
	printf("%-10s %10s %10s %10s %6s\n", "policy", "median_us", "p95_us",
	       "max_us", "waits");
	for (int p = 0; p < TB_POLICY_COUNT; p++) {
		int waits = 0;

		for (int r = 0; r < requests; r++) {
			struct tb_job job = {
				.nodes = sizes[r], .comm = comm[r],
				.pattern = (enum tb_pattern)(r % TB_PATTERN_COUNT),
				.comm_fraction = 0.5 };
			double t0 = now_us();
			enum tb_status rc = tb_allocate((enum tb_policy)p, t, o,
							&job, alloc);
			times[r] = now_us() - t0;
			if (rc == TB_EWAIT) {
				waits++;
				continue;
			}
			if (rc != TB_OK) {
				fprintf(stderr, "bench-alloc: %s: %s\n",
					tb_policy_name(p), tb_status_str(rc));
				return 1;
			}
		}
		qsort(times, (size_t)requests, sizeof(double), cmp_double);
		printf("%-10s %10.1f %10.1f %10.1f %6d\n", tb_policy_name(p),
		       times[requests / 2], times[requests * 95 / 100],
		       times[requests - 1], waits);
	}
	if (bench_large(&rng, t, large, alloc))
		return 1;
	free(times);
	free(comm);
	free(sizes);
	free(alloc);
	tb_occupancy_free(o);
	tb_topology_free(t);
	return 0;
}
