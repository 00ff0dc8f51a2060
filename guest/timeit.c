// SPDX-License-Identifier: GPL-2.0
/*
 * timeit: time each run of a command, and count the IPIs it causes.
 *
 *   timeit NAME RUNS COMMAND [ARG...]
 *
 * Runs COMMAND RUNS times, one after the other, with I=0..RUNS-1 in its
 * environment (so that `sh -c '... $I ...'` can vary a run), and prints one
 * summary line:
 *
 *   HAZPTR-TIMEIT name=NAME runs=N median_us=X p90_us=X min_us=X max_us=X
 *                 cal_per_run=X
 *
 * cal_per_run is the growth of the "CAL" (function call interrupts) row of
 * /proc/interrupts, summed over the CPUs, divided by RUNS: the IPIs that
 * smp_call_function() and friends sent meanwhile, by anyone.  Exits 1, with
 * an HAZPTR-TIMEIT error= line, if a run fails.
 *
 * Built statically by scripts/initramfs.sh into the guest's /usr/bin.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ipis.h"

#define MAX_RUNS	10000

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int run_once(int i, char **argv)
{
	char val[16];
	int status;
	pid_t pid;

	snprintf(val, sizeof(val), "%d", i);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		setenv("I", val, 1);
		execvp(argv[0], argv);
		fprintf(stderr, "timeit: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int main(int argc, char **argv)
{
	static double us[MAX_RUNS];
	long long cal0, cal1;
	const char *name;
	double median;
	int runs, i, rc;
	char *end;

	if (argc < 4) {
		fprintf(stderr, "usage: timeit NAME RUNS COMMAND [ARG...]\n");
		return 2;
	}
	name = argv[1];
	runs = strtol(argv[2], &end, 10);
	if (*end || runs < 1 || runs > MAX_RUNS) {
		fprintf(stderr, "timeit: RUNS must be 1..%d, not '%s'\n",
			MAX_RUNS, argv[2]);
		return 2;
	}
	cal0 = cal_ipis();
	for (i = 0; i < runs; i++) {
		double t0 = now_us();

		rc = run_once(i, argv + 3);
		us[i] = now_us() - t0;
		if (rc) {
			printf("HAZPTR-TIMEIT name=%s error=run%d-rc%d\n",
			       name, i, rc);
			return 1;
		}
	}
	cal1 = cal_ipis();
	qsort(us, runs, sizeof(us[0]), cmp_double);
	median = runs % 2 ? us[runs / 2] : (us[runs / 2 - 1] + us[runs / 2]) / 2;
	printf("HAZPTR-TIMEIT name=%s runs=%d median_us=%.0f p90_us=%.0f min_us=%.0f max_us=%.0f",
	       name, runs, median, us[(runs * 9) / 10], us[0], us[runs - 1]);
	if (cal0 >= 0 && cal1 >= 0)
		printf(" cal_per_run=%.1f\n", (double)(cal1 - cal0) / runs);
	else
		printf(" cal_per_run=-\n");
	return 0;
}
