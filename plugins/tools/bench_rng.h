/*
 * The bench tools' and the C tests' random numbers: xorshift64 (Marsaglia
 * 2003) from fixed seeds, so that every run of a bench draws the same
 * machine states and jobs and only the times differ, and every test run
 * draws the same cases. The caller owns the state: a bench that forks
 * gives each child a state of its own.
 */
#ifndef TB_BENCH_RNG_H
#define TB_BENCH_RNG_H

#define TB_BENCH_RNG_SEED 0x2545f4914f6cdd1dULL

/* A number in [0, n), n > 0; advances *state. */
static inline unsigned tb_bench_rnd(unsigned long long *state, unsigned n)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return (unsigned)(*state % n);
}

#endif
