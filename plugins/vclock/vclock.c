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
 * State: a preload library cannot receive a context from its callers
 * (they call time(), not us), so what it needs lives in globals, kept to
 * the minimum: the mapped page (read-only; NULL means pass through), the
 * real functions found with dlsym, whether file timestamps are mapped,
 * the real-time library list, and the once-control that sets these up.
 * All are written once, in vclock_init(), and only read afterwards. The
 * one exception is the cache of which call sites keep real time, a lock-
 * free array of atomic words (real_caller).
 *
 * _GNU_SOURCE: RTLD_NEXT, dlvsym, ppoll, epoll_pwait and
 * pthread_cond_clockwait are GNU extensions.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "vclock.h"

#define NS TB_VCLOCK_NS

static const struct tb_vclock_page *vc_page;
static pthread_once_t vc_once = PTHREAD_ONCE_INIT;
/* Whether file timestamps are mapped too (TB_VCLOCK_FILES is not "0"). */
static int vc_files;
/* TB_VCLOCK_REAL_LIBS, copied (the environment may change later) */
static char vc_real_libs[256];

static int (*real_clock_gettime)(clockid_t, struct timespec *);
static int (*real_gettimeofday)(struct timeval *restrict, void *restrict);
static time_t (*real_time)(time_t *);
static int (*real_timespec_get)(struct timespec *, int);
static int (*real_nanosleep)(const struct timespec *, struct timespec *);
static int (*real_clock_nanosleep)(clockid_t, int, const struct timespec *,
				   struct timespec *);
static unsigned int (*real_sleep)(unsigned int);
static int (*real_usleep)(useconds_t);
static int (*real_poll)(struct pollfd *, nfds_t, int);
static int (*real_ppoll)(struct pollfd *, nfds_t, const struct timespec *,
			 const sigset_t *);
static int (*real_select)(int, fd_set *restrict, fd_set *restrict,
			  fd_set *restrict, struct timeval *restrict);
static int (*real_pselect)(int, fd_set *restrict, fd_set *restrict,
			   fd_set *restrict, const struct timespec *restrict,
			   const sigset_t *restrict);
static int (*real_epoll_wait)(int, struct epoll_event *, int, int);
static int (*real_epoll_pwait)(int, struct epoll_event *, int, int,
			       const sigset_t *);
static int (*real_cond_timedwait)(pthread_cond_t *restrict,
				  pthread_mutex_t *restrict,
				  const struct timespec *restrict);
static int (*real_cond_clockwait)(pthread_cond_t *restrict,
				  pthread_mutex_t *restrict, clockid_t,
				  const struct timespec *restrict);
static int (*real_sem_timedwait)(sem_t *restrict,
				 const struct timespec *restrict);
static int (*real_sem_clockwait)(sem_t *restrict, clockid_t,
				 const struct timespec *restrict);
static int (*real_mutex_timedlock)(pthread_mutex_t *restrict,
				   const struct timespec *restrict);
static int (*real_mutex_clocklock)(pthread_mutex_t *restrict, clockid_t,
				   const struct timespec *restrict);
static int (*real_rd_timedlock)(pthread_rwlock_t *restrict,
				const struct timespec *restrict);
static int (*real_rd_clocklock)(pthread_rwlock_t *restrict, clockid_t,
				const struct timespec *restrict);
static int (*real_wr_timedlock)(pthread_rwlock_t *restrict,
				const struct timespec *restrict);
static int (*real_wr_clocklock)(pthread_rwlock_t *restrict, clockid_t,
				const struct timespec *restrict);
static int (*real_timer_settime)(timer_t, int,
				 const struct itimerspec *restrict,
				 struct itimerspec *restrict);
static int (*real_timer_gettime)(timer_t, struct itimerspec *);
static int (*real_timerfd_settime)(int, int, const struct itimerspec *,
				   struct itimerspec *);
static int (*real_timerfd_gettime)(int, struct itimerspec *);
static int (*real_setitimer)(__itimer_which_t,
			     const struct itimerval *restrict,
			     struct itimerval *restrict);
static int (*real_getitimer)(__itimer_which_t, struct itimerval *);
static unsigned int (*real_alarm)(unsigned int);
static int (*real_stat)(const char *restrict, struct stat *restrict);
static int (*real_lstat)(const char *restrict, struct stat *restrict);
static int (*real_fstat)(int, struct stat *);
static int (*real_fstatat)(int, const char *restrict, struct stat *restrict,
			   int);
static int (*real_stat64)(const char *restrict, struct stat64 *restrict);
static int (*real_lstat64)(const char *restrict, struct stat64 *restrict);
static int (*real_fstat64)(int, struct stat64 *);
static int (*real_fstatat64)(int, const char *restrict,
			     struct stat64 *restrict, int);
static int (*real_statx)(int, const char *restrict, int, unsigned int,
			 struct statx *restrict);
static int (*real_xstat)(int, const char *, struct stat *);
static int (*real_lxstat)(int, const char *, struct stat *);
static int (*real_fxstat)(int, int, struct stat *);
static int (*real_fxstatat)(int, int, const char *, struct stat *, int);
static int (*real_xstat64)(int, const char *, struct stat64 *);
static int (*real_lxstat64)(int, const char *, struct stat64 *);
static int (*real_fxstat64)(int, int, struct stat64 *);
static int (*real_fxstatat64)(int, int, const char *, struct stat64 *, int);
static int (*real_utimensat)(int, const char *, const struct timespec[2],
			     int);
static int (*real_futimens)(int, const struct timespec[2]);
static int (*real_utimes)(const char *, const struct timeval[2]);
static int (*real_lutimes)(const char *, const struct timeval[2]);
static int (*real_futimes)(int, const struct timeval[2]);
static int (*real_utime)(const char *, const struct utimbuf *);

/*
 * dlsym returns a data pointer; POSIX guarantees it converts to a function
 * pointer, which C11 alone does not, hence the memcpy.
 */
