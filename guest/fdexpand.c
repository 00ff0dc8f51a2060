// SPDX-License-Identifier: GPL-2.0
/*
 * fdexpand: time expand_fdtable() with a shared file descriptor table.
 *
 *   fdexpand [ROUNDS] [INSTALLERS]
 *
 * Each round forks a child whose other threads share its fd table (so
 * files->count is 2 or more and expand_fdtable() must wait for concurrent
 * fd_install()s: a grace period before the hazptr conversion, a hazard
 * pointer scan after it), then grows the table from 64 to 1024 entries with
 * dup2() to the first fd past its end: four expansions a round, of tables
 * small enough that the copy does not hide the wait.
 *
 * With INSTALLERS = 0 (the default) one other thread only sleeps.  Otherwise
 * INSTALLERS threads loop on pipe(), a byte written to its write end and
 * read back from its read end, and two close()s, for the whole round: they
 * install fds while the table grows under them, and an install that a
 * resize lost shows up as a failed write or read (EBADF), counted as lost.
 *
 * Prints one line per expansion (fdexpand: us=N) and a summary:
 *
 *   HAZPTR-FDEXPAND n=N median_us=X p90_us=X p99_us=X min_us=X max_us=X
 *                   installs=N lost=N ipis=N
 *
 * (installs: pipe()s checked, two fd_install()s each; ipis: function-call
 * IPIs of the guest during the run, - if /proc/interrupts has no CAL row).  Exits 1 if an
 * install was lost or a call failed.
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

#include "ipis.h"

#define MAX_FD		1024
#define MAX_SAMPLES	4096
#define MAX_INSTALLERS	16

static int pipefd[2];
static volatile int round_over;

/* Per installer thread: pipes checked, and installs found lost. */
struct count {
	long installs;
	long lost;
};

static void *sharer(void *arg)
{
	char c;

	(void)arg;
	/* Blocks until the round ends: keeps the fd table shared. */
	while (read(pipefd[0], &c, 1) < 0)
		;
	return NULL;
}

/* Installs two fds a loop and checks that both work. */
static void *installer(void *arg)
{
	struct count *cnt = arg;
	char c = 'x';
	int p[2];

	while (!round_over) {
		if (pipe(p)) {
			perror("fdexpand: pipe");
			cnt->lost++;
			break;
		}
		if (write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1)
			cnt->lost++;
		close(p[0]);
		close(p[1]);
		cnt->installs++;
	}
	return NULL;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/*
 * One round, in a child: expansion times (us) on the pipe to the parent,
 * then the installers' two counts (as doubles, -1 ending the times).
 */
static int round_child(int out, int ninst)
{
	struct rlimit rl = { MAX_FD, MAX_FD };
	struct count cnt[MAX_INSTALLERS] = { 0 };
	pthread_t thr[MAX_INSTALLERS];
	double t0, us, v[3] = { -1, 0, 0 };
	int fd, i, nthr = ninst ? ninst : 1;

	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		perror("fdexpand: setrlimit(RLIMIT_NOFILE)");
		return 1;
	}
	if (pipe(pipefd)) {
		perror("fdexpand: pipe");
		return 1;
	}
	for (i = 0; i < nthr; i++) {
		if (pthread_create(&thr[i], NULL, ninst ? installer : sharer, &cnt[i])) {
			perror("fdexpand: pthread_create");
			return 1;
		}
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
	round_over = 1;
	close(pipefd[1]);
	for (i = 0; i < nthr; i++) {
		pthread_join(thr[i], NULL);
		v[1] += cnt[i].installs;
		v[2] += cnt[i].lost;
	}
	if (write(out, v, sizeof(v)) != sizeof(v))
		return 1;
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
	int ninst = argc > 2 ? atoi(argv[2]) : 0;
	int i, n = 0, status, p[2];
	long installs = 0, lost = 0;
	long long cal0 = cal_ipis(), cal1;
	double us;
	pid_t pid;

	if (argc > 3 || rounds < 1 || rounds > MAX_SAMPLES / 4 ||
	    ninst < 0 || ninst > MAX_INSTALLERS) {
		fprintf(stderr, "usage: fdexpand [ROUNDS (1..%d)] [INSTALLERS (0..%d)]\n",
			MAX_SAMPLES / 4, MAX_INSTALLERS);
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
			_exit(round_child(p[1], ninst));
		}
		close(p[1]);
		while (n < MAX_SAMPLES && read(p[0], &us, sizeof(us)) == sizeof(us)) {
			if (us < 0) {
				double c[2];

				if (read(p[0], c, sizeof(c)) == sizeof(c)) {
					installs += c[0];
					lost += c[1];
				}
				break;
			}
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
	cal1 = cal_ipis();
	qsort(s, n, sizeof(s[0]), cmp);
	printf("HAZPTR-FDEXPAND n=%d median_us=%.1f p90_us=%.1f p99_us=%.1f min_us=%.1f max_us=%.1f installs=%ld lost=%ld",
	       n, s[n / 2], s[n * 90 / 100], s[n * 99 / 100], s[0], s[n - 1],
	       installs, lost);
	if (cal0 >= 0 && cal1 >= 0)
		printf(" ipis=%lld\n", cal1 - cal0);
	else
		printf(" ipis=-\n");
	if (lost) {
		fprintf(stderr, "fdexpand: %ld installs lost\n", lost);
		return 1;
	}
	return 0;
}
