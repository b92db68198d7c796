/*
 * probe: small measurements of a process's view of time, run with and
 * without a clock preload (ours or libfaketime). Every figure in
 * docs/vclock.md comes from one of these subcommands.
 *
 * The real clocks are read with the raw system call, which no preload
 * library intercepts, so "wall" below is always real time.
 *
 *   probe pair                     virtual and real clocks, one line
 *   probe sleep|usleep|nanosleep|absleep SECONDS
 *                                  the call's real duration (ms)
 *   probe poll|ppoll|select|epoll MS     one timed wait, real duration (ms)
 *   probe pollloop MS WALL_S       poll(MS) in a loop for WALL_S real s:
 *                                  calls made and CPU used
 *   probe cond VSECONDS THREADS [static|init|mono]
 *                                  THREADS threads each wait VSECONDS on one
 *                                  condition while two more hammer its
 *                                  mutex; counts of each return code, real ms
 *   probe together SECONDS         realtime and monotonic deltas across a
 *                                  nanosleep of SECONDS
 *   probe timer|timerabs|timerfd SECONDS  a timer armed for SECONDS: real ms
 *   probe sem|semclock|mutex|mutextimed|rd|rdclock|wr|wrclock SECONDS
 *                                  a timed wait for a semaphore, a
 *                                  (self-held) mutex or a read-write lock
 *                                  (write-held by an ended thread): real ms
 *   probe lib LIBRARY SECONDS      dlopen LIBRARY (reallib.c) and let it
 *                                  nanosleep, poll and sem_timedwait
 *                                  SECONDS each and read gettimeofday:
 *                                  the real ms of each
 *                                  wait, and its time minus the real time
 *                                  (ms); then the same waits made here
 *   probe bench N                  ns per clock_gettime(CLOCK_REALTIME)
 *   probe write|stat FILE          (write: creates or truncates FILE and
 *                                  writes a byte, between two readings v0
 *                                  and v1 of the virtual realtime clock,
 *                                  then t = time()); FILE's mtime (ns) by
 *                                  every stat interface, how many agree,
 *                                  its atime, ctime, btime (statx, "-" if
 *                                  unknown) and its real mtime (raw=, by
 *                                  system call)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define NS 1000000000LL

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t) ts->tv_sec * NS + ts->tv_nsec;
}

/* The real clock, behind any preload's back. */
static int64_t real_ns(clockid_t id)
{
	struct timespec ts;

	if (syscall(SYS_clock_gettime, id, &ts)) {
		perror("clock_gettime syscall");
		exit(2);
	}
	return ts_ns(&ts);
}

static int64_t virt_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts)) {
		perror("clock_gettime");
		exit(2);
	}
	return ts_ns(&ts);
}

static double wall_ms_since(int64_t start)
{
	return (real_ns(CLOCK_MONOTONIC) - start) / 1e6;
}

static struct timespec ns_ts(int64_t ns)
{
	struct timespec ts = { ns / NS, ns % NS };

	return ts;
}

static int64_t sec_arg(const char *s)
{
	return (int64_t) (strtod(s, NULL) * NS);
}

static int cmd_pair(void)
{
	/*
	 * Virtual and real read back to back, bracketed by two real monotonic
	 * readings m0, m1: m is their midpoint, so a reader comparing two
	 * processes can extrapolate to a common real instant. A process
	 * preempted inside the bracket would add rate x the preemption to
	 * that comparison (1.3 ms virtual at rate 100 seen under a load of
	 * two test suites): of 200 tries the tightest bracket is kept, and
	 * its width printed (w=, real ns).
	 */
	int64_t best = INT64_MAX, r = 0, v = 0, m = 0, vm = 0;

	for (int i = 0; i < 200; i++) {
		int64_t m0 = real_ns(CLOCK_MONOTONIC);
		int64_t r1 = real_ns(CLOCK_REALTIME);
		int64_t v1 = virt_ns(CLOCK_REALTIME);
		int64_t vm1 = virt_ns(CLOCK_MONOTONIC);
		int64_t m1 = real_ns(CLOCK_MONOTONIC);

		if (m1 - m0 < best) {
			best = m1 - m0;
			r = r1;
			v = v1;
			vm = vm1;
			m = m0 + (m1 - m0) / 2;
		}
	}
	printf("r=%lld v=%lld m=%lld vm=%lld t=%lld w=%lld\n", (long long) r,
	       (long long) v, (long long) m, (long long) vm,
	       (long long) time(NULL), (long long) best);
	return 0;
}