static void resolve(void *fn_ptr, const char *name, const char *version)
{
	void *sym = NULL;

	if (version)
		sym = dlvsym(RTLD_NEXT, name, version);
	if (!sym)
		sym = dlsym(RTLD_NEXT, name);
	memcpy(fn_ptr, &sym, sizeof(sym));
}

static void resolve_all(void)
{
	resolve(&real_clock_gettime, "clock_gettime", NULL);
	resolve(&real_gettimeofday, "gettimeofday", NULL);
	resolve(&real_time, "time", NULL);
	resolve(&real_timespec_get, "timespec_get", NULL);
	resolve(&real_nanosleep, "nanosleep", NULL);
	resolve(&real_clock_nanosleep, "clock_nanosleep", NULL);
	resolve(&real_sleep, "sleep", NULL);
	resolve(&real_usleep, "usleep", NULL);
	resolve(&real_poll, "poll", NULL);
	resolve(&real_ppoll, "ppoll", NULL);
	resolve(&real_select, "select", NULL);
	resolve(&real_pselect, "pselect", NULL);
	resolve(&real_epoll_wait, "epoll_wait", NULL);
	resolve(&real_epoll_pwait, "epoll_pwait", NULL);
	/* x86-64 glibc keeps a 2.2.5 pthread_cond_timedwait for the
	 * conditions of LinuxThreads days; everything built since links
	 * 2.3.2, the one that understands today's pthread_cond_t. */
	resolve(&real_cond_timedwait, "pthread_cond_timedwait",
		"GLIBC_2.3.2");
	resolve(&real_cond_clockwait, "pthread_cond_clockwait", NULL);
	resolve(&real_sem_timedwait, "sem_timedwait", NULL);
	resolve(&real_sem_clockwait, "sem_clockwait", NULL);
	resolve(&real_mutex_timedlock, "pthread_mutex_timedlock", NULL);
	resolve(&real_mutex_clocklock, "pthread_mutex_clocklock", NULL);
	resolve(&real_rd_timedlock, "pthread_rwlock_timedrdlock", NULL);
	resolve(&real_rd_clocklock, "pthread_rwlock_clockrdlock", NULL);
	resolve(&real_wr_timedlock, "pthread_rwlock_timedwrlock", NULL);
	resolve(&real_wr_clocklock, "pthread_rwlock_clockwrlock", NULL);
	/* The default versions (2.34, same code as 2.3.3) take today's
	 * timer_t; plain dlsym returns them. */
	resolve(&real_timer_settime, "timer_settime", NULL);
	resolve(&real_timer_gettime, "timer_gettime", NULL);
	resolve(&real_timerfd_settime, "timerfd_settime", NULL);
	resolve(&real_timerfd_gettime, "timerfd_gettime", NULL);
	resolve(&real_setitimer, "setitimer", NULL);
	resolve(&real_getitimer, "getitimer", NULL);
	resolve(&real_alarm, "alarm", NULL);
	/* stat & co. are symbols of their own since glibc 2.33; programs
	 * built before call the __xstat family, which 2.41 still exports */
	resolve(&real_stat, "stat", NULL);
	resolve(&real_lstat, "lstat", NULL);
	resolve(&real_fstat, "fstat", NULL);
	resolve(&real_fstatat, "fstatat", NULL);
	resolve(&real_stat64, "stat64", NULL);
	resolve(&real_lstat64, "lstat64", NULL);
	resolve(&real_fstat64, "fstat64", NULL);
	resolve(&real_fstatat64, "fstatat64", NULL);
	resolve(&real_statx, "statx", NULL);
	resolve(&real_xstat, "__xstat", NULL);
	resolve(&real_lxstat, "__lxstat", NULL);
	resolve(&real_fxstat, "__fxstat", NULL);
	resolve(&real_fxstatat, "__fxstatat", NULL);
	resolve(&real_xstat64, "__xstat64", NULL);
	resolve(&real_lxstat64, "__lxstat64", NULL);
	resolve(&real_fxstat64, "__fxstat64", NULL);
	resolve(&real_fxstatat64, "__fxstatat64", NULL);
	resolve(&real_utimensat, "utimensat", NULL);
	resolve(&real_futimens, "futimens", NULL);
	resolve(&real_utimes, "utimes", NULL);
	resolve(&real_lutimes, "lutimes", NULL);
	resolve(&real_futimes, "futimes", NULL);
	resolve(&real_utime, "utime", NULL);
}

/* Whether this program is on the exclusion list (whole names only). */
static int excluded(void)
{
	const char *list = getenv("TB_VCLOCK_EXCLUDE");
	const char *me = program_invocation_short_name;
	size_t len = strlen(me);

	if (!list)
		list = "munged";
	while (*list) {
		const char *end = strchr(list, ',');
		size_t n = end ? (size_t) (end - list) : strlen(list);

		if (n == len && !strncmp(list, me, n))
			return 1;
		list += n + (end ? 1 : 0);
	}
	return 0;
}

/* Writes one line to stderr: write(2) only, no stdio (it may be in any
 * state, and this may run before main). */
static void warn(const char *file, const char *why)
{
	char line[512];
	int n = snprintf(line, sizeof(line),
			 "tbvclock: %s: %s; this process keeps real time\n",
			 file, why);

	if (n > 0 && write(STDERR_FILENO, line,
			  (size_t) n < sizeof(line) ? (size_t) n :
			  sizeof(line) - 1) < 0)
		return; /* nowhere else to report it */
}

