// SPDX-License-Identifier: GPL-2.0
/*
 * fdexpand: time expand_fdtable() with a shared file descriptor table.
 *
 *   fdexpand [ROUNDS]
 *
 * Each round forks a child whose second thread shares its fd table (so
 * files->count is 2 and expand_fdtable() must wait for concurrent
 * fd_install()s: a grace period before the hazptr conversion, a hazard
 * pointer scan after it), then grows the table from 64 to 1024 entries with
 * dup2() to the first fd past its end: four expansions a round, of tables
 * small enough that the copy does not hide the wait.  Prints one line per
 * expansion (fdexpand: us=N) and a summary:
 *
 *   HAZPTR-FDEXPAND n=N median_us=X p90_us=X p99_us=X min_us=X max_us=X
 *
 * Built statically by scripts/initramfs.sh into the guest's /usr/bin.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_FD		1024
#define MAX_SAMPLES	4096

static int pipefd[2];

static void *sharer(void *arg)
{
	char c;

	(void)arg;
	/* Blocks until the round ends: keeps the fd table shared. */
	while (read(pipefd[0], &c, 1) < 0)
		;
	return NULL;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* One round, in a child: expansion times (us) on the pipe to the parent. */
static int round_child(int out)
{
	struct rlimit rl = { MAX_FD, MAX_FD };
	pthread_t thr;
	double t0, us;
	int fd;

	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		perror("fdexpand: setrlimit(RLIMIT_NOFILE)");
		return 1;
	}
	if (pipe(pipefd) || pthread_create(&thr, NULL, sharer, NULL)) {
		perror("fdexpand: pipe/pthread_create");
		return 1;
	}
	for (fd = 64; fd < MAX_FD; fd *= 2) {
		t0 = now_us();
		if (dup2(0, fd) != fd) {
			perror("fdexpand: dup2");
			return 1;
		}
		us = now_us() - t0;
		if (write(out, &us, sizeof(us)) != sizeof(us))
			return 1;
	}
	close(pipefd[1]);
	pthread_join(thr, NULL);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static double s[MAX_SAMPLES];
	int rounds = argc > 1 ? atoi(argv[1]) : 25;
	int i, n = 0, status, p[2];
	double us;
	pid_t pid;

	if (argc > 2 || rounds < 1 || rounds > MAX_SAMPLES / 4) {
		fprintf(stderr, "usage: fdexpand [ROUNDS] (1..%d)\n", MAX_SAMPLES / 4);
		return 2;
	}
	for (i = 0; i < rounds; i++) {
		if (pipe(p)) {
			perror("fdexpand: pipe");
			return 1;
		}
		pid = fork();
		if (pid < 0) {
			perror("fdexpand: fork");
			return 1;
		}
		if (!pid) {
			close(p[0]);
			_exit(round_child(p[1]));
		}
		close(p[1]);
		while (n < MAX_SAMPLES && read(p[0], &us, sizeof(us)) == sizeof(us)) {
			printf("fdexpand: us=%.1f\n", us);
			s[n++] = us;
		}
		close(p[0]);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "fdexpand: round %d failed\n", i);
			return 1;
		}
	}
	qsort(s, n, sizeof(s[0]), cmp);
	printf("HAZPTR-FDEXPAND n=%d median_us=%.1f p90_us=%.1f p99_us=%.1f min_us=%.1f max_us=%.1f\n",
	       n, s[n / 2], s[n * 90 / 100], s[n * 99 / 100], s[0], s[n - 1]);
	return 0;
}