static int cmd_sleep(const char *how, int64_t ns)
{
	int64_t start = real_ns(CLOCK_MONOTONIC);
	struct timespec ts = ns_ts(ns);
	int rc = 0;

	if (!strcmp(how, "sleep")) {
		rc = (int) sleep((unsigned) (ns / NS));
	} else if (!strcmp(how, "usleep")) {
		rc = usleep((useconds_t) (ns / 1000));
	} else if (!strcmp(how, "nanosleep")) {
		rc = nanosleep(&ts, NULL);
	} else if (!strcmp(how, "absleep")) {
		struct timespec dl = ns_ts(virt_ns(CLOCK_MONOTONIC) + ns);

		rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &dl, NULL);
	} else {
		return 1;
	}
	printf("%s rc=%d wall_ms=%.3f\n", how, rc, wall_ms_since(start));
	return rc != 0;
}

static int cmd_wait(const char *how, int ms)
{
	int64_t start = real_ns(CLOCK_MONOTONIC);
	int rc;

	if (!strcmp(how, "poll")) {
		rc = poll(NULL, 0, ms);
	} else if (!strcmp(how, "ppoll")) {
		struct timespec ts = ns_ts((int64_t) ms * 1000000);

		rc = ppoll(NULL, 0, &ts, NULL);
	} else if (!strcmp(how, "select")) {
		struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

		rc = select(0, NULL, NULL, NULL, &tv);
	} else if (!strcmp(how, "epoll")) {
		struct epoll_event ev;
		int fd = epoll_create1(0);

		if (fd < 0) {
			perror("epoll_create1");
			return 2;
		}
		rc = epoll_wait(fd, &ev, 1, ms);
		close(fd);
	} else {
		return 1;
	}
	printf("%s rc=%d wall_ms=%.3f\n", how, rc, wall_ms_since(start));
	return rc != 0;
}

