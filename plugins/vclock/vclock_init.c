/*
 * libtbvclock.so's set-up (vclock_internal.h tells the whole library):
 * the real functions, found once with dlsym; the clock page, mapped once
 * unless the program is excluded; and which call sites keep real time
 * because a library on TB_VCLOCK_REAL_LIBS made them. What every
 * intercepted function asks first, PAGE() and vc_file_page(), is here.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* This file defines the real_* pointers the header declares. */
#define VC_DEFINE_REAL
#include "vclock_internal.h"

static const struct tb_vclock_page *vc_page;
static pthread_once_t vc_once = PTHREAD_ONCE_INIT;
/* Whether file timestamps are mapped too (TB_VCLOCK_FILES is not "0"). */
static int vc_files;
/* TB_VCLOCK_REAL_LIBS, copied (the environment may change later) */
static char vc_real_libs[256];

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

const struct tb_vclock_page *vc_page_for(const void *ra)
{
	const struct tb_vclock_page *p = page();

	if (!p || !vc_real_libs[0] || !real_caller(ra))
		return p;
	return NULL;
}

/* The page if file timestamps are mapped, else NULL. */
const struct tb_vclock_page *vc_file_page(void)
{
	const struct tb_vclock_page *p = page();

	return vc_files ? p : NULL;
}
