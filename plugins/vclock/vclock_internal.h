/*
 * libtbvclock.so: an LD_PRELOAD library that shows a process the
 * testbed's virtual clock (vclock.h, docs/vclock.md) instead of the real
 * one: what it reads (time, gettimeofday, clock_gettime, timespec_get) and
 * how long it waits (the sleep family, poll/select/epoll, condition
 * variables, semaphores, timed locks, timers), and the files' timestamps
 * it reads or sets (the stat family, statx, utimensat and the like).
 *
 * TB_VCLOCK_FILE names the clock page. Unset or empty: every call passes
 * through untouched. Unreadable or not a clock page: the same, after one
 * line on stderr. TB_VCLOCK_EXCLUDE lists program names (comma separated,
 * default "munged") that stay on real time. TB_VCLOCK_REAL_LIBS lists
 * libraries (default "libmunge.so") whose own calls keep real time inside
 * a process on the clock (see real_caller). TB_VCLOCK_FILES=0 leaves file
 * timestamps real while the clock is virtual.
 *
 * Waits are cut into real slices of at most the page's check_ns; after
 * each slice the virtual deadline is checked again, so a jump or a new
 * rate reaches a waiting process within one slice. Timers armed in the
 * kernel (timer_settime, timerfd_settime, setitimer, alarm) cannot be
 * sliced: they keep the real length computed when they were armed.
 *
 * One shared object, one file per job; this header is what they share:
 *
 *   vclock_init.c    finding the real functions, excluded programs, the
 *                    page, which callers keep real time (PAGE())
 *   vclock_time.c    conversions, virtual now, deadlines and slices;
 *                    clock_gettime, gettimeofday, time, timespec_get
 *   vclock_sleep.c   the sleep family, poll/ppoll/select/pselect/epoll
 *   vclock_sync.c    condition variables, semaphores, timed locks
 *   vclock_timers.c  timer_*, timerfd_*, setitimer/getitimer, alarm
 *   vclock_files.c   file timestamps: the stat family, the utime family
 *
 * Only the intercepted functions are exported: everything declared below
 * is hidden (the pragma), so the library's dynamic symbols are exactly
 * the libc functions it replaces, and nothing of ours can be bound to a
 * program's or another library's symbol of the same name.
 *
 * State: a preload library cannot receive a context from its callers
 * (they call time(), not us), so what it needs lives in globals, kept to
 * the minimum: the mapped page (read-only; NULL means pass through), the
 * real functions found with dlsym, whether file timestamps are mapped,
 * the real-time library list, and the once-control that sets these up.
 * All are written once, in vclock_init() (vclock_init.c), and only read
 * afterwards; only the real functions are seen outside that file. The
 * one exception is the cache of which call sites keep real time, a lock-
 * free array of atomic words (real_caller).
 *
 * _GNU_SOURCE: RTLD_NEXT, dlvsym, ppoll, epoll_pwait and
 * pthread_cond_clockwait are GNU extensions; every file defines it before
 * its first include.
 */
#ifndef TB_VCLOCK_INTERNAL_H
#define TB_VCLOCK_INTERNAL_H

#ifndef _GNU_SOURCE
#error "define _GNU_SOURCE before the first include"
#endif

#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "vclock.h"

#define NS TB_VCLOCK_NS

#pragma GCC visibility push(hidden)

/*
 * The real functions, found with dlsym by vclock_init. vclock_init.c
 * defines them (it sets VC_DEFINE_REAL before including this header);
 * the other files see declarations, so the list is written once.
 */
#ifdef VC_DEFINE_REAL
#define VC_REAL
#else
#define VC_REAL extern
#endif

VC_REAL int (*real_clock_gettime)(clockid_t, struct timespec *);
VC_REAL int (*real_gettimeofday)(struct timeval *restrict, void *restrict);
VC_REAL time_t (*real_time)(time_t *);
VC_REAL int (*real_timespec_get)(struct timespec *, int);
VC_REAL int (*real_nanosleep)(const struct timespec *, struct timespec *);
VC_REAL int (*real_clock_nanosleep)(clockid_t, int, const struct timespec *,
				    struct timespec *);