static double cpu_ms(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static int cmd_pollloop(int ms, double wall_s)
{
	int64_t start = real_ns(CLOCK_MONOTONIC);
	int64_t end = start + (int64_t) (wall_s * NS);
	long calls = 0;
	double cpu0 = cpu_ms();

	while (real_ns(CLOCK_MONOTONIC) < end) {
		if (poll(NULL, 0, ms) < 0 && errno != EINTR) {
			perror("poll");
			return 2;
		}
		calls++;
	}
	printf("pollloop calls=%ld per_wall_s=%.0f cpu_ms=%.1f wall_ms=%.1f\n",
	       calls, calls / wall_s, cpu_ms() - cpu0, wall_ms_since(start));
	return 0;
}

struct cond_shared {
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	int64_t wait_ns;
	clockid_t clock;
	int stop;
	long rc_timedout, rc_zero, rc_other;
	int last_other;
	double max_ms, min_ms;
};

static void *cond_waiter(void *arg)
{
	struct cond_shared *s = arg;
	struct timespec dl = ns_ts(virt_ns(s->clock) + s->wait_ns);
	int64_t start = real_ns(CLOCK_MONOTONIC);
	double ms;
	int rc;

	pthread_mutex_lock(&s->mutex);
	do {
		rc = pthread_cond_timedwait(&s->cond, &s->mutex, &dl);
		if (rc == 0)
			s->rc_zero++;
		else if (rc != ETIMEDOUT) {
			s->rc_other++;
			s->last_other = rc;
		}
	} while (rc == 0 || (rc != ETIMEDOUT && s->rc_other < 1000));
	ms = wall_ms_since(start);
	if (rc == ETIMEDOUT)
		s->rc_timedout++;
	if (ms > s->max_ms)
		s->max_ms = ms;
	if (s->min_ms < 0 || ms < s->min_ms)
		s->min_ms = ms;
	pthread_mutex_unlock(&s->mutex);
	return NULL;
}

/* Contention: grab and release the mutex and broadcast in a tight loop,
 * so the waiters wake, requeue and race for the mutex all the time. */
static void *cond_hammer(void *arg)
{
	struct cond_shared *s = arg;

	for (;;) {
		pthread_mutex_lock(&s->mutex);
		if (s->stop) {
			pthread_mutex_unlock(&s->mutex);
			return NULL;
		}
		pthread_cond_broadcast(&s->cond);
		pthread_mutex_unlock(&s->mutex);
		sched_yield();
	}
}

/* mode "static": PTHREAD_COND_INITIALIZER; "init": pthread_cond_init with
 * no attributes, as Slurm does; "mono": a CLOCK_MONOTONIC condition. */
static int cmd_cond(int64_t ns, int threads, const char *mode)
{
	struct cond_shared s = {
		.mutex = PTHREAD_MUTEX_INITIALIZER,
		.cond = PTHREAD_COND_INITIALIZER,
		.wait_ns = ns, .clock = CLOCK_REALTIME, .min_ms = -1,
	};
	pthread_condattr_t attr;
	pthread_t w[64], h[2];
	int i;

	if (threads < 1 || threads > 64)
		return 1;
	if (!strcmp(mode, "init")) {
		pthread_cond_init(&s.cond, NULL);
	} else if (!strcmp(mode, "mono")) {
		pthread_condattr_init(&attr);
		pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
		pthread_cond_init(&s.cond, &attr);
		s.clock = CLOCK_MONOTONIC;
	}
	for (i = 0; i < 2; i++)
		pthread_create(&h[i], NULL, cond_hammer, &s);
	for (i = 0; i < threads; i++)
		pthread_create(&w[i], NULL, cond_waiter, &s);
	for (i = 0; i < threads; i++)
		pthread_join(w[i], NULL);
	pthread_mutex_lock(&s.mutex);
	s.stop = 1;
	pthread_mutex_unlock(&s.mutex);
	for (i = 0; i < 2; i++)
		pthread_join(h[i], NULL);
	printf("cond timedout=%ld wakeups=%ld other=%ld last_other=%s "
	       "min_ms=%.3f max_ms=%.3f\n", s.rc_timedout, s.rc_zero,
	       s.rc_other, s.rc_other ? strerror(s.last_other) : "-",
	       s.min_ms, s.max_ms);
	return s.rc_other != 0 || s.rc_timedout != threads;
}

static int cmd_together(int64_t ns)
{
	int64_t r0 = virt_ns(CLOCK_REALTIME), m0 = virt_ns(CLOCK_MONOTONIC);
	int64_t b0 = virt_ns(CLOCK_BOOTTIME);
	struct timespec ts = ns_ts(ns);
	int64_t r1, m1, b1;

	nanosleep(&ts, NULL);
	r1 = virt_ns(CLOCK_REALTIME);
	m1 = virt_ns(CLOCK_MONOTONIC);
	b1 = virt_ns(CLOCK_BOOTTIME);
	printf("together d_real=%lld d_mono=%lld d_boot=%lld diff_ns=%lld\n",
	       (long long) (r1 - r0), (long long) (m1 - m0),
	       (long long) (b1 - b0), (long long) ((r1 - r0) - (m1 - m0)));
	return 0;
}

static int cmd_timer(const char *how, int64_t ns)
{
	int64_t start = real_ns(CLOCK_MONOTONIC);
	struct itimerspec its = { { 0, 0 }, ns_ts(ns) };
	sigset_t set;
	int sig, rc;

	if (!strcmp(how, "timerfd")) {
		uint64_t n;
		int fd = timerfd_create(CLOCK_MONOTONIC, 0);

		if (fd < 0 || timerfd_settime(fd, 0, &its, NULL)) {
			perror("timerfd");
			return 2;
		}
		rc = read(fd, &n, sizeof(n)) == sizeof(n) ? 0 : -1;
		close(fd);
	} else {
		timer_t t;
		struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL,
					.sigev_signo = SIGUSR1 };
		int flags = 0;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
		if (timer_create(CLOCK_TAI, &sev, &t)) {
			perror("timer_create");
			return 2;
		}
		if (!strcmp(how, "timerabs")) {
			its.it_value = ns_ts(virt_ns(CLOCK_TAI) + ns);
			flags = TIMER_ABSTIME;
		}
		if (timer_settime(t, flags, &its, NULL)) {
			perror("timer_settime");
			return 2;
		}
		rc = sigwait(&set, &sig);
		timer_delete(t);
	}
	printf("%s rc=%d wall_ms=%.3f\n", how, rc, wall_ms_since(start));
	return rc != 0;
}

