/*
 * tb-alloc: run the allocation policies on a scenario file and print, per
 * policy, the leaves it took in allocation order and the cost (Eq. 6):
 *
 *   default L1:160 L2:150 L3:100 L4:80 L5:22 cost=...
 *
 * With an 'eval' line, prints the cost of that allocation instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/cost.h"
#include "../lib/policy.h"
#include "../lib/scenario.h"

static void usage(void)
{
	fprintf(stderr, "usage: tb-alloc <scenario> [default|greedy|balanced|adaptive|all]\n");
}

static void print_allocation(const char *label, const struct tb_topology *t,
			     const int *alloc, int n, double cost)
{
	printf("%s", label);
	for (int k = 0; k < n;) {
		int leaf = t->nodes[alloc[k]].leaf, run = 0;
		while (k < n && t->nodes[alloc[k]].leaf == leaf) {
			run++;
			k++;
		}
		printf(" %s:%d", t->switches[leaf].name, run);
	}
	printf(" cost=%g\n", cost);
}

static int run_policy(const struct tb_scenario *s, enum tb_policy p, int *alloc)
{
	double cost;
	enum tb_status rc = tb_allocate(p, s->topo, s->occ, &s->job, alloc);

	if (rc != TB_OK) {
		printf("%s -\n", tb_policy_name(p));
		fprintf(stderr, "tb-alloc: %s: %s for a %d-node job\n",
			tb_policy_name(p), tb_status_str(rc), s->job.nodes);
		return 1;
	}
	if (tb_allocation_cost(s->topo, s->occ, &s->job, alloc, &cost)) {
		fprintf(stderr, "tb-alloc: out of memory\n");
		return 1;
	}
	print_allocation(tb_policy_name(p), s->topo, alloc, s->job.nodes, cost);
	return 0;
}

int main(int argc, char **argv)
{
	struct tb_scenario *s;
	char err[512];
	int *alloc, failed = 0, first = 0, last = TB_POLICY_COUNT - 1;
	enum tb_policy only;

	if (argc < 2 || argc > 3) {
		usage();
		return 2;
	}
	if (argc == 3 && strcmp(argv[2], "all")) {
		if (tb_policy_parse(argv[2], &only)) {
			fprintf(stderr, "tb-alloc: unknown policy '%s'; valid: "
				"default greedy balanced adaptive all\n", argv[2]);
			return 2;
		}
		first = last = (int)only;
	}
	if (tb_scenario_load(argv[1], &s, err, sizeof(err))) {
		fprintf(stderr, "tb-alloc: %s\n", err);
		return 1;
	}
	alloc = malloc(sizeof(int) * (size_t)s->topo->n_nodes);
	if (!alloc) {
		fprintf(stderr, "tb-alloc: out of memory\n");
		tb_scenario_free(s);
		return 1;
	}
	if (s->n_eval) {
		double cost;
		if (tb_allocation_cost(s->topo, s->occ, &s->job, s->eval_alloc,
				       &cost)) {
			fprintf(stderr, "tb-alloc: out of memory\n");
			failed = 1;
		} else {
			print_allocation("eval", s->topo, s->eval_alloc, s->n_eval,
					 cost);
		}
	} else {
		for (int p = first; p <= last; p++)
			failed |= run_policy(s, (enum tb_policy)p, alloc);
	}
	free(alloc);
	tb_scenario_free(s);
	return failed;
}