static void vclock_init(void)
{
	const char *file = getenv("TB_VCLOCK_FILE");
	const char *files = getenv("TB_VCLOCK_FILES");
	const char *real_libs = getenv("TB_VCLOCK_REAL_LIBS");
	void *map;
	int fd;

	resolve_all();
	if (!file || !*file || excluded())
		return;
	vc_files = !files || strcmp(files, "0");
	if (!real_libs)
		real_libs = "libmunge.so";
	/* a longer list is cut: it is ours, set in the images */
	snprintf(vc_real_libs, sizeof(vc_real_libs), "%s", real_libs);
	/* Every function used from here on must be one we do not
	 * intercept (fstat is one: lseek tells the size): this runs under
	 * vc_once. */
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		warn(file, strerror(errno));
		return;
	}
	if (lseek(fd, 0, SEEK_END) < TB_VCLOCK_FILE_SIZE) {
		warn(file, "not a clock page (too short)");
		close(fd);
		return;
	}
	map = mmap(NULL, TB_VCLOCK_FILE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		warn(file, strerror(errno));
		return;
	}
	if (tb_vclock_page_ok(map)) {
		warn(file, "not a clock page (bad magic or version)");
		munmap(map, TB_VCLOCK_FILE_SIZE);
		return;
	}
	vc_page = map;
}

/* Runs before main for most callers; others' constructors that read the
 * time first get the same set-up through page(). */
__attribute__((constructor)) static void vclock_ctor(void)
{
	pthread_once(&vc_once, vclock_init);
}

/* The page, or NULL to pass through. Also makes sure the real functions
 * are known. After the constructor, a single load. */
static const struct tb_vclock_page *page(void)
{
	pthread_once(&vc_once, vclock_init);
	return vc_page;
}

/* ---- code that keeps real time inside a process on the clock ---- */

/*
 * libmunge talks to munged, which keeps real time, with timeouts and
 * retry pauses of its own (2 s for an answer, 10 connection attempts 50 ms
 * apart, munge_defs.h) that no setting scales. Inside slurmctld or slurmd
 * at rate 1000 they were 2 ms and 50 us: in a burst of job starts munged
 * could not answer in time, credentials failed ("Munge encode failed ...
 * Timed-out", "Resource temporarily unavailable"), batch launches went
 * unsent and Slurm requeued the jobs. So a call made from a library on
 * TB_VCLOCK_REAL_LIBS (file-name prefixes, comma separated, default
 * "libmunge.so"; empty: none) reads and waits in real time.
 *
 * The caller is the return address of the intercepted function (a
 * library that ends a function with a tail call to poll is seen as that
 * function's caller; libmunge calls from inside loops and checks). Which
 * library holds it is asked of dladdr once per call site and kept in a
 * small cache: each slot holds a return address of a real-time caller, or
 * the complement of one of a virtual caller (never a user-space address,
 * so one word says both, read and written atomically without a lock).
 * Libraries such as libmunge arrive by dlopen (Slurm's auth plugin), after
 * start-up, so the answer cannot be fixed in vclock_init. A call site whose
 * library is unloaded and replaced at the same address keeps the first
 * answer: no library on the list is unloaded by Slurm.
 */
#define REAL_SLOTS 512
static _Atomic uintptr_t vc_real_cache[REAL_SLOTS];

static int on_real_list(const char *path)
{
	const char *list = vc_real_libs, *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	while (*list) {
		const char *end = strchr(list, ',');
		size_t n = end ? (size_t) (end - list) : strlen(list);

		if (n && !strncmp(base, list, n))
			return 1;
		list += n + (end ? 1 : 0);
	}
	return 0;
}

static int real_caller(const void *ra)
{
	uintptr_t a = (uintptr_t) ra, v;
	_Atomic uintptr_t *slot =
		&vc_real_cache[((a >> 4) ^ (a >> 13)) % REAL_SLOTS];
	Dl_info info;
	int real;

	v = atomic_load_explicit(slot, memory_order_relaxed);
	if (v == a)
		return 1;
	if (v == ~a)
		return 0;
	real = dladdr(ra, &info) && info.dli_fname &&
	       on_real_list(info.dli_fname);
	atomic_store_explicit(slot, real ? a : ~a, memory_order_relaxed);
	return real;
}

static const struct tb_vclock_page *page_for(const void *ra)
{
	const struct tb_vclock_page *p = page();

	if (!p || !vc_real_libs[0] || !real_caller(ra))
		return p;
	return NULL;
}

/* The page for this call of an intercepted function, or NULL: in the
 * function itself, so that the return address is its caller's. */
#define PAGE() page_for(__builtin_return_address(0))

static int64_t ts_ns(const struct timespec *ts)
{
	if (ts->tv_sec >= INT64_MAX / NS - 1)
		return INT64_MAX;
	if (ts->tv_sec <= INT64_MIN / NS + 1)
		return INT64_MIN;
	return (int64_t) ts->tv_sec * NS + ts->tv_nsec;
}

static struct timespec ns_ts(int64_t ns)
{
	struct timespec ts = { ns / NS, ns % NS };

	if (ts.tv_nsec < 0) {
		ts.tv_sec--;
		ts.tv_nsec += NS;
	}
	return ts;
}

static int64_t tv_ns(const struct timeval *tv)
{
	struct timespec ts = { tv->tv_sec, tv->tv_usec * 1000 };

	return ts_ns(&ts);
}

static struct timeval ns_tv(int64_t ns)
{
	struct timespec ts = ns_ts(ns);
	struct timeval tv = { ts.tv_sec, ts.tv_nsec / 1000 };

	return tv;
}

/* A real clock (ns); 0 if it cannot be read, which for the clocks used
 * here only happens without a vDSO and a kernel, i.e. never. */
static int64_t real_ns(clockid_t id)
{
	struct timespec ts;

	if (real_clock_gettime(id, &ts))
		return 0;
	return ts_ns(&ts);
}

/* Virtual realtime now, from a real monotonic clock (fine or coarse). */
static int64_t vnow_rt(const struct tb_vclock_page *p, clockid_t mono)
{
	struct tb_vclock_snap s;

	tb_vclock_read(p, &s);
	return tb_vclock_virtual(&s, real_ns(mono));
}

static int64_t vnow_mono(const struct tb_vclock_page *p)
{
	struct tb_vclock_snap s;

	tb_vclock_read(p, &s);
	return tb_vclock_virtual(&s, real_ns(CLOCK_MONOTONIC)) - s.mono_offset;
}

