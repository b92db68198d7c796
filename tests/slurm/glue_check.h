/*
 * The glue tests' check (tests/slurm): on a false condition, count a
 * failure and print where, with a printf-style message. Each test is its
 * own program and declares `static int failures;` before including this.
 */
#ifndef TB_GLUE_CHECK_H
#define TB_GLUE_CHECK_H

#include <stdio.h>

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			failures++;					\
			fprintf(stderr, "FAIL %s:%d: ", __FILE__,	\
				__LINE__);				\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
		}							\
	} while (0)

/* The test program's last line and exit status: how many checks failed,
 * or that its `tests` tests passed. */
#define GLUE_REPORT(name, tests)					\
	(failures ? (fprintf(stderr, "%s: %d check(s) failed\n",	\
			     (name), failures), 1) :			\
		    (printf("%s: %d tests passed\n", (name), (tests)), 0))

#endif
