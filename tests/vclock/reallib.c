/*
 * A stand-in for libmunge in the virtual clock's tests: a library loaded
 * with dlopen after start-up (as Slurm's auth plugin loads libmunge) that
 * sleeps, polls and reads the time itself. Named on TB_VCLOCK_REAL_LIBS,
 * its calls must keep real time while the program's own are virtual.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <semaphore.h>
#include <stdint.h>
#include <sys/time.h>
#include <time.h>

int reallib_nanosleep(int64_t ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	return nanosleep(&ts, NULL);
}

/* Not `return poll(...)`: a tail call returns straight to our caller,
 * whose address the preload then sees (libmunge's waits are in loops). */
int reallib_poll(int ms)
{
	if (poll(NULL, 0, ms) < 0)
		return -1;
	return 0;
}

int64_t reallib_gettimeofday_us(void)
{
	struct timeval tv;

	if (gettimeofday(&tv, NULL))
		return -1;
	return (int64_t) tv.tv_sec * 1000000 + tv.tv_usec;
}

/* A timed wait on a semaphore nobody posts: the lock waits
 * (vclock_sync.c) must tell this library's calls from the program's too. */
int reallib_sem_wait(int64_t ns)
{
	struct timespec ts;
	sem_t sem;
	int rc;

	if (sem_init(&sem, 0, 0) || clock_gettime(CLOCK_REALTIME, &ts))
		return -1;
	ts.tv_sec += (time_t) (ns / 1000000000);
	ts.tv_nsec += (long) (ns % 1000000000);
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	rc = sem_timedwait(&sem, &ts);
	sem_destroy(&sem);
	return rc;
}
