/* A name index of a topology's nodes (node_index.h). */
#include "node_index.h"

#include <stdlib.h>
#include <string.h>

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct tb_node_named *)a)->name,
		      ((const struct tb_node_named *)b)->name);
}

int tb_node_index_build(const struct tb_topology *t,
			struct tb_node_index *idx)
{
	size_t n = t->n_nodes > 0 ? (size_t)t->n_nodes : 1;

	idx->n = 0;
	idx->v = malloc(sizeof(*idx->v) * n);
	if (!idx->v)
		return -1;
	for (int i = 0; i < t->n_nodes; i++)
		idx->v[i] = (struct tb_node_named) { t->nodes[i].name, i };
	idx->n = t->n_nodes > 0 ? t->n_nodes : 0;
	qsort(idx->v, (size_t)idx->n, sizeof(*idx->v), by_name);
	return 0;
}

int tb_node_index_find(const struct tb_node_index *idx, const char *name)
{
	struct tb_node_named key = { name, -1 };
	const struct tb_node_named *hit;

	if (!idx->n)
		return -1;
	hit = bsearch(&key, idx->v, (size_t)idx->n, sizeof(*idx->v),
		      by_name);
	return hit ? hit->index : -1;
}

void tb_node_index_free(struct tb_node_index *idx)
{
	free(idx->v);
	idx->v = NULL;
	idx->n = 0;
}