VC_REAL unsigned int (*real_sleep)(unsigned int);
VC_REAL int (*real_usleep)(useconds_t);
VC_REAL int (*real_poll)(struct pollfd *, nfds_t, int);
VC_REAL int (*real_ppoll)(struct pollfd *, nfds_t, const struct timespec *,
			  const sigset_t *);
VC_REAL int (*real_select)(int, fd_set *restrict, fd_set *restrict,
			   fd_set *restrict, struct timeval *restrict);
VC_REAL int (*real_pselect)(int, fd_set *restrict, fd_set *restrict,
			    fd_set *restrict, const struct timespec *restrict,
			    const sigset_t *restrict);
VC_REAL int (*real_epoll_wait)(int, struct epoll_event *, int, int);
VC_REAL int (*real_epoll_pwait)(int, struct epoll_event *, int, int,
				const sigset_t *);
VC_REAL int (*real_cond_timedwait)(pthread_cond_t *restrict,
				   pthread_mutex_t *restrict,
				   const struct timespec *restrict);
VC_REAL int (*real_cond_clockwait)(pthread_cond_t *restrict,
				   pthread_mutex_t *restrict, clockid_t,
				   const struct timespec *restrict);
VC_REAL int (*real_sem_timedwait)(sem_t *restrict,
				  const struct timespec *restrict);
VC_REAL int (*real_sem_clockwait)(sem_t *restrict, clockid_t,
				  const struct timespec *restrict);
VC_REAL int (*real_mutex_timedlock)(pthread_mutex_t *restrict,
				    const struct timespec *restrict);
VC_REAL int (*real_mutex_clocklock)(pthread_mutex_t *restrict, clockid_t,
				    const struct timespec *restrict);
VC_REAL int (*real_rd_timedlock)(pthread_rwlock_t *restrict,
				 const struct timespec *restrict);
VC_REAL int (*real_rd_clocklock)(pthread_rwlock_t *restrict, clockid_t,
				 const struct timespec *restrict);
VC_REAL int (*real_wr_timedlock)(pthread_rwlock_t *restrict,
				 const struct timespec *restrict);
VC_REAL int (*real_wr_clocklock)(pthread_rwlock_t *restrict, clockid_t,
				 const struct timespec *restrict);
VC_REAL int (*real_timer_settime)(timer_t, int,
				  const struct itimerspec *restrict,
				  struct itimerspec *restrict);
VC_REAL int (*real_timer_gettime)(timer_t, struct itimerspec *);
VC_REAL int (*real_timerfd_settime)(int, int, const struct itimerspec *,
				    struct itimerspec *);
VC_REAL int (*real_timerfd_gettime)(int, struct itimerspec *);
VC_REAL int (*real_setitimer)(__itimer_which_t,
			      const struct itimerval *restrict,
			      struct itimerval *restrict);
VC_REAL int (*real_getitimer)(__itimer_which_t, struct itimerval *);
VC_REAL unsigned int (*real_alarm)(unsigned int);
VC_REAL int (*real_stat)(const char *restrict, struct stat *restrict);
VC_REAL int (*real_lstat)(const char *restrict, struct stat *restrict);
VC_REAL int (*real_fstat)(int, struct stat *);
VC_REAL int (*real_fstatat)(int, const char *restrict, struct stat *restrict,
			    int);
VC_REAL int (*real_stat64)(const char *restrict, struct stat64 *restrict);
VC_REAL int (*real_lstat64)(const char *restrict, struct stat64 *restrict);
VC_REAL int (*real_fstat64)(int, struct stat64 *);
VC_REAL int (*real_fstatat64)(int, const char *restrict,
			      struct stat64 *restrict, int);
