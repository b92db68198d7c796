/*
 * The twin's result, one line per job of the plan in its order, tab-
 * separated, NaN as "nan" (workloads/simulate reads it into sacct.json):
 *
 *   log_id eligible start end state nodes policy fallback cost
 *   cost_default cost_denominator denominator runtime_base runtime_scaled
 *   runtime_fallback hop_bytes hop_bytes_default planned backfilled
 *   recorded ranks costs
 *
 * nodes: the node names in rank order, ',' between them; state: COMPLETED,
 * TIMEOUT or CANCELLED; planned: the first start backfill planned for the
 * job (-1: none); recorded: 0 for a job the plugin keeps no record of (a
 * node list); ranks: a job of cores' (GRANULARITY=core: its nodes are then
 * its distinct nodes in index order, its costs nan), 0 for whole nodes;
 * costs: "<policy>=<cost>" of each policy asked for (sim_params.costed,
 * --costs), ',' between them, empty when none was. A job that never
 * started has no line.
 */
#include "sim.h"

static const char *end_name(enum sim_end e)
{
	return e == SIM_TIMEOUT ? "TIMEOUT" :
	       e == SIM_CANCELLED ? "CANCELLED" : "COMPLETED";
}

int sim_write(FILE *f, const struct tb_topology *t,
	      const struct sim_plan *plan, const struct sim_params *p)
{
	const char *denom = tb_policy_name(tb_denominator_policy(&p->opts));

	fprintf(f, "log_id\teligible\tstart\tend\tstate\tnodes\tpolicy\t"
		"fallback\tcost\tcost_default\tcost_denominator\tdenominator\t"
		"runtime_base\truntime_scaled\truntime_fallback\thop_bytes\t"
		"hop_bytes_default\tplanned\tbackfilled\trecorded\tranks\tcosts\n");
	for (int i = 0; i < plan->n; i++) {
		const struct sim_job *j = &plan->jobs[i];
		const char *why = tb_runtime_fallback_name(j->runtime_why);

		if (!j->alloc)
			continue;
		fprintf(f, "%s\t%.3f\t%.3f\t%.3f\t%s\t", j->log_id, j->eligible,
			j->start, j->end, end_name(j->how));
		for (int k = 0; k < (j->ranks ? j->n_on : j->nodes); k++)
			fprintf(f, "%s%s", k ? "," : "",
				t->nodes[j->ranks ? j->on[k] :
					 j->alloc[k]].name);
		fprintf(f, "\t%s\t%s\t%.6g\t%.6g\t%.6g\t%s\t%.6g\t%.6g\t%s\t"
			"%.6g\t%.6g\t%.3f\t%d\t%d\t%d\t",
			tb_policy_name(j->used), j->fallback ? j->fallback : "",
			j->cost, j->cost_default, j->cost_denominator, denom,
			j->runtime, j->runtime_scaled, why ? why : "",
			j->hop_bytes, j->hop_bytes_default, j->planned,
			j->by_backfill, !j->fixed, j->ranks);
		for (int k = 0; j->costed && k < p->n_costed; k++)
			fprintf(f, "%s%s=%.6g", k ? "," : "",
				tb_policy_name(p->costed[k]), j->costed[k]);
		fputc('\n', f);
	}
	return ferror(f) ? -1 : 0;
}
