/*
 * tb-vclock: writes and reads the testbed's clock page (vclock.h).
 *
 *   tb-vclock init FILE --rate R [--virtual-start EPOCH_S] [--check-ms MS]
 *                       [--force]
 *   tb-vclock jump FILE (--to EPOCH_S | --by S)
 *   tb-vclock set-rate FILE R
 *   tb-vclock now FILE
 *   tb-vclock sleep-until FILE EPOCH_S
 *
 * init anchors virtual time at now (or at --virtual-start) and refuses to
 * touch a page that is already a clock unless --force: re-anchoring a
 * running cluster could move its time backwards. jump only moves forward.
 * set-rate re-anchors at now, so virtual time is continuous across it.
 * sleep-until returns once the page's virtual time reaches EPOCH_S: a
 * deadline, not a length, so a jump made while it starts up cannot make
 * it end late (a replayed job's end, workloads/replay/slurm_io.py).
 * Writers serialise on flock(2) and publish under the page's seqlock;
 * every change is made in place (readers map the file: it is never
 * truncated or replaced).
 *
 * The anchor is made of real clock readings, taken by system call: a
 * tb-vclock started with the preload library in its environment (a
 * container's default) still reads real time.
 */
#define _GNU_SOURCE /* flock */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "vclock.h"

#define NS TB_VCLOCK_NS

static void usage(void)
{
	fprintf(stderr,
		"usage: tb-vclock init FILE --rate R [--virtual-start EPOCH_S]"
		" [--check-ms MS] [--force]\n"
		"       tb-vclock jump FILE (--to EPOCH_S | --by S)\n"
		"       tb-vclock set-rate FILE R\n"
		"       tb-vclock now FILE\n"
		"       tb-vclock sleep-until FILE EPOCH_S\n");
}

/* The real clocks, by system call: right even if someone preloaded the
 * clock library into this program by mistake. */
static int64_t real_ns(clockid_t id)
{
	struct timespec ts;

	if (syscall(SYS_clock_gettime, id, &ts)) {
		perror("tb-vclock: clock_gettime");
		exit(2);
	}
	return (int64_t) ts.tv_sec * NS + ts.tv_nsec;
}

static int parse_double(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || !isfinite(*out) ? -1 : 0;
}

/* Seconds (possibly fractional) as ns, -1 if not a number or too big. */
static int parse_seconds(const char *s, int64_t *ns)
{
	double x;

	if (parse_double(s, &x) || x > 9.2e9 || x < -9.2e9)
		return -1;
	*ns = (int64_t) (x * 1e9);
	return 0;
}

struct clock_file {
	int fd;
	struct tb_vclock_page *page;
};

/* Opens (creating with create) and maps FILE for writing, under an
 * exclusive flock that lasts until close_clock. */
static int open_clock(const char *file, int create, struct clock_file *cf)
{
	struct stat st;
	void *map;

	cf->fd = open(file, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0644);
	if (cf->fd < 0) {
		fprintf(stderr, "tb-vclock: %s: %s\n", file, strerror(errno));
		return -1;
	}
	if (flock(cf->fd, LOCK_EX) || fstat(cf->fd, &st)) {
		fprintf(stderr, "tb-vclock: %s: %s\n", file, strerror(errno));
		close(cf->fd);
		return -1;
	}
	if (st.st_size < TB_VCLOCK_FILE_SIZE) {
		/* growing only: a reader's mapping never loses its end */
		if (!create || ftruncate(cf->fd, TB_VCLOCK_FILE_SIZE)) {
			fprintf(stderr, "tb-vclock: %s: %s\n", file,
				create ? strerror(errno) :
				"not a clock page (too short)");
			close(cf->fd);
			return -1;
		}
	}
	map = mmap(NULL, TB_VCLOCK_FILE_SIZE, PROT_READ | PROT_WRITE,
		   MAP_SHARED, cf->fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "tb-vclock: %s: %s\n", file, strerror(errno));
		close(cf->fd);
		return -1;
	}
	cf->page = map;
	return 0;
}

static int close_clock(struct clock_file *cf)
{
	int rc = msync(cf->page, TB_VCLOCK_FILE_SIZE, MS_SYNC);

	munmap(cf->page, TB_VCLOCK_FILE_SIZE);
	/* closing drops the flock */
	if (close(cf->fd))
		rc = -1;
	return rc;
}

