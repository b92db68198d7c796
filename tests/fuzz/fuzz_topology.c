/* libFuzzer target: the topology JSON reader and tree builder. */
#include <stddef.h>
#include <stdint.h>

#include "topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tb_topology *t;
	char err[256];

	if (tb_topology_from_json_text((const char *)data, size, &t, err,
				       sizeof(err)) == 0) {
		if (t->n_nodes > 1)
			(void)tb_pair_distance(t, 0, t->n_nodes - 1);
		tb_topology_free(t);
	}
	return 0;
}
