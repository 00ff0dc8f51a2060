// SPDX-License-Identifier: GPL-2.0
/*
 * fdinstall: the cost of fd_install() into a shared file descriptor table.
 *
 *   fdinstall [SECONDS] [RUNS] [CALL...]
 *
 * The main thread shares its fd table with a second thread that only
 * sleeps (files->count is 2, so every fd_install() takes the shared-table
 * path), and loops on calls that install fds, each followed by close():
 * pipe2 (two installs), open of /dev/null, dup, and socket(AF_UNIX), or
 * only the CALLs named.  For each call, RUNS runs of SECONDS seconds;
 * prints one summary line per call:
 *
 *   HAZPTR-FDINSTALL call=C runs=N median_ns=X min_ns=X max_ns=X
 *
 * (ns per call+close pair).  stress-ng --dup cannot show this path: its main
 * loop is single-threaded and its table unshared.
 *
 * Built statically by scripts/initramfs.sh into the guest's /usr/bin.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_RUNS	64
#define BATCH		256

static int stop_pipe[2];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Keeps the table shared: blocks until main() ends it. */
static void *sibling(void *arg)
{
	char c;

	(void)arg;
	while (read(stop_pipe[0], &c, 1) < 0)
		;
	return NULL;
}

static int do_pipe(void)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return -1;
	close(p[0]);
	close(p[1]);
	return 0;
}

static int do_open(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int do_dup(void)
{
	int fd = dup(0);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int do_socket(void)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(void);
} calls[] = {
	{ "pipe2", do_pipe },
	{ "open", do_open },
	{ "dup", do_dup },
	{ "socket", do_socket },
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2;
	int runs = argc > 2 ? atoi(argv[2]) : 5;
	unsigned int ncalls = sizeof(calls) / sizeof(calls[0]), c;
	int chosen[sizeof(calls) / sizeof(calls[0])] = { 0 };
	double ns[MAX_RUNS];
	pthread_t t;
	int r, i;

	if (secs <= 0 || runs < 1 || runs > MAX_RUNS) {
		fprintf(stderr, "usage: fdinstall [SECONDS > 0] [RUNS 1..%d] [CALL...]\n",
			MAX_RUNS);
		return 2;
	}
	for (i = 3; i < argc; i++) {
		for (c = 0; c < ncalls && strcmp(argv[i], calls[c].name); c++)
			;
		if (c == ncalls) {
			printf("HAZPTR-FDINSTALL call=%s error=unknown call (known: pipe2 open dup socket)\n",
			       argv[i]);
			return 2;
		}
		chosen[c] = 1;
	}
	if (pipe(stop_pipe) || pthread_create(&t, NULL, sibling, NULL)) {
		perror("fdinstall: setup");
		return 1;
	}
	for (c = 0; c < ncalls; c++) {
		if (argc > 3 && !chosen[c])
			continue;
		for (r = 0; r < runs; r++) {
			double t0 = now_s(), t1;
			long n = 0;

			do {
				for (i = 0; i < BATCH; i++) {
					if (calls[c].fn()) {
						printf("HAZPTR-FDINSTALL call=%s error=%s\n",
						       calls[c].name, strerror(errno));
						return 1;
					}
				}
				n += BATCH;
				t1 = now_s();
			} while (t1 - t0 < secs);
			ns[r] = (t1 - t0) * 1e9 / n;
		}
		qsort(ns, runs, sizeof(ns[0]), cmp_double);
		printf("HAZPTR-FDINSTALL call=%s runs=%d median_ns=%.1f min_ns=%.1f max_ns=%.1f\n",
		       calls[c].name, runs,
		       runs % 2 ? ns[runs / 2] : (ns[runs / 2 - 1] + ns[runs / 2]) / 2,
		       ns[0], ns[runs - 1]);
	}
	close(stop_pipe[1]);
	pthread_join(t, NULL);
	return 0;
}
