/*
 * tb_node_index (node_index.h): every node comes back at its index by
 * name, whatever the order of the topology's nodes (names that sort
 * differently from their indexes, prefixes of one another), and a name
 * not there, a prefix of one, or any name on a machine of no nodes, is -1.
 */
#include "check.h"
#include "node_index.h"
#include "tests.h"

void test_node_index_finds_every_node_by_name(void)
{
	struct tb_node nodes[] = {
		{ .name = "nid00010" }, { .name = "nid00002" },
		{ .name = "nid0001" }, { .name = "cn9" }, { .name = "nid00001" },
	};
	struct tb_topology t = { .n_nodes = 5, .nodes = nodes };
	struct tb_node_index idx;

	CHECK_EQ(tb_node_index_build(&t, &idx), 0);
	CHECK_EQ(tb_node_index_find(&idx, "nid00010"), 0);
	CHECK_EQ(tb_node_index_find(&idx, "nid00002"), 1);
	CHECK_EQ(tb_node_index_find(&idx, "nid0001"), 2);
	CHECK_EQ(tb_node_index_find(&idx, "cn9"), 3);
	CHECK_EQ(tb_node_index_find(&idx, "nid00001"), 4);
	CHECK_EQ(tb_node_index_find(&idx, "nid000"), -1);
	CHECK_EQ(tb_node_index_find(&idx, "nid00003"), -1);
	CHECK_EQ(tb_node_index_find(&idx, ""), -1);
	/* The topology's strings, not copies: the index follows them. */
	CHECK(idx.v[0].name == nodes[3].name);
	tb_node_index_free(&idx);
	CHECK(idx.v == NULL && idx.n == 0);

	struct tb_topology none = { 0 };

	CHECK_EQ(tb_node_index_build(&none, &idx), 0);
	CHECK_EQ(tb_node_index_find(&idx, "cn9"), -1);
	tb_node_index_free(&idx);
}