/* Publishes a new anchor: readers retry while seq is odd. */
static void publish(struct tb_vclock_page *p, const struct tb_vclock_snap *s)
{
	uint32_t seq = atomic_load_explicit(&p->seq, memory_order_relaxed);

	/* An odd count left by a writer that died mid-way: take it as
	 * ours. */
	if (!(seq & 1))
		atomic_store_explicit(&p->seq, ++seq, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&p->anchor_mono, s->anchor_mono,
			      memory_order_relaxed);
	atomic_store_explicit(&p->anchor_wall, s->anchor_wall,
			      memory_order_relaxed);
	atomic_store_explicit(&p->anchor_virtual, s->anchor_virtual,
			      memory_order_relaxed);
	atomic_store_explicit(&p->mono_offset, s->mono_offset,
			      memory_order_relaxed);
	atomic_store_explicit(&p->rate_bits, tb_vclock_rate_bits(s->rate),
			      memory_order_relaxed);
	atomic_store_explicit(&p->check_ns, s->check_ns,
			      memory_order_relaxed);
	atomic_store_explicit(&p->seq, seq + 1, memory_order_release);
}

/* The anchor moved to now, virtual time unchanged: the base of jump and
 * set-rate. */
static void reanchor(const struct tb_vclock_page *p, struct tb_vclock_snap *s)
{
	int64_t wall = real_ns(CLOCK_REALTIME);
	int64_t mono = real_ns(CLOCK_MONOTONIC);

	tb_vclock_read(p, s);
	s->anchor_virtual = tb_vclock_virtual(s, mono);
	s->anchor_mono = mono;
	s->anchor_wall = wall;
}

static void print_now(const char *file, const struct tb_vclock_snap *s,
		      int64_t virt)
{
	printf("%s: virtual %lld.%09lld rate %g (wall at anchor %lld.%09lld,"
	       " virtual at anchor %lld.%09lld, check %lld ms)\n", file,
	       (long long) (virt / NS), (long long) (virt % NS), s->rate,
	       (long long) (s->anchor_wall / NS),
	       (long long) (s->anchor_wall % NS),
	       (long long) (s->anchor_virtual / NS),
	       (long long) (s->anchor_virtual % NS),
	       (long long) (s->check_ns / 1000000));
}

static int cmd_init(int argc, char **argv)
{
	const char *file = argv[0];
	struct tb_vclock_snap s = { .rate = 0,
				    .check_ns = TB_VCLOCK_CHECK_NS_DEFAULT };
	struct clock_file cf;
	int64_t start = -1, check;
	int force = 0, i;

	for (i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--force")) {
			force = 1;
		} else if (!strcmp(argv[i], "--rate") && v) {
			if (parse_double(v, &s.rate) ||
			    !tb_vclock_rate_ok(s.rate))
				goto bad;
			i++;
		} else if (!strcmp(argv[i], "--virtual-start") && v) {
			if (parse_seconds(v, &start) || start < 0)
				goto bad;
			i++;
		} else if (!strcmp(argv[i], "--check-ms") && v) {
			/* milliseconds, parsed as seconds: 1e9 too many */
			if (parse_seconds(v, &check) || check < 1000)
				goto bad;
			s.check_ns = check / 1000;
			i++;
		} else {
			goto bad;
		}
	}
	if (!tb_vclock_rate_ok(s.rate))
		goto bad;
	if (open_clock(file, 1, &cf))
		return 1;
	if (!tb_vclock_page_ok(cf.page) && !force) {
		fprintf(stderr, "tb-vclock: %s is already a clock; use jump or"
			" set-rate, or init --force for a cluster that is not"
			" running\n", file);
		close_clock(&cf);
		return 1;
	}
	s.anchor_wall = real_ns(CLOCK_REALTIME);
	s.anchor_mono = real_ns(CLOCK_MONOTONIC);
	s.anchor_virtual = start >= 0 ? start : s.anchor_wall;
	/* virtual monotonic starts where the real one is */
	s.mono_offset = s.anchor_virtual - s.anchor_mono;
	/* header last among the first writes: a reader mapping the file
	 * now sees either no clock or a whole one */
	publish(cf.page, &s);
	cf.page->version = TB_VCLOCK_VERSION;
	atomic_thread_fence(memory_order_release);
	cf.page->magic = TB_VCLOCK_MAGIC;
	print_now(file, &s, s.anchor_virtual);
	return close_clock(&cf) ? 1 : 0;
bad:
	usage();
	return 2;
}

/* Opens an existing clock for a change; -1 with a message if it is not. */
static int open_existing(const char *file, struct clock_file *cf)
{
	if (open_clock(file, 0, cf))
		return -1;
	if (tb_vclock_page_ok(cf->page)) {
		fprintf(stderr, "tb-vclock: %s: not a clock page\n", file);
		close_clock(cf);
		return -1;
	}
	return 0;
}