/*
 * The virtual value of clock id, or -1 for the clocks left alone (CPU
 * time, and any we do not know). TAI and BOOTTIME keep their real
 * distance to REALTIME and MONOTONIC (the TAI offset, the time spent
 * suspended).
 */
static int virtual_clock(const struct tb_vclock_page *p, clockid_t id,
			 int64_t *ns)
{
	struct tb_vclock_snap s;
	int64_t base;

	switch (id) {
	case CLOCK_REALTIME:
	case CLOCK_TAI:
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_BOOTTIME:
		base = real_ns(CLOCK_MONOTONIC);
		break;
	case CLOCK_REALTIME_COARSE:
	case CLOCK_MONOTONIC_COARSE:
		base = real_ns(CLOCK_MONOTONIC_COARSE);
		break;
	default:
		return -1;
	}
	tb_vclock_read(p, &s);
	*ns = tb_vclock_virtual(&s, base);
	switch (id) {
	case CLOCK_TAI:
		/* whole seconds: the offset is, and the two reads are not
		 * simultaneous */
		*ns += (real_ns(CLOCK_TAI) - real_ns(CLOCK_REALTIME) +
			NS / 2) / NS * NS;
		break;
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_MONOTONIC_COARSE:
		*ns -= s.mono_offset;
		break;
	case CLOCK_BOOTTIME:
		*ns += real_ns(CLOCK_BOOTTIME) - real_ns(CLOCK_MONOTONIC) -
		       s.mono_offset;
		break;
	default:
		break;
	}
	return 0;
}

/*
 * An absolute deadline on clock id (or, id == -1, on an unknown clock,
 * told apart by its size) as a deadline on the virtual monotonic clock,
 * the one every wait below counts against.
 */
static int64_t deadline_mono(const struct tb_vclock_page *p, clockid_t id,
			     const struct timespec *abs)
{
	int64_t want = ts_ns(abs), now_id, now_mono;

	if (id == (clockid_t) -1)
		id = abs->tv_sec >= TB_VCLOCK_REALTIME_MIN_S ?
		     CLOCK_REALTIME : CLOCK_MONOTONIC;
	if (virtual_clock(p, id, &now_id))
		return want;
	now_mono = vnow_mono(p);
	return tb_vclock_add(now_mono, tb_vclock_add(want, -now_id));
}

/*
 * The next real slice of a wait for virtual monotonic deadline dl: the
 * remaining virtual time divided by the rate, at most check_ns; 0 once
 * the deadline is reached.
 */
static int64_t slice(const struct tb_vclock_page *p, int64_t dl)
{
	struct tb_vclock_snap s;
	int64_t rem, real;

	tb_vclock_read(p, &s);
	rem = tb_vclock_add(dl, -(tb_vclock_virtual(&s,
			real_ns(CLOCK_MONOTONIC)) - s.mono_offset));
	real = tb_vclock_real_wait(rem, s.rate);
	return real < s.check_ns ? real : s.check_ns;
}

/* Virtual time left until dl, never negative (for "remaining" results). */
static int64_t left(const struct tb_vclock_page *p, int64_t dl)
{
	int64_t rem = tb_vclock_add(dl, -vnow_mono(p));

	return rem > 0 ? rem : 0;
}

/* A real interval (timers' remaining times) in virtual time. */
static int64_t to_virtual(const struct tb_vclock_page *p, int64_t real)
{
	struct tb_vclock_snap s;

	tb_vclock_read(p, &s);
	return tb_vclock_scale(real, s.rate);
}

static int64_t to_real(const struct tb_vclock_page *p, int64_t virt)
{
	struct tb_vclock_snap s;

	tb_vclock_read(p, &s);
	return tb_vclock_real_wait(virt, s.rate);
}

static int bad_ts(const struct timespec *ts)
{
	return ts->tv_nsec < 0 || ts->tv_nsec >= NS;
}

/* ---- reading the time ---- */

/* Pointers the headers declare nonnull are not checked: the compiler
 * would drop the checks, and libc itself faults on them. */

int clock_gettime(clockid_t id, struct timespec *ts)
{
	const struct tb_vclock_page *p = PAGE();
	int64_t ns;

	if (!p || virtual_clock(p, id, &ns))
		return real_clock_gettime(id, ts);
	*ts = ns_ts(ns);
	return 0;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	const struct tb_vclock_page *p = PAGE();

	if (!p)
		return real_gettimeofday(tv, tz);
	if (tz && real_gettimeofday(NULL, tz))
		return -1;
	*tv = ns_tv(vnow_rt(p, CLOCK_MONOTONIC));
	return 0;
}

time_t time(time_t *t)
{
	const struct tb_vclock_page *p = PAGE();
	time_t now;

	if (!p)
		return real_time(t);
	now = (time_t) (vnow_rt(p, CLOCK_MONOTONIC) / NS);
	if (t)
		*t = now;
	return now;
}

int timespec_get(struct timespec *ts, int base)
{
	const struct tb_vclock_page *p = PAGE();

	if (!p || base != TIME_UTC)
		return real_timespec_get(ts, base);
	*ts = ns_ts(vnow_rt(p, CLOCK_MONOTONIC));
	return base;
}

/* ---- sleeping ---- */

/*
 * Sleeps until virtual monotonic deadline dl, slice by slice. 0, or
 * EINTR (a signal) with the virtual time left in *rem if rem is not NULL.
 */
static int sleep_until(const struct tb_vclock_page *p, int64_t dl,
		       struct timespec *rem)
{
	int64_t sl;

	while ((sl = slice(p, dl)) > 0) {
		struct timespec ts = ns_ts(sl);

		if (real_nanosleep(&ts, NULL)) {
			int err = errno;

			if (rem)
				*rem = ns_ts(left(p, dl));
			return err;
		}
	}
	return 0;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	const struct tb_vclock_page *p = PAGE();
	int err;

