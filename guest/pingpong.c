// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong: the cost of a context switch, through two pipes.
 *
 *   pingpong [SECONDS] [RUNS]
 *
 * A parent and its child, both pinned to CPU 0, pass one byte back and
 * forth over two pipes: every read blocks, so every pass is a context
 * switch on that CPU (the scheduler hook of the hazard pointer series runs
 * in each).  RUNS runs of SECONDS seconds each; prints one line per run and
 * a summary of ns per switch:
 *
 *   HAZPTR-PINGPONG runs=N secs=S median_ns=X min_ns=X max_ns=X switches=N
 *
 * Built statically by scripts/initramfs.sh into the guest's /usr/bin.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_RUNS	64

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("pingpong: sched_setaffinity");
		exit(1);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One run: ns per context switch. */
static double one_run(double secs, long *switches)
{
	int to_child[2], to_parent[2];
	long passes = 0;
	double t0, t;
	pid_t pid;
	char c = 0;

	if (pipe(to_child) || pipe(to_parent)) {
		perror("pingpong: pipe");
		exit(1);
	}
	pid = fork();
	if (pid < 0) {
		perror("pingpong: fork");
		exit(1);
	}
	if (!pid) {
		/* Echo every byte back until the parent closes its end. */
		close(to_child[1]);
		close(to_parent[0]);
		while (read(to_child[0], &c, 1) == 1)
			if (write(to_parent[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	close(to_child[0]);
	close(to_parent[1]);
	t0 = now_s();
	do {
		/* Check the clock every 1024 round trips only. */
		for (int i = 0; i < 1024; i++) {
			if (write(to_child[1], &c, 1) != 1 ||
			    read(to_parent[0], &c, 1) != 1) {
				perror("pingpong: pipe I/O");
				exit(1);
			}
		}
		passes += 2048;
		t = now_s();
	} while (t - t0 < secs);
	close(to_child[1]);	/* The child reads EOF and exits. */
	waitpid(pid, NULL, 0);
	close(to_parent[0]);
	*switches += passes;
	return (t - t0) * 1e9 / passes;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2;
	int runs = argc > 2 ? atoi(argv[2]) : 5;
	double ns[MAX_RUNS];
	long switches = 0;
	int i;

	if (secs <= 0 || runs < 1 || runs > MAX_RUNS) {
		fprintf(stderr, "pingpong: usage: pingpong [SECONDS > 0] [RUNS 1..%d]\n",
			MAX_RUNS);
		printf("HAZPTR-PINGPONG error=usage\n");
		return 2;
	}
	pin_cpu0();	/* The child inherits it. */
	for (i = 0; i < runs; i++) {
		ns[i] = one_run(secs, &switches);
		printf("pingpong: run %d ns_per_switch=%.1f\n", i, ns[i]);
	}
	qsort(ns, runs, sizeof(ns[0]), cmp_double);
	printf("HAZPTR-PINGPONG runs=%d secs=%g median_ns=%.1f min_ns=%.1f max_ns=%.1f switches=%ld\n",
	       runs, secs, ns[runs / 2], ns[0], ns[runs - 1], switches);
	return 0;
}
