/*
 * TOFA's outage probabilities as the controller reads them (outage.txt
 * beside slurm.conf, re-read when it changes): one node a line,
 *
 *   # comments and blank lines are ignored
 *   t017 0.02          node name, probability from 0 to 1
 *
 * nodes not listed have pf 0 (the paper's Nf, L700-710).
 */
#include "tofa.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textfile.h"

static int find_node(const struct tb_topology *t, const char *name)
{
	for (int k = 0; k < t->n_nodes; k++)
		if (!strcmp(t->nodes[k].name, name))
			return k;
	return -1;
}

int tb_outage_parse(const char *text, size_t len, const char *name,
		    const struct tb_topology *t, double **out, char *err,
		    size_t errlen)
{
	double *pf = calloc((size_t)(t->n_nodes ? t->n_nodes : 1),
			    sizeof(double));
	char line[512], node[256], extra[2];
	size_t pos = 0;
	int rc, lineno = 0;

	*out = NULL;
	if (!pf)
		return tb_fail_at(err, errlen, name, 0, "out of memory");
	while ((rc = tb_next_line(text, len, &pos, line, sizeof(line))) != 0) {
		char num[64], *end;
		double v;
		int k;

		lineno++;
		if (rc < 0)
			goto bad_long;
		if (!line[0])
			continue;
		if (sscanf(line, "%255s %63s %1s", node, num, extra) != 2) {
			free(pf);
			return tb_fail_at(err, errlen, name, lineno,
					  "expected '<node> <probability>'");
		}
		if ((k = find_node(t, node)) < 0) {
			free(pf);
			return tb_fail_at(err, errlen, name, lineno,
					  "unknown node '%s'", node);
		}
		errno = 0;
		v = strtod(num, &end);
		if (errno || *end || !isfinite(v) || v < 0 || v > 1) {
			free(pf);
			return tb_fail_at(err, errlen, name, lineno,
					  "'%s': expected a probability from 0 "
					  "to 1", num);
		}
		pf[k] = v;
	}
	*out = pf;
	return 0;
bad_long:
	free(pf);
	return tb_fail_at(err, errlen, name, lineno, "line longer than %zu bytes",
			  sizeof(line) - 1);
}
