// SPDX-License-Identifier: GPL-2.0
/*
 * fdgrow: what growing a shared file descriptor table costs a threaded
 * program, and what a loop of such growths costs everyone else.
 *
 *   fdgrow open ROUNDS MAXFD
 *
 * Each round forks a child that starts a sleeping thread (its table is now
 * shared) and then dup()s fd 0 until MAXFD fds are open, timing the whole
 * run; it reports the time taken to reach each power of two from 64 on.
 * Prints, over the rounds, the median time to reach each of them:
 *
 *   HAZPTR-FDGROW rounds=R n64_us=X n128_us=X ... nMAXFD_us=X
 *
 *   fdgrow storm SECONDS HIGHFD
 *
 * Pinned to CPU 0, with a CPU-bound bystander process spinning in user
 * space pinned to the last CPU, loops for SECONDS: fork a child, which
 * starts a sleeping thread and dup2()s fd 0 to HIGHFD (one resize of a
 * fresh shared table), then exits.  Any unprivileged process can run this
 * loop.  Prints the resizes, and the function-call IPIs each CPU took
 * during the loop, per second and per resize:
 *
 *   HAZPTR-FDSTORM secs=S resizes=N per_s=X ipis_per_resize=X
 *                  ipis_per_s=X cpu0=A/B cpu1=A/B ...
 *
 * (cpuN=A/B: IPIs per resize/per second on CPU N).
 *
 *   fdgrow mem PROCS
 *
 * Starts PROCS processes, each with a second, sleeping thread (a shared
 * table with its 3 standard fds), and prints the unreclaimable slab
 * memory they added, per process:
 *
 *   HAZPTR-FDMEM procs=N sunreclaim_per_proc=BYTES
 *
 * Exits 1 if a call fails.
 *
 * Built statically by scripts/initramfs.sh into the guest's /usr/bin.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ipis.h"

#define MAX_ROUNDS	100
#define MAX_STEPS	20

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return arg;
}

static int share_table(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, sleeper, NULL)) {
		perror("fdgrow: pthread_create");
		return -1;
	}
	return 0;
}

static int raise_nofile(int n)
{
	struct rlimit rl = { n, n };

	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		perror("fdgrow: setrlimit(RLIMIT_NOFILE)");
		return -1;
	}
	return 0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One round: the times to reach 64, 128, ... fds, written to @out. */
static int open_child(int out, int maxfd)
{
	double t0, us;
	int fd, next = 64;

	if (share_table())
		return 1;
	t0 = now_us();
	for (;;) {
		fd = dup(0);
		if (fd < 0) {
			perror("fdgrow: dup");
			return 1;
		}
		if (fd + 1 < next)
			continue;
		us = now_us() - t0;
		if (write(out, &us, sizeof(us)) != sizeof(us))
			return 1;
		if (next >= maxfd)
			return 0;
		next *= 2;
	}
}

static int do_open(int rounds, int maxfd)
{
	static double t[MAX_STEPS][MAX_ROUNDS];
	int i, j, steps = 0, status, p[2];
	pid_t pid;
	double us;

	if (raise_nofile(maxfd + 16))
		return 1;
	for (i = 0; i < rounds; i++) {
		if (pipe(p)) {
			perror("fdgrow: pipe");
			return 1;
		}
		pid = fork();
		if (pid < 0) {
			perror("fdgrow: fork");
			return 1;
		}
		if (!pid) {
			close(p[0]);
			_exit(open_child(p[1], maxfd));
		}
		close(p[1]);
		for (j = 0; j < MAX_STEPS && read(p[0], &us, sizeof(us)) == sizeof(us); j++)
			t[j][i] = us;
		close(p[0]);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) || (i && j != steps)) {
			fprintf(stderr, "fdgrow: round %d failed\n", i);
			return 1;
		}
		steps = j;
	}
	printf("HAZPTR-FDGROW rounds=%d", rounds);
	for (j = 0; j < steps; j++) {
		qsort(t[j], rounds, sizeof(double), cmp);
		printf(" n%d_us=%.1f", 64 << j, t[j][rounds / 2]);
	}
	printf("\n");
	return 0;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("fdgrow: sched_setaffinity");
		return -1;
	}
	return 0;
}

