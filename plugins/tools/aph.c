/*
 * tb-aph: per job, the leaf switches used and the average pairwise hops
 * (APH, Eq. 1 of the interference-free fat-tree paper, SC18) with the
 * library's distance d(i,j) = 2 x level of the lowest common switch, so
 * metrics and policies measure an allocation the same way.
 *
 *   tb-aph <topology.json> < "<job id> <node>,<node>,..." per line
 *   prints "<job id> <leaves> <aph>" per line
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/topology.h"

static int find_node(const struct tb_topology *t, const char *name)
{
	/* Topology files list nodes in order; one linear scan per name is
	 * fast enough for a report and avoids a hash table here. */
	for (int i = 0; i < t->n_nodes; i++)
		if (!strcmp(t->nodes[i].name, name))
			return i;
	return -1;
}

int main(int argc, char **argv)
{
	struct tb_topology *t;
	char err[512], *line = NULL;
	size_t cap = 0;
	int *nodes, lineno = 0, rc = 0;
	unsigned char *leaf_seen;

	if (argc != 2) {
		fprintf(stderr, "usage: tb-aph <topology.json> < jobs\n");
		return 2;
	}
	if (tb_topology_load(argv[1], &t, err, sizeof(err))) {
		fprintf(stderr, "tb-aph: %s\n", err);
		return 1;
	}
	nodes = malloc(sizeof(int) * (size_t)t->n_nodes);
	leaf_seen = calloc((size_t)t->n_switches, 1);
	if (!nodes || !leaf_seen) {
		fprintf(stderr, "tb-aph: out of memory\n");
		return 1;
	}
	while (getline(&line, &cap, stdin) > 0) {
		char *id = strtok(line, " \t\n"), *list = strtok(NULL, " \t\n");
		int n = 0, leaves = 0;
		double sum = 0;

		lineno++;
		if (!id)
			continue;
		for (char *name = list ? strtok(list, ",") : NULL; name;
		     name = strtok(NULL, ",")) {
			int k = find_node(t, name);
			if (k < 0) {
				fprintf(stderr, "tb-aph: stdin:%d: unknown node '%s'\n",
					lineno, name);
				rc = 1;
				continue;
			}
			if (n < t->n_nodes)
				nodes[n++] = k;
		}
		memset(leaf_seen, 0, (size_t)t->n_switches);
		for (int a = 0; a < n; a++) {
			if (!leaf_seen[t->nodes[nodes[a]].leaf]++)
				leaves++;
			for (int b = a + 1; b < n; b++)
				sum += tb_pair_distance(t, nodes[a], nodes[b]);
		}
		printf("%s %d %.10g\n", id, leaves,
		       n > 1 ? sum / ((double)n * (n - 1) / 2) : 0.0);
	}
	free(line);
	free(nodes);
	free(leaf_seen);
	tb_topology_free(t);
	return rc;
}
