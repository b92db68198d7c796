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

static int is_clock_form(enum lock_kind kind)
{
	return kind == SEM_CLOCK || kind == MUTEX_CLOCK || kind == RD_CLOCK ||
	       kind == WR_CLOCK;
}

/* The real call of the named kind until abs (on clock id for a clock
 * form; a timed form's is CLOCK_REALTIME); an error number. */
static int lock_real(enum lock_kind kind, void *obj, clockid_t id,
		     const struct timespec *abs)
{
	switch (kind) {
	case SEM:
		return real_sem_timedwait(obj, abs) ? errno : 0;
	case SEM_CLOCK:
		return real_sem_clockwait(obj, id, abs) ? errno : 0;
	case MUTEX:
		return real_mutex_timedlock(obj, abs);
	case MUTEX_CLOCK:
		return real_mutex_clocklock(obj, id, abs);
	case RD:
		return real_rd_timedlock(obj, abs);
	case RD_CLOCK:
		return real_rd_clocklock(obj, id, abs);
	case WR:
		return real_wr_timedlock(obj, abs);
	case WR_CLOCK:
		return real_wr_clocklock(obj, id, abs);
	}
	return EINVAL;
}

static int lock_slice(enum lock_kind kind, void *obj, int64_t sl)
{
	clockid_t id = is_clock_form(kind) ? CLOCK_MONOTONIC : CLOCK_REALTIME;
	struct timespec ts = ns_ts(tb_vclock_add(vc_real_ns(id), sl));

	return lock_real(kind, obj, id, &ts);
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

/* A timed form: virtual when the clock runs, else the real call. p is
 * the interposer's PAGE() (it must be taken there, where the return
 * address is its caller's). */
static int lock_timed(const struct tb_vclock_page *p, enum lock_kind kind,
		      void *obj, const struct timespec *abs)
{
	if (!p)
		return lock_real(kind, obj, CLOCK_REALTIME, abs);
	return lock_until(p, kind, obj, CLOCK_REALTIME, abs);
}

/* A clock form (have: this glibc has it, else ENOSYS): virtual for a
 * clock we make virtual, else the real call. p as for lock_timed. */
static int lock_clocked(const struct tb_vclock_page *p, enum lock_kind kind,
			int have, void *obj, clockid_t id,
			const struct timespec *abs)
{
	int64_t dummy;

	if (!have)
		return ENOSYS;
	if (!p || vc_virtual_clock(p, id, &dummy))
		return lock_real(kind, obj, id, abs);
	return lock_until(p, kind, obj, id, abs);
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
	return sem_result(lock_timed(PAGE(), SEM, sem, abs));
}

int sem_clockwait(sem_t *restrict sem, clockid_t id,
		  const struct timespec *restrict abs)
{
	return sem_result(lock_clocked(PAGE(), SEM_CLOCK,
				       real_sem_clockwait != NULL, sem, id,
				       abs));
}

int pthread_mutex_timedlock(pthread_mutex_t *restrict m,
			    const struct timespec *restrict abs)
{
	return lock_timed(PAGE(), MUTEX, m, abs);
}

int pthread_mutex_clocklock(pthread_mutex_t *restrict m, clockid_t id,
			    const struct timespec *restrict abs)
{
	return lock_clocked(PAGE(), MUTEX_CLOCK, real_mutex_clocklock != NULL,
			    m, id, abs);
}

int pthread_rwlock_timedrdlock(pthread_rwlock_t *restrict l,
			       const struct timespec *restrict abs)
{
	return lock_timed(PAGE(), RD, l, abs);
}

int pthread_rwlock_clockrdlock(pthread_rwlock_t *restrict l, clockid_t id,
			       const struct timespec *restrict abs)
{
	return lock_clocked(PAGE(), RD_CLOCK, real_rd_clocklock != NULL, l,
			    id, abs);
}

int pthread_rwlock_timedwrlock(pthread_rwlock_t *restrict l,
			       const struct timespec *restrict abs)
{
	return lock_timed(PAGE(), WR, l, abs);
}

int pthread_rwlock_clockwrlock(pthread_rwlock_t *restrict l, clockid_t id,
			       const struct timespec *restrict abs)
{
	return lock_clocked(PAGE(), WR_CLOCK, real_wr_clocklock != NULL, l,
			    id, abs);
}
