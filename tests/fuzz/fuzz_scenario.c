/* libFuzzer target: the scenario parser never crashes, leaks or accepts a
 * state the policies then choke on. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "policy.h"
#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tb_scenario *s;
	char err[256];

	if (tb_scenario_parse((const char *)data, size, "fuzz", &s, err,
			      sizeof(err)))
		return 0;
	/* Whatever parses must be safe to allocate on (bounded: the parser
	 * allows up to 2^20 nodes, the fuzzer's time is better spent on
	 * parsing). */
	if (s->topo->n_nodes <= 4096 && s->has_job) {
		int *alloc = malloc(sizeof(int) * (size_t)s->topo->n_nodes);
		if (alloc) {
			for (int p = 0; p < TB_POLICY_COUNT; p++)
				(void)tb_allocate((enum tb_policy)p, s->topo,
						  s->occ, &s->job, alloc);
			free(alloc);
		}
	}
	tb_scenario_free(s);
	return 0;
}