static int cmd_jump(int argc, char **argv)
{
	const char *file = argv[0];
	struct tb_vclock_snap s;
	struct clock_file cf;
	int64_t arg, target;

	if (argc != 3 || parse_seconds(argv[2], &arg) ||
	    (strcmp(argv[1], "--to") && strcmp(argv[1], "--by"))) {
		usage();
		return 2;
	}
	if (open_existing(file, &cf))
		return 1;
	reanchor(cf.page, &s);
	target = strcmp(argv[1], "--to") ? s.anchor_virtual + arg : arg;
	if (target < s.anchor_virtual) {
		fprintf(stderr, "tb-vclock: %s: virtual time is %lld.%09lld;"
			" it never goes backwards\n", file,
			(long long) (s.anchor_virtual / NS),
			(long long) (s.anchor_virtual % NS));
		close_clock(&cf);
		return 1;
	}
	s.anchor_virtual = target;
	publish(cf.page, &s);
	print_now(file, &s, target);
	return close_clock(&cf) ? 1 : 0;
}

static int cmd_set_rate(int argc, char **argv)
{
	const char *file = argv[0];
	struct tb_vclock_snap s;
	struct clock_file cf;
	double rate;

	if (argc != 2 || parse_double(argv[1], &rate) ||
	    !tb_vclock_rate_ok(rate)) {
		usage();
		return 2;
	}
	if (open_existing(file, &cf))
		return 1;
	reanchor(cf.page, &s);
	s.rate = rate;
	publish(cf.page, &s);
	print_now(file, &s, s.anchor_virtual);
	return close_clock(&cf) ? 1 : 0;
}

/* Maps FILE read-only; NULL with a message if it is not a clock page. */
static const struct tb_vclock_page *map_page(const char *file)
{
	void *map;
	struct stat st;
	int fd;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || st.st_size < TB_VCLOCK_FILE_SIZE) {
		fprintf(stderr, "tb-vclock: %s: %s\n", file,
			fd < 0 ? strerror(errno) : "not a clock page");
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	map = mmap(NULL, TB_VCLOCK_FILE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED || tb_vclock_page_ok(map)) {
		fprintf(stderr, "tb-vclock: %s: not a clock page\n", file);
		if (map != MAP_FAILED)
			munmap(map, TB_VCLOCK_FILE_SIZE);
		return NULL;
	}
	return map;
}

static int cmd_now(int argc, char **argv)
{
	struct tb_vclock_snap s;
	const struct tb_vclock_page *p;

	if (argc != 1) {
		usage();
		return 2;
	}
	p = map_page(argv[0]);
	if (!p)
		return 1;
	tb_vclock_read(p, &s);
	print_now(argv[0], &s, tb_vclock_virtual(&s,
						  real_ns(CLOCK_MONOTONIC)));
	munmap((void *) p, TB_VCLOCK_FILE_SIZE);
	return 0;
}

/*
 * Real slices of at most the page's check_ns, as the preload's sleeps
 * (vclock_sleep.c), re-reading the page after each, so that a jump or a
 * new rate reaches it within one slice. The sleeps are system calls: the
 * preload, if in this program's environment, would scale them again.
 */
static int cmd_sleep_until(int argc, char **argv)
{
	struct tb_vclock_snap s;
	const struct tb_vclock_page *p;
	int64_t target, left, real;

	if (argc != 2 || parse_seconds(argv[1], &target)) {
		usage();
		return 2;
	}
	p = map_page(argv[0]);
	if (!p)
		return 1;
	for (;;) {
		struct timespec ts;

		tb_vclock_read(p, &s);
		left = tb_vclock_add(target, -tb_vclock_virtual(
				&s, real_ns(CLOCK_MONOTONIC)));
		if (left <= 0)
			break;
		real = tb_vclock_real_wait(left, s.rate);
		if (real > s.check_ns)
			real = s.check_ns;
		ts.tv_sec = real / NS;
		ts.tv_nsec = real % NS;
		if (syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts,
			    NULL) && errno != EINTR) {
			perror("tb-vclock: clock_nanosleep");
			munmap((void *) p, TB_VCLOCK_FILE_SIZE);
			return 1;
		}
	}
	munmap((void *) p, TB_VCLOCK_FILE_SIZE);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "init"))
		return cmd_init(argc - 2, argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "jump"))
		return cmd_jump(argc - 2, argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "set-rate"))
		return cmd_set_rate(argc - 2, argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "now"))
		return cmd_now(argc - 2, argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "sleep-until"))
		return cmd_sleep_until(argc - 2, argv + 2);
	usage();
	return 2;
}
