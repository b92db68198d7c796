/*
 * A job's communication matrix, plain text, one entry per line:
 *
 *   # comments and blank lines are ignored
 *   ranks 4            first entry: how many ranks (or nodes)
 *   0 1 1048576        sender receiver volume (bytes; repeats add up)
 *
 * Volumes are kept sparse; the matrix may be rank x rank or node x node,
 * the caller decides which by how it maps indexes.
 */
#ifndef TB_MATRIX_H
#define TB_MATRIX_H

#include <stddef.h>

#include "topology.h"

#define TB_MATRIX_MAX_RANKS (1 << 20)

struct tb_matrix_entry {
	int from, to;
	double volume;
};

struct tb_matrix {
	int ranks;
	size_t n;
	struct tb_matrix_entry *entries;
};

/* Returns 0, or -1 with "<name>:<line>: <reason>" in err. */
int tb_matrix_parse(const char *text, size_t len, const char *name,
		    struct tb_matrix **out, char *err, size_t errlen);
int tb_matrix_load(const char *path, struct tb_matrix **out, char *err,
		   size_t errlen);
void tb_matrix_free(struct tb_matrix *m);

/* The matrix on one line, entries separated by sep instead of newlines,
 * for carriers that take no newline (a job's SPANK environment). malloc'd;
 * NULL when out of memory. tb_matrix_parse reads it back once each sep is
 * a newline again. */
char *tb_matrix_to_line(const struct tb_matrix *m, char sep);

/* Hop-bytes: sum of volume x d(node of i, node of j) over the entries, for
 * ranks placed in blocks over the allocation's nodes (rank r on
 * alloc[r * nodes / ranks]): as many ranks as nodes is one rank per node,
 * more ranks fill each node in turn, as MPI's block placement does. */
double tb_hop_bytes(const struct tb_topology *t, const struct tb_matrix *m,
		    const int *alloc, int nodes);

/* Hop-bytes with cores as the tree's leaves (TreeMatch, IJHPCA 2018,
 * Sec. 3.1.3): rank r on a core of node_of_rank[r], one rank per core.
 * d = hops on the tree path: 0 for a rank to itself, 2 between two cores
 * of one node, tb_pair_distance() + 2 across nodes (the node is one more
 * level below the leaf switch). Each entry counts once, so a pair's
 * affinity w(i,j) is the sum of both directions. Figure 2's 360 and 660
 * need exactly this: 1, 2, 3 per level would give 180 and 330. */
double tb_hop_bytes_cores(const struct tb_topology *t,
			  const struct tb_matrix *m, const int *node_of_rank);

#endif