	if (!p || !req || bad_ts(req))
		return real_nanosleep(req, rem);
	err = sleep_until(p, tb_vclock_add(vnow_mono(p), ts_ns(req)), rem);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

int clock_nanosleep(clockid_t id, int flags, const struct timespec *req,
		    struct timespec *rem)
{
	const struct tb_vclock_page *p = PAGE();
	int64_t dummy, dl;

	if (!p || !req || bad_ts(req) || virtual_clock(p, id, &dummy))
		return real_clock_nanosleep(id, flags, req, rem);
	if (flags & TIMER_ABSTIME)
		dl = deadline_mono(p, id, req);
	else
		dl = tb_vclock_add(vnow_mono(p), ts_ns(req));
	/* POSIX: rem is only written for relative sleeps. */
	return sleep_until(p, dl, (flags & TIMER_ABSTIME) ? NULL : rem);
}

unsigned int sleep(unsigned int seconds)
{
	const struct tb_vclock_page *p = PAGE();
	struct timespec rem = { 0, 0 };

	if (!p)
		return real_sleep(seconds);
	if (!sleep_until(p, tb_vclock_add(vnow_mono(p),
					  (int64_t) seconds * NS), &rem))
		return 0;
	/* like glibc: the seconds left, rounded */
	return (unsigned int) rem.tv_sec + (rem.tv_nsec >= NS / 2);
}

int usleep(useconds_t usec)
{
	const struct tb_vclock_page *p = PAGE();
	int err;

	if (!p)
		return real_usleep(usec);
	err = sleep_until(p, tb_vclock_add(vnow_mono(p),
					   (int64_t) usec * 1000), NULL);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* ---- waiting for file descriptors ---- */

/* Each wait below: nothing to scale (no timeout, or zero) passes through;
 * otherwise real slices until something happens or the deadline passes,
 * with one last zero-timeout look at the deadline itself. */

int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo,
	  const sigset_t *mask)
{
	const struct tb_vclock_page *p = PAGE();
	int64_t dl, sl;

	if (!p || !tmo || bad_ts(tmo) || (!tmo->tv_sec && !tmo->tv_nsec))
		return real_ppoll(fds, n, tmo, mask);
	dl = tb_vclock_add(vnow_mono(p), ts_ns(tmo));
	for (;;) {
		struct timespec ts = ns_ts(sl = slice(p, dl));
		int rc = real_ppoll(fds, n, &ts, mask);

		if (rc || !sl)
			return rc;
	}
}

int poll(struct pollfd *fds, nfds_t n, int ms)
{
	const struct tb_vclock_page *p = PAGE();
	struct timespec tmo = { ms / 1000, (ms % 1000) * 1000000L };

	if (!p || ms <= 0)
		return real_poll(fds, n, ms);
	return ppoll(fds, n, &tmo, NULL);
}

/* select and pselect clear the sets of what did not happen: each slice
 * starts again from the caller's sets, which need a copy; past
 * FD_SETSIZE the sets are bigger than a copy, so one scaled wait. */
int pselect(int nfds, fd_set *restrict r, fd_set *restrict w,
	    fd_set *restrict e, const struct timespec *restrict tmo,
	    const sigset_t *restrict mask)
{
	const struct tb_vclock_page *p = PAGE();
	fd_set r0, w0, e0;
	int64_t dl, sl;

	if (!p || !tmo || bad_ts(tmo) || (!tmo->tv_sec && !tmo->tv_nsec))
		return real_pselect(nfds, r, w, e, tmo, mask);
	if (nfds > FD_SETSIZE || nfds < 0) {
		struct timespec ts = ns_ts(to_real(p, ts_ns(tmo)));

		return real_pselect(nfds, r, w, e, &ts, mask);
	}
	if (r)
		r0 = *r;
	if (w)
		w0 = *w;
	if (e)
		e0 = *e;
	dl = tb_vclock_add(vnow_mono(p), ts_ns(tmo));
	for (;;) {
		struct timespec ts = ns_ts(sl = slice(p, dl));
		int rc = real_pselect(nfds, r, w, e, &ts, mask);

		if (rc || !sl)
			return rc;
		if (r)
			*r = r0;
		if (w)
			*w = w0;
		if (e)
			*e = e0;
	}
}

int select(int nfds, fd_set *restrict r, fd_set *restrict w,
	   fd_set *restrict e, struct timeval *restrict tv)
{
	const struct tb_vclock_page *p = PAGE();
	struct timespec tmo;
	int64_t dl;
	int rc, err;

	if (!p || !tv || tv->tv_usec < 0 || tv->tv_usec >= 1000000 ||
	    (!tv->tv_sec && !tv->tv_usec))
		return real_select(nfds, r, w, e, tv);
	dl = tb_vclock_add(vnow_mono(p), tv_ns(tv));
	tmo = ns_ts(tv_ns(tv));
	rc = pselect(nfds, r, w, e, &tmo, NULL);
	/* Linux tells how much of the timeout was left; so do we, in
	 * virtual time. */
	err = errno;
	*tv = ns_tv(left(p, dl));
	errno = err;
	return rc;
}

int epoll_pwait(int epfd, struct epoll_event *ev, int max, int ms,
		const sigset_t *mask)
{
	const struct tb_vclock_page *p = PAGE();
	int64_t dl, sl;

	if (!p || ms <= 0)
		return real_epoll_pwait(epfd, ev, max, ms, mask);
	dl = tb_vclock_add(vnow_mono(p), (int64_t) ms * 1000000);
	for (;;) {
		int rc;

		sl = slice(p, dl);
		/* whole milliseconds, rounded up */
		rc = real_epoll_pwait(epfd, ev, max,
				      (int) ((sl + 999999) / 1000000), mask);
		if (rc || !sl)
			return rc;
	}
}

int epoll_wait(int epfd, struct epoll_event *ev, int max, int ms)
{
	if (!PAGE() || ms <= 0)
		return real_epoll_wait(epfd, ev, max, ms);
	return epoll_pwait(epfd, ev, max, ms, NULL);
}

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