static int do_storm(int secs, int highfd)
{
	long long c0[MAX_CPUS], c1[MAX_CPUS];
	int ncpu = cal_ipis_cpu(c0), i, status;
	pid_t bystander, pid;
	long resizes = 0;
	double t0, t, sum = 0;

	if (ncpu < 1) {
		fprintf(stderr, "fdgrow: no CAL row in /proc/interrupts\n");
		return 1;
	}
	if (raise_nofile(highfd + 1))
		return 1;
	bystander = fork();
	if (bystander < 0) {
		perror("fdgrow: fork");
		return 1;
	}
	if (!bystander) {
		if (pin(ncpu - 1))
			_exit(1);
		for (;;)
			__asm__ volatile("" ::: "memory");
	}
	if (pin(0))
		goto fail;
	cal_ipis_cpu(c0);
	t0 = now_us();
	do {
		pid = fork();
		if (pid < 0) {
			perror("fdgrow: fork");
			goto fail;
		}
		if (!pid)
			_exit(share_table() || dup2(0, highfd) != highfd);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "fdgrow: storm child failed\n");
			goto fail;
		}
		resizes++;
		t = now_us() - t0;
	} while (t < secs * 1e6);
	cal_ipis_cpu(c1);
	kill(bystander, SIGKILL);
	waitpid(bystander, NULL, 0);
	for (i = 0; i < ncpu; i++)
		sum += c1[i] - c0[i];
	printf("HAZPTR-FDSTORM secs=%.1f resizes=%ld per_s=%.1f ipis_per_resize=%.2f ipis_per_s=%.1f",
	       t / 1e6, resizes, resizes / (t / 1e6), sum / resizes, sum / (t / 1e6));
	for (i = 0; i < ncpu; i++)
		printf(" cpu%d=%.2f/%.1f", i, (double)(c1[i] - c0[i]) / resizes,
		       (c1[i] - c0[i]) / (t / 1e6));
	printf("\n");
	return 0;
fail:
	kill(bystander, SIGKILL);
	return 1;
}

/* SUnreclaim of /proc/meminfo, in bytes; -1 if missing. */
static long long sunreclaim(void)
{
	char line[256];
	long long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SUnreclaim: %lld kB", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb * 1024;
}

static int do_mem(int procs)
{
	static pid_t pid[4096];
	long long m0, m1;
	int i, n, p[2], ret = 1;
	char c;

	if (pipe(p)) {
		perror("fdgrow: pipe");
		return 1;
	}
	m0 = sunreclaim();
	for (n = 0; n < procs; n++) {
		pid[n] = fork();
		if (pid[n] < 0) {
			perror("fdgrow: fork");
			goto out;
		}
		if (!pid[n]) {
			close(p[0]);
			if (share_table() || write(p[1], "x", 1) != 1)
				_exit(1);
			for (;;)
				pause();
		}
		if (read(p[0], &c, 1) != 1) {
			fprintf(stderr, "fdgrow: process %d did not start\n", n);
			n++;
			goto out;
		}
	}
	/* Let the RCU-freed objects of the forks go. */
	sleep(2);
	m1 = sunreclaim();
	if (m0 < 0 || m1 < 0) {
		fprintf(stderr, "fdgrow: no SUnreclaim in /proc/meminfo\n");
		goto out;
	}
	printf("HAZPTR-FDMEM procs=%d sunreclaim_per_proc=%lld\n", procs, (m1 - m0) / procs);
	ret = 0;
out:
	for (i = 0; i < n; i++) {
		kill(pid[i], SIGKILL);
		waitpid(pid[i], NULL, 0);
	}
	return ret;
}

int main(int argc, char **argv)
{
	int a = argc > 2 ? atoi(argv[2]) : 0, b = argc > 3 ? atoi(argv[3]) : 0;

	if (argc == 4 && !strcmp(argv[1], "open") && a >= 1 && a <= MAX_ROUNDS &&
	    b >= 64 && b <= (64 << (MAX_STEPS - 1)) && !(b & (b - 1)))
		return do_open(a, b);
	if (argc == 4 && !strcmp(argv[1], "storm") && a >= 1 && a <= 3600 &&
	    b >= 64 && b <= 1 << 20)
		return do_storm(a, b);
	if (argc == 3 && !strcmp(argv[1], "mem") && a >= 1 && a <= 4096)
		return do_mem(a);
	fprintf(stderr, "usage: fdgrow open ROUNDS (1..%d) MAXFD (a power of two, 64..%d)\n"
		"       fdgrow storm SECONDS (1..3600) HIGHFD (64..%d)\n"
		"       fdgrow mem PROCS (1..4096)\n",
		MAX_ROUNDS, 64 << (MAX_STEPS - 1), 1 << 20);
	return 2;
}