VC_REAL int (*real_statx)(int, const char *restrict, int, unsigned int,
			  struct statx *restrict);
VC_REAL int (*real_xstat)(int, const char *, struct stat *);
VC_REAL int (*real_lxstat)(int, const char *, struct stat *);
VC_REAL int (*real_fxstat)(int, int, struct stat *);
VC_REAL int (*real_fxstatat)(int, int, const char *, struct stat *, int);
VC_REAL int (*real_xstat64)(int, const char *, struct stat64 *);
VC_REAL int (*real_lxstat64)(int, const char *, struct stat64 *);
VC_REAL int (*real_fxstat64)(int, int, struct stat64 *);
VC_REAL int (*real_fxstatat64)(int, int, const char *, struct stat64 *, int);
VC_REAL int (*real_utimensat)(int, const char *, const struct timespec[2],
			      int);
VC_REAL int (*real_futimens)(int, const struct timespec[2]);
VC_REAL int (*real_utimes)(const char *, const struct timeval[2]);
VC_REAL int (*real_lutimes)(const char *, const struct timeval[2]);
VC_REAL int (*real_futimes)(int, const struct timeval[2]);
VC_REAL int (*real_utime)(const char *, const struct utimbuf *);

/* ---- vclock_init.c: the page ---- */

/* The page for a call from return address ra, or NULL to pass through
 * (no clock, or a caller on TB_VCLOCK_REAL_LIBS). Use PAGE(). */
extern const struct tb_vclock_page *vc_page_for(const void *ra);

/* The page if file timestamps are mapped, else NULL. */
extern const struct tb_vclock_page *vc_file_page(void);

/* The page for this call of an intercepted function, or NULL: in the
 * function itself, so that the return address is its caller's. */
#define PAGE() vc_page_for(__builtin_return_address(0))

static inline int64_t ts_ns(const struct timespec *ts)
{
	if (ts->tv_sec >= INT64_MAX / NS - 1)
		return INT64_MAX;
	if (ts->tv_sec <= INT64_MIN / NS + 1)
		return INT64_MIN;
	return (int64_t) ts->tv_sec * NS + ts->tv_nsec;
}

static inline struct timespec ns_ts(int64_t ns)
{
	struct timespec ts = { ns / NS, ns % NS };

	if (ts.tv_nsec < 0) {
		ts.tv_sec--;
		ts.tv_nsec += NS;
	}
	return ts;
}

static inline int64_t tv_ns(const struct timeval *tv)
{
	struct timespec ts = { tv->tv_sec, tv->tv_usec * 1000 };

	return ts_ns(&ts);
}

static inline struct timeval ns_tv(int64_t ns)
{
	struct timespec ts = ns_ts(ns);
	struct timeval tv = { ts.tv_sec, ts.tv_nsec / 1000 };

	return tv;
}

static inline int bad_ts(const struct timespec *ts)
{
	return ts->tv_nsec < 0 || ts->tv_nsec >= NS;
}

/* ---- vclock_time.c: virtual now, deadlines and slices ---- */

extern int64_t vc_real_ns(clockid_t id);
extern int64_t vc_vnow_mono(const struct tb_vclock_page *p);
extern int vc_virtual_clock(const struct tb_vclock_page *p, clockid_t id,
			    int64_t *ns);
extern int64_t vc_deadline_mono(const struct tb_vclock_page *p, clockid_t id,
				const struct timespec *abs);
extern int64_t vc_slice(const struct tb_vclock_page *p, int64_t dl);
extern int64_t vc_left(const struct tb_vclock_page *p, int64_t dl);
extern int64_t vc_to_virtual(const struct tb_vclock_page *p, int64_t real);
extern int64_t vc_to_real(const struct tb_vclock_page *p, int64_t virt);

#pragma GCC visibility pop

#endif /* TB_VCLOCK_INTERNAL_H */
