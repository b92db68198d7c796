#ifndef TB_TEST_HELPERS_H
#define TB_TEST_HELPERS_H

#include <string.h>

#include "scenario.h"
/* The one xorshift generator, shared with the bench tools: each test keeps
 * its own state, so its draws repeat run after run. */
#include "../../plugins/tools/bench_rng.h"

/* Parses scenario text or aborts the test run: a broken fixture is a bug
 * in the test, not a failed check. */
struct tb_scenario *scenario(const char *text);

/* Parses scenario text (named "x") that must fail, building nothing,
 * with an error containing expected; a failed check otherwise. */
void expect_scenario_error(const char *text, const char *expected);

/* Nodes per leaf name in alloc, e.g. "L1:128 L2:128". */
void leaf_counts(const struct tb_topology *t, const int *alloc, int n,
		 char *buf, size_t len);

#endif
