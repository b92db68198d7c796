/*
 * Timed waits of threads in virtual time, for libtbvclock.so
 * (vclock_internal.h): condition variables, semaphores, mutexes and
 * read-write locks, each cut into real slices.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "vclock_internal.h"

/* ---- condition variables ---- */

/*
 * Waits in real slices on the real monotonic clock (immune to wall clock
 * steps). Between slices the mutex is held, so a signal sent under the
 * mutex (Slurm's way) cannot fall between two slices; one sent without it
 * in the instant a slice ends is missed, as it would be by a waiter that
 * had just timed out. A slice ending early is never reported as a
 * wakeup: callers such as Slurm's backfill treat 0 as "signalled".
 */
static int cond_wait_until(const struct tb_vclock_page *p,
			   pthread_cond_t *restrict c,
			   pthread_mutex_t *restrict m, int64_t dl,
			   const struct timespec *restrict abs)
{
	int64_t sl;

	while ((sl = vc_slice(p, dl)) > 0) {
		int64_t mono = vc_real_ns(CLOCK_MONOTONIC);
		struct timespec ts = ns_ts(tb_vclock_add(mono, sl));
		int rc;

		if (real_cond_clockwait) {
			rc = real_cond_clockwait(c, m, CLOCK_MONOTONIC, &ts);
		} else {
			/* glibc before 2.30: the condition's own clock is
			 * unknown; assume the one the deadline looks like */
			if (abs->tv_sec >= TB_VCLOCK_REALTIME_MIN_S)
				ts = ns_ts(tb_vclock_add(vc_real_ns(
					CLOCK_REALTIME), sl));
			rc = real_cond_timedwait(c, m, &ts);
		}
		if (rc != ETIMEDOUT)
			return rc;
	}
	return ETIMEDOUT;
}

int pthread_cond_timedwait(pthread_cond_t *restrict c,
			   pthread_mutex_t *restrict m,
			   const struct timespec *restrict abs)
{
	const struct tb_vclock_page *p = PAGE();

	if (!p)
		return real_cond_timedwait(c, m, abs);
	if (bad_ts(abs))
		return EINVAL;
	/* The condition's clock (REALTIME unless set otherwise) is not
	 * visible from here; the deadline's size tells. */
	return cond_wait_until(p, c, m,
			       vc_deadline_mono(p, (clockid_t) -1, abs), abs);
}

int pthread_cond_clockwait(pthread_cond_t *restrict c,
			   pthread_mutex_t *restrict m, clockid_t id,
			   const struct timespec *restrict abs)
{
	const struct tb_vclock_page *p = PAGE();
	int64_t dummy;

	if (!p || !real_cond_clockwait ||
	    vc_virtual_clock(p, id, &dummy))
		return real_cond_clockwait ?
		       real_cond_clockwait(c, m, id, abs) : ENOSYS;
	if (bad_ts(abs))
		return EINVAL;
	return cond_wait_until(p, c, m, vc_deadline_mono(p, id, abs), abs);
}

/* ---- semaphores and locks ---- */

/*
 * The same slicing for the other waits with an absolute deadline. Their
 * timed forms count on CLOCK_REALTIME; the clock forms (glibc 2.30) are
 * given CLOCK_MONOTONIC, immune to wall clock steps. A slice is one real
 * call of the named kind; the result is an error number (sem_* report
 * theirs in errno, converted here).
 */
enum lock_kind { SEM, SEM_CLOCK, MUTEX, MUTEX_CLOCK, RD, RD_CLOCK, WR,
		 WR_CLOCK };

static int lock_slice(enum lock_kind kind, void *obj, int64_t sl)
{
	struct timespec rt = ns_ts(tb_vclock_add(vc_real_ns(CLOCK_REALTIME),
						 sl));
	struct timespec mono = ns_ts(tb_vclock_add(vc_real_ns(CLOCK_MONOTONIC),
						   sl));

	switch (kind) {
	case SEM:
		return real_sem_timedwait(obj, &rt) ? errno : 0;
	case SEM_CLOCK:
		return real_sem_clockwait(obj, CLOCK_MONOTONIC, &mono) ?
		       errno : 0;
	case MUTEX:
		return real_mutex_timedlock(obj, &rt);
	case MUTEX_CLOCK:
		return real_mutex_clocklock(obj, CLOCK_MONOTONIC, &mono);
	case RD:
		return real_rd_timedlock(obj, &rt);
	case RD_CLOCK:
		return real_rd_clocklock(obj, CLOCK_MONOTONIC, &mono);
	case WR:
		return real_wr_timedlock(obj, &rt);
	case WR_CLOCK:
		return real_wr_clocklock(obj, CLOCK_MONOTONIC, &mono);
	}
	return EINVAL;
}

