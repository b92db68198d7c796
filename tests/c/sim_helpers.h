/* What the twin's tests (test_sim*.c) share: the plan.tsv header and one
 * run of a plan on a scenario's machine. */
#ifndef TB_TEST_SIM_HELPERS_H
#define TB_TEST_SIM_HELPERS_H

#include "scenario.h"
#include "../../plugins/sim/sim.h"

/* plan.tsv's header (workloads/replay/run_dir.py's PLAN_FIELDS). */
#define PLAN_HEAD "log_id\toffset\truntime\tnodes\tcomm\tpattern\t" \
	"comm_percent\tlimit_min\tmatrix_density\tta_reduction\tprefill\t" \
	"nodelist\tchain\tranks\n"

/* Builds the machine of scenario text machine (a bad fixture aborts, as
 * scenario() does) into *sc, parses plan_text (plan.tsv at speedup 1) on
 * it into *plan and runs the twin with p: the jobs, or NULL after a failed
 * check. The caller frees *plan and *sc either way. */
struct sim_job *sim_test_run(const char *machine, const char *plan_text,
			     const struct sim_params *p,
			     struct sim_plan *plan, struct tb_scenario **sc);

#endif
