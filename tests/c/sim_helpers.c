#include "sim_helpers.h"

#include <stdio.h>

#include "check.h"
#include "helpers.h"

struct sim_job *sim_test_run(const char *machine, const char *plan_text,
			     const struct sim_params *p,
			     struct sim_plan *plan, struct tb_scenario **sc)
{
	char err[256];

	*sc = scenario(machine);
	if (sim_plan_parse(plan_text, "plan", 1, (*sc)->topo, plan, err,
			   sizeof(err))) {
		fprintf(stderr, "  plan: %s\n", err);
		CHECK(0);
		return NULL;
	}
	if (sim_run((*sc)->topo, plan, p, err, sizeof(err))) {
		fprintf(stderr, "  run: %s\n", err);
		CHECK(0);
		return NULL;
	}
	return plan->jobs;
}
