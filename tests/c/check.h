/* A minimal unit-test harness: TAP lines, then "N passed, N failed". */
#ifndef TB_CHECK_H
#define TB_CHECK_H

#include <math.h>
#include <stdio.h>

extern int tb_check_failures;

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "  %s:%d: CHECK(%s) failed\n",       \
				__FILE__, __LINE__, #cond);                  \
			tb_check_failures++;                                 \
		}                                                            \
	} while (0)

#define CHECK_EQ(a, b)                                                       \
	do {                                                                 \
		long long _a = (long long)(a), _b = (long long)(b);          \
		if (_a != _b) {                                              \
			fprintf(stderr, "  %s:%d: %s == %lld, expected %lld\n", \
				__FILE__, __LINE__, #a, _a, _b);             \
			tb_check_failures++;                                 \
		}                                                            \
	} while (0)

#define CHECK_NEAR(a, b)                                                     \
	do {                                                                 \
		double _a = (a), _b = (b);                                   \
		/* Written so that a NaN on either side fails. */    \
		if (!(fabs(_a - _b) <= 1e-9 * (1 + fabs(_b)))) {             \
			fprintf(stderr, "  %s:%d: %s == %.12g, expected %.12g\n", \
				__FILE__, __LINE__, #a, _a, _b);             \
			tb_check_failures++;                                 \
		}                                                            \
	} while (0)

struct tb_test {
	const char *name;
	void (*fn)(void);
};

#endif
