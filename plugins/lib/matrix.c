#include "matrix.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load_text.h"
#include "textfile.h"

void tb_matrix_free(struct tb_matrix *m)
{
	if (!m)
		return;
	free(m->entries);
	free(m);
}

int tb_matrix_parse(const char *text, size_t len, const char *name,
		    struct tb_matrix **out, char *err, size_t errlen)
{
	struct tb_matrix *m = calloc(1, sizeof(*m));
	size_t pos = 0, cap = 0;
	char line[256];
	int lineno = 0, rc;

	*out = NULL;
	if (!m)
		return tb_fail_at(err, errlen, name, 0, "out of memory");
	while ((rc = tb_next_line(text, len, &pos, line, sizeof(line))) != 0) {
		char a[64], b[64], c[64], extra[2];
		int fields;

		lineno++;
		if (rc < 0) {
			tb_fail_at(err, errlen, name, lineno, "line longer than %zu bytes",
			     sizeof(line) - 1);
			goto bad;
		}
		if (!line[0])
			continue;
		fields = sscanf(line, "%63s %63s %63s %1s", a, b, c, extra);
		if (!m->ranks) {
			if (fields != 2 || strcmp(a, "ranks") ||
			    tb_parse_int(b, 1, TB_MATRIX_MAX_RANKS, &m->ranks)) {
				tb_fail_at(err, errlen, name, lineno,
				     "expected 'ranks <1-%d>' first",
				     TB_MATRIX_MAX_RANKS);
				goto bad;
			}
			continue;
		}
		if (fields != 3) {
			tb_fail_at(err, errlen, name, lineno,
			     "expected '<from> <to> <volume>'");
			goto bad;
		}
		if (cap == m->n) {
			size_t ncap = cap ? cap * 2 : 64;
			struct tb_matrix_entry *e =
				realloc(m->entries, ncap * sizeof(*e));
			if (!e) {
				tb_fail_at(err, errlen, name, lineno, "out of memory");
				goto bad;
			}
			m->entries = e;
			cap = ncap;
		}
		struct tb_matrix_entry *e = &m->entries[m->n];
		char *end;
		if (tb_parse_int(a, 0, m->ranks - 1, &e->from) ||
		    tb_parse_int(b, 0, m->ranks - 1, &e->to)) {
			tb_fail_at(err, errlen, name, lineno,
			     "rank out of range 0-%d", m->ranks - 1);
			goto bad;
		}
		errno = 0;
		e->volume = strtod(c, &end);
		if (errno || *end || end == c || !isfinite(e->volume) ||
		    e->volume < 0) {
			tb_fail_at(err, errlen, name, lineno,
			     "volume '%s' is not a finite number >= 0", c);
			goto bad;
		}
		m->n++;
	}
	if (!m->ranks) {
		tb_fail_at(err, errlen, name, lineno, "no 'ranks <n>' line");
		goto bad;
	}
	*out = m;
	return 0;
bad:
	tb_matrix_free(m);
	return -1;
}

/* tb_matrix_parse as load_text.h's parser (out: struct tb_matrix **). */
static int parse_matrix(const char *text, size_t len, const char *name,
			void *out, char *err, size_t errlen)
{
	return tb_matrix_parse(text, len, name, out, err, errlen);
}

int tb_matrix_load(const char *path, struct tb_matrix **out, char *err,
		   size_t errlen)
{
	*out = NULL;
	return tb_load_text(path, parse_matrix, out, err, errlen);
}

char *tb_matrix_to_line(const struct tb_matrix *m, char sep)
{
	/* "ranks N" plus at most 2 x 11 + 24 + 3 characters an entry. */
	size_t cap = 32 + m->n * 64, len;
	char *text = malloc(cap);

	if (!text)
		return NULL;
	len = (size_t) snprintf(text, cap, "ranks %d", m->ranks);
	for (size_t k = 0; k < m->n; k++) {
		const struct tb_matrix_entry *e = &m->entries[k];
		int w = snprintf(text + len, cap - len, "%c%d %d %.17g", sep,
				 e->from, e->to, e->volume);
		if (w < 0 || (size_t) w >= cap - len) {
			free(text);
			return NULL;
		}
		len += (size_t) w;
	}
	return text;
}

double tb_hop_bytes(const struct tb_topology *t, const struct tb_matrix *m,
		    const int *alloc, int nodes)
{
	double sum = 0.0;

	for (size_t k = 0; k < m->n; k++) {
		const struct tb_matrix_entry *e = &m->entries[k];
		int a = (int) ((long long) e->from * nodes / m->ranks);
		int b = (int) ((long long) e->to * nodes / m->ranks);

		if (a != b)
			sum += e->volume *
			       tb_pair_distance(t, alloc[a], alloc[b]);
	}
	return sum;
}

double tb_hop_bytes_cores(const struct tb_topology *t,
			  const struct tb_matrix *m, const int *node_of_rank)
{
	double sum = 0.0;

	for (size_t k = 0; k < m->n; k++) {
		const struct tb_matrix_entry *e = &m->entries[k];
		int a = node_of_rank[e->from], b = node_of_rank[e->to];

		if (e->from == e->to)
			continue;
		sum += e->volume * (a == b ? 2 :
				    tb_pair_distance(t, a, b) + 2);
	}
	return sum;
}
