/*
 * Node sets as bitmaps, and backfill's plan of the nodes over time: the
 * twin of Slurm's node_space_map (src/plugins/sched/backfill), slices
 * [begin_i, begin_i+1) each with the nodes free in it.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

int sim_bits_init(struct sim_bits *b, int n, int all)
{
	b->n = n;
	b->words = (n + 63) / 64;
	b->w = calloc((size_t)(b->words ? b->words : 1), sizeof(uint64_t));
	if (!b->w)
		return -1;
	if (all) {
		for (int i = 0; i < n / 64; i++)
			b->w[i] = ~(uint64_t)0;
		if (n % 64)
			b->w[n / 64] = ((uint64_t)1 << (n % 64)) - 1;
	}
	return 0;
}

void sim_bits_fini(struct sim_bits *b)
{
	free(b->w);
	b->w = NULL;
}

void sim_bits_copy(struct sim_bits *dst, const struct sim_bits *src)
{
	memcpy(dst->w, src->w, sizeof(uint64_t) * (size_t)src->words);
}

void sim_bits_and(struct sim_bits *dst, const struct sim_bits *src)
{
	for (int i = 0; i < dst->words; i++)
		dst->w[i] &= src->w[i];
}

int sim_bits_subset(const struct sim_bits *a, const struct sim_bits *b)
{
	for (int i = 0; i < a->words; i++)
		if (a->w[i] & ~b->w[i])
			return 0;
	return 1;
}

int sim_bits_count(const struct sim_bits *b)
{
	int c = 0;

	for (int i = 0; i < b->words; i++)
		c += sim_popcount(b->w[i]);
	return c;
}

int sim_space_init(struct sim_space *s, const struct sim_bits *free_now,
		   double now)
{
	memset(s, 0, sizeof(*s));
	s->cap = 16;
	s->begin = malloc(sizeof(double) * (size_t)s->cap);
	s->free = calloc((size_t)s->cap, sizeof(struct sim_bits));
	s->touched = malloc(sizeof(int) * (size_t)(free_now->words + 1));
	s->count = malloc(sizeof(int) * (size_t)s->cap);
	if (!s->begin || !s->free || !s->touched || !s->count ||
	    sim_bits_init(&s->mask, free_now->n, 0) ||
	    sim_bits_init(&s->free[0], free_now->n, 0)) {
		sim_space_fini(s);
		return -1;
	}
	sim_bits_copy(&s->free[0], free_now);
	s->count[0] = sim_bits_count(free_now);
	s->begin[0] = now;
	s->n = 1;
	return 0;
}

void sim_space_fini(struct sim_space *s)
{
	for (int i = 0; s->free && i < s->n; i++)
		sim_bits_fini(&s->free[i]);
	free(s->free);
	free(s->begin);
	free(s->touched);
	free(s->count);
	sim_bits_fini(&s->mask);
	memset(s, 0, sizeof(*s));
}

/* The slice that begins at t, made by splitting the one holding t;
 * returns its index, or -1 (out of memory). t before the first slice is
 * the first. */
static int split_at(struct sim_space *s, double t)
{
	int i = s->n - 1;

	while (i > 0 && s->begin[i] > t)
		i--;
	if (s->begin[i] >= t)
		return i;
	if (s->n == s->cap) {
		int cap = 2 * s->cap;
		double *b = realloc(s->begin, sizeof(double) * (size_t)cap);
		struct sim_bits *f;
		int *c;

		if (!b)
			return -1;
		s->begin = b;
		f = realloc(s->free, sizeof(struct sim_bits) * (size_t)cap);
		if (!f)
			return -1;
		s->free = f;
		c = realloc(s->count, sizeof(int) * (size_t)cap);
		if (!c)
			return -1;
		s->count = c;
		s->cap = cap;
	}
	memmove(&s->begin[i + 2], &s->begin[i + 1],
		sizeof(double) * (size_t)(s->n - i - 1));
	memmove(&s->free[i + 2], &s->free[i + 1],
		sizeof(struct sim_bits) * (size_t)(s->n - i - 1));
	memmove(&s->count[i + 2], &s->count[i + 1],
		sizeof(int) * (size_t)(s->n - i - 1));
	if (sim_bits_init(&s->free[i + 1], s->free[i].n, 0)) {
		/* Put the slices back as they were. */
		memmove(&s->begin[i + 1], &s->begin[i + 2],
			sizeof(double) * (size_t)(s->n - i - 1));
		memmove(&s->free[i + 1], &s->free[i + 2],
			sizeof(struct sim_bits) * (size_t)(s->n - i - 1));
		memmove(&s->count[i + 1], &s->count[i + 2],
			sizeof(int) * (size_t)(s->n - i - 1));
		return -1;
	}
	sim_bits_copy(&s->free[i + 1], &s->free[i]);
	s->count[i + 1] = s->count[i];
	s->begin[i + 1] = t;
	s->n++;
	return i + 1;
}

int sim_space_take(struct sim_space *s, double begin, double end,
		   const int *nodes, int n)
{
	int first = split_at(s, begin), last;

	if (first < 0)
		return -1;
	last = split_at(s, end);
	if (last < 0)
		return -1;
	/* The nodes as a mask over the words they touch (the space's
	 * scratch, zero between calls), then one operation per word and
	 * slice. */
	uint64_t *mask = s->mask.w;
	int touched = 0;

	for (int k = 0; k < n; k++) {
		int w = nodes[k] >> 6;

		if (!mask[w])
			s->touched[touched++] = w;
		mask[w] |= (uint64_t)1 << (nodes[k] & 63);
	}
	for (int i = first; i < s->n && s->begin[i] < end; i++)
		for (int k = 0; k < touched; k++) {
			uint64_t *w = &s->free[i].w[s->touched[k]];

			s->count[i] -= sim_popcount(*w & mask[s->touched[k]]);
			*w &= ~mask[s->touched[k]];
		}
	for (int k = 0; k < touched; k++)
		mask[s->touched[k]] = 0;
	return 0;
}

int sim_space_free_during(const struct sim_space *s, int from, double end,
			  int need, struct sim_bits *out)
{
	int last = from, c;

	/* A slice with fewer free than need rules the job out (the set only
	 * shrinks), by the slices' counts alone; else the nodes free in all
	 * of them, counted once. */
	if (s->count[from] < need)
		return s->count[from];
	while (last + 1 < s->n && s->begin[last + 1] < end) {
		last++;
		if (s->count[last] < need)
			return s->count[last];
	}
	sim_bits_copy(out, &s->free[from]);
	for (int i = from + 1; i <= last; i++)
		sim_bits_and(out, &s->free[i]);
	c = sim_bits_count(out);
	return c;
}

int sim_space_append(struct sim_space *s, double t)
{
	return split_at(s, t);
}

void sim_space_give(struct sim_space *s, int i, const int *nodes, int n)
{
	for (int k = 0; k < n; k++) {
		uint64_t bit = (uint64_t)1 << (nodes[k] & 63);
		uint64_t *w = &s->free[i].w[nodes[k] >> 6];

		s->count[i] += !(*w & bit);
		*w |= bit;
	}
}

void sim_space_drop(struct sim_space *s, const int *nodes, int n)
{
	for (int i = 0; i < s->n; i++)
		for (int k = 0; k < n; k++) {
			uint64_t bit = (uint64_t)1 << (nodes[k] & 63);
			uint64_t *w = &s->free[i].w[nodes[k] >> 6];

			s->count[i] -= !!(*w & bit);
			*w &= ~bit;
		}
}
