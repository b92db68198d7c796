/*
 * Node names sorted, for lists of names as long as the machine (a replay's
 * plan names every node of its occupying jobs, tb-alloc --busy as many): a
 * lookup by name is then a binary search, not a scan of every node.
 */
#ifndef TB_NODE_INDEX_H
#define TB_NODE_INDEX_H

#include "topology.h"

struct tb_node_named {
	const char *name;	/* the topology's own string, not a copy */
	int index;		/* into tb_topology.nodes */
};

struct tb_node_index {
	int n;
	struct tb_node_named *v;	/* sorted by name */
};

/* Indexes t's nodes; t must outlive the index. 0, or -1 when out of
 * memory (idx is then empty and may be freed). */
int tb_node_index_build(const struct tb_topology *t,
			struct tb_node_index *idx);

/* The node named name, or -1. */
int tb_node_index_find(const struct tb_node_index *idx, const char *name);

void tb_node_index_free(struct tb_node_index *idx);

#endif
