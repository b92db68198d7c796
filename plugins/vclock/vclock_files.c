/*
 * File timestamps in virtual time, for libtbvclock.so (vclock_internal.h):
 * what the stat family and statx read, what the utime family sets.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>

#include "vclock_internal.h"

/* ---- file timestamps ---- */

/*
 * The kernel stamps files in real time; what a process reads of them it
 * gets in virtual time, and what it sets explicitly (touch -d, cp -p,
 * tar) is taken as virtual and stored in real time, so both round-trip
 * (tb_vclock_file_virtual/_real in vclock.h give the mapping). "Now"
 * (a NULL times, UTIME_NOW) and UTIME_OMIT pass through untouched. Only
 * valid times that fit in int64 ns are mapped; others are left alone.
 */

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
	const struct tb_vclock_page *p = vc_file_page();
	int rc = real_stat ? real_stat(path, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int lstat(const char *restrict path, struct stat *restrict st)
{
	const struct tb_vclock_page *p = vc_file_page();
	int rc = real_lstat ? real_lstat(path, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int fstat(int fd, struct stat *st)
{
	const struct tb_vclock_page *p = vc_file_page();
	int rc = real_fstat ? real_fstat(fd, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int fstatat(int dirfd, const char *restrict path, struct stat *restrict st,
	    int flags)
{
	const struct tb_vclock_page *p = vc_file_page();
	int rc = real_fstatat ? real_fstatat(dirfd, path, st, flags) :
		 nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int stat64(const char *restrict path, struct stat64 *restrict st)
{
	const struct tb_vclock_page *p = vc_file_page();
	int rc = real_stat64 ? real_stat64(path, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int lstat64(const char *restrict path, struct stat64 *restrict st)
{
	const struct tb_vclock_page *p = vc_file_page();
	int rc = real_lstat64 ? real_lstat64(path, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int fstat64(int fd, struct stat64 *st)
{
	const struct tb_vclock_page *p = vc_file_page();
	int rc = real_fstat64 ? real_fstat64(fd, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int fstatat64(int dirfd, const char *restrict path,
	      struct stat64 *restrict st, int flags)
{
	const struct tb_vclock_page *p = vc_file_page();
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
	const struct tb_vclock_page *p = vc_file_page();
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
	const struct tb_vclock_page *p = vc_file_page();
	int rc = real_xstat ? real_xstat(ver, path, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int __lxstat(int ver, const char *path, struct stat *st)
{
	const struct tb_vclock_page *p = vc_file_page();
	int rc = real_lxstat ? real_lxstat(ver, path, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int __fxstat(int ver, int fd, struct stat *st)
{
	const struct tb_vclock_page *p = vc_file_page();
	int rc = real_fxstat ? real_fxstat(ver, fd, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int __fxstatat(int ver, int dirfd, const char *path, struct stat *st,
	       int flags)
{
	const struct tb_vclock_page *p = vc_file_page();
	int rc = real_fxstatat ? real_fxstatat(ver, dirfd, path, st, flags) :
		 nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int __xstat64(int ver, const char *path, struct stat64 *st)
{
	const struct tb_vclock_page *p = vc_file_page();
	int rc = real_xstat64 ? real_xstat64(ver, path, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int __lxstat64(int ver, const char *path, struct stat64 *st)
{
	const struct tb_vclock_page *p = vc_file_page();
	int rc = real_lxstat64 ? real_lxstat64(ver, path, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int __fxstat64(int ver, int fd, struct stat64 *st)
{
	const struct tb_vclock_page *p = vc_file_page();
	int rc = real_fxstat64 ? real_fxstat64(ver, fd, st) : nosys();

	if (!rc && p)
		STAT_TO_VIRTUAL(p, st);
	return rc;
}

int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st,
		 int flags)
{
	const struct tb_vclock_page *p = vc_file_page();
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
	const struct tb_vclock_page *p = vc_file_page();
	struct timespec real[2];

	if (!real_utimensat)
		return nosys();
	return real_utimensat(dirfd, path, times_to_real(p, times, real),
			      flags);
}

int futimens(int fd, const struct timespec times[2])
{
	const struct tb_vclock_page *p = vc_file_page();
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
	const struct tb_vclock_page *p = vc_file_page();
	struct timespec ts[2], real[2];

	if (!p || !tv || tv_to_ts(tv, ts) || !real_utimensat)
		return real_utimes ? real_utimes(path, tv) : nosys();
	return real_utimensat(AT_FDCWD, path, times_to_real(p, ts, real), 0);
}

int lutimes(const char *path, const struct timeval tv[2])
{
	const struct tb_vclock_page *p = vc_file_page();
	struct timespec ts[2], real[2];

	if (!p || !tv || tv_to_ts(tv, ts) || !real_utimensat)
		return real_lutimes ? real_lutimes(path, tv) : nosys();
	return real_utimensat(AT_FDCWD, path, times_to_real(p, ts, real),
			      AT_SYMLINK_NOFOLLOW);
}

int futimes(int fd, const struct timeval tv[2])
{
	const struct tb_vclock_page *p = vc_file_page();
	struct timespec ts[2], real[2];

	if (!p || !tv || tv_to_ts(tv, ts) || !real_futimens)
		return real_futimes ? real_futimes(fd, tv) : nosys();
	return real_futimens(fd, times_to_real(p, ts, real));
}

int utime(const char *path, const struct utimbuf *times)
{
	const struct tb_vclock_page *p = vc_file_page();
	struct timespec ts[2], real[2];

	if (!p || !times || !real_utimensat)
		return real_utime ? real_utime(path, times) : nosys();
	ts[0].tv_sec = times->actime;
	ts[0].tv_nsec = 0;
	ts[1].tv_sec = times->modtime;
	ts[1].tv_nsec = 0;
	return real_utimensat(AT_FDCWD, path, times_to_real(p, ts, real), 0);
}