/* Write-locks l from another thread, which ends holding it: glibc
 * refuses (EDEADLK) a wait by the writer itself. 0 or an error number. */
static void *wr_hold(void *l)
{
	return (void *) (intptr_t) pthread_rwlock_wrlock(l);
}

static int rw_held(pthread_rwlock_t *l)
{
	pthread_t t;
	void *rc;

	if (pthread_create(&t, NULL, wr_hold, l) || pthread_join(t, &rc))
		return EAGAIN;
	return (int) (intptr_t) rc;
}

/* A lock wait still running after LOCK_WATCHDOG_S real seconds: a
 * virtual deadline handed to the real call unconverted can be days of
 * real time away. Reported as such, so that the check fails at once. */
#define LOCK_WATCHDOG_S 10

static void lock_watchdog(int sig)
{
	static const char msg[] = "rc=WATCHDOG wall_ms=10000\n";

	(void) sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(1);
}

/* The timed waits of vclock_sync.c on what never comes: the timed forms
 * (sem, mutextimed, rd, wr) with a realtime deadline, the clock forms
 * (semclock, mutex, rdclock, wrclock) with a monotonic one. */
static int cmd_lock(const char *how, int64_t ns)
{
	/* the real timer, by system call: setitimer is made virtual */
	const struct itimerval watchdog = { { 0, 0 }, { LOCK_WATCHDOG_S, 0 } };
	int64_t start = real_ns(CLOCK_MONOTONIC);
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
	int clock_form = !strcmp(how, "semclock") || !strcmp(how, "mutex") ||
			 !strcmp(how, "rdclock") || !strcmp(how, "wrclock");
	struct timespec dl = ns_ts(virt_ns(clock_form ? CLOCK_MONOTONIC :
					   CLOCK_REALTIME) + ns);
	sem_t sem;
	int rc;

	if (sem_init(&sem, 0, 0))
		return 2;
	signal(SIGALRM, lock_watchdog);
	if (syscall(SYS_setitimer, ITIMER_REAL, &watchdog, NULL))
		return 2;
	if (how[0] == 'm')
		pthread_mutex_lock(&m);
	else if (how[0] != 's' && (rc = rw_held(&l)))
		goto out;
	if (!strcmp(how, "sem"))
		rc = sem_timedwait(&sem, &dl) ? errno : 0;
	else if (!strcmp(how, "semclock"))
		rc = sem_clockwait(&sem, CLOCK_MONOTONIC, &dl) ? errno : 0;
	else if (!strcmp(how, "mutex"))
		rc = pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &dl);
	else if (!strcmp(how, "mutextimed"))
		rc = pthread_mutex_timedlock(&m, &dl);
	else if (!strcmp(how, "rd"))
		rc = pthread_rwlock_timedrdlock(&l, &dl);
	else if (!strcmp(how, "rdclock"))
		rc = pthread_rwlock_clockrdlock(&l, CLOCK_MONOTONIC, &dl);
	else if (!strcmp(how, "wr"))
		rc = pthread_rwlock_timedwrlock(&l, &dl);
	else
		rc = pthread_rwlock_clockwrlock(&l, CLOCK_MONOTONIC, &dl);
out:
	printf("%s rc=%s wall_ms=%.3f\n", how, rc == ETIMEDOUT ? "ETIMEDOUT" :
	       strerror(rc), wall_ms_since(start));
	return rc != ETIMEDOUT;
}

static int cmd_bench(long n)
{
	struct timespec ts;
	int64_t start = real_ns(CLOCK_MONOTONIC);
	long i;

	for (i = 0; i < n; i++)
		clock_gettime(CLOCK_REALTIME, &ts);
	printf("bench clock_gettime ns_per_call=%.1f\n",
	       (double) (real_ns(CLOCK_MONOTONIC) - start) / n);
	return 0;
}