	while ((sl = slice(p, dl)) > 0) {
		int64_t mono = real_ns(CLOCK_MONOTONIC);
		struct timespec ts = ns_ts(tb_vclock_add(mono, sl));
		int rc;

		if (real_cond_clockwait) {
			rc = real_cond_clockwait(c, m, CLOCK_MONOTONIC, &ts);
		} else {
			/* glibc before 2.30: the condition's own clock is
			 * unknown; assume the one the deadline looks like */
			if (abs->tv_sec >= TB_VCLOCK_REALTIME_MIN_S)
				ts = ns_ts(tb_vclock_add(real_ns(
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
	return cond_wait_until(p, c, m, deadline_mono(p, (clockid_t) -1, abs),
			       abs);
}

int pthread_cond_clockwait(pthread_cond_t *restrict c,
			   pthread_mutex_t *restrict m, clockid_t id,
			   const struct timespec *restrict abs)
{
	const struct tb_vclock_page *p = PAGE();
	int64_t dummy;

	if (!p || !real_cond_clockwait ||
	    virtual_clock(p, id, &dummy))
		return real_cond_clockwait ?
		       real_cond_clockwait(c, m, id, abs) : ENOSYS;
	if (bad_ts(abs))
		return EINVAL;
	return cond_wait_until(p, c, m, deadline_mono(p, id, abs), abs);
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
	struct timespec rt = ns_ts(tb_vclock_add(real_ns(CLOCK_REALTIME), sl));
	struct timespec mono = ns_ts(tb_vclock_add(real_ns(CLOCK_MONOTONIC),
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
	dl = deadline_mono(p, id, abs);
	while ((sl = slice(p, dl)) > 0) {
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

	return virtual_clock(p, id, &dummy) == 0 ? 0 : -1;
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

/* ---- timers ---- */

/*
 * A timer setting in virtual time as one in real time. An absolute
 * expiry becomes a relative one (the timer's clock is unknown; realtime-
 * like and monotonic deadlines are told apart by their size), which also
 * drops TFD_TIMER_CANCEL_ON_SET (it needs an absolute realtime timer).
 * A virtual expiry already past fires at once (1 ns, as 0 would disarm).
 */
static void timer_to_real(const struct tb_vclock_page *p, int *flags,
			  const struct itimerspec *in, struct itimerspec *out)
{
	int64_t value = ts_ns(&in->it_value);

	if (value && (*flags & TIMER_ABSTIME)) {
		value = left(p, deadline_mono(p, (clockid_t) -1,
					      &in->it_value));
		value = value ? to_real(p, value) : 1;
	} else {
		value = to_real(p, value);
	}
	*flags &= ~(TIMER_ABSTIME | TFD_TIMER_ABSTIME |
		    TFD_TIMER_CANCEL_ON_SET);
	out->it_value = ns_ts(value);
	out->it_interval = ns_ts(to_real(p, ts_ns(&in->it_interval)));
}

static void timer_to_virtual(const struct tb_vclock_page *p,
			     struct itimerspec *its)
{
	its->it_value = ns_ts(to_virtual(p, ts_ns(&its->it_value)));
	its->it_interval = ns_ts(to_virtual(p, ts_ns(&its->it_interval)));
}

static int timer_bad(const struct itimerspec *its)
{
	return !its || bad_ts(&its->it_value) || bad_ts(&its->it_interval);
}

int timer_settime(timer_t t, int flags, const struct itimerspec *restrict in,
		  struct itimerspec *restrict old)
{
	const struct tb_vclock_page *p = PAGE();
	struct itimerspec real;
	int rc;

	if (!p || timer_bad(in))
		return real_timer_settime(t, flags, in, old);
	timer_to_real(p, &flags, in, &real);
	rc = real_timer_settime(t, flags, &real, old);
	if (!rc && old)
		timer_to_virtual(p, old);
	return rc;
}

int timer_gettime(timer_t t, struct itimerspec *cur)
{
	const struct tb_vclock_page *p = PAGE();
	int rc = real_timer_gettime(t, cur);

	if (!rc && p && cur)
		timer_to_virtual(p, cur);
	return rc;
}

int timerfd_settime(int fd, int flags, const struct itimerspec *in,
		    struct itimerspec *old)
{
	const struct tb_vclock_page *p = PAGE();
	struct itimerspec real;
	int rc;

	if (!p || timer_bad(in))
		return real_timerfd_settime(fd, flags, in, old);
	timer_to_real(p, &flags, in, &real);
	rc = real_timerfd_settime(fd, flags, &real, old);
	if (!rc && old)
		timer_to_virtual(p, old);
	return rc;
}

int timerfd_gettime(int fd, struct itimerspec *cur)
{
	const struct tb_vclock_page *p = PAGE();
	int rc = real_timerfd_gettime(fd, cur);

	if (!rc && p && cur)
		timer_to_virtual(p, cur);
	return rc;
}

/* Only ITIMER_REAL counts wall time; the other two count CPU time. */
int setitimer(__itimer_which_t which, const struct itimerval *restrict in,
	      struct itimerval *restrict old)
{
	const struct tb_vclock_page *p = PAGE();
	struct itimerval real;
	int rc;

	if (!p || which != ITIMER_REAL || !in ||
	    in->it_value.tv_usec < 0 || in->it_value.tv_usec >= 1000000 ||
	    in->it_interval.tv_usec < 0 || in->it_interval.tv_usec >= 1000000)
		return real_setitimer(which, in, old);
	/* to_real rounds up to whole ns; setitimer wants whole us, and 0
	 * would disarm: round up again */
	real.it_value = ns_tv(to_real(p, tv_ns(&in->it_value)) + 999);
	real.it_interval = ns_tv(to_real(p, tv_ns(&in->it_interval)) + 999);
	rc = real_setitimer(which, &real, old);
	if (!rc && old) {
		old->it_value = ns_tv(to_virtual(p, tv_ns(&old->it_value)));
		old->it_interval = ns_tv(to_virtual(p,
						    tv_ns(&old->it_interval)));
	}
	return rc;
}

int getitimer(__itimer_which_t which, struct itimerval *cur)
{
	const struct tb_vclock_page *p = PAGE();
	int rc = real_getitimer(which, cur);

	if (!rc && p && cur && which == ITIMER_REAL) {
		cur->it_value = ns_tv(to_virtual(p, tv_ns(&cur->it_value)));
		cur->it_interval = ns_tv(to_virtual(p,
						    tv_ns(&cur->it_interval)));
	}
	return rc;
}

unsigned int alarm(unsigned int seconds)
{
	const struct tb_vclock_page *p = PAGE();
	struct itimerval in = { { 0, 0 }, { (time_t) seconds, 0 } }, old;

	if (!p)
		return real_alarm(seconds);
	if (setitimer(ITIMER_REAL, &in, &old))
		return 0;
	/* like glibc: the seconds left, rounded, and 1 rather than 0 for a
	 * pending alarm */
	if (!old.it_value.tv_sec && old.it_value.tv_usec)
		return 1;
	return (unsigned int) old.it_value.tv_sec +
	       (old.it_value.tv_usec >= 500000);
}

/* ---- file timestamps ---- */

/*
 * The kernel stamps files in real time; what a process reads of them it
 * gets in virtual time, and what it sets explicitly (touch -d, cp -p,
 * tar) is taken as virtual and stored in real time, so both round-trip
 * (tb_vclock_file_virtual/_real in vclock.h give the mapping). "Now"
 * (a NULL times, UTIME_NOW) and UTIME_OMIT pass through untouched. Only
 * valid times that fit in int64 ns are mapped; others are left alone.
 */

/* The page if file timestamps are mapped, else NULL. */
static const struct tb_vclock_page *file_page(void)
{
	const struct tb_vclock_page *p = page();

	return vc_files ? p : NULL;
}

static int nosys(void)
{
	errno = ENOSYS;
	return -1;
}

static int ns_fits(int64_t sec, int64_t nsec)
{
	return nsec >= 0 && nsec < NS && sec < INT64_MAX / NS - 1 &&
	       sec > INT64_MIN / NS + 1;
}

static void ts_to_virtual(const struct tb_vclock_snap *s, struct timespec *ts)
{
	if (ns_fits(ts->tv_sec, ts->tv_nsec))
		*ts = ns_ts(tb_vclock_file_virtual(s, ts_ns(ts)));
}

/* The three times of a struct stat or stat64 (the same fields). */
static void times_to_virtual(const struct tb_vclock_page *p,
			     struct timespec *a, struct timespec *m,
			     struct timespec *c)
{
	struct tb_vclock_snap s;

	tb_vclock_read(p, &s);
	ts_to_virtual(&s, a);
	ts_to_virtual(&s, m);
	ts_to_virtual(&s, c);
}

#define STAT_TO_VIRTUAL(p, st) \
	times_to_virtual(p, &(st)->st_atim, &(st)->st_mtim, &(st)->st_ctim)

static void stx_to_virtual(const struct tb_vclock_snap *s,
			   struct statx_timestamp *t)
{
	if (ns_fits(t->tv_sec, t->tv_nsec)) {
		struct timespec ts = ns_ts(tb_vclock_file_virtual(s,
			(int64_t) t->tv_sec * NS + t->tv_nsec));

		t->tv_sec = ts.tv_sec;
		t->tv_nsec = (uint32_t) ts.tv_nsec;
	}
}

int stat(const char *restrict path, struct stat *restrict st)
{
	const struct tb_vclock_page *p = file_page();
	int rc = real_stat ? real_stat(path, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int lstat(const char *restrict path, struct stat *restrict st)
{
	const struct tb_vclock_page *p = file_page();
	int rc = real_lstat ? real_lstat(path, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int fstat(int fd, struct stat *st)
{
	const struct tb_vclock_page *p = file_page();
	int rc = real_fstat ? real_fstat(fd, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int fstatat(int dirfd, const char *restrict path, struct stat *restrict st,
	    int flags)
{
	const struct tb_vclock_page *p = file_page();
	int rc = real_fstatat ? real_fstatat(dirfd, path, st, flags) :
		 nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int stat64(const char *restrict path, struct stat64 *restrict st)
{
	const struct tb_vclock_page *p = file_page();
	int rc = real_stat64 ? real_stat64(path, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int lstat64(const char *restrict path, struct stat64 *restrict st)
{
	const struct tb_vclock_page *p = file_page();
	int rc = real_lstat64 ? real_lstat64(path, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int fstat64(int fd, struct stat64 *st)
{
	const struct tb_vclock_page *p = file_page();
	int rc = real_fstat64 ? real_fstat64(fd, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int fstatat64(int dirfd, const char *restrict path,
	      struct stat64 *restrict st, int flags)
{
	const struct tb_vclock_page *p = file_page();
	int rc = real_fstatat64 ? real_fstatat64(dirfd, path, st, flags) :
		 nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

/* statx fills only the times the kernel knows (stx_mask): btime is
 * missing on some file systems and must stay zero. */
int statx(int dirfd, const char *restrict path, int flags,
	  unsigned int mask, struct statx *restrict stx)
{
	const struct tb_vclock_page *p = file_page();
	struct tb_vclock_snap s;
	int rc = real_statx ? real_statx(dirfd, path, flags, mask, stx) :
		 nosys();

	if (rc || !p)
		return rc;
	tb_vclock_read(p, &s);
	if (stx->stx_mask & STATX_ATIME)
		stx_to_virtual(&s, &stx->stx_atime);
	if (stx->stx_mask & STATX_MTIME)
		stx_to_virtual(&s, &stx->stx_mtime);
	if (stx->stx_mask & STATX_CTIME)
		stx_to_virtual(&s, &stx->stx_ctime);
	if (stx->stx_mask & STATX_BTIME)
		stx_to_virtual(&s, &stx->stx_btime);
	return 0;
}

/*
 * The stat family of binaries built before glibc 2.33 (no longer in the
 * headers). ver is _STAT_VER; on x86-64 every version fills the same
 * struct stat.
 */
int __xstat(int ver, const char *path, struct stat *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __fxstat(int ver, int fd, struct stat *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st,
	       int flags);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __lxstat64(int ver, const char *path, struct stat64 *st);
int __fxstat64(int ver, int fd, struct stat64 *st);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st,
		 int flags);

int __xstat(int ver, const char *path, struct stat *st)
{
	const struct tb_vclock_page *p = file_page();
	int rc = real_xstat ? real_xstat(ver, path, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int __lxstat(int ver, const char *path, struct stat *st)
{
	const struct tb_vclock_page *p = file_page();
	int rc = real_lxstat ? real_lxstat(ver, path, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int __fxstat(int ver, int fd, struct stat *st)
{
	const struct tb_vclock_page *p = file_page();
	int rc = real_fxstat ? real_fxstat(ver, fd, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int __fxstatat(int ver, int dirfd, const char *path, struct stat *st,
	       int flags)
{
	const struct tb_vclock_page *p = file_page();
	int rc = real_fxstatat ? real_fxstatat(ver, dirfd, path, st, flags) :
		 nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int __xstat64(int ver, const char *path, struct stat64 *st)
{
	const struct tb_vclock_page *p = file_page();
	int rc = real_xstat64 ? real_xstat64(ver, path, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int __lxstat64(int ver, const char *path, struct stat64 *st)
{
	const struct tb_vclock_page *p = file_page();
	int rc = real_lxstat64 ? real_lxstat64(ver, path, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int __fxstat64(int ver, int fd, struct stat64 *st)
{
	const struct tb_vclock_page *p = file_page();
	int rc = real_fxstat64 ? real_fxstat64(ver, fd, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st,
		 int flags)
{
	const struct tb_vclock_page *p = file_page();
	int rc = real_fxstatat64 ?
		 real_fxstatat64(ver, dirfd, path, st, flags) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

/*
 * Setting times. Explicit times are virtual: out gets them in real time
 * (UTIME_NOW, UTIME_OMIT and invalid ones unchanged, for the kernel to
 * act on or refuse). Returns the times to pass on: in itself when there is
 * nothing to map.
 */
static const struct timespec *times_to_real(const struct tb_vclock_page *p,
					    const struct timespec *in,
					    struct timespec *out)
{
	struct tb_vclock_snap s;
	int i;

	if (!p || !in)
		return in;
	tb_vclock_read(p, &s);
	for (i = 0; i < 2; i++) {
		out[i] = in[i];
		if (in[i].tv_nsec != UTIME_NOW &&
		    in[i].tv_nsec != UTIME_OMIT &&
		    ns_fits(in[i].tv_sec, in[i].tv_nsec))
			out[i] = ns_ts(tb_vclock_file_real(&s,
							   ts_ns(&in[i])));
	}
	return out;
}

int utimensat(int dirfd, const char *path, const struct timespec times[2],
	      int flags)
{
	const struct tb_vclock_page *p = file_page();
	struct timespec real[2];

	if (!real_utimensat)
		return nosys();
	return real_utimensat(dirfd, path, times_to_real(p, times, real),
			      flags);
}

int futimens(int fd, const struct timespec times[2])
{
	const struct tb_vclock_page *p = file_page();
	struct timespec real[2];

	if (!real_futimens)
		return nosys();
	return real_futimens(fd, times_to_real(p, times, real));
}

/*
 * The microsecond and second forms become utimensat/futimens with the
 * mapped times in ns, as glibc implements them: rounding the real time
 * to their unit would cost up to rate units of virtual time. Invalid
 * microseconds go to the real call, which refuses them.
 */
static int tv_to_ts(const struct timeval *tv, struct timespec *ts)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
			return -1;
		ts[i].tv_sec = tv[i].tv_sec;
		ts[i].tv_nsec = tv[i].tv_usec * 1000;
	}
	return 0;
}

int utimes(const char *path, const struct timeval tv[2])
{
	const struct tb_vclock_page *p = file_page();
	struct timespec ts[2], real[2];

	if (!p || !tv || tv_to_ts(tv, ts) || !real_utimensat)
		return real_utimes ? real_utimes(path, tv) : nosys();
	return real_utimensat(AT_FDCWD, path, times_to_real(p, ts, real), 0);
}

int lutimes(const char *path, const struct timeval tv[2])
{
	const struct tb_vclock_page *p = file_page();
	struct timespec ts[2], real[2];

	if (!p || !tv || tv_to_ts(tv, ts) || !real_utimensat)
		return real_lutimes ? real_lutimes(path, tv) : nosys();
	return real_utimensat(AT_FDCWD, path, times_to_real(p, ts, real),
			      AT_SYMLINK_NOFOLLOW);
}

int futimes(int fd, const struct timeval tv[2])
{
	const struct tb_vclock_page *p = file_page();
	struct timespec ts[2], real[2];

	if (!p || !tv || tv_to_ts(tv, ts) || !real_futimens)
		return real_futimes ? real_futimes(fd, tv) : nosys();
	return real_futimens(fd, times_to_real(p, ts, real));
}

int utime(const char *path, const struct utimbuf *times)
{
	const struct tb_vclock_page *p = file_page();
	struct timespec ts[2], real[2];

	if (!p || !times || !real_utimensat)
		return real_utime ? real_utime(path, times) : nosys();
	ts[0].tv_sec = times->actime;
	ts[0].tv_nsec = 0;
	ts[1].tv_sec = times->modtime;
	ts[1].tv_nsec = 0;
	return real_utimensat(AT_FDCWD, path, times_to_real(p, ts, real), 0);
}