/* Waits for obj until absolute time abs on clock id; an error number. */
static int lock_until(const struct tb_vclock_page *p, enum lock_kind kind,
		      void *obj, clockid_t id, const struct timespec *abs)
{
	int64_t dl, sl;
	int rc;

	if (bad_ts(abs))
		return EINVAL;
	dl = vc_deadline_mono(p, id, abs);
	while ((sl = vc_slice(p, dl)) > 0) {
		rc = lock_slice(kind, obj, sl);
		if (rc != ETIMEDOUT)
			return rc;
	}
	/* the deadline has passed: one last try, as the real calls do */
	return lock_slice(kind, obj, 0);
}

/* A clock the clock forms take and we make virtual; -1 otherwise. */
static int lock_clock_ok(const struct tb_vclock_page *p, clockid_t id)
{
	int64_t dummy;

	return vc_virtual_clock(p, id, &dummy) == 0 ? 0 : -1;
}

static int sem_result(int err)
{
	if (!err)
		return 0;
	errno = err;
	return -1;
}

int sem_timedwait(sem_t *restrict sem, const struct timespec *restrict abs)
{
	const struct tb_vclock_page *p = PAGE();

	if (!p)
		return real_sem_timedwait(sem, abs);
	return sem_result(lock_until(p, SEM, sem, CLOCK_REALTIME, abs));
}

int sem_clockwait(sem_t *restrict sem, clockid_t id,
		  const struct timespec *restrict abs)
{
	const struct tb_vclock_page *p = PAGE();

	if (!real_sem_clockwait)
		return sem_result(ENOSYS);
	if (!p || lock_clock_ok(p, id))
		return real_sem_clockwait(sem, id, abs);
	return sem_result(lock_until(p, SEM_CLOCK, sem, id, abs));
}

int pthread_mutex_timedlock(pthread_mutex_t *restrict m,
			    const struct timespec *restrict abs)
{
	const struct tb_vclock_page *p = PAGE();

	if (!p)
		return real_mutex_timedlock(m, abs);
	return lock_until(p, MUTEX, m, CLOCK_REALTIME, abs);
}

int pthread_mutex_clocklock(pthread_mutex_t *restrict m, clockid_t id,
			    const struct timespec *restrict abs)
{
	const struct tb_vclock_page *p = PAGE();

	if (!real_mutex_clocklock)
		return ENOSYS;
	if (!p || lock_clock_ok(p, id))
		return real_mutex_clocklock(m, id, abs);
	return lock_until(p, MUTEX_CLOCK, m, id, abs);
}

int pthread_rwlock_timedrdlock(pthread_rwlock_t *restrict l,
			       const struct timespec *restrict abs)
{
	const struct tb_vclock_page *p = PAGE();

	if (!p)
		return real_rd_timedlock(l, abs);
	return lock_until(p, RD, l, CLOCK_REALTIME, abs);
}

int pthread_rwlock_clockrdlock(pthread_rwlock_t *restrict l, clockid_t id,
			       const struct timespec *restrict abs)
{
	const struct tb_vclock_page *p = PAGE();

	if (!real_rd_clocklock)
		return ENOSYS;
	if (!p || lock_clock_ok(p, id))
		return real_rd_clocklock(l, id, abs);
	return lock_until(p, RD_CLOCK, l, id, abs);
}

int pthread_rwlock_timedwrlock(pthread_rwlock_t *restrict l,
			       const struct timespec *restrict abs)
{
	const struct tb_vclock_page *p = PAGE();

	if (!p)
		return real_wr_timedlock(l, abs);
	return lock_until(p, WR, l, CLOCK_REALTIME, abs);
}

int pthread_rwlock_clockwrlock(pthread_rwlock_t *restrict l, clockid_t id,
			       const struct timespec *restrict abs)
{
	const struct tb_vclock_page *p = PAGE();

	if (!real_wr_clocklock)
		return ENOSYS;
	if (!p || lock_clock_ok(p, id))
		return real_wr_clocklock(l, id, abs);
	return lock_until(p, WR_CLOCK, l, id, abs);
}