#ifdef __x86_64__
/* The stat family of binaries built before glibc 2.33, still exported;
 * 1 is x86-64's _STAT_VER. */
#define STAT_VER 1
int __xstat(int ver, const char *path, struct stat *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __fxstat(int ver, int fd, struct stat *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st,
	       int flags);
#endif

static long long st_mtime_ns(const struct stat *st)
{
	return (long long) ts_ns(&st->st_mtim);
}

static long long stx_ns(const struct statx_timestamp *t)
{
	return (long long) t->tv_sec * NS + t->tv_nsec;
}

static int cmd_file(const char *how, const char *path)
{
	struct {
		const char *name;
		long long ns;
	} m[16];
	struct stat st;
	struct stat64 st64;
	struct statx stx, raw;
	long long v0, v1, t;
	int n = 0, i, agree = 0, fd;

	v0 = (long long) virt_ns(CLOCK_REALTIME);
	if (!strcmp(how, "write")) {
		fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, "x", 1) != 1 || close(fd)) {
			perror(path);
			return 2;
		}
	}
	v1 = (long long) virt_ns(CLOCK_REALTIME);
	t = (long long) time(NULL);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		return 2;
	}
#define GET(label, call, val) \
	do { \
		if (call) { \
			perror(label); \
			return 2; \
		} \
		m[n].name = label; \
		m[n++].ns = val; \
	} while (0)
	GET("stat", stat(path, &st), st_mtime_ns(&st));
	GET("lstat", lstat(path, &st), st_mtime_ns(&st));
	GET("fstat", fstat(fd, &st), st_mtime_ns(&st));
	GET("fstatat", fstatat(AT_FDCWD, path, &st, 0), st_mtime_ns(&st));
	GET("stat64", stat64(path, &st64), (long long) ts_ns(&st64.st_mtim));
	GET("lstat64", lstat64(path, &st64),
	    (long long) ts_ns(&st64.st_mtim));
	GET("fstat64", fstat64(fd, &st64), (long long) ts_ns(&st64.st_mtim));
	GET("fstatat64", fstatat64(AT_FDCWD, path, &st64, 0),
	    (long long) ts_ns(&st64.st_mtim));
#ifdef __x86_64__
	GET("xstat", __xstat(STAT_VER, path, &st), st_mtime_ns(&st));
	GET("lxstat", __lxstat(STAT_VER, path, &st), st_mtime_ns(&st));
	GET("fxstat", __fxstat(STAT_VER, fd, &st), st_mtime_ns(&st));
	GET("fxstatat", __fxstatat(STAT_VER, AT_FDCWD, path, &st, 0),
	    st_mtime_ns(&st));
#endif
	GET("statx", statx(AT_FDCWD, path, 0, STATX_BASIC_STATS | STATX_BTIME,
			   &stx), stx_ns(&stx.stx_mtime));
	GET("raw", syscall(SYS_statx, AT_FDCWD, path, 0, STATX_MTIME, &raw),
	    stx_ns(&raw.stx_mtime));
#undef GET
	close(fd);
	printf("%s v0=%lld v1=%lld t=%lld", how, v0, v1, t);
	for (i = 0; i < n; i++) {
		printf(" %s=%lld", m[i].name, m[i].ns);
		if (strcmp(m[i].name, "raw"))
			agree += m[i].ns == m[0].ns;
	}
	printf(" agree=%d/%d atime=%lld ctime=%lld", agree, n - 1,
	       stx_ns(&stx.stx_atime), stx_ns(&stx.stx_ctime));
	if (stx.stx_mask & STATX_BTIME)
		printf(" btime=%lld\n", stx_ns(&stx.stx_btime));
	else
		printf(" btime=-\n");
	return 0;
}

/* dlsym's data pointer to a function pointer: POSIX allows it, C11
 * alone does not, hence the memcpy. */
static int find(void *lib, const char *name, void *fn_ptr)
{
	void *sym = dlsym(lib, name);

	memcpy(fn_ptr, &sym, sizeof(sym));
	if (!sym)
		fprintf(stderr, "probe: %s: %s\n", name, dlerror());
	return !sym;
}

static int cmd_lib(const char *path, int64_t ns)
{
	int (*lib_sleep)(int64_t);
	int (*lib_poll)(int);
	int64_t (*lib_tod)(void);
	int (*lib_sem)(int64_t);
	void *lib = dlopen(path, RTLD_NOW);
	int64_t start, tod;
	struct timespec ts = ns_ts(ns);
	double lib_sleep_ms, lib_poll_ms, lib_sem_ms;

	if (!lib) {
		fprintf(stderr, "probe: %s\n", dlerror());
		return 1;
	}
	if (find(lib, "reallib_nanosleep", &lib_sleep) ||
	    find(lib, "reallib_poll", &lib_poll) ||
	    find(lib, "reallib_gettimeofday_us", &lib_tod) ||
	    find(lib, "reallib_sem_wait", &lib_sem))
		return 1;
	start = real_ns(CLOCK_MONOTONIC);
	lib_sleep(ns);
	lib_sleep_ms = wall_ms_since(start);
	start = real_ns(CLOCK_MONOTONIC);
	lib_poll((int) (ns / 1000000));
	lib_poll_ms = wall_ms_since(start);
	start = real_ns(CLOCK_MONOTONIC);
	lib_sem(ns);
	lib_sem_ms = wall_ms_since(start);
	tod = lib_tod() - real_ns(CLOCK_REALTIME) / 1000;
	printf("lib_sleep_ms=%.3f lib_poll_ms=%.3f lib_sem_ms=%.3f "
	       "lib_tod_ms=%.3f ", lib_sleep_ms, lib_poll_ms, lib_sem_ms,
	       tod / 1e3);
	start = real_ns(CLOCK_MONOTONIC);
	nanosleep(&ts, NULL);
	printf("own_sleep_ms=%.3f ", wall_ms_since(start));
	start = real_ns(CLOCK_MONOTONIC);
	poll(NULL, 0, (int) (ns / 1000000));
	printf("own_poll_ms=%.3f\n", wall_ms_since(start));
	return 0;
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(c, "pair"))
		return cmd_pair();
	if (argc > 2 && (!strcmp(c, "sleep") || !strcmp(c, "usleep") ||
			 !strcmp(c, "nanosleep") || !strcmp(c, "absleep")))
		return cmd_sleep(c, sec_arg(argv[2]));
	if (argc > 2 && (!strcmp(c, "poll") || !strcmp(c, "ppoll") ||
			 !strcmp(c, "select") || !strcmp(c, "epoll")))
		return cmd_wait(c, atoi(argv[2]));
	if (argc > 3 && !strcmp(c, "pollloop"))
		return cmd_pollloop(atoi(argv[2]), strtod(argv[3], NULL));
	if (argc > 3 && !strcmp(c, "cond"))
		return cmd_cond(sec_arg(argv[2]), atoi(argv[3]),
				argc > 4 ? argv[4] : "static");
	if (argc > 2 && !strcmp(c, "together"))
		return cmd_together(sec_arg(argv[2]));
	if (argc > 2 && (!strcmp(c, "timer") || !strcmp(c, "timerabs") ||
			 !strcmp(c, "timerfd")))
		return cmd_timer(c, sec_arg(argv[2]));
	if (argc > 2 && (!strcmp(c, "sem") || !strcmp(c, "semclock") ||
			 !strcmp(c, "mutex") || !strcmp(c, "mutextimed") ||
			 !strcmp(c, "rd") || !strcmp(c, "rdclock") ||
			 !strcmp(c, "wr") || !strcmp(c, "wrclock")))
		return cmd_lock(c, sec_arg(argv[2]));
	if (argc > 2 && (!strcmp(c, "write") || !strcmp(c, "stat")))
		return cmd_file(c, argv[2]);
	if (argc > 3 && !strcmp(c, "lib"))
		return cmd_lib(argv[2], sec_arg(argv[3]));
	if (argc > 2 && !strcmp(c, "bench"))
		return cmd_bench(atol(argv[2]));
	fprintf(stderr, "usage: see the comment at the top of probe.c\n");
	return 1;
}
